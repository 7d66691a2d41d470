"""A project the backend refuses for its own metadata: what is wrong, where, and the command that still arms.

uv refuses to build a project whose ``[project.optional-dependencies]`` holds
two extras that are one name once normalized (PEP 685: ``mssql-pymssql`` and
``mssql_pymssql`` in SQLAlchemy's pyproject.toml). The tier's pinned packages
are in by then; running the same ``install-tier`` again fails the same way
until the project's pyproject changes, so the remedy arms the tiers without
the project itself (``--no-install-project``) and the message names both
extras with their lines. Pure over the backend's output and the pyproject's
text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

_DUPLICATE = re.compile(r"duplicate normalized extra name `([^`]+)`")
_FLAG = "--no-install-project"


def refused(output: str, folders: Sequence[Path], again: str | None) -> tuple[str, str] | None:
    """(what the message adds, the remedy) when *output* says the project's metadata is refused; else None.

    *folders*: the folders that were installed from (the project's first); *again*: the command that failed."""
    found = _DUPLICATE.search(output)
    if found is None or again is None:
        return None
    name = found.group(1)
    places = [f"{n} ({where})" for folder in folders for n, where in duplicates(folder / "pyproject.toml", name)]
    extras = f"the extras {' and '.join(places)}" if places else f"two of its extras spelled {name}"
    said = (
        f"the backend refuses the project's own metadata: {extras} are one name once normalized "
        f"(PEP 685), so no install of the project from its tree succeeds until one is renamed; the tier's own "
        f"packages are installed: arm it without the project (it stays out of the environment)"
    )
    return said, without_project(again)


def without_project(again: str) -> str:
    """The command *again* with ``--no-install-project`` (once)."""
    return again if _FLAG in again.split() else f"{again} {_FLAG}"


def duplicates(pyproject: Path, name: str) -> list[tuple[str, str]]:
    """Each extra of *pyproject* whose normalized name is *name*, with its place (``pyproject.toml:53``)."""
    try:
        text = pyproject.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    out: list[tuple[str, str]] = []
    table = False
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("["):
            table = stripped.replace(" ", "") == "[project.optional-dependencies]"
            continue
        key = re.match(r"""\s*(["']?)([A-Za-z0-9._-]+)\1\s*=""", line) if table else None
        if key is not None and _normalized(key.group(2)) == _normalized(name):
            out.append((key.group(2), f"{pyproject.name}:{number}"))
    return out


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()
