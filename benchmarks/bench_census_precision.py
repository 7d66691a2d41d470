"""Precision and recall of the census on real projects, each finding checked by running its tests without the tier.

For each project (a checkout fetched at its pinned commit, copied to a
temporary folder; nothing of it is kept or committed here):

1. ``tierlock init --no-groups``, then ``tierlock census``: the findings;
2. **precision**: each finding's tests (the file, or the tests its remedy
   marks) run in an environment where the tier's import roots cannot be
   imported (a meta-path blocker; ``find_spec`` answers None for them too);
   the finding is true when a test errors or skips naming one of those roots;
3. **recall**: every test file that a grep finds importing (or
   ``importorskip``-ing) a tier's root must be gated by a tier that provides
   it, or be a finding; the others are run with that root blocked, and one
   that then shows the root is *missed*;
4. **the census's own remedies** are applied as printed (a glob added to the
   tier's ``tests``, or ``@pytest.mark.tier(...)`` above each test named),
   the census runs again, and what remains is checked as in 2.

Arguments: ``NAME=CHECKOUT=PYTHON`` per project, where PYTHON is an
interpreter whose environment has the project (editable), its test tools and
every tier that installs there (the benchmark blocks one at a time). Example::

    python benchmarks/bench_census_precision.py \\
        pyjwt=/tmp/pyjwt=/tmp/envs/pyjwt/bin/python httpx=/tmp/httpx=/tmp/envs/httpx/bin/python

The environments are made with ``uv venv`` and ``uv pip install -e CHECKOUT
...`` (the packages are listed in docs/benchmarks.md). Every subprocess runs
with ``PIP_CONFIG_FILE=/dev/null`` and without ``PIP_*`` / ``UV_*`` variables.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

#: The commits measured (docs/benchmarks.md records the figures for these).
PINNED = {
    "filesystem_spec": "669de5e157cd3ce3f9bf71c7bceb7bb31c8c7a55",
    "narwhals": "7880b36c45051dd6dea3c1b878bdc2f913d8efec",
    "pyjwt": "dcc27a9d3182a2349c30b160758785c6ce7a6508",
    "httpx": "ae1b9f66238f75ced3ced5e4485408435de10768",
}

BLOCKER = """
import importlib.abc, importlib.util, os, sys
_BLOCK = set(filter(None, os.environ.get("CENSUS_BENCH_BLOCK", "").split(",")))
if _BLOCK:
    class _Blocker(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in _BLOCK:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None
    sys.meta_path.insert(0, _Blocker())
    _find_spec = importlib.util.find_spec
    def _blocked_find_spec(name, package=None):
        if name.split(".")[0] in _BLOCK:
            return None
        return _find_spec(name, package)
    importlib.util.find_spec = _blocked_find_spec
"""


def clean_env(block: Iterable[str], blocker: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_", "PYTEST_", "TIERLOCK_"))}
    env.update(PIP_CONFIG_FILE=os.devnull, CENSUS_BENCH_BLOCK=",".join(sorted(block)), PYTHONPATH=str(blocker))
    env.pop("CI", None)
    return env


def run_tests(
    python: str, root: Path, nodeids: Sequence[str], block: Iterable[str], blocker: Path, extra: Sequence[str] = ()
) -> list[str]:
    """Run *nodeids* with *block* unimportable; every skip, error and failure message (with its node id)."""
    if not nodeids:
        return []
    report = root / ".census-bench.xml"
    command = [
        python, "-m", "pytest", "-p", "no:tierlock", "-p", "no:cacheprovider", "-p", "no:randomly",
        "-p", "no:xdist", "-q", "-rs", "--no-header", f"--junitxml={report}", "-o", "addopts=", *extra, *nodeids,
    ]  # fmt: skip
    out = subprocess.run(
        command, cwd=root, env=clean_env(block, blocker), capture_output=True, text=True, timeout=1800, check=False
    )
    messages = [f"<output> {line}" for line in (out.stdout + out.stderr).splitlines() if "ERROR" in line]
    try:
        tree = ET.parse(report)
    except (OSError, ET.ParseError):
        return [*messages, *(f"<output> {line}" for line in out.stdout.splitlines())]
    for case in tree.iter("testcase"):
        where = f"{case.get('classname', '')}::{case.get('name', '')}"
        for child in case:
            if child.tag in ("skipped", "error", "failure"):
                messages.append(f"{where} {child.get('message', '')} {child.text or ''}")
    report.unlink()
    return messages


def shows(messages: Iterable[str], roots: Iterable[str]) -> bool:
    """Whether one of *messages* says one of *roots* is missing (import error, importorskip, a skip naming it)."""
    for message in messages:
        for root in roots:
            if re.search(rf"(No module named '{root}\b|could not import '{root}\b|\b{root}\b)", message):
                return True
    return False


def belongs(message: str, module: str, test: str) -> bool:
    """Whether a message (``classname::name text``) is about *test* of *module* (or the module failed whole)."""
    head = message.split(" ", 1)[0]
    if head.startswith("<output>") or head == f"::{module}" or head.startswith(f"::{module}."):
        return True  # pytest's own lines, or a collection error of the module
    if not (head.startswith(module + "::") or head.startswith(module + ".")):
        return False
    if not test:
        return True
    klass, _, name = test.rpartition(".")
    want = f"{klass}::{name}" if klass else f"{module}::{name}"
    at = head.find(want)
    return at >= 0 and head[at + len(want) :][:1] in ("", "[")


def node_ids(finding: dict[str, Any]) -> list[str]:
    fix = finding.get("fix", {})
    if "mark" in fix:
        return [f"{finding['file']}::{m['test'].replace('.', '::')}" for m in fix["mark"]]
    out = []
    for glob in fix.get("tests", [finding["file"]]):
        out.append(glob[:-3] if glob.endswith("/**") else glob)
    return out


def tierlock_json(root: Path, *argv: str) -> dict[str, Any]:
    import contextlib
    import io

    from tierlock.cli import main

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        main(["--project", str(root), "--json", *argv])
    return json.loads(buffer.getvalue())


def roots_by_tier(root: Path) -> dict[str, tuple[str, ...]]:
    from tierlock.census import census_tiers
    from tierlock.tiers import load_project

    return {t.name: t.roots for t in census_tiers(load_project(root))}


def check(python: str, root: Path, findings: list[dict[str, Any]], blocker: Path) -> tuple[int, list[str]]:
    """(true findings, the false ones described): each finding's tests run without its tier."""
    roots = roots_by_tier(root)
    by_tier: dict[str, list[dict[str, Any]]] = {}
    for finding in findings:
        if finding["kind"] == "census-importer":
            by_tier.setdefault(finding["tier"], []).append(finding)
    true, false = 0, []
    for tier, items in by_tier.items():
        ids = sorted({n for f in items for n in node_ids(f)})
        messages = run_tests(python, root, ids, roots[tier], blocker)
        for finding in items:
            file = finding["file"]
            module = (file.rsplit("/", 1)[0] if file.endswith("conftest.py") else file.removesuffix(".py")).replace(
                "/", "."
            )
            tests = [m["test"] for m in finding.get("fix", {}).get("mark", [])] or [""]
            if any(shows([m for m in messages if belongs(m, module, t)], roots[tier]) for t in tests):
                true += 1
            else:
                false.append(f"{file}: {tier}: {finding['detail']}")
    return true, false


GREP = r"^\s*(?:import|from)\s+{root}\b|importorskip\(\s*['\"]{root}\b"


def recall(python: str, root: Path, findings: list[dict[str, Any]], blocker: Path) -> dict[str, Any]:
    """Grep the test files for each tier's roots; what the census neither gates nor reports is run."""
    from tierlock.census import pytest_settings
    from tierlock.census.tree import DiskTree
    from tierlock.tiers import load_project
    from tierlock.tiers.globs import matches

    project = load_project(root)
    roots = roots_by_tier(root)
    folders, patterns = pytest_settings(root)
    listing = DiskTree(root).walk(folders, patterns)
    reported = {(f["file"], f["tier"]) for f in findings}
    providers: dict[str, list[str]] = {}
    for tier, names in roots.items():
        for name in names:
            providers.setdefault(name, []).append(tier)
    hits: dict[tuple[str, str], None] = {}
    for rel in listing.tests:
        text = (root / rel).read_text(encoding="utf-8", errors="replace")
        for name, tiers in providers.items():
            if tiers != ["base"] and re.search(GREP.format(root=re.escape(name)), text, re.MULTILINE):
                hits[(rel, name)] = None
    gated = reported_n = 0
    unexplained: list[tuple[str, str]] = []
    for rel, name in hits:
        tiers = providers[name]
        if any(matches(rel, project.tier(t).tests) for t in tiers):
            gated += 1
        elif any((rel, t) in reported for t in tiers):
            reported_n += 1
        else:
            unexplained.append((rel, name))
    missed, not_needed = [], []
    for rel, name in unexplained:
        target, extra = rel, []
        if rel.endswith("conftest.py"):  # its tests, less those the census already gates or reports
            target = rel.rsplit("/", 1)[0] if "/" in rel else "."
            extra = _known(project, providers[name], findings, listing.tests, target)
        messages = run_tests(python, root, [target], [name], blocker, extra)
        (missed if shows(messages, [name]) else not_needed).append(f"{rel} ({name})")
    return {"hits": len(hits), "gated": gated, "reported": reported_n, "not_needed": not_needed, "missed": missed}


def _known(
    project: Any, tiers: list[str], findings: list[dict[str, Any]], files: Iterable[str], folder: str
) -> list[str]:
    """``--ignore`` / ``--deselect`` options for what the census gates or reports of *tiers* below *folder*."""
    from tierlock.tiers.globs import matches

    inside = [f for f in files if folder == "." or f.startswith(folder + "/")]
    out = [f"--ignore={f}" for f in inside if any(matches(f, project.tier(t).tests) for t in tiers)]
    for finding in findings:
        if finding["tier"] not in tiers or finding["file"] not in inside:
            continue
        fix = finding.get("fix", {})
        if "tests" in fix:
            out.append(f"--ignore={finding['file']}")
        out.extend(f"--deselect={finding['file']}::{m['test'].replace('.', '::')}" for m in fix.get("mark", []))
    return out


def apply_remedies(root: Path, findings: list[dict[str, Any]]) -> int:
    """Apply each finding's remedy as printed: globs into the tier's ``tests``, markers above the tests."""
    import tomlkit

    pyproject = root / "pyproject.toml"
    document = tomlkit.parse(pyproject.read_text(encoding="utf-8"))
    marks: dict[str, list[tuple[int, str]]] = {}
    applied = 0
    for finding in findings:
        fix = finding.get("fix", {})
        if "tests" in fix:
            table: Any = document["tool"]["tierlock"]["tiers"][finding["tier"]]
            if "tests" not in table:
                table["tests"] = tomlkit.array()
            for glob in fix["tests"]:
                if glob not in table["tests"]:
                    table["tests"].append(glob)
            applied += 1
        for mark in fix.get("mark", []):
            marks.setdefault(finding["file"], []).append((mark["line"], finding["tier"]))
            applied += 1
    pyproject.write_text(tomlkit.dumps(document), encoding="utf-8")
    for rel, items in marks.items():
        lines = (root / rel).read_text(encoding="utf-8").splitlines(keepends=True)
        for line, tier in sorted(set(items), reverse=True):
            indent = re.match(r"\s*", lines[line - 1]).group(0)  # type: ignore[union-attr]
            lines.insert(line - 1, f'{indent}@__import__("pytest").mark.tier({tier!r})\n')
        (root / rel).write_text("".join(lines), encoding="utf-8")
    return applied


def measure(name: str, checkout: Path, python: str, blocker: Path) -> dict[str, Any]:
    commit = subprocess.run(["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    with tempfile.TemporaryDirectory(prefix=f"census-bench-{name}-") as tmp:
        root = Path(tmp) / name
        shutil.copytree(checkout, root, ignore=shutil.ignore_patterns(".git", ".venv", ".pytest_cache"))
        start = time.perf_counter()
        init = tierlock_json(root, "init", "--no-groups")
        elapsed = time.perf_counter() - start
        census = tierlock_json(root, "census")
        findings = census["findings"]
        true, false = check(python, root, findings, blocker)
        grep = recall(python, root, findings, blocker)
        applied = apply_remedies(root, findings)
        after = tierlock_json(root, "census")["findings"]
        true_after, false_after = check(python, root, after, blocker)
        return {
            "project": name,
            "commit": commit.strip(),
            "pinned": PINNED.get(name) == commit.strip(),
            "init_seconds": round(elapsed, 2),
            "tiers": len(init["tiers"]),
            "ci_require": init["ci_require"],
            "findings": len(findings),
            "true": true,
            "false": false,
            "recall": grep,
            "remedies_applied": applied,
            "after_remedies": len(after),
            "after_true": true_after,
            "after_false": false_after,
        }


def main(argv: Sequence[str]) -> None:
    results = []
    with tempfile.TemporaryDirectory(prefix="census-bench-blocker-") as blocker:
        Path(blocker, "sitecustomize.py").write_text(BLOCKER, encoding="utf-8")
        for spec in argv:
            name, checkout, python = spec.split("=", 2)
            result = measure(name, Path(checkout), python, Path(blocker))
            results.append(result)
            grep = result["recall"]
            print(
                f"{name} ({result['commit'][:12]}{'' if result['pinned'] else ', NOT the pinned commit'}): "
                f"{result['tiers']} tiers, {result['findings']} findings after init, "
                f"{result['true']} true, {len(result['false'])} false; grep: {grep['hits']} file/root pairs, "
                f"{grep['gated']} gated, {grep['reported']} reported, {len(grep['not_needed'])} not needed, "
                f"{len(grep['missed'])} missed; after {result['remedies_applied']} remedies: "
                f"{result['after_remedies']} findings ({len(result['after_false'])} false)"
            )
            for line in [*result["false"], *(f"missed: {m}" for m in grep["missed"]), *result["after_false"]]:
                print(f"  {line}")
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
