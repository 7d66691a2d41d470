"""``tierlock tiers``: the declared tiers as a table or as JSON."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from tierlock.errors import EXIT_OK

if TYPE_CHECKING:
    from tierlock.cli import Context
    from tierlock.tiers import Project

HELP = "list the declared tiers, their roots, lockfiles and test globs"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    del parser  # no options beyond the global ones


def describe(project: Project) -> dict[str, Any]:
    """The tier table as data (the --json document)."""
    return {
        "project": str(project.root),
        "pyproject": str(project.pyproject),
        "name": project.name,
        "configured": project.configured,
        "lock_dir": project.relpath(project.lock_dir),
        "format": project.format,
        "backend": project.backend,
        "ci_require": list(project.ci_require),
        "tiers": [
            {
                "name": t.name,
                "source": t.source,
                "roots": [str(r) for r in t.requirements],
                "root_count": len(t.requirements),
                "probe": list(t.probe),
                "import_roots": {k: list(v) for k, v in t.import_roots.items()},
                "layered_on": t.layered_on,
                "include_groups": list(t.include_groups),
                "lockfile": project.relpath(t.lockfile),
                "lockfile_exists": t.lockfile.is_file(),
                "ci_required": t.ci_required,
                "tests": list(t.tests),
            }
            for t in project.tiers.values()
        ],
    }


def run(args: argparse.Namespace, ctx: Context) -> int:
    project = ctx.project()
    data = describe(project)
    if ctx.ui.json_mode:
        ctx.ui.emit_json(data)
        return EXIT_OK
    rows = [
        [
            t["name"],
            t["source"],
            str(t["root_count"]),
            t["layered_on"] or "-",
            t["lockfile"] + ("" if t["lockfile_exists"] else " (missing)"),
            "yes" if t["ci_required"] else "no",
            ", ".join(t["tests"]) or "-",
        ]
        for t in data["tiers"]
    ]
    title = f"{project.name or project.root.name}: {len(rows)} tier(s) in {project.relpath(project.pyproject)}"
    ctx.ui.table(title, ["tier", "source", "roots", "layered-on", "lockfile", "ci", "tests"], rows)
    if not project.configured:
        ctx.ui.line("no [tool.tierlock] table yet: only the base tier; to propose tiers, run: tierlock init")
    return EXIT_OK
