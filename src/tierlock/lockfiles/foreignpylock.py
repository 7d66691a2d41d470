"""A PEP 751 ``pylock.toml`` written by another tool (uv, PDM, pip), read for one tier.

The document is validated by :class:`packaging.pylock.Pylock`. A lock for
several selections declares its ``extras`` and ``dependency-groups`` and marks
each package with ``'x' in extras`` / ``'g' in dependency_groups``: the tier's
extras and groups decide those markers here, so each entry keeps a marker over
the environment only, and ``Pylock.select`` later picks the file for a target
as it does for tierlock's own pylock lockfiles. A lock made for one selection
(``pip lock``, ``uv export``) declares neither: it serves the base tier (every
package), and a tier that needs an extra or a group gets a problem saying so.

A ``directory`` package (the project itself, a path dependency) becomes a
:class:`~tierlock.lockfiles.locks.LocalPackage`; a VCS one cannot be hash-checked
and is a problem.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from packaging.utils import canonicalize_name

from tierlock.frozen import replace
from tierlock.lockfiles.fileread import ReadResult
from tierlock.lockfiles.locks import LocalPackage, Lock, ReadProblem
from tierlock.lockfiles.markers import specialise

_TOML_POS = re.compile(r"\(at line (\d+), column (\d+)\)")


def read(
    path: Path, text: str, digest: str, *, root: str, extras: tuple[str, ...], groups: tuple[str, ...]
) -> ReadResult:
    """The tier's part of the pylock document *text* (the file at *path*)."""
    from packaging.pylock import Pylock, PylockValidationError

    from tierlock.lockfiles.pylock import _locate
    from tierlock.lockfiles.requirements import duplicate_problems

    empty = Lock(path, "pylock", None, (), digest, f"sha256:{digest}")
    lines = text.splitlines()
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = _TOML_POS.search(str(exc))
        detail = f"invalid TOML: {_TOML_POS.sub('', str(exc)).strip()}"
        return ReadResult(empty, (ReadProblem("integrity", int(match.group(1)) if match else None, detail),))
    try:
        pylock = Pylock.from_dict(document)
    except PylockValidationError as exc:
        return ReadResult(empty, (ReadProblem("integrity", _locate(lines, exc.context), f"invalid pylock: {exc}"),))
    problems = _undeclared(pylock, path, extras, groups)
    wanted_extras = {canonicalize_name(e) for e in extras}
    wanted_groups = {canonicalize_name(g) for g in groups}

    def decide(variable: str, op: str, value: str) -> bool | None:
        chosen = {"extras": wanted_extras, "dependency_groups": wanted_groups}.get(variable)
        if chosen is None or op not in ("in", "not in"):
            return None
        return (canonicalize_name(value) in chosen) == (op == "in")

    starts = [i + 1 for i, line in enumerate(lines) if "".join(line.split("#", 1)[0].split()) == "[[packages]]"]
    kept, local, entries = _pick(pylock, path, starts, decide, problems)
    problems.extend(duplicate_problems(entries))
    lock = Lock(
        path=path,
        format="pylock",
        header=None,
        entries=tuple(entries),
        file_digest=digest,
        body_digest=f"sha256:{digest}",
        pylock=replace(pylock, packages=kept),
        local=tuple(local),
        requires_python=str(pylock.requires_python) if pylock.requires_python else None,
        environments=tuple(str(marker) for marker in pylock.environments or ()),
    )
    return ReadResult(lock, tuple(problems))


def _pick(
    pylock: Any, path: Path, starts: list[int], decide: Any, problems: list[ReadProblem]
) -> tuple[list[Any], list[LocalPackage], list[Any]]:
    """The packages the tier needs (markers decided), its local packages, and its entries."""
    from tierlock.lockfiles.pylock import _entry
    from tierlock.lockfiles.requirements import Parsed

    kept: list[Any] = []
    local: list[LocalPackage] = []
    parsed = Parsed(None)
    for index, package in enumerate(pylock.packages):
        line = starts[index] if index < len(starts) else None
        verdict = specialise(package.marker, decide)
        if verdict is False:
            continue
        package = replace(package, marker=None if verdict is True else verdict)
        if package.directory is not None:
            folder = (path.parent / package.directory.path).resolve()
            version = str(package.version) if package.version else None
            name, editable = canonicalize_name(package.name), bool(package.directory.editable)
            local.append(LocalPackage(name, version, folder, editable, package.marker))
            continue
        if package.vcs is not None:
            detail = (
                f"{package.name} comes from a VCS checkout, which has no hash to verify; "
                "tierlock installs only what it can verify"
            )
            problems.append(ReadProblem("integrity", line, detail))
            continue
        before = len(parsed.entries)
        _entry(package, line, parsed)
        if len(parsed.entries) > before:
            parsed.entries[-1] = replace(parsed.entries[-1], index=_index(package, path))
        kept.append(package)
    problems.extend(parsed.problems)
    return kept, local, parsed.entries


def _index(package: Any, path: Path) -> str | None:
    """Where the package's files come from: its ``index``, else the one local folder all its files are in."""
    if package.index:
        return str(package.index)
    folders = set()
    for file in [*(package.wheels or ()), *([package.sdist] if package.sdist else [])]:
        where = file.url or file.path
        if where is None:
            return None
        if "://" in where and not where.startswith("file:"):
            return None
        local = Path(_file_path(where)) if where.startswith("file:") else (path.parent / where)
        folders.add(str(local.resolve().parent))
    return folders.pop() if len(folders) == 1 else None


def _file_path(url: str) -> str:
    from urllib.parse import unquote, urlsplit

    return unquote(urlsplit(url).path)


def _undeclared(pylock: Any, path: Path, extras: Iterable[str], groups: Iterable[str]) -> list[ReadProblem]:
    declared_extras = {canonicalize_name(e) for e in pylock.extras or ()}
    declared_groups = {
        canonicalize_name(g) for g in [*(pylock.dependency_groups or ()), *(pylock.default_groups or ())]
    }
    out: list[ReadProblem] = []
    for kind, names, declared in (("extra", extras, declared_extras), ("dependency group", groups, declared_groups)):
        for name in names:
            if canonicalize_name(name) in declared:
                continue
            why = (
                "it declares no extras or dependency groups: it was locked for one selection"
                if not declared_extras and not declared_groups
                else f"it declares {', '.join(sorted(declared)) or 'none'}"
            )
            out.append(ReadProblem("integrity", None, f"{path.name} has no {kind} {name!r} ({why})"))
    return out
