"""One command's probes look at each installed folder's files once, however many tiers probe the distribution.

On the 3-tier world of ``benchmarks/_cliworld.py`` (base, brain with compiled files, viz; armed by
``install-tier`` into a real venv), base's packages are the roots of one tier and members of the two others'
closures: each is probed under several keys. A :class:`~tierlock.probing.tier.Prober` (one command) stats every
file RECORD lists once for all of them, with the same verdicts as a prober per tier; a new prober (the next
command) looks again, and sees a compiled file deleted in between. An index nobody asked to keep its checks (the
installer's, the plugin's) keeps none.
"""

from __future__ import annotations

import collections
import os
from pathlib import Path

import pytest

from tests.support.kept import World
from tierlock.environment import inspect
from tierlock.probing.distribution import probe_distribution
from tierlock.probing.site import SiteIndex
from tierlock.probing.tier import Prober
from tierlock.tiers import load_project


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return World(tmp_path_factory.mktemp("once"))


def prober(world: World) -> Prober:
    return Prober(load_project(world.project), inspect(world.python))


def counting(monkeypatch: pytest.MonkeyPatch) -> collections.Counter[str]:
    """Every ``os.stat`` of a ``str`` path from now on, counted."""
    counted: collections.Counter[str] = collections.Counter()
    real = os.stat

    def stat(path: object, *args: object, **kwargs: object) -> os.stat_result:
        if isinstance(path, str):
            counted[path] += 1
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "stat", stat)
    return counted


def test_a_folder_probed_under_two_keys_in_one_command_is_stat_ed_once_with_the_same_verdicts(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = inspect(world.python)
    site = Path(target.site_paths[0])
    record = next(r for r in sorted(site.glob("*.dist-info/RECORD")) if ".so," in r.read_text())  # compiled files
    rows = [line.split(",")[0] for line in record.read_text().splitlines()]
    name = record.parent.name.split("-")[0]
    gone = site / next(row for row in rows if row.endswith(".py") and ".dist-info" not in row)
    saved = gone.read_bytes()
    gone.unlink()  # not whole: every probe of it takes the full way (no kept verdict short-cuts it)

    def looked(keep: bool, keys: list[tuple[str, ...]]) -> tuple[list[dict[str, object]], dict[str, int]]:
        index = SiteIndex.scan(target.site_paths, target.ext_suffixes)
        index.checked = {} if keep else None
        counted = counting(monkeypatch)
        verdicts = [probe_distribution(name, index=index, import_roots=key).to_dict() for key in keys]
        monkeypatch.undo()
        return verdicts, {path: n for path, n in counted.items() if path.startswith(str(site))}

    try:
        keys = [(name.lower(),), ()]  # as a root of one tier, as a member of another's closure
        kept, kept_looks = looked(True, keys)
        again, again_looks = looked(False, keys)
        _, once_looks = looked(True, keys[:1])
        assert kept == again
        assert not kept[0]["present"]
        assert kept_looks == once_looks  # the second probe looked nothing up: not a file, not a compiled one
        assert sum(again_looks.values()) > sum(kept_looks.values())  # each probe looked again
    finally:
        gone.write_bytes(saved)


def test_every_tier_of_a_prober_gives_the_verdict_of_a_prober_per_tier(world: World) -> None:
    project = load_project(world.project)
    alone = [prober(world).probe(tier).to_dict() for tier in project.select([])]
    one = prober(world)
    assert [one.probe(tier).to_dict() for tier in project.select([])] == alone
    assert one.index.checked is not None


def test_the_next_command_looks_again_and_sees_a_deleted_compiled_file(world: World) -> None:
    first = prober(world)
    assert all(first.probe(tier).present for tier in load_project(world.project).select([]))
    library = next(Path(world.venv).rglob("*.so"))
    saved = library.read_bytes()
    library.unlink()
    try:
        again = [prober(world).probe(tier) for tier in load_project(world.project).select([])]
        assert not all(result.present for result in again)
        assert any(library.name in reason for r in again for d in r.checked for reason in d.reasons)
    finally:
        library.write_bytes(saved)


def test_an_index_keeps_no_checks_unless_its_caller_asks(world: World) -> None:
    target = inspect(world.python)
    assert SiteIndex.scan(target.site_paths, target.ext_suffixes).checked is None
