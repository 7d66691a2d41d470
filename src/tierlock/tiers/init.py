"""``tierlock init``: propose a [tool.tierlock] table, appended byte-exactly.

:func:`propose` is pure (pyproject text in, new text out). The table is built
with tomlkit and appended after the existing bytes, so comments, ordering,
quoting, blank lines and CRLF line endings elsewhere stay exactly as they were.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from packaging.utils import canonicalize_name

from tierlock.errors import ConfigError
from tierlock.tiers.loader import parse_project, parse_toml


@dataclass(frozen=True)
class Proposal:
    text: str
    """The whole new pyproject.toml."""
    added: str
    """Just the bytes that were appended."""
    tiers: tuple[tuple[str, str], ...]
    """(tier name, source) pairs proposed."""


def propose(text: str, path: Path, *, existing_test_dirs: frozenset[str] = frozenset()) -> Proposal:
    """Append a ``[tool.tierlock]`` table to the pyproject *text*."""
    import tomlkit

    bom = "\ufeff" if text.startswith("\ufeff") else ""  # read like load_project reads it, and kept
    text = text.removeprefix(bom)
    data = parse_toml(text, path)
    tool = data.get("tool", {})
    if isinstance(tool, dict) and "tierlock" in tool:
        raise ConfigError(
            f"{path} already has a [tool.tierlock] table; init changes nothing",
            file=str(path),
            remedy="edit the table by hand, or run: tierlock tiers",
        )
    project = data.get("project", {}) if isinstance(data.get("project"), dict) else {}
    extras = list((project.get("optional-dependencies") or {}).keys())
    groups = list((data.get("dependency-groups") or {}).keys())
    tiers: list[tuple[str, str]] = []
    used: set[str] = {"base"}
    for kind, names in (("extra", extras), ("group", groups)):
        for raw in names:
            name = canonicalize_name(raw)
            tier = name if name not in used else f"{name}-{kind}"
            used.add(tier)
            tiers.append((tier, f"{kind}:{name}"))

    table = tomlkit.table(is_super_table=False)
    from tierlock.links import doc as doc_url

    table.add(tomlkit.comment(f"Dependency tiers, added by tierlock init; the keys: {doc_url('reference/config.md')}"))
    table.add("lock-dir", "lockfiles")
    table.add("format", "requirements")
    tiers_table = tomlkit.table(is_super_table=True)
    for tier, source in tiers:
        body = tomlkit.table()
        body.add("source", source)
        guess = f"tests/{tier}"
        if guess in existing_test_dirs:
            body.add("tests", [f"{guess}/**"])
        tiers_table.add(tier, body)
    table.add("tiers", tiers_table)
    doc = tomlkit.document()
    tool_table = tomlkit.table(is_super_table=True)
    tool_table.add("tierlock", table)
    doc.add("tool", tool_table)
    rendered = tomlkit.dumps(doc).strip("\n") + "\n"

    newline = "\r\n" if "\r\n" in text else "\n"
    added = rendered.replace("\n", newline)
    prefix = ""
    if text and not text.endswith("\n"):
        prefix = newline
    if text.strip():
        prefix += newline
    added = prefix + added
    new_text = text + added
    try:
        result = tomllib.loads(new_text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"cannot append [tool.tierlock] to {path}: its [tool] table is written inline or with dotted keys ({exc})",
            file=str(path),
            remedy="move the [tool] entries into [tool.NAME] tables, then run: tierlock init",
        ) from exc
    parse_project(result, pyproject=path, text=new_text)  # the proposal must itself be valid
    return Proposal(text=bom + new_text, added=added, tiers=tuple(tiers))


def test_dirs(root: Path) -> frozenset[str]:
    """Folders ``tests/<name>`` that exist under *root* (to propose test globs)."""
    tests = root / "tests"
    if not tests.is_dir():
        return frozenset()
    return frozenset(f"tests/{p.name}" for p in tests.iterdir() if p.is_dir())
