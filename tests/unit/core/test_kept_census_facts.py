"""A test file the census alone read is kept by the facts the census took from it; any other reader, by its bytes.

In-process: the real census (:func:`tierlock.census.census` on a :class:`~tierlock.census.DiskTree`) runs
while :class:`tierlock.keptrecord.Recorder` watches, on a small project of real files dated a minute back.
The entry then holds after an edit of a test file that leaves its facts as they were (re-read by
:mod:`tierlock.census.summary`) or leaves the census's result as it was (worked out again from the kept
facts by :mod:`tierlock.census.rerun`), and stops holding after one that changes the result, after the
file became a folder, and after any edit of a file something besides the census also read. The console-script runs of
``check`` and ``admit``: ``tests/cli/test_kept_after_edits.py``.
"""

from __future__ import annotations

import gc
import marshal
import os
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tierlock import keptfirst, keptnote, keptrecord, keptrun
from tierlock.census import CensusTier, FolderCache, census, read_file
from tierlock.census.factdigest import digest, facts_digest
from tierlock.census.records import FileFacts
from tierlock.census.summary import facts_hold, names_any, taken
from tierlock.keptnote import plain
from tierlock.keptrecord import Recorder

OLD = time.time() - 60
ARGV = ["--project", "p", "check"]
TIERS = [CensusTier("brain", ("brainpkg",), ("tests/brain/**",)), CensusTier("viz", ("vizpkg",), ())]
USES = "import brainpkg\n\n\ndef test_it():\n    assert brainpkg.VALUE == 0\n"
PLAIN = "def test_plain():\n    assert True\n"
CONFTEST = "import pytest\n\n\n@pytest.fixture\ndef value():\n    return 1\n"
#: A helper that needs nothing, added at the end: the file's facts change, the census's result does not.
HELPER = "\n\ndef helper():\n    return 1\n"


class Project:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.cache = root.parent / "kept-cache"
        self.uses = root / "tests" / "brain" / "test_brain.py"
        self.plain = root / "tests" / "test_plain.py"
        self.conftest = root / "tests" / "conftest.py"
        self.uses.parent.mkdir(parents=True)
        self.uses.write_text(USES)
        self.plain.write_text(PLAIN)
        self.conftest.write_text(CONFTEST)
        self.age()

    def age(self) -> None:
        for folder, dirs, names in os.walk(self.root):
            for name in [*dirs, *names]:
                os.utime(os.path.join(folder, name), (OLD, OLD))

    def command(self, *, also_read: Path | None = None, cached: bool = False) -> int:
        result = census(self.root, TIERS, cache=FolderCache(self.root) if cached else None)
        if also_read is not None:
            print(len(also_read.read_text()))
        for report in result.tiers:
            print(report.tier, sorted(u.file for u in report.outside + report.inside))
        return 0

    def record(self, **kwargs: Any) -> dict[str, Any]:
        recorder = Recorder(str(self.cache))
        with recorder:
            code = self.command(**kwargs)
        entry = recorder.entry(keptrun.who(ARGV), code)
        assert entry is not None
        return entry


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    monkeypatch.setattr(keptrecord, "module_files", lambda: (set(), set()))
    return Project(tmp_path / "proj")


def test_a_file_every_census_of_a_run_read_is_kept_by_its_facts(project: Project) -> None:
    recorder = Recorder(str(project.cache))
    with recorder:
        project.command()
        project.command()  # a second census in the same run (as admit's parts may): each file read twice
    entry = recorder.entry(keptrun.who(ARGV), 0)
    assert entry is not None
    assert recorder.opens[str(project.uses)] == 2
    for path in (project.uses, project.plain, project.conftest):
        assert str(path) in entry["summaries"]
        assert str(path) not in entry["files"]


def test_each_test_file_the_census_read_is_kept_by_its_facts_not_its_bytes(project: Project) -> None:
    entry = project.record()
    for path in (project.uses, project.plain, project.conftest):
        assert str(path) in entry["summaries"]
        assert str(path) not in entry["files"]
    sig, bytes_were, calls, _shown = entry["summaries"][str(project.uses)]
    assert sig == keptrun.identity(str(project.uses))
    assert sig == keptrun.stat_sig(str(project.uses))
    assert bytes_were == keptfirst.digest(str(project.uses))
    assert [name for name, _words, _facts in calls] == ["tests/brain/test_brain.py"]
    assert calls[0][2] == facts_digest(taken(USES, "tests/brain/test_brain.py", calls[0][1]))
    _, _, (conftest_call,), _ = entry["summaries"][str(project.conftest)]
    assert conftest_call[1] is None  # a conftest is always parsed
    _, _, (plain_call,), _ = entry["summaries"][str(project.plain)]
    assert plain_call[2] == facts_digest(None)  # names none of the words: not parsed
    assert keptrun.holds(entry, ARGV)


SAME = {
    "the asserted value": (USES, USES.replace("== 0", "in (0, 1)")),
    "a comment": (PLAIN, PLAIN.replace("True", "True  # yes")),
    "the same bytes": (USES, USES),
    "a line added to the last test": (USES, USES + "    assert True\n"),
}


@pytest.mark.parametrize("edit", list(SAME))
def test_an_edit_that_leaves_the_facts_or_the_census_result_still_holds(project: Project, edit: str) -> None:
    entry = project.record()
    old, new = SAME[edit]
    path = project.uses if old == USES else project.plain
    path.write_text(new)
    assert keptrun.holds(entry, ARGV)


def _plain_imports(project: Project) -> None:
    project.plain.write_text("import vizpkg\n" + PLAIN)


def _line_added_above(project: Project) -> None:
    project.uses.write_text("\n" + USES)  # the import moves: the census's result names its line


def _import_swapped(project: Project) -> None:
    project.uses.write_text(USES.replace("import brainpkg\n", "import vizpkg\n"))


def _now_a_folder(project: Project) -> None:
    project.uses.unlink()
    project.uses.mkdir()


def _conftest_imports(project: Project) -> None:
    project.conftest.write_text("import vizpkg\n" + CONFTEST)


def _unreadable(project: Project) -> None:
    project.uses.unlink()
    project.uses.symlink_to(project.root / "nowhere.py")


CHANGED = {
    "a file names a tier's root": _plain_imports,
    "a line added above the import": _line_added_above,
    "an import swapped": _import_swapped,
    "a file became a folder": _now_a_folder,
    "a conftest imports a tier's root": _conftest_imports,
    "a file became a dangling link": _unreadable,
}


@pytest.mark.parametrize("edit", list(CHANGED))
def test_an_edit_that_changes_the_census_result_stops_holding(project: Project, edit: str) -> None:
    entry = project.record()
    CHANGED[edit](project)
    assert not keptrun.holds(entry, ARGV)


def test_a_file_something_else_also_read_is_kept_by_its_bytes(project: Project) -> None:
    entry = project.record(also_read=project.uses)
    assert str(project.uses) not in entry["summaries"]
    assert str(project.uses) in entry["files"]
    assert str(project.plain) in entry["summaries"]
    project.uses.write_text(USES.replace("== 0", "in (0, 1)"))  # same facts, but another reader saw the bytes
    assert not keptrun.holds(entry, ARGV)


def test_facts_taken_from_the_census_cache_are_kept_and_checked_against_the_file(project: Project) -> None:
    (project.root / ".pytest_cache").mkdir()
    project.command(cached=True)  # writes the census's cache (a run that writes is not kept)
    project.age()
    entry = project.record(cached=True)  # every file's facts from that cache: none is read
    _sig, digest, _calls, _shown = entry["summaries"][str(project.uses)]
    assert digest is None
    assert str(project.uses) not in entry["files"]
    assert keptrun.holds(entry, ARGV)
    project.uses.write_text(USES.replace("== 0", "in (0, 1)"))
    assert keptrun.holds(entry, ARGV)
    project.uses.write_text("import vizpkg\n" + USES)
    assert not keptrun.holds(entry, ARGV)


def test_nothing_is_told_when_no_run_is_recorded(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    heard: list[object] = []
    monkeypatch.setattr(keptnote, "tell", lambda *told: heard.append(told))
    project.command()
    assert heard == []
    assert not keptnote.recording()
    project.record()
    assert heard  # told while recorded
    assert not keptnote.recording()  # and no longer after


def test_a_changed_entry_in_a_scanned_folder_holds_only_for_a_file_kept_by_its_facts(tmp_path: Path) -> None:
    folder = tmp_path / "tests"
    folder.mkdir()
    (folder / "a.py").write_text("x")
    was = keptrun.scan(str(folder))
    (folder / "a.py").write_text("xy")
    summaries = {str(folder / "a.py"): None}
    assert keptrun.scan_holds(str(folder), was, keptrun.stat_sig, summaries)
    assert not keptrun.scan_holds(str(folder), was, keptrun.stat_sig, {})
    (folder / "b.py").write_text("y")
    assert not keptrun.scan_holds(str(folder), was, keptrun.stat_sig, summaries)
    (folder / "b.py").unlink()
    (folder / "a.py").unlink()
    (folder / "a.py").mkdir()
    assert not keptrun.scan_holds(str(folder), was, keptrun.stat_sig, summaries)
    assert not keptrun.scan_holds(str(tmp_path / "gone"), was, keptrun.stat_sig, summaries)


def test_the_census_reads_a_file_again_as_it_first_read_it(tmp_path: Path) -> None:
    path = tmp_path / "t.py"
    path.write_bytes(b"import brainpkg\r\n\r\n\r\ndef test_it():\r\n    assert '\xff'\r\n")
    text = path.read_text(encoding="utf-8", errors="replace")
    calls = [
        ["t.py", ["brainpkg"], facts_digest(taken(text, "t.py", ["brainpkg"]))],
        ["t.py", ["other"], facts_digest(None)],
    ]
    assert facts_hold(str(path), calls)
    assert not facts_hold(str(path), [["t.py", ["other"], facts_digest(taken(text, "t.py", None))]])
    assert not facts_hold(str(tmp_path / "gone.py"), calls)
    assert not facts_hold(str(path), [["t.py", ["brainpkg"]]])  # a malformed call


def test_plain_facts_compare_lists_tuples_and_the_order_of_mappings() -> None:
    assert plain((1, [2, (3,)], {"a": (4,)})) == [1, [2, [3]], [["a", [4]]]]
    assert plain({"a": 1, "b": 2}) != plain({"b": 2, "a": 1})


def test_many_words_are_looked_for_as_whole_names_or_dotted_text() -> None:
    words = [f"pkg{i}" for i in range(50)]
    assert names_any("import pkg7\n", words)
    assert not names_any("import pkg77\n", words)
    assert names_any("x = mark.tier\n", [*words, "mark.tier"])
    assert not names_any("import pkg77\n", words[:3])
    assert names_any("pkg1", ["pkg1"])


def test_the_census_worked_out_again_reads_a_file_for_words_it_was_not_looked_at_with(tmp_path: Path) -> None:
    from tierlock.census.rerun import RecordedMemo

    path = tmp_path / "t.py"
    path.write_text(USES)
    reads: list[str] = []

    def read(rel: str) -> str:
        reads.append(rel)
        return path.read_text()

    facts = read_file(USES, "t.py").to_json()  # as the census keeps them
    memo = RecordedMemo({"t.py": [["t.py", ["brainpkg"], None], ["t.py", None, facts]]}, [])
    assert memo.facts("t.py", [1, 1], read, ["brainpkg"]) is None  # as recorded (even if untrue now)
    assert memo.facts("t.py", [1, 1], read, None) is not None
    assert reads == []
    assert memo.facts("t.py", [1, 1], read, ["other"]) is None  # not recorded: read
    assert reads == ["t.py"]
    changed = RecordedMemo({"t.py": [["t.py", ["brainpkg"], None]]}, ["t.py"])
    assert changed.facts("t.py", [1, 1], read, ["brainpkg"]) is not None  # changed: read, and it names it
    assert reads == ["t.py", "t.py"]


def test_a_changed_file_no_recorded_census_covers_does_not_hold(project: Project) -> None:
    from tierlock.census.rerun import surveys_hold

    entry = project.record()
    changed = {str(project.uses)}
    surveys, facts = entry["rerun"]["surveys"], entry["rerun"]["calls"]
    assert surveys_hold(surveys, facts, changed)
    assert not surveys_hold([], facts, changed)
    assert not surveys_hold(surveys, facts, {*changed, "/elsewhere/test_x.py"})
    assert not surveys_hold([["/x", "malformed"]], facts, changed)
    (root, (inputs, was, _apart)), *_ = surveys
    assert not surveys_hold([[root, [inputs, was]]], facts, changed)  # nothing kept apart: not a recorded census
    assert gc.isenabled()  # the collector back on
    assert gc.get_freeze_count() == 0  # nothing frozen for good
    gc.disable()
    try:
        assert surveys_hold(surveys, facts, changed)
        assert not gc.isenabled()  # left as it was found
    finally:
        gc.enable()


def test_the_facts_to_work_a_census_out_again_are_kept_apart_and_trusted_only_whole(project: Project) -> None:
    recorder = Recorder(str(project.cache))
    with recorder:
        code = project.command()
    kept = project.cache / "runs-test.marshal"
    recorder.keep(str(kept), keptrun.who(ARGV), code)
    entry = keptrun.load(str(kept))
    assert entry is not None
    side, _digest = entry["rerun"]
    assert side == f"{kept}.rerun"
    rerun = keptrun.rerun_data(entry["rerun"])
    recorded = recorder.entry(keptrun.who(ARGV), code)["rerun"]  # type: ignore[index]
    assert rerun is not None
    assert sorted(rerun["calls"].keys()) == sorted(recorded["calls"])
    assert all(rerun["calls"].get(path) == found for path, found in recorded["calls"].items())  # each decoded
    assert [[root, [inputs, marshal.loads(was), *apart]] for root, (inputs, was, *apart) in rerun["surveys"]] == [
        list(survey) for survey in recorded["surveys"]
    ]  # (a census's result decoded only when the census is worked out again whole)
    project.uses.write_text(USES + HELPER)  # facts change, the result does not
    assert keptrun.holds(entry, ARGV)
    data = Path(side).read_bytes()
    Path(side).write_bytes(data.replace(b"brainpkg", b"brainpkh"))  # tampered with: not trusted
    assert keptrun.rerun_data(entry["rerun"]) is None
    assert not keptrun.holds(entry, ARGV)
    Path(side).unlink()
    assert not keptrun.holds(entry, ARGV)


def _kept(project: Project, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(project.cache))
    monkeypatch.setattr(keptrun, "terminal", lambda: False)
    recorder = Recorder(str(project.cache))
    with recorder:
        code = project.command()
    kept = Path(keptfirst.entry_path(str(project.cache), ARGV))
    recorder.keep(str(kept), keptrun.who(ARGV), code)
    return kept


def test_a_settled_edit_with_the_same_facts_is_kept_with_the_identity_it_was_checked_with(
    project: Project, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = _kept(project, monkeypatch)
    capsys.readouterr()
    project.uses.write_text(USES.replace("== 0", "in (0, 1)"))
    assert keptrun.replay(ARGV) == 0  # just written: answered, the entry left as it was
    assert keptrun.load(str(kept))["summaries"][str(project.uses)][1] is not None  # type: ignore[index]
    project.age()
    checked = keptrun.identity(str(project.uses))
    assert keptrun.replay(ARGV) == 0  # settled: answered, and kept with the file as checked
    sig, digest, _calls, _shown = keptrun.load(str(kept))["summaries"][str(project.uses)]  # type: ignore[index]
    assert (sig, digest) == (checked, None)
    folder = keptrun.load(str(kept))["scans"][str(project.uses.parent)]  # type: ignore[index]
    assert dict(folder)[project.uses.name] == checked
    entry = keptrun.load(str(kept))
    assert entry is not None
    seen: list[Any] = []
    assert keptrun.holds(entry, ARGV, seen)
    assert seen == []  # nothing read again
    project.uses.write_text(USES.replace("== 0", "in (0, 2)"))  # written after the check: read again
    os.utime(project.uses, (OLD + 1, OLD + 1))
    assert keptrun.holds(entry, ARGV, seen)
    assert seen[0][0] == "facts"
    project.uses.write_text("import vizpkg\n" + USES)
    os.utime(project.uses, (OLD + 2, OLD + 2))
    assert not keptrun.holds(entry, ARGV)
    assert capsys.readouterr().out == "brain ['tests/brain/test_brain.py']\nviz []\n" * 2  # the two answers given


def test_a_settled_edit_that_needed_the_census_again_is_worked_out_in_full(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    _kept(project, monkeypatch)
    project.uses.write_text(USES + HELPER)
    assert keptrun.replay(ARGV) == 0  # just written: the census worked out again answers
    project.age()
    assert keptrun.replay(ARGV) is None  # settled: run in full (and kept again) rather than every time


def test_the_census_worked_out_again_reads_only_the_changed_files(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tierlock.census.rerun import surveys_hold
    from tierlock.census.tree import DiskTree

    entry = project.record()
    project.uses.write_text(USES + HELPER)
    read: list[str] = []
    real = DiskTree.read

    def counted(tree: DiskTree, rel: str) -> str | None:
        read.append(rel)
        return real(tree, rel)

    monkeypatch.setattr(DiskTree, "read", counted)
    assert surveys_hold(entry["rerun"]["surveys"], entry["rerun"]["calls"], {str(project.uses)})
    assert read == ["tests/brain/test_brain.py"]


def test_up_to_forty_words_are_looked_for_anywhere_in_the_text() -> None:
    words = [f"pkg{i}" for i in range(40)]
    assert names_any("import pkg77\n", words)  # pkg7 within pkg77: the quick search, as the census did
    assert not names_any("import pkg77\n", [*words, "other"])


def test_a_side_file_that_does_not_load_is_no_side_file(tmp_path: Path) -> None:
    from tierlock.probing.libcache import dump

    side = tmp_path / "runs-x.marshal.rerun"
    for data in (b"\x00not marshal", b""):
        dump(str(side), {"rerun": data})
        assert keptrun.rerun_data([str(side), keptrun._sha256(data).digest()]) is None
    dump(str(side), {"rerun": b"N"})  # marshal of None: not a dict
    assert keptrun.rerun_data([str(side), keptrun._sha256(b"N").digest()]) is None
    assert keptrun.rerun_data([str(side)]) is None
    assert keptrun.rerun_data(None) is None


def test_a_test_added_or_moved_is_known_to_change_the_result_without_the_census(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = project.record()
    _sig, _digest, calls, shown = entry["summaries"][str(project.uses)]
    assert shown == digest([["test_it", 4]])  # what the result shows of it: its test and line
    assert entry["summaries"][str(project.plain)][3] is None  # not parsed: not in the result
    from tierlock.census import rerun

    def never(*_args: object) -> bool:
        raise AssertionError("the census was worked out again")

    monkeypatch.setattr(rerun, "surveys_hold", never)
    for text in (USES + "\n\ndef test_more():\n    pass\n", "\n" + USES, USES.replace("test_it", "test_that")):
        project.uses.write_text(text)
        assert not keptrun.holds(entry, ARGV)
    from tierlock.census.summary import shown_holds

    project.uses.write_text(USES + "    assert True\n")
    assert shown_holds(str(project.uses), calls, shown)
    assert not shown_holds(str(project.uses), [], shown)
    assert not shown_holds(str(project.root / "gone.py"), calls, shown)


def test_what_the_result_shows_of_a_file_is_read_with_its_last_words(tmp_path: Path) -> None:
    from tierlock.census.summary import shown, shown_holds

    assert shown(USES, "t.py", ["brainpkg"]) == [["test_it", 4]]
    assert shown(PLAIN, "t.py", ["brainpkg"]) is None  # names none of the words: not parsed, not shown
    assert shown(PLAIN, "t.py", None) == [["test_plain", 1]]
    assert shown("X = 1\n", "t.py", None) is None  # no function: not shown
    path = tmp_path / "t.py"
    path.write_text(USES)
    calls = [["t.py", ["zzz"], b""], ["t.py", ["brainpkg"], b""]]
    assert shown_holds(str(path), calls, digest([["test_it", 4]]))
    assert names_any("import pkg77\n", ["pkg7"])  # a few words: looked for anywhere in the text


def test_a_lookup_met_again_while_it_is_worked_out_is_a_cycle_named_by_its_file() -> None:
    from tierlock.census.firstparty import ModuleIndex, Reach
    from tierlock.census.fixtures import Needs

    looped = {"a.py": read_file("from b import *\n", "a.py"), "b.py": read_file("from a import *\n", "b.py")}
    reach = Reach(ModuleIndex(looped), looped, ["x"])
    assert reach.symbol("a.py", "has_x") is None
    assert reach.cycles == {"a.py"}
    straight = {"a.py": read_file("from b import *\n", "a.py"), "b.py": read_file("has_x = True\n", "b.py")}
    reach = Reach(ModuleIndex(straight), straight, ["x"])
    assert reach.symbol("a.py", "has_x") is None
    assert reach.cycles == set()
    fixtures = (
        "import pytest\n\n\n@pytest.fixture\ndef one(two):\n    pass\n\n\n@pytest.fixture\ndef two(one):\n    pass\n"
    )
    tests = {"test_f.py": read_file(fixtures + "\n\ndef test_it(one):\n    pass\n", "test_f.py")}
    needs = Needs(Reach(ModuleIndex(tests), tests, ["x"]), [])
    assert needs.fixture("test_f.py", "one") == {}
    assert needs.cycles == {"test_f.py"}
    helpers = "def helper():\n    import x\n    return helper()\n\n\ndef test_it():\n    helper()\n"
    tests = {"test_h.py": read_file(helpers, "test_h.py")}
    needs = Needs(Reach(ModuleIndex(tests), tests, ["x"]), [])
    assert [need[0] for need in needs.own("test_h.py", "test_it")] == ["x"]
    assert needs.cycles == {"test_h.py"}  # a helper calling itself: its own file's


def _apart(entry: dict[str, Any]) -> tuple[str, dict[str, Any], dict[str, Any], dict[str, list[Any]]]:
    (root, (inputs, _result, apart)), *_ = entry["rerun"]["surveys"]
    prefix = os.path.join(root, "")
    calls = {path[len(prefix) :]: found for path, found in entry["rerun"]["calls"].items()}
    return root, inputs, apart, calls


def test_a_changed_test_file_is_worked_out_alone_only_when_nothing_else_rests_on_it(project: Project) -> None:
    from tierlock.census.rerun import alone_holds

    entry = project.record()
    root, inputs, apart, calls = _apart(entry)
    rel = "tests/brain/test_brain.py"
    assert set(apart["shares"]) == {rel, "tests/test_plain.py"}  # every test file but the conftest
    assert apart["cycles"] == []
    assert rel not in apart["targets"]
    project.uses.write_text(USES + HELPER)  # its facts change, its part of the result does not
    assert alone_holds(root, inputs, apart, calls, [rel])
    assert not alone_holds(root, inputs, apart | {"targets": [rel]}, calls, [rel])  # another file imports it
    assert not alone_holds(root, inputs, apart | {"cycles": ["tests/x.py"]}, calls, [rel])  # a cycle cut elsewhere
    assert not alone_holds(root, inputs, apart | {"cycles": ["tests/conftest.py"]}, calls, [rel])
    assert alone_holds(root, inputs, apart | {"cycles": [rel]}, calls, [rel])  # its own cycle: its own part
    assert alone_holds(root, inputs, apart | {"cycles": ["tests/test_plain.py"]}, calls, [rel])  # another's own
    assert alone_holds(root, inputs, apart | {"cycles": ["tests/test_plain.py", rel]}, calls, [rel])  # each its own
    plain_imported = apart | {"cycles": ["tests/test_plain.py"], "targets": ["tests/test_plain.py"]}
    assert not alone_holds(root, inputs, plain_imported, calls, [rel])  # imported: its cycle is others' too
    assert not alone_holds(root, inputs, apart, calls, ["tests/conftest.py"])
    assert not alone_holds(root, inputs, apart, calls, ["tests/unknown_test.py"])
    project.uses.write_text("\n" + USES)  # the import moved: its part of the result differs
    assert not alone_holds(root, inputs, apart, calls, [rel])
    project.uses.write_text(USES.replace("import brainpkg\n", "import vizpkg\n"))
    assert not alone_holds(root, inputs, apart, calls, [rel])
    project.plain.write_text("import brainpkg\n" + PLAIN)  # a file not parsed before, now parsed
    assert not alone_holds(root, inputs, apart, calls, ["tests/test_plain.py"])
    project.plain.write_text(PLAIN + "# an edit of a file still not parsed\n")
    assert alone_holds(root, inputs, apart, calls, ["tests/test_plain.py"])
    project.plain.unlink()
    assert not alone_holds(root, inputs, apart, calls, ["tests/test_plain.py"])


def test_the_kept_facts_of_the_files_are_made_when_first_asked_for(project: Project) -> None:
    from tierlock.census.rerun import KeptFacts

    entry = project.record()
    _root, _inputs, apart, calls = _apart(entry)
    now: dict[str, FileFacts | None] = {"tests/brain/test_brain.py": None}
    facts = KeptFacts(calls, apart["parsed"], now)
    assert "tests/brain/test_brain.py" not in facts  # not parsed now
    assert "tests/test_plain.py" not in facts  # never parsed
    assert sorted(facts) == ["tests/conftest.py"]
    assert len(facts) == 1
    assert facts["tests/conftest.py"].functions["value"].kind == "fixture"
    assert facts["tests/conftest.py"] is facts["tests/conftest.py"]
    with pytest.raises(KeyError):
        facts["tests/test_plain.py"]
    made = read_file(USES, "x")
    assert KeptFacts(calls, apart["parsed"], {"tests/brain/test_brain.py": made})["tests/brain/test_brain.py"] is made


def test_a_kept_entry_with_garbage_bytes_gives_the_kept_answer_or_none(
    project: Project, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bytes of the entry or of the facts kept apart flipped or cut short (a disk error, a copy stopped half
    way): no kept answer (the command then runs in full), never a wrong one."""
    kept = _kept(project, monkeypatch)
    answer = capsys.readouterr().out
    originals = {path: path.read_bytes() for path in (kept, Path(f"{kept}.rerun"))}
    project.uses.write_text(USES + HELPER)  # the census worked out again: the facts apart are read

    @settings(max_examples=80, deadline=None)
    @given(
        which=st.sampled_from(sorted(originals)),
        cut=st.integers(min_value=0, max_value=1 << 20),
        flips=st.lists(st.tuples(st.integers(min_value=0), st.integers(min_value=1, max_value=255)), max_size=4),
    )
    def garbage(which: Path, cut: int, flips: list[tuple[int, int]]) -> None:
        for path, original in originals.items():
            path.write_bytes(original)
        os.utime(project.uses)  # just written (a settled file would be worked out in full once)
        changed = bytearray(originals[which])
        for at, xor in flips:
            changed[at % len(changed)] ^= xor
        written = bytes(changed[: len(changed) - cut % len(changed)])
        which.write_bytes(written)
        code = keptrun.replay(ARGV)
        out = capsys.readouterr().out
        assert (code, out) == ((0, answer) if written == originals[which] else (None, ""))

    garbage()
    at = originals[kept].index(b"['tests/brain") + 2  # a letter of the answer itself: it still loads, and says else
    garbage.hypothesis.inner_test(kept, 0, [(at, ord("t") ^ ord("T"))])  # type: ignore[attr-defined]


def test_a_test_file_a_glob_names_is_kept_by_its_facts_though_the_census_looked_it_up(project: Project) -> None:
    tiers = [CensusTier("brain", ("brainpkg",), ("tests/brain/**", "tests/test_plain.py"))]
    recorder = Recorder(str(project.cache))
    with recorder:
        census(project.root, tiers)
    entry = recorder.entry(keptrun.who(ARGV), 0)
    assert entry is not None
    path = str(project.plain)
    assert path in entry["stats"]  # looked up by the census's walk: its kind
    assert path in entry["summaries"]  # and by nothing else: kept by its facts
    project.plain.write_text(PLAIN.replace("True", "True  # yes"))
    assert keptrun.holds(entry, ARGV)
    project.plain.unlink()
    project.plain.mkdir()  # no longer a file
    assert not keptrun.holds(entry, ARGV)


def test_a_test_file_whose_needs_are_left_to_run_time_is_worked_out_alone_with_them(project: Project) -> None:
    from tierlock.census.rerun import alone_holds

    dispatched = project.root / "tests" / "test_named.py"
    dispatched.write_text(
        'import pytest\n\n\n@pytest.mark.parametrize("name", ["vizpkg"])\ndef test_it(name):\n'
        '    if "vizpkg" in name:\n        import vizpkg\n'
    )
    project.age()
    entry = project.record()
    root, inputs, apart, calls = _apart(entry)
    rel = "tests/test_named.py"
    dispatched.write_text(dispatched.read_text() + "    assert name\n")  # its facts change, its part does not
    assert alone_holds(root, inputs, apart, calls, [rel])
    dispatched.write_text(dispatched.read_text().replace('"vizpkg" in name', '"vizpkg" in name and name'))
    assert alone_holds(root, inputs, apart, calls, [rel])
    dispatched.write_text("\n" + dispatched.read_text())  # the import left to run time moved a line down
    assert not alone_holds(root, inputs, apart, calls, [rel])


def _nothing_kept(project: Project) -> Any:
    from tierlock.census.summary import canonical

    return canonical(census(project.root, TIERS))


def test_a_changed_file_whose_own_helper_calls_itself_is_worked_out_alone(project: Project) -> None:
    from tierlock.census.rerun import alone_holds, surveys_hold

    looping = project.root / "tests" / "test_looping.py"
    looping.write_text("def helper():\n    import brainpkg\n    return helper()\n\n\ndef test_it():\n    helper()\n")
    project.age()
    was = _nothing_kept(project)
    entry = project.record()
    root, inputs, apart, calls = _apart(entry)
    rel = "tests/test_looping.py"
    assert apart["cycles"] == [rel]  # the census cut the helper's call of itself short, in its own file
    looping.write_text(looping.read_text() + "    assert True\n")  # its facts change, its part does not
    assert _nothing_kept(project) == was
    assert alone_holds(root, inputs, apart, calls, [rel])  # its own cycle met again alone: still its own part
    assert surveys_hold(entry["rerun"]["surveys"], entry["rerun"]["calls"], {str(looping)})
    looping.write_text(looping.read_text().replace("import brainpkg", "import vizpkg"))
    assert _nothing_kept(project) != was
    assert not alone_holds(root, inputs, apart, calls, [rel])
    assert not surveys_hold(entry["rerun"]["surveys"], entry["rerun"]["calls"], {str(looping)})


def test_a_changed_file_that_now_meets_a_cycle_between_helpers_is_not_worked_out_alone(project: Project) -> None:
    from tierlock.census.rerun import alone_holds, surveys_hold

    helpers = project.root / "helpers"
    helpers.mkdir()
    (helpers / "__init__.py").write_text("")
    (helpers / "one.py").write_text("from helpers.two import *\n")  # one and two import each other
    (helpers / "two.py").write_text("from helpers.one import *\nfrom helpers.flag import has_brain\n")
    (helpers / "flag.py").write_text(
        "try:\n    import brainpkg\n    has_brain = True\nexcept ImportError:\n    has_brain = False\n"
    )
    guarded = project.root / "tests" / "test_guarded.py"
    guarded.write_text("# needs nothing of brainpkg\n" + PLAIN)  # read by the census (it names a root)
    project.age()
    was = _nothing_kept(project)
    entry = project.record()
    root, inputs, apart, calls = _apart(entry)
    rel = "tests/test_guarded.py"
    assert apart["cycles"] == []  # no test file's part met the cycle (the words were found apart)
    guarded.write_text(
        guarded.read_text() + "\n\nfrom helpers.one import has_brain\n\nif has_brain:\n    import vizpkg\n"
    )
    assert _nothing_kept(project) == was  # the import is guarded by the helpers' flag: the same result
    # Its part, worked out alone, cut the cycle between the helpers short: what it found there is not told from
    # this file alone (the census is worked out whole, which gives the same result).
    assert not alone_holds(root, inputs, apart, calls, [rel])
    assert surveys_hold(entry["rerun"]["surveys"], entry["rerun"]["calls"], {str(guarded)})
    guarded.write_text(guarded.read_text().replace("if has_brain:\n    import", "import"))  # unguarded now
    assert _nothing_kept(project) != was
    assert not alone_holds(root, inputs, apart, calls, [rel])
    assert not surveys_hold(entry["rerun"]["surveys"], entry["rerun"]["calls"], {str(guarded)})


def test_the_facts_as_the_census_reads_them_leave_out_only_where_each_function_ends() -> None:
    text = CONFTEST + "\n\n@pytest.fixture(autouse=True)\ndef other(value):\n    import brainpkg\n"
    was = taken(text, "conftest.py", None)
    longer = taken(text + "    assert brainpkg\n    return brainpkg\n", "conftest.py", None)
    assert longer != was  # the facts differ: where the last fixture ends
    assert facts_digest(longer) == facts_digest(was)
    for other in (
        "\n" + text,  # every line moved
        text.replace("autouse=True", "autouse=False"),
        text.replace("import brainpkg", "import vizpkg"),
        text.replace("def other(value)", "def other(value, tmp_path)"),
        text + "\n\ndef helper():\n    pass\n",
        text.replace(
            "fixture\ndef value():\n    return 1\n\n", "fixture\n# one\ndef value():\n    return 1\n"
        ),  # its line
        text.replace("\n\n@pytest.fixture\ndef value", "\n@pytest.fixture\n\ndef value"),  # its decorator's alone
    ):
        assert facts_digest(taken(other, "conftest.py", None)) != facts_digest(was), other
    assert facts_digest(None) != facts_digest(was)


def test_the_readings_of_a_census_are_those_of_its_own_files() -> None:
    from tierlock.census.rerun import Below

    facts = {
        "/p/tests/test_a.py": [["tests/test_a.py", None, 1], ["test_a.py", None, 2]],  # (a census rooted at tests/)
        "/p/src/m.py": [["src/m.py", ["w"], 3]],
        "/q/test_b.py": [["test_b.py", None, 4]],
    }
    below = Below(facts, "/p")
    assert below["tests/test_a.py"] == [["tests/test_a.py", None, 1]]  # the other census's reading left out
    assert sorted(below) == ["src/m.py", "tests/test_a.py"]
    assert len(below) == 2
    assert below.get("test_b.py") is None
    with pytest.raises(KeyError):
        below["gone.py"]
