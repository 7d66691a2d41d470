"""A ``pyproject.toml`` for a test, built from what the test cares about (one builder, not a template per file).

:func:`pyproject` writes ``[project]`` (name, version, requires-python and dependencies, each left out
when None), the extras, the
dependency groups, ``[tool.tierlock]`` and one table per tier, in that order, a blank line between
tables; *tail* is appended as written (``[tool.uv]``, ``[tool.pytest.ini_options]``...). A test that is
about the file's own text (a line number, a comment, a broken table) keeps its text as written.

>>> print(pyproject(dependencies=["alpha>=1"], extras={"brain": ["gamma"]}, tiers={"brain": {}}))
[project]
name = "proj"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["alpha>=1"]
<BLANKLINE>
[project.optional-dependencies]
brain = ["gamma"]
<BLANKLINE>
[tool.tierlock.tiers.brain]
<BLANKLINE>
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence


def value(item: object) -> str:
    """*item* as a TOML value: strings, booleans, integers, arrays and inline tables."""
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, str | int | float):
        return json.dumps(item, ensure_ascii=False)
    if isinstance(item, Mapping):
        return "{ " + ", ".join(f"{key_of(key)} = {value(v)}" for key, v in item.items()) + " }"
    if isinstance(item, Sequence):
        return "[" + ", ".join(value(v) for v in item) + "]"
    raise TypeError(f"no TOML value for {item!r}")


def key_of(key: object) -> str:
    """*key* as a TOML key: bare when it may be, else quoted."""
    text = str(key)
    return text if text and all(c.isascii() and (c.isalnum() or c in "-_") for c in text) else json.dumps(text)


def document(data: Mapping[str, object]) -> str:
    """A whole TOML document of *data*: one ``key = value`` line per top-level key (tables inline)."""
    return "".join(f"{key_of(key)} = {value(item)}\n" for key, item in data.items())


def _table(header: str, items: Mapping[str, object]) -> str:
    return "\n".join([f"[{header}]", *(f"{key} = {value(v)}" for key, v in items.items())]) + "\n"


def pyproject(
    *,
    name: str = "proj",
    version: str = "0.1.0",
    requires_python: str | None = ">=3.11",
    dependencies: Sequence[str] | None = (),
    extras: Mapping[str, Sequence[str]] | None = None,
    groups: Mapping[str, Sequence[object]] | None = None,
    tierlock: Mapping[str, object] | None = None,
    tiers: Mapping[str, Mapping[str, object]] | None = None,
    tail: str = "",
) -> str:
    """The text of a ``pyproject.toml`` with these declarations (see the module's docstring)."""
    project: dict[str, object] = {"name": name, "version": version}
    if requires_python is not None:
        project["requires-python"] = requires_python
    if dependencies is not None:
        project["dependencies"] = list(dependencies)
    tables = [_table("project", project)]
    if extras:
        tables.append(_table("project.optional-dependencies", extras))
    if groups:
        tables.append(_table("dependency-groups", groups))
    if tierlock:
        tables.append(_table("tool.tierlock", tierlock))
    tables += [_table(f"tool.tierlock.tiers.{tier}", items) for tier, items in (tiers or {}).items()]
    if tail:
        tables.append(tail if tail.endswith("\n") else tail + "\n")
    return "\n".join(tables)
