"""A recorded run given a kept census result keeps what the census took from each file as the kept bytes.

A full ``check`` or ``admit`` after a dependency edit finds the census's result kept
(:mod:`tierlock.census.keptresult`) and tells a recorded run what the census took from every test file again. Those
readings are kept with the result as their ``marshal`` bytes and the digest of their facts
(:class:`tierlock.keptnote.Packed`): the recorder takes the digest and writes the bytes to the facts kept apart
without decoding them. Real files in ``tmp_path`` dated a minute back, the real census under a real
:class:`~tierlock.keptrecord.Recorder`: the entry a run keeps from a kept result must be the one a census worked out
gives (its summaries, and the facts kept apart once decoded), and must hold, or stop holding, after the same edits.
"""

from __future__ import annotations

import marshal
import os
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.censusfiles import write
from tierlock import keptnote, keptrecord, keptrun
from tierlock.census import CACHE_KEY, CensusTier, DiskTree, FolderCache, Memo, survey
from tierlock.census import engine as census_engine
from tierlock.census.factdigest import facts_digest
from tierlock.census.keptresult import Kept
from tierlock.keptedit import Decoded
from tierlock.keptfirst import folder
from tierlock.keptnote import Packed, packed_bytes
from tierlock.keptrecord import Recorder

OLD = time.time() - 60
ARGV = ["--project", "p", "check"]
TIERS = [CensusTier("brain", ("brainpkg",), ("tests/brain/**",)), CensusTier("plots", ("plotspkg",), ())]
HELPER_ADDED = "\n\ndef another():\n    return 2\n"


def age(root: Path) -> None:
    for where, dirs, names in os.walk(root):
        for name in [*dirs, *names]:
            os.utime(os.path.join(where, name), (OLD, OLD))


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project whose per-file memory a first census left in ``.pytest_cache`` (as ``check`` uses it)."""
    monkeypatch.setattr(keptrecord, "module_files", lambda: (set(), set()))
    base = tmp_path / "proj"
    write(base, "tests/__init__.py", "")
    write(base, "tests/conftest.py", "import pytest\n\n\n@pytest.fixture\ndef value():\n    return 1\n")
    write(base, "tests/brain/test_brain.py", "import brainpkg\n\n\ndef test_it():\n    assert brainpkg.X\n")
    write(base, "tests/test_plain.py", "from tests.helper import thing\n\n\ndef test_plain():\n    assert thing\n")
    write(base, "tests/helper.py", "import zzzzzzzz\nthing = 1\n")
    (base / ".pytest_cache").mkdir()
    age(base)
    result = survey(DiskTree(base), TIERS, memo=Memo(FolderCache(base).get(CACHE_KEY, None)))
    assert result.cache_entry is not None
    FolderCache(base).set(CACHE_KEY, result.cache_entry)  # (by the files' stamps as they are now)
    age(base / ".pytest_cache")
    os.utime(base, (OLD, OLD))
    return base


def record(root: Path, *, keep: bool) -> tuple[Recorder, dict[str, Any]]:
    """A recorded census (with the kept result's store when *keep*) and the entry it keeps, written to disk and
    loaded back as the next run loads it."""
    cache = folder()
    assert cache is not None
    recorder = Recorder(cache)
    with recorder:
        survey(
            DiskTree(root),
            TIERS,
            memo=Memo(FolderCache(root).get(CACHE_KEY, None)),
            kept=Kept(str(root)) if keep else None,
        )
    path = os.path.join(cache, f"runs-packed-test-{keep}-{os.getpid()}.marshal")
    recorder.keep(path, keptrun.who(ARGV), 0)
    entry = keptrun.load(path, sealed=True)
    assert entry is not None, recorder.tainted
    return recorder, entry


def refuse_working_out(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object) -> None:
        raise AssertionError("the census was worked out though its result is kept")

    monkeypatch.setattr(census_engine, "_worked_out", refuse)


def facts_apart(entry: dict[str, Any]) -> dict[str, Any]:
    """The facts kept apart (to work the census out again), every file's readings decoded."""
    data = keptrun.rerun_data(entry["rerun"])
    assert data is not None
    calls = data["calls"]
    return {path: calls.get(path) for path in sorted(calls.keys())}


def test_a_run_given_a_kept_result_keeps_the_entry_a_census_worked_out_gives(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, worked = record(root, keep=False)
    record(root, keep=True)  # worked out, and kept with what it told
    refuse_working_out(monkeypatch)
    recorder, again = record(root, keep=True)
    told = [call for calls in recorder.told.values() for call in calls if call is not None]
    assert told
    assert all(isinstance(call, Packed) for call in told)  # the kept readings, not decoded
    for path in worked["summaries"]:
        assert again["summaries"][path] == worked["summaries"][path], path
    assert again["summaries"] == worked["summaries"]
    assert facts_apart(again) == facts_apart(worked)
    assert again["rerun"][1] != worked["rerun"][1] or again["rerun"] == worked["rerun"]  # (its own side file)


@pytest.mark.parametrize(
    ("edit", "holds"),
    [
        ("a helper added to a test file (the census worked out again from the facts kept apart)", True),
        ("a test file gains an import of a tier's root", False),
        ("the conftest's fixture made autouse and needing a root", False),
        ("a same-size rewrite of the helper with its modification time put back", False),
    ],
)
def test_the_entry_kept_from_a_kept_result_holds_after_an_edit_exactly_when_a_worked_out_one_does(
    root: Path, monkeypatch: pytest.MonkeyPatch, edit: str, holds: bool
) -> None:
    _, worked = record(root, keep=False)
    record(root, keep=True)
    refuse_working_out(monkeypatch)
    _, again = record(root, keep=True)
    monkeypatch.undo()
    monkeypatch.setattr(keptrecord, "module_files", lambda: (set(), set()))
    _edit(root, edit)
    assert keptrun.holds(worked, ARGV) is holds
    assert keptrun.holds(again, ARGV) is holds


def _edit(root: Path, edit: str) -> None:
    if edit.startswith("a helper added"):
        path = root / "tests" / "brain" / "test_brain.py"
        path.write_text(path.read_text() + HELPER_ADDED)
    elif edit.startswith("a test file gains"):
        path = root / "tests" / "test_plain.py"
        path.write_text("import plotspkg\n" + path.read_text())
    elif edit.startswith("the conftest"):
        write(
            root,
            "tests/conftest.py",
            "import pytest\n\n\n@pytest.fixture(autouse=True)\ndef value():\n    import plotspkg\n    return 1\n",
        )
    else:
        path = root / "tests" / "helper.py"
        was = path.stat()
        path.write_text(path.read_text().replace("zzzzzzzz", "plotspkg"))
        os.utime(path, ns=(was.st_atime_ns, was.st_mtime_ns))


def test_a_packed_reading_is_the_reading_it_stands_for() -> None:
    facts: list[Any] = [[["os", 1, "import os", "", []]], {}, {}, [], {}, {}, [0, 1, 2]]
    name, words = "tests/test_a.py", ["pandas"]
    reading: list[Any] = [name, words, facts]
    packed = Packed(name, words, facts_digest(facts), marshal.dumps(reading))
    assert packed == reading
    assert reading == packed
    assert list(packed) == reading
    assert packed[2] == reading[2]
    assert packed.told() == [reading[0], reading[1], facts_digest(reading[2])]
    assert packed != [*reading[:2], None]
    assert packed != None  # noqa: E711 (a reading the census could not take is told as None)
    assert [None, packed].count(None) == 1
    assert keptnote.unpacked(packed) == reading
    assert keptnote.unpacked(reading) is reading


def test_the_facts_kept_apart_decode_packed_and_plain_readings_alike() -> None:
    facts: list[Any] = [[], {}, {}, [], {}, {}, [0, 1, 1]]
    one: list[Any] = ["tests/a.py", None, facts]
    two: list[Any] = ["tests/a.py", ["viz"], None]
    packed = Packed("tests/a.py", None, facts_digest(facts), marshal.dumps(one))
    raw = {"new": packed_bytes([packed, two]), "old": marshal.dumps([one, two]), "live": [packed, two]}
    decoded = Decoded(raw)
    assert decoded.get("new") == [one, two]
    assert decoded.get("old") == [one, two]
    assert decoded.get("live") == [one, two]
    assert all(type(call) is list for call in decoded.get("live"))
    assert decoded.get("gone", "none") == "none"


def test_two_packed_readings_are_equal_exactly_when_they_stand_for_the_same_reading() -> None:
    facts: list[Any] = [[["os", 1, "import os", "", []]], {}, {}, [], {}, {}, [0, 1, 2]]
    reading: list[Any] = ["tests/test_a.py", ["pandas"], facts]
    digest = facts_digest(facts)
    current, older = marshal.dumps(reading), marshal.dumps(reading, 2)  # two encodings of the same reading
    assert current != older
    name, words = "tests/test_a.py", ["pandas"]
    assert Packed(name, words, digest, current) == Packed(name, words, digest, older)
    other = marshal.dumps([name, words, None])
    assert Packed(name, words, digest, current) != Packed(name, words, digest, other)
