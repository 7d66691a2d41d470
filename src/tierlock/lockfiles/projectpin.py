"""The project itself in a tier's closure: never pinned from the index.

When a tier's closure reaches the project (an extra needs a package that
depends back on the project, as fsspec's ``gs`` extra needs gcsfs, which needs
fsspec), the backend resolves the project like any other package and pins the
release an index serves. That pin would make ``install-tier`` replace the
project's own (often editable) install with a registry copy. So the pin is
taken out of the lockfile and one comment line says where the project went::

    # app: the project itself - not pinned; it comes from the project tree (pip install -e .)

:func:`without_project` does it for a requirements body, :func:`without_project_pylock`
for a pylock document (its ``[[packages]]`` entry is dropped). :func:`reaches_project` reads it back: the
probe then checks that the project is installed as the closure requires.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from packaging.utils import canonicalize_name

from tierlock.fsutil import FileRefused, read_bytes

if TYPE_CHECKING:
    from tierlock.lockfiles.locks import Lock

MARKER = "the project itself"


def comment(name: str) -> str:
    return f"# {name}: {MARKER} - not pinned; it comes from the project tree (pip install -e .)"


def _requirement_name(line: str) -> str | None:
    """The distribution a requirement line names (``name==...``, ``name @ url``, ``name[extra]...``), or None."""
    stripped = line.strip()
    if not stripped or stripped.startswith(("#", "-")) or line[:1].isspace():
        return None
    end = len(stripped)
    for i, ch in enumerate(stripped):
        if not (ch.isalnum() or ch in "._-"):
            end = i
            break
    return canonicalize_name(stripped[:end]) if end else None


def without_project(body: Sequence[str], project: str | None) -> list[str]:
    """*body* (a requirements lockfile's lines) without the project's own pin, and its continuation lines."""
    if not project:
        return list(body)
    name = canonicalize_name(project)
    out: list[str] = []
    skipping = False
    for line in body:
        if skipping:
            if line[:1].isspace() and line.strip():
                continue  # its --hash lines and "# via" notes
            skipping = False
        if _requirement_name(line) == name:
            out.append(comment(name))
            skipping = True
            continue
        out.append(line)
    return out


def without_project_pylock(text: str, project: str | None) -> str:
    """A pylock document's text without the project's ``[[packages]]`` entry (a comment says why)."""
    if not project:
        return text
    import tomlkit

    name = canonicalize_name(project)
    document = tomlkit.parse(text)
    packages = document.get("packages")
    if packages is None:
        return text
    kept = [p for p in packages if canonicalize_name(str(p.get("name", ""))) != name]
    if len(kept) == len(packages):
        return text
    array = tomlkit.aot()
    for package in kept:
        array.append(package)
    document["packages"] = array
    return comment(name) + "\n" + tomlkit.dumps(document)


def reaches_project(lock: Lock, project: str | None) -> bool:
    """Whether the tier's closure reaches the project: its lockfile pins it (another tool's lock) or says it
    left the pin out (the comment above)."""
    if not project:
        return False
    name = canonicalize_name(project)
    if any(entry.name == name for entry in lock.entries):
        return True
    try:  # through the safe reader: the bytes the lockfile model was read from, not a second read
        text = read_bytes(lock.path).decode("utf-8", errors="replace")
    except (OSError, FileRefused):
        return False
    return f"# {name}: {MARKER}" in text
