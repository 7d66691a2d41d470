"""JSON with positions: a strict parser that remembers where every key and value is.

Python's :mod:`json` (like JavaScript's ``JSON.parse``) keeps the last of two
equal keys without a word, accepts ``NaN`` and ``Infinity``, lets ``1e400``
become infinity, passes lone surrogates through and knows no line numbers.
:func:`parse` does none of that: it records the offset of every value and key,
lists duplicate keys with both positions, and refuses non-finite numbers, lone
surrogates, documents over :data:`MAX_BYTES` and nesting deeper than
:data:`MAX_DEPTH` with a :class:`JsonParseError` that has a position.

:func:`load` is the fast door: it parses with the C scanner of :mod:`json`
and falls back to :func:`parse` only when something is off, so a valid
document never pays for positions; the positions of a valid document are
computed on first use (only an invalid document needs them).

Error messages never quote the document's text: they name what was expected.
"""

from __future__ import annotations

import bisect
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

MAX_BYTES = 64 * 1024 * 1024
"""Largest document accepted (characters of text)."""
MAX_DEPTH = 64
"""Deepest nesting of arrays and objects accepted."""

JsonPath = tuple[str | int, ...]

_WS = re.compile(r"[ \t\n\r]*")
#: Unrolled (a run of plain characters, then escape + run, repeated): one pass, no backtracking choice.
_STRING = re.compile(r'"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"')
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LITERALS = (("true", True), ("false", False), ("null", None))
_NON_FINITE = ("NaN", "-NaN", "Infinity", "-Infinity", "+Infinity")


class JsonParseError(Exception):
    """The text is not a JSON document tierlock accepts; *offset* is where."""

    def __init__(self, message: str, offset: int, rule: str = "RC000") -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.rule = rule


_LINE_BREAK = re.compile("\r\n?|\n")


class LineIndex:
    """Offsets to 1-based (line, column) pairs; columns count code points.

    A line ends at LF, CRLF or a lone CR (JSON allows CR-only files, and editors show them as lines).
    """

    def __init__(self, text: str) -> None:
        self.starts = [0]
        self.starts.extend(m.end() for m in _LINE_BREAK.finditer(text))

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


@dataclass(frozen=True)
class Duplicate:
    """A key written twice in one object: *path* ends with the key."""

    path: JsonPath
    first: int
    second: int


@dataclass
class Parsed:
    """What :func:`parse` found: the value and the offset of every part."""

    value: Any
    values: dict[JsonPath, int] = field(default_factory=dict)
    keys: dict[JsonPath, int] = field(default_factory=dict)
    duplicates: list[Duplicate] = field(default_factory=list)


class _Parser:
    def __init__(self, text: str, max_depth: int) -> None:
        self.text = text
        self.max_depth = max_depth
        self.out = Parsed(None)

    def fail(self, message: str, offset: int, rule: str = "RC000") -> JsonParseError:
        return JsonParseError(message, offset, rule)

    def skip(self, i: int) -> int:
        m = _WS.match(self.text, i)
        return m.end() if m else i

    def string(self, i: int) -> tuple[str, int]:
        m = _STRING.match(self.text, i)
        if m is None:
            end = self.text.find('"', i + 1)
            if end < 0:
                raise self.fail("unterminated string", i)
            raise self.fail("invalid string: a control character or an unknown escape", i)
        raw = m.group()
        value = raw[1:-1] if "\\" not in raw else json.loads(raw)
        if "\\" in raw and _SURROGATE.search(value):
            raise self.fail("a string holds a lone surrogate (\\uD800-\\uDFFF without its pair)", i, "RC013")
        return value, m.end()

    def number(self, i: int) -> tuple[int | float, int]:
        m = _NUMBER.match(self.text, i)
        if m is None or m.end() == i:
            raise self.fail("expected a value", i)
        raw = m.group()
        if m.group(1) is None and m.group(2) is None:
            try:
                return int(raw), m.end()
            except ValueError:
                raise self.fail("a number has too many digits", i, "RC013") from None
        number = float(raw)
        if not math.isfinite(number):
            raise self.fail("a number is too large (it would be infinity)", i, "RC013")
        return number, m.end()

    def value(self, i: int, path: JsonPath, depth: int) -> tuple[Any, int]:
        text = self.text
        if i >= len(text):
            raise self.fail("unexpected end of the document: expected a value", i)
        self.out.values[path] = i
        ch = text[i]
        if ch == "{":
            return self.obj(i, path, depth + 1)
        if ch == "[":
            return self.array(i, path, depth + 1)
        if ch == '"':
            return self.string(i)
        for word, literal in _LITERALS:
            if text.startswith(word, i):
                return literal, i + len(word)
        for word in _NON_FINITE:
            if text.startswith(word, i):
                raise self.fail("NaN and Infinity are not JSON: numbers must be finite", i, "RC013")
        return self.number(i)

    def _depth(self, i: int, depth: int) -> None:
        if depth > self.max_depth:
            raise self.fail(f"nested deeper than {self.max_depth} levels", i, "RC013")

    def obj(self, start: int, path: JsonPath, depth: int) -> tuple[dict[str, Any], int]:
        self._depth(start, depth)
        result: dict[str, Any] = {}
        i = self.skip(start + 1)
        if self.text.startswith("}", i):
            return result, i + 1
        while True:
            if not self.text.startswith('"', i):
                raise self.fail("expected a key in double quotes", i)
            key_at = i
            key, i = self.string(i)
            sub = (*path, key)
            if key in result:
                self.out.duplicates.append(Duplicate(sub, self.out.keys[sub], key_at))
            else:
                self.out.keys[sub] = key_at
            i = self.skip(i)
            if not self.text.startswith(":", i):
                raise self.fail("expected ':' after a key", i)
            i = self.skip(i + 1)
            value, i = self.value(i, sub, depth)
            result[key] = value
            i = self.skip(i)
            if self.text.startswith(",", i):
                i = self.skip(i + 1)
                continue
            if self.text.startswith("}", i):
                return result, i + 1
            raise self.fail("expected ',' or '}' in an object", i)

    def array(self, start: int, path: JsonPath, depth: int) -> tuple[list[Any], int]:
        self._depth(start, depth)
        result: list[Any] = []
        i = self.skip(start + 1)
        if self.text.startswith("]", i):
            return result, i + 1
        while True:
            value, i = self.value(i, (*path, len(result)), depth)
            result.append(value)
            i = self.skip(i)
            if self.text.startswith(",", i):
                i = self.skip(i + 1)
                continue
            if self.text.startswith("]", i):
                return result, i + 1
            raise self.fail("expected ',' or ']' in an array", i)


def _check_size(text: str, max_bytes: int) -> None:
    if len(text) > max_bytes:
        raise JsonParseError(f"the document is larger than {max_bytes} characters", 0, "RC013")


def parse(text: str, *, max_depth: int = MAX_DEPTH, max_bytes: int = MAX_BYTES) -> Parsed:
    """Parse *text* strictly, recording the offset of every value and key."""
    _check_size(text, max_bytes)
    parser = _Parser(text, max_depth)
    start = 1 if text.startswith("\ufeff") else 0
    i = parser.skip(start)
    value, i = parser.value(i, (), 0)
    i = parser.skip(i)
    if i != len(text):
        raise parser.fail("extra data after the document", i)
    parser.out.value = value
    return parser.out


class JsonDocument:
    """A parsed document; positions are computed on first use."""

    def __init__(self, text: str, value: Any, parsed: Parsed | None = None) -> None:
        self.text = text
        self.value = value
        self._parsed = parsed
        self._lines: LineIndex | None = None

    @property
    def parsed(self) -> Parsed:
        if self._parsed is None:
            self._parsed = parse(self.text)
        return self._parsed

    @property
    def duplicates(self) -> list[Duplicate]:
        return self._parsed.duplicates if self._parsed is not None else []

    def position(self, offset: int) -> tuple[int, int]:
        if self._lines is None:
            self._lines = LineIndex(self.text)
        return self._lines.position(offset)

    def locate(self, path: JsonPath, *, key: bool = False) -> tuple[int, int] | None:
        """Line and column of the value at *path* (or of its key), else of its nearest ancestor."""
        parsed = self.parsed
        if key and path in parsed.keys:
            return self.position(parsed.keys[path])
        for end in range(len(path), -1, -1):
            offset = parsed.values.get(path[:end])
            if offset is not None:
                return self.position(offset)
        return None


def load(text: str, *, max_depth: int = MAX_DEPTH, max_bytes: int = MAX_BYTES) -> JsonDocument:
    """Parse *text*: the C scanner first, the strict parser when anything is off.

    Raises :class:`JsonParseError` (with an offset) for text that is not a
    document; duplicate keys are data (:attr:`JsonDocument.duplicates`).
    """
    _check_size(text, max_bytes)
    suspicious = False

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal suspicious
        result = dict(items)
        if len(result) != len(items):
            suspicious = True
        return result

    def constant(name: str) -> Any:
        nonlocal suspicious
        suspicious = True
        return None

    def floats(raw: str) -> float:
        nonlocal suspicious
        number = float(raw)
        if not math.isfinite(number):
            suspicious = True
        return number

    body = text[1:] if text.startswith("\ufeff") else text
    try:
        value = json.loads(body, object_pairs_hook=pairs, parse_constant=constant, parse_float=floats)
    except (ValueError, RecursionError):
        suspicious = True
    if not suspicious and _SURROGATE_ESCAPE.search(text):
        suspicious = True
    if not suspicious and _too_deep(value, max_depth):
        suspicious = True
    if suspicious:
        parsed = parse(text, max_depth=max_depth, max_bytes=max_bytes)
        return JsonDocument(text, parsed.value, parsed)
    return JsonDocument(text, value)


def _too_deep(value: Any, limit: int) -> bool:
    stack: list[tuple[Any, int]] = [(value, 1)]
    push: Callable[[tuple[Any, int]], None] = stack.append
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(node, dict):
            for child in node.values():
                if isinstance(child, dict | list):
                    push((child, depth + 1))
        elif isinstance(node, list):
            for child in node:
                if isinstance(child, dict | list):
                    push((child, depth + 1))
    return False
