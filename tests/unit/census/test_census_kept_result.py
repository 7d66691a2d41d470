"""A census's result is kept by everything it rests on and given again only while none of it changed.

Real files in ``tmp_path`` (dated a minute back, as files not just written are), the census run with a
:class:`~tierlock.census.keptresult.Kept` store in the suite's cache folder. Each hostile change (a conftest or
helper edit that changes the answer, a same-size rewrite with the modification time put back, a deleted file, a
cycle of imports between helpers, other tier roots, a damaged kept file) must give exactly the result a census
with nothing kept gives; a recorded run gets the same entry from a kept result as from a census worked out.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.censusfiles import write
from tierlock import keptrecord, keptrun
from tierlock.census import CACHE_KEY, CensusTier, DiskTree, FolderCache, Memo, survey
from tierlock.census import engine as census_engine
from tierlock.census.keptresult import SETTLE_NS, Kept, decoded, encoded
from tierlock.census.summary import canonical
from tierlock.keptfirst import folder
from tierlock.keptrecord import Recorder

OLD = time.time() - 60
TIERS = [CensusTier("brain", ("brainpkg",), ("tests/brain/**",)), CensusTier("plots", ("plotspkg",), ())]


def age(root: Path) -> None:
    for where, dirs, names in os.walk(root):
        for name in [*dirs, *names]:
            os.utime(os.path.join(where, name), (OLD, OLD))


@pytest.fixture
def root(tmp_path: Path) -> Path:
    base = tmp_path / "proj"
    write(base, "tests/__init__.py", "")
    write(base, "tests/conftest.py", "import pytest\n\n\n@pytest.fixture\ndef value():\n    return 1\n")
    write(base, "tests/brain/test_brain.py", "import brainpkg\n\n\ndef test_it():\n    assert brainpkg.X\n")
    write(base, "tests/test_plain.py", "from tests.helper import thing\n\n\ndef test_plain():\n    assert thing\n")
    write(base, "tests/helper.py", "thing = 1\n")
    age(base)
    return base


def fresh(root: Path, tiers: list[CensusTier] = TIERS) -> Any:
    """The census worked out with nothing kept, as plain data."""
    return canonical(survey(DiskTree(root), tiers))


def kept(root: Path, tiers: list[CensusTier] = TIERS) -> Any:
    return canonical(survey(DiskTree(root), tiers, kept=Kept(str(root))))


def worked_out_never(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object) -> None:
        raise AssertionError("the census was worked out though nothing it rests on changed")

    monkeypatch.setattr(census_engine, "_worked_out", refuse)


def test_a_second_census_with_nothing_changed_is_the_kept_result(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = kept(root)
    assert first == fresh(root)
    worked_out_never(monkeypatch)
    assert kept(root) == first


def _conftest_autouse(root: Path) -> None:
    text = "import pytest\n\n\n@pytest.fixture(autouse=True)\ndef value():\n    import plotspkg\n"
    write(root, "tests/conftest.py", text)


def _helper_skips(root: Path) -> None:
    write(root, "tests/helper.py", "import pytest\n\nplotspkg = pytest.importorskip('plotspkg')\nthing = 1\n")


def _same_size_and_time(root: Path) -> None:
    path = root / "tests/brain/test_brain.py"
    text = path.read_text()
    path.write_text(text.replace("brainpkg", "plotspkg"))  # the same size
    os.utime(path, (OLD, OLD))  # the same modification time: the time its status changed moved


def _deleted(root: Path) -> None:
    (root / "tests/brain/test_brain.py").unlink()


def _cycle(root: Path) -> None:
    write(root, "tests/helper.py", "from tests.other import more\n\nthing = 1\n")
    write(root, "tests/other.py", "import plotspkg\nfrom tests.helper import thing\n\nmore = 2\n")


def _new_test_file(root: Path) -> None:
    write(root, "tests/test_new.py", "import brainpkg\n\n\ndef test_new():\n    pass\n")


HOSTILE = {
    "a conftest's fixture made autouse and needing a root": _conftest_autouse,
    "a helper module gaining an importorskip": _helper_skips,
    "a file rewritten with the same size and modification time": _same_size_and_time,
    "a test file deleted": _deleted,
    "a cycle of imports between helpers reaching a root": _cycle,
    "a new test file": _new_test_file,
}


@pytest.mark.parametrize("change", list(HOSTILE), ids=list(HOSTILE))
def test_any_change_it_rests_on_gives_what_a_census_with_nothing_kept_gives(root: Path, change: str) -> None:
    before = kept(root)
    HOSTILE[change](root)
    assert fresh(root) != before  # each change moves the answer
    assert kept(root) == fresh(root)
    age(root)  # settled: kept again, and given again
    assert kept(root) == kept(root) == fresh(root)


def test_other_tier_roots_or_globs_give_what_a_census_with_nothing_kept_gives(root: Path) -> None:
    kept(root)
    other = [CensusTier("brain", ("brainpkg",), ()), CensusTier("plots", ("plotspkg",), ("tests/brain/**",))]
    assert kept(root, other) == fresh(root, other) != fresh(root)
    roots = [CensusTier("brain", ("brainpkg", "tests"), ("tests/brain/**",)), TIERS[1]]
    assert kept(root, roots) == fresh(root, roots)


def test_two_censuses_of_other_tiers_are_kept_side_by_side(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one = canonical(survey(DiskTree(root), TIERS, report=["brain"], kept=Kept(str(root))))
    both = kept(root)
    worked_out_never(monkeypatch)
    assert canonical(survey(DiskTree(root), TIERS, report=["brain"], kept=Kept(str(root)))) == one
    assert kept(root) == both != one


def stored(root: Path) -> Path:
    """The file the census of :data:`TIERS` is kept in."""
    store = Kept(str(root))
    survey(DiskTree(root), TIERS, kept=store)
    assert store.path is not None
    return Path(store.path)


def test_a_damaged_or_foreign_kept_file_is_no_result(root: Path) -> None:
    path = stored(root)
    data = path.read_bytes()
    for damaged in (data[: len(data) // 2], b"\x00" + data[1:], b"", b"not marshal"):
        path.write_bytes(damaged)
        assert kept(root) == fresh(root)


def test_a_kept_file_with_a_name_in_it_changed_is_no_result(root: Path) -> None:
    """A byte changed inside the kept result (a disk error, a hand edit) still loads as ``marshal``: the file is
    sealed by the sha256 of its bytes, so it is no result rather than another one."""
    path = stored(root)
    data = path.read_bytes()
    assert data.count(b"test_brain.py") >= 1
    path.write_bytes(data.replace(b"test_brain.py", b"test_brajn.py"))
    assert kept(root) == fresh(root)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.floats(min_value=0, max_value=1, exclude_max=True), xor=st.integers(min_value=1, max_value=255))
def test_any_byte_of_a_kept_file_changed_gives_what_a_census_with_nothing_kept_gives(
    root: Path, where: float, xor: int
) -> None:
    path = stored(root)
    data = bytearray(path.read_bytes())
    data[int(where * len(data))] ^= xor
    path.write_bytes(bytes(data))
    assert kept(root) == fresh(root)


def test_a_result_is_not_kept_while_a_file_it_rests_on_was_changed_just_now(root: Path) -> None:
    write(root, "tests/test_now.py", "import brainpkg\n")
    assert not stored(root).exists()
    assert SETTLE_NS == keptrun.SETTLE_NS


def test_the_kept_form_of_a_result_is_the_result(root: Path) -> None:
    result = survey(DiskTree(root), TIERS)
    assert canonical(decoded(encoded(result))) == canonical(result)
    with pytest.raises(KeyError):
        decoded((..., "Finding", {}))


def memo(root: Path) -> Memo:
    """The census's per-file memory in the project's ``.pytest_cache`` (as ``tierlock check`` uses it)."""
    return Memo(FolderCache(root).get(CACHE_KEY, None))


def record(root: Path, *, keep: bool = True) -> dict[str, Any]:
    """A recorded run of the census (its cache folder tierlock's: the kept result is written there)."""
    cache = folder()
    assert cache is not None
    recorder = Recorder(cache)
    with recorder:
        survey(DiskTree(root), TIERS, memo=memo(root), kept=Kept(str(root)) if keep else None)
    entry = recorder.entry(keptrun.who(["check"]), 0)
    assert entry is not None, (recorder.tainted, recorder.recent)
    return entry


def comparable(entry: dict[str, Any], root: Path) -> dict[str, Any]:
    """*entry* but what a kept result adds to it and a real command looks at anyway: the cache folder's variable,
    the census's own sources (a command's entry holds every module's source) and the cache folder's parents."""
    out = dict(entry)
    out["env"] = {k: v for k, v in entry["env"].items() if k != "TIERLOCK_CACHE_DIR"}
    out["stats"] = {k: v for k, v in entry["stats"].items() if k.startswith(str(root))}
    # (and the compiled files of the census's modules a recorded run loads the first time it works one out)
    out["files"] = {k: v for k, v in entry["files"].items() if k.startswith(str(root))}
    # (and the folder of those modules, listed by Python's import system when one is first found: a test run
    # earlier in the same process may have loaded it already)
    out["lists"] = {k: v for k, v in entry.get("lists", {}).items() if k.startswith(str(root))}
    return out


@pytest.fixture
def warm(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The project with its per-file memory kept in ``.pytest_cache`` by a first census (as pytest's plugin or an
    earlier check leaves it), and the modules of this process left out of the entries."""
    monkeypatch.setattr(keptrecord, "module_files", lambda: (set(), set()))
    (root / ".pytest_cache").mkdir()
    result = survey(DiskTree(root), TIERS, memo=memo(root))
    assert result.cache_entry is not None
    FolderCache(root).set(CACHE_KEY, result.cache_entry)
    age(root)
    return root


def test_a_recorded_run_keeps_the_same_entry_from_a_kept_result(warm: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    worked = comparable(record(warm, keep=False), warm)
    assert worked["summaries"]
    assert comparable(record(warm), warm) == worked  # worked out, and kept
    worked_out_never(monkeypatch)
    again = record(warm)
    assert comparable(again, warm) == worked
    assert keptrun.holds(again, ["check"])


def test_a_result_kept_by_a_run_not_recorded_is_worked_out_for_a_recorded_one(
    warm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reference = comparable(record(warm, keep=False), warm)
    kept(warm)  # kept without what a recorded run is told
    calls: list[object] = []
    real = census_engine._worked_out

    def counted(*args: Any) -> Any:
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(census_engine, "_worked_out", counted)
    assert comparable(record(warm), warm) == reference
    assert len(calls) == 1
    assert comparable(record(warm), warm) == reference
    assert len(calls) == 1  # kept with its tells now


def test_with_caching_off_nothing_is_kept_anywhere(root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", "")
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    assert kept(root) == kept(root) == fresh(root)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_census_module_gone_from_disk_is_known_by_its_error() -> None:
    from tierlock.census.keptresult import _identity

    assert _identity("/nonexistent/tierlock/census/gone.py") == (-2,)
    found = _identity(census_engine.__file__)
    assert len(found) == 4
    assert found[0] == os.stat(census_engine.__file__).st_size


def test_every_census_module_is_part_of_the_kept_results_key_whether_this_process_loaded_it_or_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    from tierlock.census import keptresult, visible

    parts = ["/project", {"tiers": []}]
    key = keptresult.digest_of(parts)
    monkeypatch.delitem(sys.modules, "tierlock.census.visible")  # (a module a census loads only to work one out)
    assert keptresult.digest_of(parts) == key
    real = keptresult._identity
    monkeypatch.setattr(keptresult, "_identity", lambda path: (1, 2, 3, 4) if path == visible.__file__ else real(path))
    assert keptresult.digest_of(parts) != key  # that module changed on disk: no result kept before is given


def test_the_census_modules_named_for_the_key_are_every_module_of_its_package() -> None:
    from tierlock.census import keptresult

    folder = Path(keptresult.__file__).parent
    assert sorted(keptresult.MODULES) == sorted(p.stem for p in folder.glob("*.py"))


def test_facts_with_any_text_are_digested_and_told_apart() -> None:
    from tierlock.census.factdigest import digest

    accented, surrogate = [["tést_ünïcode", 3]], [["test_\udcff", 3]]
    assert digest(accented) != digest(surrogate) != digest([["test_x", 3]])
    assert digest((("a", 1),)) == digest([["a", 1]])  # a tuple and a list say the same
    assert digest({"a": 1}) != digest({"a": 2})


def test_a_result_worked_out_by_reading_every_file_is_told_again_without_its_reads(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(keptrecord, "module_files", lambda: (set(), set()))
    cache = folder()
    assert cache is not None

    def recorded() -> dict[str, Any]:
        recorder = Recorder(cache)
        with recorder:
            survey(DiskTree(root), TIERS, kept=Kept(str(root)))  # no per-file memory: every file read
        entry = recorder.entry(keptrun.who(["check"]), 0)
        assert entry is not None, recorder.tainted
        return entry

    worked = recorded()
    worked_out_never(monkeypatch)
    again = recorded()  # nothing read: each file kept by what the census took from it, as the first run kept it
    assert sorted(again["summaries"]) == sorted(worked["summaries"])
    assert [calls for _sig, _bytes, calls, _shown in again["summaries"].values()] == [
        calls for _sig, _bytes, calls, _shown in worked["summaries"].values()
    ]


def test_a_kept_result_says_every_file_came_from_a_cache_and_none_was_parsed(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    worked = survey(DiskTree(root), TIERS, kept=Kept(str(root)))
    assert worked.files_parsed > 0
    worked_out_never(monkeypatch)
    again = survey(DiskTree(root), TIERS, kept=Kept(str(root)))
    assert (again.files_read, again.files_parsed, again.files_cached) == (worked.files_read, 0, worked.files_read)
    assert again.cache_entry is None
    assert again.warnings == []


def test_a_run_that_can_no_longer_be_kept_takes_the_result_without_reading_its_tells(
    warm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tells kept with a result (what the census took from each file) are read only for a run that may still be
    kept: damaged, they cost a run that may be kept the result; a run that gave up (it read a file modified just
    now) takes the result alone, the same as a census worked out gives."""
    reference, expected = comparable(record(warm, keep=False), warm), fresh(warm)
    record(warm)  # kept with its tells
    cache = folder()
    assert cache is not None
    path = max(Path(cache).glob("census-*.marshal"), key=lambda p: p.stat().st_mtime_ns)  # (the one just kept)
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF  # a byte of the tells (they come last)
    path.write_bytes(bytes(data))
    worked_out_never(monkeypatch)
    recorder = Recorder(cache)
    with recorder:
        recorder.give_up(str(warm / "pyproject.toml"))
        result = survey(DiskTree(warm), TIERS, memo=memo(warm), kept=Kept(str(warm)))
    assert canonical(result) == expected
    assert recorder.entry(keptrun.who(["check"]), 0) is None
    monkeypatch.undo()
    monkeypatch.setattr(keptrecord, "module_files", lambda: (set(), set()))
    assert comparable(record(warm), warm) == reference  # the tells damaged: worked out for a run that may be kept


def test_a_result_kept_by_a_recorded_run_is_given_to_a_run_not_recorded_and_back(
    warm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key of a census is the same whoever else holds its inputs: a recorded run (which keeps a reference to
    every name the census told it) and a run not recorded (or one that can no longer be kept) find each other's
    result rather than working the census out in turn."""
    expected, reference = fresh(warm), comparable(record(warm, keep=False), warm)
    record(warm)
    worked_out_never(monkeypatch)
    assert kept(warm) == expected
    assert comparable(record(warm), warm) == reference
