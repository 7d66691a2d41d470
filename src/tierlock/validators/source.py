"""Finding and reading a runtime config: JSON, TOML, or ``[tool.tierlock.runtime]``.

Discovery order in a project folder (first found wins):

1. ``tierlock.runtime.json``
2. ``tierlock.runtime.toml``
3. ``pyproject.toml`` with a ``[tool.tierlock.runtime]`` table
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tierlock import fsutil
from tierlock.validators import jsonpos, tomlpos
from tierlock.validators.jsonpos import Duplicate, JsonPath

RUNTIME_TABLE: JsonPath = ("tool", "tierlock", "runtime")
_TOML_POS = re.compile(r"\(at line (\d+), column (\d+)\)")

Kind = Literal["json", "toml", "pyproject", "data"]


class SourceError(Exception):
    """The file cannot be read or parsed as a document (exit 2)."""

    def __init__(self, message: str, *, line: int | None = None, column: int | None = None, rule: str = "RC000"):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.rule = rule


@dataclass
class Source:
    """A parsed runtime config and how to find a path's line and column in it."""

    kind: Kind
    value: Any
    path: Path | None = None
    locate: Callable[[JsonPath, bool], tuple[int, int] | None] = field(default=lambda path, key: None)
    position: Callable[[int], tuple[int, int]] | None = None
    duplicates: list[Duplicate] = field(default_factory=list)


def _read(path: Path) -> str:
    try:
        data = fsutil.read_bytes(path, limit=jsonpos.MAX_BYTES)
    except fsutil.FileRefused as exc:
        if exc.too_large:
            limit = jsonpos.MAX_BYTES
            size = f"{limit // 2**20} MiB" if limit % 2**20 == 0 else f"{limit} bytes"
            raise SourceError(f"the file is larger than {size}", rule="RC013") from exc
        raise SourceError(f"the file is {exc.what}, not a regular file: only regular files are read") from exc
    except OSError as exc:
        raise SourceError(f"cannot read the file: {exc.strerror or exc}") from exc
    try:
        return data.decode("utf-8").removeprefix("\ufeff")  # columns as editors count them
    except UnicodeDecodeError as exc:
        before = data[: exc.start].decode("utf-8", errors="replace")
        line, column = jsonpos.LineIndex(before).position(len(before))
        raise SourceError("the file is not UTF-8 text", line=line, column=column) from exc


def load(path: Path) -> Source:
    """Read and parse the runtime config at *path* (raises :class:`SourceError`)."""
    text = _read(path)
    if path.name == "pyproject.toml":
        return _toml(text, path, RUNTIME_TABLE)
    if path.suffix == ".toml" or (path.suffix != ".json" and not text.lstrip("\ufeff \t\r\n").startswith("{")):
        return _toml(text, path, ())
    return parse_json(text, path)


def parse_json(text: str, path: Path | None = None) -> Source:
    try:
        doc = jsonpos.load(text)
    except jsonpos.JsonParseError as exc:
        line, column = jsonpos.LineIndex(text).position(exc.offset)
        raise SourceError(exc.message, line=line, column=column, rule=exc.rule) from exc
    return Source(
        "json",
        doc.value,
        path,
        locate=lambda p, key: doc.locate(p, key=key),
        position=doc.position,
        duplicates=doc.duplicates,
    )


def parse_toml(text: str, path: Path | None = None) -> Source:
    return _toml(text, path, ())


def _toml(text: str, path: Path | None, table: JsonPath) -> Source:
    try:
        data: Any = tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        m = _TOML_POS.search(message)
        line, column = (int(m.group(1)), int(m.group(2))) if m else (None, None)
        if m is None and "end of document" in message:
            line, column = text.count("\n") + 1, len(text) - text.rfind("\n")
        message = _TOML_POS.sub("", message).replace("(at end of document)", "at the end of the document")
        raise SourceError("invalid TOML: " + message.strip(), line=line, column=column) from exc
    except RecursionError as exc:
        line, column = _deepest(text)
        raise SourceError(
            f"nested deeper than {jsonpos.MAX_DEPTH} levels", line=line, column=column, rule="RC013"
        ) from exc
    except ValueError as exc:  # an integer of more digits than int() converts (sys.get_int_max_str_digits)
        line, column = _long_number(text)
        raise SourceError("a number has too many digits", line=line, column=column, rule="RC013") from exc
    positions: tomlpos.Positions | None = None

    def locate(p: JsonPath, key: bool) -> tuple[int, int] | None:
        nonlocal positions
        if positions is None:
            positions = tomlpos.locate(text)
        return positions.locate((*table, *p), key=key)

    for part in table:
        data = data.get(part) if isinstance(data, dict) else None
    if data is None:
        raise SourceError("pyproject.toml has no [tool.tierlock.runtime] table", line=1, column=1)
    bad = _non_finite_or_deep(data)
    if bad is not None:
        where = locate(bad[0], False)
        raise SourceError(bad[1], line=where[0] if where else None, column=where[1] if where else None, rule="RC013")
    return Source("pyproject" if table else "toml", data, path, locate=locate)


_DIGITS = re.compile(r"[0-9_]+")


def _long_number(text: str) -> tuple[int, int]:
    """Where the longest run of digits starts (the integer tomllib refused)."""
    best = max(_DIGITS.finditer(text), key=lambda m: m.end() - m.start(), default=None)
    return jsonpos.LineIndex(text).position(best.start() if best else 0)


def _deepest(text: str) -> tuple[int, int]:
    """Where brackets first nest deeper than the limit (strings and comments skipped), else 1:1."""
    depth = 0
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch in "\"'":
            end = text.find(ch, i + 1)
            while ch == '"' and end > 0 and text[end - 1] == "\\":
                end = text.find(ch, end + 1)
            i = n if end < 0 else end + 1
            continue
        if ch == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if ch in "[{":
            depth += 1
            if depth > jsonpos.MAX_DEPTH:
                return jsonpos.LineIndex(text).position(i)
        elif ch in "]}":
            depth -= 1
        i += 1
    return 1, 1


def _non_finite_or_deep(value: Any) -> tuple[JsonPath, str] | None:
    stack: list[tuple[Any, JsonPath]] = [(value, ())]
    while stack:
        node, path = stack.pop()
        if len(path) > jsonpos.MAX_DEPTH:
            return path, f"nested deeper than {jsonpos.MAX_DEPTH} levels"
        if isinstance(node, float) and not math.isfinite(node):
            return path, "nan and inf are refused: numbers must be finite"
        if isinstance(node, dict):
            stack.extend((v, (*path, k)) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, (*path, i)) for i, v in enumerate(node))
    return None
