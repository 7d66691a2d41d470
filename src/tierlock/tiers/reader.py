"""Reading one pyproject document: TOML with the place of a syntax error, and a reader that collects
every problem at its place (table, key, index, line) instead of stopping at the first.

The readers of the settings (:mod:`tierlock.tiers.projectmeta`, :mod:`tierlock.tiers.settings`,
:mod:`tierlock.tiers.tierkeys`) take a :class:`Reader` and report through it.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import NormalizedName, canonicalize_name

from tierlock import fsutil
from tierlock.errors import ConfigError, Problem, ProblemCollector, TierlockError

#: What may start and end a name: what ``[A-Z0-9]`` matches in a case-insensitive :mod:`re` pattern (the ASCII
#: letters and digits, and the four other letters whose case folds onto ASCII ones: U+0130, U+0131, U+017F, U+212A).
_NAME_ENDS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789\u0130\u0131\u017f\u212a")
#: What a name is made of.
_NAME_CHARS = _NAME_ENDS | frozenset("._-")
#: Where tomllib says a syntax error is (compiled at first use: only a file that is not valid TOML has one).
_TOML_POS_RE = r"\(at line (\d+), column (\d+)\)"


def parse_toml(text: str, path: Path) -> dict[str, Any]:
    """Parse TOML text, turning a syntax error into a ConfigError with line and column."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        line = column = None
        match = re.search(_TOML_POS_RE, message)
        if match:
            line, column = int(match.group(1)), int(match.group(2))
            message = re.sub(_TOML_POS_RE, "", message).strip()
        problem = Problem(f"invalid TOML: {message}", file=str(path), line=line, column=column)
        raise ConfigError(
            f"{path} is not valid TOML",
            file=str(path),
            line=line,
            problems=[problem],
            remedy=f"fix the syntax at line {line}, column {column}" if line else "fix the TOML syntax",
        ) from exc
    except (ValueError, RecursionError) as exc:  # an integer of over 4300 digits, nesting past the recursion limit
        line, what = _unreadable_at(text, exc)
        problem = Problem(f"cannot be read: {what}", file=str(path), line=line, column=1)
        raise ConfigError(
            f"{path} cannot be read as TOML: {what}",
            file=str(path),
            line=line,
            problems=[problem],
            remedy=f"shorten what starts at line {line}" if line else "shorten the document's values and nesting",
        ) from exc


def _unreadable_at(text: str, exc: BaseException) -> tuple[int | None, str]:
    """Where a valid-looking document defeats the parser, and why (found by a linear scan, never a regex)."""
    if isinstance(exc, RecursionError):
        depth = 0
        for i, char in enumerate(text):
            if char in "[{":
                depth += 1
                if depth > 100:
                    return text.count("\n", 0, i) + 1, "nesting deeper than 100 levels"
            elif char in "]}":
                depth = max(0, depth - 1)
        return None, "nesting too deep"
    run = 0
    for i, char in enumerate(text):
        run = run + 1 if char.isdigit() or (char == "_" and run) else 0
        if run > 4300:
            return text.count("\n", 0, i) + 1, "an integer of more than 4300 digits"
    return None, "a value Python cannot convert"


def where_key(table: str, key: str | None = None, index: int | None = None) -> str:
    """Render a TOML place such as ``[tool.tierlock.tiers.brain].probe[1]``."""
    text = f"[{table}]"
    if key is not None:
        text += f".{_toml_key(key)}"
    if index is not None:
        text += f"[{index}]"
    return text


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else f'"{key}"'


def locate(text: str, table: str, key: str | None) -> int | None:
    """Best-effort line number of *key* inside ``[table]`` (or of the header)."""
    parts = [re.escape(p) for p in table.split(".")]
    header = re.compile(r"^\s*\[\s*" + r"\s*\.\s*".join(f'"?{p}"?' for p in parts) + r"\s*\]\s*(#.*)?$")
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        if header.match(line):
            if key is None:
                return number
            key_re = re.compile(r"^\s*[\"']?" + re.escape(key) + r"[\"']?\s*=")
            for offset, later in enumerate(lines[number:], start=number + 1):
                if re.match(r"^\s*\[", later):
                    return None
                if key_re.match(later):
                    return offset
            return None
    return None


def type_name(value: object) -> str:
    """How a TOML value's type is named in a message (``a string``, ``an array`` ...)."""
    return {
        str: "a string",
        int: "an integer",
        float: "a float",
        bool: "a boolean",
        list: "an array",
        dict: "a table",
    }.get(type(value), type(value).__name__)


def valid_name(name: str) -> bool:
    """Whether *name* is a valid project, extra, group or tier name (the packaging name format).

    The answer of ``re.match(r"^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$", name, re.IGNORECASE)`` (a newline
    at the very end allowed, as ``$`` allows it), without compiling that pattern (half a millisecond of
    every command that reads pyproject.toml)."""
    if name.endswith("\n"):
        name = name[:-1]
    return bool(name) and name[0] in _NAME_ENDS and name[-1] in _NAME_ENDS and _NAME_CHARS.issuperset(name)


def _close_matches(word: str, possibilities: Sequence[str]) -> list[str]:
    """The closest of *possibilities* to *word* (at most one): difflib loads only for a mistyped name."""
    import difflib

    return difflib.get_close_matches(word, possibilities, n=1)


class Reader:
    """Accumulates problems while reading one pyproject document."""

    def __init__(self, pyproject: Path, text: str | None) -> None:
        self.pyproject = pyproject
        self.text = text
        """The document's text (None: read from *pyproject* when a problem is placed, never otherwise)."""
        self.errors = ProblemCollector()

    def line_of(self, table: str, key: str | None = None) -> int | None:
        """The line of *key* in ``[table]`` (None when the text is not known or the key is not found)."""
        if self.text is None:
            try:
                self.text = fsutil.read_text(self.pyproject)
            except (OSError, ValueError, TierlockError):  # gone or changed since: the problem is still named
                self.text = ""
        return locate(self.text, table, key) if self.text else None

    def problem(
        self, message: str, table: str, key: str | None = None, index: int | None = None, hint: str | None = None
    ) -> None:
        line = self.line_of(table, key)
        self.errors.add(message, where_key(table, key, index), file=str(self.pyproject), line=line, hint=hint)

    def raise_if_any(self) -> None:
        """One ConfigError listing every problem found so far."""
        if self.errors:
            raise ConfigError(
                f"{self.pyproject}: {len(self.errors.problems)} problem(s) in the tier declarations",
                file=str(self.pyproject),
                problems=self.errors.problems,
                remedy=f"edit {self.pyproject.name} as described above, then run: tierlock tiers",
            )

    def table(self, value: object, table: str, key: str | None = None) -> dict[str, Any]:
        """*value* when it is a table; else a problem and an empty table."""
        if isinstance(value, dict):
            return value
        self.problem(f"must be a table, not {type_name(value)}", table, key)
        return {}

    def unknown_tier(self, written: str, known: Sequence[str], table: str, key: str, index: int | None = None) -> None:
        """A tier name that names no declared tier, with the closest one as a hint."""
        close = _close_matches(canonicalize_name(written), list(known))
        self.problem(
            f"unknown tier {written!r}; declared tiers: {', '.join(known)}",
            table,
            key,
            index,
            hint=f"did you mean {close[0]!r}?" if close else None,
        )

    def choice(self, value: object, allowed: Sequence[str], table: str, key: str) -> bool:
        """Whether *value* is one of *allowed*; else a problem with the closest one as a hint."""
        if value in allowed:
            return True
        close = _close_matches(str(value), allowed)
        self.problem(
            f"must be one of {', '.join(allowed)}, not {value!r}",
            table,
            key,
            hint=f"did you mean {close[0]!r}?" if close else None,
        )
        return False

    def string_list(self, value: object, table: str, key: str) -> list[str] | None:
        if not isinstance(value, list):
            self.problem(f"must be an array of strings, not {type_name(value)}", table, key)
            return None
        out: list[str] = []
        for i, item in enumerate(value):
            if isinstance(item, str):
                out.append(item)
            else:
                self.problem(f"must be a string, not {type_name(item)}", table, key, i)
        return out

    def unknown_keys(self, table_value: Mapping[str, object], allowed: Sequence[str], table: str) -> None:
        for key in table_value:
            if key not in allowed:
                close = _close_matches(key, allowed)
                hint = f"did you mean {close[0]!r}?" if close else f"known keys: {', '.join(allowed)}"
                self.problem(f"unknown key {key!r}", table, key, hint=hint)

    def requirements(self, values: object, table: str, key: str | None) -> list[Requirement]:
        out: list[Requirement] = []
        if not isinstance(values, list):
            self.problem(f"must be an array of requirement strings, not {type_name(values)}", table, key)
            return out
        for i, item in enumerate(values):
            if not isinstance(item, str):
                self.problem(f"must be a requirement string, not {type_name(item)}", table, key, i)
                continue
            try:
                out.append(Requirement(item))
            except InvalidRequirement as exc:
                self.problem(f"invalid requirement {item!r}: {exc}", table, key, i)
        return out

    def distributions(self, items: Sequence[str], table: str, key: str) -> list[NormalizedName]:
        """Distribution names, each valid and spelled once (normalised)."""
        out: list[NormalizedName] = []
        spelled: dict[NormalizedName, str] = {}
        for i, item in enumerate(items):
            if not valid_name(item):
                self.problem(f"{item!r} is not a valid distribution name", table, key, i)
                continue
            norm = canonicalize_name(item)
            if norm in spelled:
                message = f"{item!r} and {spelled[norm]!r} are two spellings of one distribution ({norm!r})"
                self.problem(message, table, key, i)
                continue
            spelled[norm] = item
            out.append(norm)
        return out
