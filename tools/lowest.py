"""Check that the lowest-versions venv really holds the declared lower bounds (``make test-lowest`` runs it there).

``uv pip install --resolution lowest-direct`` takes the lowest version only of what it sees as a *direct*
requirement; a package that some other requirement also needs may come in newer. This script, run by the
interpreter of that venv, reads tierlock's own ``pyproject.toml`` (the runtime dependencies and the ``cli`` and
``uv`` extras) and compares every ``>=`` lower bound with the version installed, so the tests that follow
run on the floors and nothing else. Exit 1 naming each package that is not at its floor.

Usage: ``.venv-lowest/bin/python tools/lowest.py [pyproject.toml]``
"""

from __future__ import annotations

import sys
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]


def floors(pyproject: Path) -> dict[str, Version]:
    """``name -> lower bound`` of every ``>=`` requirement of the runtime dependencies and the cli/uv extras."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    lines = list(project.get("dependencies", []))
    for extra in ("cli", "uv"):
        lines += project.get("optional-dependencies", {}).get(extra, [])
    out: dict[str, Version] = {}
    for line in lines:
        req = Requirement(line)
        name = canonicalize_name(req.name)
        if name == canonicalize_name(project["name"]):
            continue  # a self-reference (tierlock[cli]): its requirements are listed on their own
        bounds = [Version(s.version) for s in req.specifier if s.operator == ">="]
        if bounds:
            out[name] = max(bounds)
    return out


def off_floor(wanted: dict[str, Version]) -> list[str]:
    """One line per package installed at another version than its floor (or not installed)."""
    problems: list[str] = []
    for name, floor in sorted(wanted.items()):
        try:
            found = Version(version(name))
        except PackageNotFoundError:
            problems.append(f"{name}: not installed (floor {floor})")
            continue
        if found != floor:
            problems.append(f"{name}: {found} installed, but the declared floor is {floor}")
    return problems


def main(argv: list[str]) -> int:
    pyproject = Path(argv[0]) if argv else ROOT / "pyproject.toml"
    wanted = floors(pyproject)
    problems = off_floor(wanted)
    if problems:
        print(f"{len(problems)} of {len(wanted)} package(s) not at their declared floor:", file=sys.stderr)
        for line in problems:
            print(f"  - {line}", file=sys.stderr)
        return 1
    print("at their declared floors: " + ", ".join(f"{n}=={v}" for n, v in sorted(wanted.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
