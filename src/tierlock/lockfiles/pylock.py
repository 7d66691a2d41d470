"""The PEP 751 ``pylock.<tier>.toml`` format, read through ``packaging.pylock``.

tierlock's header lives in ``[tool.tierlock]``; the body digest covers the
whole document except that table, in a canonical JSON form (so TOML layout and
comments do not count as edits).
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from typing import Any, Literal

from tierlock.lockfiles.digest import sha256
from tierlock.lockfiles.header import from_table, to_table
from tierlock.lockfiles.locks import LockedFile, LockEntry, LockHeader, ReadProblem
from tierlock.lockfiles.requirements import HASH_LENGTHS, Parsed, split_lines

_TOML_POS = re.compile(r"\(at line (\d+), column (\d+)\)")


def body_digest(document: Mapping[str, Any]) -> str:
    """Digest of a pylock document without its ``[tool.tierlock]`` table."""
    data = dict(document)
    tool = data.get("tool")
    if isinstance(tool, Mapping):  # (a "tool" that is no table is the document's own, its problem said apart)
        tool = {k: v for k, v in tool.items() if k != "tierlock"}
        if tool:
            data["tool"] = tool
        else:
            data.pop("tool", None)
    return sha256(json.dumps(data, sort_keys=True, separators=(",", ":"), default=str).encode())


def parse(text: str) -> Parsed:
    """Parse and validate a pylock document's text."""
    from packaging.pylock import Pylock, PylockValidationError

    lines = split_lines(text)
    if not any(line.strip() for line in lines):
        return Parsed(None, problems=[ReadProblem("integrity", None, "the lockfile is empty")])
    try:
        document = tomllib.loads("\n".join(lines))
    except tomllib.TOMLDecodeError as exc:
        match = _TOML_POS.search(str(exc))
        line = int(match.group(1)) if match else None
        detail = _TOML_POS.sub("", str(exc)).strip()
        return Parsed(None, problems=[ReadProblem("integrity", line, f"invalid TOML: {detail}")])
    tool = document.get("tool")
    table = tool.get("tierlock") if isinstance(tool, Mapping) else None
    header, problems = from_table(table)
    table_line = next((i for i, line in enumerate(lines, start=1) if _header(line) == "[tool.tierlock]"), None)
    problems = [p if p.line is not None else ReadProblem(p.kind, table_line, p.detail) for p in problems]
    parsed = Parsed(header, problems=problems, body_digest=body_digest(document))
    try:
        lock = Pylock.from_dict(document)
    except PylockValidationError as exc:
        context = exc.context or ("lock-version" if "pylock version" in str(exc) else None)
        parsed.problems.append(ReadProblem("integrity", _locate(lines, context), f"invalid pylock: {exc}"))
        return parsed
    parsed.pylock = lock
    package_lines = [i + 1 for i, line in enumerate(lines) if _header(line) == "[[packages]]"]
    for index, package in enumerate(lock.packages):
        number = package_lines[index] if index < len(package_lines) else None
        _entry(package, number, parsed)
    return parsed


def _entry(package: Any, number: int | None, parsed: Parsed) -> None:
    name = package.name
    if package.version is None:
        parsed.problems.append(
            ReadProblem("integrity", number, f"{name}: no version (VCS and directory packages cannot be locked)")
        )
        return
    if package.vcs is not None or package.directory is not None:
        parsed.problems.append(
            ReadProblem("integrity", number, f"{name}: a VCS or directory package cannot be locked with hashes")
        )
        return
    files: list[LockedFile] = []
    for wheel in package.wheels or ():
        files.append(LockedFile("wheel", wheel.filename, wheel.url, wheel.path, wheel.size, dict(wheel.hashes)))
    if package.sdist is not None:
        sdist = package.sdist
        files.append(LockedFile("sdist", sdist.filename, sdist.url, sdist.path, sdist.size, dict(sdist.hashes)))
    if package.archive is not None:
        archive = package.archive
        where = archive.url or archive.path or ""
        filename = where.split("#", 1)[0].rstrip("/").rsplit("/", 1)[-1]
        kind: Literal["wheel", "sdist"] = "wheel" if filename.endswith(".whl") else "sdist"
        files.append(LockedFile(kind, filename, archive.url, archive.path, archive.size, dict(archive.hashes)))
    hashes: list[str] = []
    for file in files:
        usable = {a: h for a, h in file.hashes.items() if len(h) == HASH_LENGTHS.get(a, -1)}
        if not usable:
            parsed.problems.append(
                ReadProblem("integrity", number, f"{name}: {file.filename} has no usable hash (sha256, 64 hex digits)")
            )
        hashes.extend(f"{a}:{h}" for a, h in sorted(usable.items()))
    if not files:
        parsed.problems.append(ReadProblem("integrity", number, f"{name}: no wheels or sdist to install"))
    parsed.entries.append(
        LockEntry(
            name=name,
            version=package.version,
            marker=package.marker,
            hashes=tuple(hashes),
            line=number,
            files=tuple(files),
        )
    )


def _header(line: str) -> str | None:
    """The table a line opens (``[[packages]]``, ``[packages.archive]``), spaces and a comment removed; else None."""
    text = line.split("#", 1)[0].strip()
    return "".join(text.split()) if text.startswith("[") else None


def _locate(lines: list[str], context: str | None) -> int | None:
    """The line a packaging validation context names (``packages[1].wheels[0].size``, ``lock-version``).

    The key's own line (or its table's) when it can be found, else the line of the package it is in.
    """
    if not context:
        return None
    match = re.match(r"packages\[(\d+)\]\.?([\w-]*)", context)
    if match is None:  # a top-level key: its line before the first table
        key = re.match(r"[\w-]+", context)
        for number, line in enumerate(lines, start=1):
            if _header(line) is not None:
                break
            if key and re.match(rf"\s*{re.escape(key.group(0))}\s*=", line):
                return number
        return None
    index, field = int(match.group(1)), match.group(2)
    starts = [number for number, line in enumerate(lines, start=1) if _header(line) == "[[packages]]"]
    if index >= len(starts):
        return None
    start = starts[index]
    if field:
        in_subtable = False  # past a [packages.x] or [[packages.x]] header: its keys are not the package's
        for number in range(start + 1, len(lines) + 1):
            header = _header(lines[number - 1])
            if header in (f"[[packages.{field}]]", f"[packages.{field}]"):
                return number
            if header is not None:
                if not header.startswith(("[packages.", "[[packages.")):
                    break  # the next package, or a table outside the packages
                in_subtable = True
            elif not in_subtable and re.match(rf"\s*{re.escape(field)}\s*[=.]", lines[number - 1]):
                return number
    return start


def render(text: str, header: LockHeader) -> str:
    """A backend's pylock text with the ``[tool.tierlock]`` table appended."""
    import tomlkit

    document = tomlkit.parse(text)
    tool = document.get("tool")
    if tool is None:
        tool = tomlkit.table(is_super_table=True)
        document["tool"] = tool
    table = tomlkit.table()
    for key, value in to_table(header).items():
        table[key] = value
    tool["tierlock"] = table
    return tomlkit.dumps(document)
