"""``tierlock init`` on a project that commits uv.lock: read uv.lock, and put the pytest plugin in the lock.

Two changes to what :func:`tierlock.tiers.init.propose` proposes:

* ``lock = "uv.lock"`` in place of ``lock-dir`` and ``format``: every tier
  reads its closure from uv.lock, so no tierlock lockfile is written, and the
  extras and groups that reach workspace members or path sources (which only
  tierlock's own lockfiles cannot hold) are tiers too;
* the pytest plugin (:data:`PLUGIN_DISTRIBUTION`) joins the project's test
  dependency group, so uv.lock carries it and a plain ``uv sync`` keeps it: the
  plugin left out of the lock is uninstalled by the next ``uv sync``, and the
  next CI run goes green with no gate at all.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import replace
from importlib import metadata
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import canonicalize_name

from tierlock.tiers.init import Proposal
from tierlock.tiers.loader import parse_project

#: The distribution that carries tierlock's pytest plugin (the one name to change when it gets its own).
PLUGIN_DISTRIBUTION = "tierlock"
#: Dependency groups that hold a project's test tools, most likely first (uv's default group last).
TEST_GROUPS = ("test", "tests", "testing", "dev")


def uses_uv_lock(root: Path) -> bool:
    return uv_lock_of(root) is not None


def uv_lock_of(root: Path) -> str | None:
    """The uv.lock the project's tiers read, as ``lock`` names it: ``uv.lock`` beside pyproject.toml, else the
    lock of the uv workspace the project is a member of (``../../uv.lock``: uv locks a workspace in one file at
    its root), else None."""
    if (root / "uv.lock").is_file():
        return "uv.lock"
    from tierlock.tiers import workspace

    found = workspace.lock_of(root)
    return workspace.relative(root, found) if found is not None else None


def for_uv_project(proposal: Proposal, path: Path) -> tuple[Proposal, str | None]:
    """The proposal reading uv.lock, with the plugin in the test group: (the proposal, the group it went to or None
    when the group already has it).

    A workspace member's tiers read the workspace's uv.lock and live in the workspace's environment (``venv``:
    its root's ``.venv``, the one ``uv sync`` and ``uv run`` use for every member).
    """
    import tomlkit

    newline = "\r\n" if "\r\n" in proposal.text else "\n"
    bom = "\ufeff" if proposal.text.startswith("\ufeff") else ""
    own_lockfiles = f'lock-dir = "lockfiles"{newline}format = "requirements"'
    lock = uv_lock_of(path.parent) or "uv.lock"
    setting = f"lock = {_quoted(lock)}"
    if lock != "uv.lock":
        setting += f"{newline}venv = {_quoted(lock.removesuffix('uv.lock') + '.venv')}"
    added = proposal.added.replace(own_lockfiles, setting, 1)
    for skipped in proposal.skipped:  # uv.lock holds what an index cannot serve: workspace members, path sources
        added += f"{newline}[tool.tierlock.tiers.{skipped.name}]{newline}source = {_quoted(skipped.source)}{newline}"
    before = proposal.text[len(bom) : len(proposal.text) - len(proposal.added)]
    document = tomlkit.parse(before)
    group = _add_plugin(document)
    text = tomlkit.dumps(document).replace("\r\n", "\n").replace("\n", newline) + added

    parse_project(tomllib.loads(text), pyproject=path, text=text)  # the proposal must itself be valid
    inferred = replace(
        proposal.inferred,
        tiers=[*proposal.inferred.tiers, *((s.name, s.source) for s in proposal.skipped)],
        skipped=[],
    )
    proposal = replace(proposal, text=bom + text, added=added, inferred=inferred)
    return proposal, group


def _quoted(value: str) -> str:
    return json.dumps(value)


def _add_plugin(document: Any) -> str | None:
    """Add the plugin to the test dependency group (created when there is none); the group's name, or None."""
    import tomlkit

    groups = document.get("dependency-groups")
    if groups is None:
        groups = tomlkit.table()
        document.add("dependency-groups", groups)
    existing: dict[str, str] = {canonicalize_name(str(g)): str(g) for g in groups}
    name = next((existing[g] for g in TEST_GROUPS if g in existing), "test")
    if name not in groups:
        groups[name] = tomlkit.array()
    items = groups[name]
    for item in items:
        try:
            if isinstance(item, str) and canonicalize_name(Requirement(item).name) in _PLUGIN_NAMES:
                return None
        except InvalidRequirement:
            continue
    items.append(plugin_requirement(document.get("project", {}).get("requires-python")))
    return name


def plugin_requirement(requires_python: object) -> str:
    """The plugin's requirement for a project that supports *requires_python*: with a marker when the project
    supports Pythons the plugin does not (so ``uv lock`` resolves, and older Pythons go without the gate)."""

    lowest = _plugin_lowest_python()
    try:
        allowed = SpecifierSet(str(requires_python)) if isinstance(requires_python, str) else SpecifierSet()
    except InvalidSpecifier:
        return PLUGIN_DISTRIBUTION
    major, minor = (int(p) for p in lowest.split(".")[:2])
    older = [f"{major}.{m}.{micro}" for m in range(minor) for micro in (0, 99)]
    if any(allowed.contains(v, prereleases=True) for v in older):
        return f'{PLUGIN_DISTRIBUTION}; python_version >= "{major}.{minor}"'
    return PLUGIN_DISTRIBUTION


def _plugin_lowest_python() -> str:
    """The lowest Python the plugin's distribution supports (its ``Requires-Python``: ``>=3.11`` -> ``3.11``)."""

    try:
        declared = metadata.metadata(PLUGIN_DISTRIBUTION)["Requires-Python"] or ""
    except (metadata.PackageNotFoundError, KeyError):
        declared = ""
    found = re.search(r">=\s*(\d+\.\d+)", declared)
    return found.group(1) if found else "3.11"


_PLUGIN_NAMES = {canonicalize_name(PLUGIN_DISTRIBUTION), "tierlock", "pytest-tierlock"}


def next_step(group: str | None) -> str:
    """What to run after init on a uv project."""
    if group is None:
        return "next: review the table, then run: tierlock tiers && tierlock check (uv.lock is read as it is)"
    return (
        f"next: the {group} dependency group now has {PLUGIN_DISTRIBUTION}, whose pytest plugin gates the tests "
        f"(while your index does not serve {PLUGIN_DISTRIBUTION}, give it a source in [tool.uv.sources] first); "
        "run: uv lock && tierlock check"
    )
