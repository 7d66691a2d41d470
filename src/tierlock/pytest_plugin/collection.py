"""Gating at collection: test files of a gated tier are never imported, by any collector.

Asked last (after pytest's own ``--ignore``, ``--ignore-glob``,
``collect_ignore`` and ``norecursedirs``), folders a gated tier's globs cover
are not collected; a gated file named on the command line stands as a
:class:`GatedFile` (never imported) whose children are skipped entries, and
every other collector of it (``--doctest-modules``) is dropped; tests marked
``tier(...)`` are skipped with the one command that arms every tier they
need. The files kept out are counted as the selection reads them
(``--deselect``, ``-k``, ``-m``), per tier.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest

from tierlock.pytest_plugin.decision import Gate
from tierlock.pytest_plugin.messages import NAMED_NOT_IMPORTED, NOT_IMPORTED
from tierlock.pytest_plugin.selection import Selection


def _rel(gate: Gate, path: Path) -> str | None:
    try:
        return path.relative_to(gate.root).as_posix()
    except ValueError:
        return None


def ignore_collect(gate: Gate, collection_path: Path, config: pytest.Config, selection: Selection) -> bool | None:
    """True for a gated file or folder (never False: that would override ``--ignore`` and other plugins)."""
    rel = _rel(gate, collection_path)
    if not rel or rel == ".":
        return None
    if collection_path.is_dir():
        tier = gate.tier_covering_dir(rel)
        if not selection.walked(collection_path.name) or tier is None:
            return None  # a dot folder (in a gated one entered for a named test): pytest's norecursedirs decides
        if names_tests_below(config, collection_path):
            # Tests named inside it (pytest folds ``tests/brain/test_b.py::test_x`` into a folder named above it):
            # pytest enters it; its files are asked one by one, and the named ones stand as skipped entries. The
            # conftest.py files on the way are pytest's initial conftests of that argument, loaded already.
            return None
        for path in selection.files(collection_path):
            count_kept(gate, selection, str(path), gate.tier_of(path.relative_to(gate.root).as_posix()) or tier)
        return True
    tier = gate.tier_of(rel)
    if tier is None:
        return None
    if requested_names(config.args, config.invocation_params.dir, collection_path):
        # Tests named inside it (``file.py::test``) stand as skipped entries (make_module), even when pytest
        # reaches the file through a folder also named (``pytest tests/brain tests/brain/test_b.py::test_x``).
        return None
    if selection.collects(collection_path.name):
        count_kept(gate, selection, str(collection_path), tier)
    return True


def count_kept(gate: Gate, selection: Selection, path: str, tier: str) -> bool:
    """Count a file kept out when the run selects a test of it (pytest also asks about a selected path's siblings);
    whether it was counted."""
    if not selection.selects(path):
        return False
    if selection.narrows(path) and not selection.kept_items(path):
        return False
    gate.ignored.add(path)
    rel = os.path.relpath(path, gate.root).replace(os.sep, "/")
    for each in gate.tiers_of(rel) or [tier]:
        gate.kept_by_tier.setdefault(each, set()).add(path)
    return True


def only_gated(gate: Gate, file_path: Path, collectors: list[pytest.Collector]) -> list[pytest.Collector]:
    """The collectors of a gated file, less every one that would import it (``--doctest-modules``)."""
    rel = _rel(gate, file_path)
    if not rel or gate.tier_of(rel) is None:
        return collectors
    return [c for c in collectors if isinstance(c, GatedFile)]


def names_tests_below(config: pytest.Config, folder: Path) -> bool:
    """Whether a collection argument names tests inside a file below *folder* (``folder/…/file.py::test``)."""
    base = config.invocation_params.dir
    for arg in config.args:
        head, sep, rest = str(arg).partition("::")
        if sep and rest and folder in Path(os.path.abspath(base / head)).parents:
            return True
    return False


class GatedFile(pytest.File):
    """Stands in for a test module of a tier that is not present; never imports it.

    Its one child is a skipped entry named after the file; when the command
    line names tests inside it (``file.py::TestX::test_y``, as IDEs do), it
    has skipped entries of those names instead (each one skipped test), so
    pytest finds what it was asked for without importing the module.
    """

    reason: str = ""
    named_reason: str = ""

    def collect(self) -> Iterable[pytest.Item | pytest.Collector]:
        chains = requested_names(self.config.args, self.config.invocation_params.dir, self.path)
        if chains:
            return gated_children(self, chains, self.named_reason)
        return gated_children(self, [[self.path.name]], self.reason)


class GatedGroup(pytest.Collector):
    """A class (or other collector) named on the command line inside a gated file."""

    reason: str = ""
    chains: tuple[tuple[str, ...], ...] = ()

    def collect(self) -> Iterable[pytest.Item | pytest.Collector]:
        return gated_children(self, self.chains, self.reason)


def requested_names(args: Iterable[str], base: Path, path: Path) -> list[list[str]]:
    """The ``::`` parts of the collection arguments that name tests inside the file *path*."""
    out: list[list[str]] = []
    for arg in args:
        head, sep, rest = str(arg).partition("::")
        if sep and rest and Path(os.path.abspath(base / head)) == path:
            out.append(rest.split("::"))
    return out


def gated_children(
    parent: pytest.Collector, chains: Sequence[Sequence[str]], reason: str
) -> list[pytest.Item | pytest.Collector]:
    """Skipped entries (and the collectors that hold them) for each chain of names below *parent*."""
    tails: dict[str, list[tuple[str, ...]]] = {}
    for chain in chains:
        tails.setdefault(chain[0], []).append(tuple(chain[1:]))
    out: list[pytest.Item | pytest.Collector] = []
    for name, rest in tails.items():
        deeper = [t for t in rest if t]
        if deeper:
            group = GatedGroup.from_parent(parent, name=name)
            group.reason, group.chains = reason, tuple(deeper)
            out.append(group)
        else:
            item = GatedItem.from_parent(parent, name=name)
            item.reason = reason
            out.append(item)
    return out


class GatedItem(pytest.Item):
    """One skipped entry for a gated file named on the command line, reported at the file."""

    reason: str = ""

    def runtest(self) -> None:
        raise pytest.skip.Exception(self.reason, _use_item_location=True)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, self.name


def make_module(
    gate: Gate, module_path: Path, parent: pytest.Collector, selection: Selection
) -> pytest.Collector | None:
    """A :class:`GatedFile` for a gated test module named on the command line (never imported)."""
    rel = _rel(gate, module_path)
    tier = gate.tier_of(rel) if rel else None
    if tier is None:
        return None
    node = GatedFile.from_parent(parent, path=module_path)
    node.reason = f"{NOT_IMPORTED} {gate.reason(tier)}"
    node.named_reason = f"{NAMED_NOT_IMPORTED} {gate.reason(tier)}"
    if not requested_names(parent.config.args, parent.config.invocation_params.dir, module_path):
        count_kept(gate, selection, str(module_path), tier)  # the whole file: one file not collected
    return node


def skip_marked(gate: Gate, items: Sequence[pytest.Item]) -> None:
    """Skip every test marked ``tier(...)`` for a tier that is not present (one reason for all it needs)."""
    from tierlock.probing import normalize

    for item in items:
        names: list[str] = []
        for marker in item.iter_markers("tier"):
            name = marker.args[0] if marker.args else marker.kwargs.get("name")
            if not isinstance(name, str):
                raise pytest.UsageError(f"{item.nodeid}: the tier marker needs a tier name: @pytest.mark.tier('brain')")
            tier = normalize(name)
            if tier not in gate.states:
                declared = ", ".join(gate.states)
                raise pytest.UsageError(
                    f"{item.nodeid}: unknown tier {name!r} in its tier marker; declared: {declared}"
                )
            names.append(tier)
        missing = [t for t in dict.fromkeys(names) if gate.states[t] != "present" or gate.outside_job(t)]
        if missing:
            item.add_marker(pytest.mark.skip(reason=gate.reason(missing)))
