"""Where keys and values are in a TOML document.

:mod:`tomllib` parses and checks TOML but keeps no positions. :func:`locate`
walks the text once more (it was already accepted by :mod:`tomllib`, so the
walk is lenient) and records the 1-based line and column of every value and
key by path — table headers, ``[[arrays of tables]]``, dotted keys, inline
tables and arrays, with the usual string forms and comments.
"""

from __future__ import annotations

import contextlib
import re
import tomllib

from tierlock.validators.jsonpos import JsonPath, LineIndex

_BARE = re.compile(r"[A-Za-z0-9_-]+")
_WS = re.compile(r"[ \t]*")
_BASIC = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"')
_LITERAL = re.compile(r"'[^'\n]*'")
_SCALAR = re.compile(r"[^,\]}\s#]+(?:[ T][0-9][^,\]}\s#]*)?")


class Positions:
    """Offsets of the values and keys of one TOML document, by path."""

    def __init__(self, text: str) -> None:
        self.values: dict[JsonPath, int] = {}
        self.keys: dict[JsonPath, int] = {}
        self.lines = LineIndex(text)

    def locate(self, path: JsonPath, *, key: bool = False) -> tuple[int, int] | None:
        if not path:
            return 1, 1  # the document itself
        if key and path in self.keys:
            return self.lines.position(self.keys[path])
        for end in range(len(path), -1, -1):
            sub = path[:end]
            if sub in self.values:
                return self.lines.position(self.values[sub])
            if sub in self.keys:
                return self.lines.position(self.keys[sub])
        # A table that has no header of its own ([[a.b.c]] only): where its first part is written.
        n = len(path)
        inner = [at for p, at in (*self.values.items(), *self.keys.items()) if len(p) > n and p[:n] == path]
        return self.lines.position(min(inner)) if inner else None


class _Walker:
    def __init__(self, text: str) -> None:
        self.text = text
        self.out = Positions(text)
        self.aot: dict[JsonPath, int] = {}

    def ws(self, i: int, newlines: bool = False) -> int:
        text = self.text
        while i < len(text):
            ch = text[i]
            if ch in " \t\r" or (newlines and ch == "\n"):
                i += 1
            elif ch == "#" and newlines:
                end = text.find("\n", i)
                i = len(text) if end < 0 else end
            else:
                break
        return i

    def key(self, i: int) -> tuple[list[str], int]:
        parts: list[str] = []
        while True:
            i = self.ws(i)
            part, i = self.simple_key(i)
            parts.append(part)
            i = self.ws(i)
            if self.text.startswith(".", i):
                i += 1
                continue
            return parts, i

    def simple_key(self, i: int) -> tuple[str, int]:
        text = self.text
        for pattern in (_BASIC, _LITERAL):
            m = pattern.match(text, i)
            if m:
                raw = m.group()
                if raw.startswith('"'):
                    value = tomllib.loads(f"k = {raw}")["k"]
                else:
                    value = raw[1:-1]
                return str(value), m.end()
        m = _BARE.match(text, i)
        if m is None:
            raise ValueError(f"no key at offset {i}")
        return m.group(), m.end()

    def resolve(self, parts: list[str]) -> JsonPath:
        path: JsonPath = ()
        for part in parts:
            path = (*path, part)
            if path in self.aot:
                path = (*path, self.aot[path] - 1)
        return path

    def walk(self) -> Positions:
        text = self.text
        table: JsonPath = ()
        i = 0
        while True:
            i = self.ws(i, newlines=True)
            if i >= len(text):
                return self.out
            if text.startswith("[[", i):
                at = i
                parts, i = self.key(i + 2)
                plain = self.resolve(parts[:-1])
                full = (*plain, parts[-1])
                self.aot[full] = self.aot.get(full, 0) + 1
                table = (*full, self.aot[full] - 1)
                self.out.values.setdefault(full, at)
                self.out.values[table] = at
                i = text.find("\n", i)
            elif text.startswith("[", i):
                at = i
                parts, i = self.key(i + 1)
                table = self.resolve(parts)
                self.out.values.setdefault(table, at)
                i = text.find("\n", i)
            else:
                i = self.keyval(i, table)
            if i < 0:
                return self.out

    def keyval(self, i: int, table: JsonPath) -> int:
        at = i
        parts, i = self.key(i)
        path = (*table, *parts)
        self.out.keys[path] = at
        i = self.ws(i)
        if self.text.startswith("=", i):
            i = self.ws(i + 1)
        return self.value(i, path)

    def value(self, i: int, path: JsonPath) -> int:
        text = self.text
        self.out.values[path] = i
        if text.startswith('"""', i) or text.startswith("'''", i):
            return self.multiline(i)
        for pattern in (_BASIC, _LITERAL):
            m = pattern.match(text, i)
            if m:
                return m.end()
        if text.startswith("[", i):
            return self.array(i + 1, path)
        if text.startswith("{", i):
            return self.inline_table(i + 1, path)
        m = _SCALAR.match(text, i)
        return m.end() if m else i + 1

    def multiline(self, i: int) -> int:
        """The end of the multi-line string that starts at *i* (the text's end when it is not closed)."""
        text = self.text
        quote = text[i : i + 3]
        j = i + 3
        while True:
            end = text.find(quote, j)
            if end < 0:
                return len(text)
            if quote == '"""' and _escaped(text, end):
                j = end + 1
                continue
            while text.startswith(quote[0], end + 3):
                end += 1
            return end + 3

    def array(self, i: int, path: JsonPath) -> int:
        """The end of the array whose items start at *i*; each item's position recorded under its index."""
        text = self.text
        index = 0
        while True:
            i = self.ws(i, newlines=True)
            if i >= len(text) or text.startswith("]", i):
                return i + 1
            if text.startswith(",", i):
                i += 1
                continue
            i = self.value(i, (*path, index))
            index += 1

    def inline_table(self, i: int, path: JsonPath) -> int:
        """The end of the inline table whose pairs start at *i*; each key and value recorded."""
        text = self.text
        while True:
            i = self.ws(i, newlines=True)
            if i >= len(text) or text.startswith("}", i):
                return i + 1
            if text.startswith(",", i):
                i += 1
                continue
            i = self.keyval(i, path)


def _escaped(text: str, quote_at: int) -> bool:
    backslashes = 0
    j = quote_at - 1
    while j >= 0 and text[j] == "\\":
        backslashes += 1
        j -= 1
    return backslashes % 2 == 1


def locate(text: str) -> Positions:
    """Positions of every key and value in *text* (TOML already accepted by tomllib)."""
    walker = _Walker(text)
    with contextlib.suppress(ValueError, RecursionError):  # keep what was found before a part it cannot follow
        walker.walk()
    return walker.out
