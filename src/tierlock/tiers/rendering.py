"""The ``[tool.tierlock]`` table init writes: TOML built with tomlkit and appended after the existing bytes.

Comments, ordering, quoting, blank lines and CRLF line endings elsewhere in
the file stay exactly as they were; the result is parsed again and read as a
tier model before anything is returned (a proposal must itself be valid).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from tierlock.errors import ConfigError
from tierlock.links import doc as doc_url
from tierlock.tiers.inference import Inferred


def table(inferred: Inferred) -> str:
    """The ``[tool.tierlock]`` table (with ``\\n`` line endings), as TOML text."""
    import tomlkit

    body = tomlkit.table(is_super_table=False)
    body.add(tomlkit.comment(f"Dependency tiers, added by tierlock init; the keys: {doc_url('reference/config.md')}"))
    body.add("lock-dir", "lockfiles")
    body.add("format", "requirements")
    body.add(tomlkit.comment("Tiers CI must have: tierlock admit and strict pytest runs fail closed without them."))
    body.add("ci-require", _array(inferred.ci_require))
    if inferred.conflicts:
        array = tomlkit.array()
        for group in inferred.conflicts:
            array.append(list(group))
        array.multiline(True)
        body.add(tomlkit.comment("Tiers never armed together (from [tool.uv].conflicts)."))
        body.add("conflicts", array)
    tiers = tomlkit.table(is_super_table=True)
    for tier, source in inferred.tiers:
        tiers.add(tier, _tier(inferred, tier, source))
    body.add("tiers", tiers)
    doc = tomlkit.document()
    tool = tomlkit.table(is_super_table=True)
    tool.add("tierlock", body)
    doc.add("tool", tool)
    return tomlkit.dumps(doc).strip("\n") + "\n"


def _tier(inferred: Inferred, tier: str, source: str) -> Any:
    import tomlkit

    body = tomlkit.table()
    if tier in inferred.aggregates:
        parts = ", ".join(inferred.aggregates[tier])
        body.add(tomlkit.comment(f"An aggregate of {parts}: its tests are theirs."))
    body.add("source", source)
    if tier in inferred.layered:
        body.add("layered-on", inferred.layered[tier])
    if tier in inferred.import_roots:
        roots = tomlkit.inline_table()
        for dist, names in inferred.import_roots[tier].items():
            roots[dist] = list(names)
        body.add("import-roots", roots)
    if tier in inferred.tests:
        body.add("tests", _array(inferred.tests[tier]))
    return body


def _array(items: tuple[str, ...] | list[str]) -> Any:
    import tomlkit

    array = tomlkit.array()
    array.extend(items)
    array.multiline(len(items) > 1)
    return array


def append(text: str, rendered: str, path: Path) -> tuple[str, str]:
    """(the whole new text, the bytes appended): *rendered* after *text*, in its line endings."""
    newline = "\r\n" if "\r\n" in text else "\n"
    added = rendered.replace("\n", newline)
    try:
        tomllib.loads(text + newline + added)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"cannot append [tool.tierlock] to {path}: its [tool] table is written inline or with dotted keys ({exc})",
            file=str(path),
            remedy="move the [tool] entries into [tool.NAME] tables, then run: tierlock init",
        ) from exc
    prefix = newline if text and not text.endswith("\n") else ""
    if text.strip():
        prefix += newline
    return text + prefix + added, prefix + added


def newline_of(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"
