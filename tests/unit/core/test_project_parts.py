"""pyproject.toml read by its parts: what the one reader keeps and leaves out, what a recorded run notes, when a
kept answer holds after the file changed.

:mod:`tierlock.projectparts` gives the read-only commands the parsed document without the tool tables and the
``[project]`` prose no answer rests on; a recorded run (:class:`tierlock.keptrecord.Recorder`, in process with a
stand-in command) notes the fingerprint of those parts when every open of the file was that reader's, and
:func:`tierlock.keptrun.holds` then lets the file change while its parts stay the same. (The console-script runs
against a run that keeps nothing: ``tests/cli/test_kept_pyproject_parts.py``.)
"""

from __future__ import annotations

import contextlib
import os
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tierlock import fsutil, keptedit, keptnote, keptrecord, keptrun, projectparts
from tierlock.keptrecord import Recorder

OLD = time.time() - 60
ARGV = ["--project", "p", "check"]
TEXT = (
    '[project]\nname = "app"\nversion = "1"\ndescription = "An app."\ndependencies = ["a>=1"]\n'
    'classifiers = ["X"]\n\n[tool.ruff]\nline-length = 100\n\n[tool.tierlock]\nci-require = ["t"]\n\n'
    '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n\n[tool.uv]\nindex-url = "https://x.invalid"\n'
)


def test_the_parts_leave_out_other_tools_tables_and_the_projects_prose_and_keep_the_rest_in_order() -> None:
    got = projectparts.parts(tomllib.loads(TEXT + '\n[build-system]\nrequires = ["h"]\n\n[other]\nx = 1\n'))
    assert list(got) == ["project", "tool", "build-system", "other"]
    assert got["project"] == {"name": "app", "version": "1", "dependencies": ["a>=1"]}
    assert list(got["tool"]) == ["tierlock", "pytest", "uv"]
    assert got["other"] == {"x": 1}
    assert projectparts.parts({"tool": 1, "project": "x"}) == {"tool": 1, "project": "x"}  # not tables: as they are


def test_poetrys_tables_are_a_part_only_of_a_document_without_project_where_they_hold_the_dependencies() -> None:
    poetry = {"dependencies": {"python": "^3.10", "requests": "^2"}, "description": "prose"}
    without = {"tool": {"poetry": poetry, "ruff": {"line-length": 100}}}
    assert projectparts.parts(without) == {"tool": {"poetry": poetry}}
    beside = {"project": {"name": "p"}, "tool": {"poetry": poetry}}
    assert projectparts.parts(beside) == {"project": {"name": "p"}, "tool": {}}
    assert projectparts.parts({"tool": {"poetry": "not a table"}}) == {"tool": {}}


def test_every_project_key_left_out_is_one_no_reader_of_tierlock_uses() -> None:
    """(The JSON schema of the runtime config has a ``description`` of its own: not a pyproject reader.)"""
    src = Path(projectparts.__file__).parent
    skip = {"projectparts.py", "schema.py"}
    text = "\n".join(p.read_text() for p in src.rglob("*.py") if p.name not in skip)
    for key in projectparts.INERT:
        assert f'"{key}"' not in text, key
        assert f"'{key}'" not in text, key


def _fp(text: str) -> bytes:
    return projectparts.fingerprint(projectparts.parts(tomllib.loads(text)))


@pytest.mark.parametrize(
    "other",
    [
        TEXT.replace("line-length = 100", "line-length = 90"),
        TEXT.replace('description = "An app."\n', ""),
        TEXT.replace("\n", "\r\n"),
        TEXT + "\n# a comment\n[tool.coverage.run]\nbranch = true\n",
        TEXT.replace('[tool.tierlock]\nci-require = ["t"]', '[tool.tierlock]\n"ci-require" = [ "t", ]'),
    ],
)
def test_texts_of_the_same_parts_have_one_fingerprint(other: str) -> None:
    assert _fp(other) == _fp(TEXT)


@pytest.mark.parametrize(
    "other",
    [
        TEXT.replace('"a>=1"', '"a>=0.5"'),
        TEXT.replace('ci-require = ["t"]', 'ci-require = ["t", "u"]'),
        TEXT.replace('testpaths = ["tests"]', 'testpaths = ["test"]'),
        TEXT.replace("https://x.invalid", "https://y.invalid"),
        TEXT.replace('version = "1"', 'version = "2"'),
        TEXT + '\n[dependency-groups]\ndev = ["b"]\n',
        TEXT + '\n[build-system]\nrequires = ["h"]\n',
    ],
)
def test_a_change_of_a_part_changes_the_fingerprint(other: str) -> None:
    assert _fp(other) != _fp(TEXT)


@pytest.mark.parametrize(
    ("one", "two"),
    [
        ("[tool.tierlock]\nx = {a = 1}\n", '[tool.tierlock]\nx = [["a", 1]]\n'),  # a table, an array of pairs
        ("[tool.tierlock]\nx = 1\n", "[tool.tierlock]\nx = 1.0\n"),
        ("[tool.tierlock]\nx = 1\n", "[tool.tierlock]\nx = true\n"),
        ("[tool.tierlock]\nx = 1\n", '[tool.tierlock]\nx = "1"\n'),
        ("[tool.tierlock]\na = 1\nb = 2\n", "[tool.tierlock]\nb = 2\na = 1\n"),  # tiers are reported in order
        ("[tool.tierlock]\nx = 1979-05-27\n", '[tool.tierlock]\nx = "1979-05-27"\n'),
    ],
)
def test_documents_that_differ_in_kind_type_or_order_have_other_fingerprints(one: str, two: str) -> None:
    assert _fp(one) != _fp(two)


def test_read_gives_the_parts_and_raises_as_the_readers_it_replaces(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_bytes(b"\xef\xbb\xbf" + TEXT.encode())
    assert projectparts.read(path) == projectparts.parts(tomllib.loads(TEXT))
    path.write_bytes(b"[a]\nx = '\xff'\n")
    with pytest.raises(UnicodeDecodeError):
        projectparts.read(path)
    path.write_text("[a\n")
    with pytest.raises(tomllib.TOMLDecodeError):
        projectparts.read(path)
    with pytest.raises(FileNotFoundError):
        projectparts.read(tmp_path / "gone.toml")
    os.mkfifo(tmp_path / "fifo.toml")
    with pytest.raises(fsutil.FileRefused):
        projectparts.read(tmp_path / "fifo.toml")  # never waited on


def test_a_commands_readings_are_served_by_one_open_and_each_hand_out_is_told_with_its_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text(TEXT)
    told: list[Any] = []
    monkeypatch.setattr(keptnote, "recording", lambda: True)
    monkeypatch.setattr(keptnote, "tell", lambda *args: told.append(args))
    with fsutil.reading_once():
        projectparts.read(path)
        projectparts.read(path)
        fsutil.read_bytes(path)
        fsutil.kept_bytes(path)
    name, fp = str(path), projectparts.parts_of(str(path))
    bytes_told = [detail for kind, _name, detail in told if kind == "bytes"]
    assert bytes_told == [("parts", True), ("parts", False), ("", False), ("", False)]
    assert [args for args in told if args[0] == "parts"] == [("parts", name, fp)] * 2


def test_a_commands_readings_parse_the_file_once_and_each_gets_a_copy_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text(TEXT)
    projectparts._PARSED.clear()
    parses: list[str] = []
    real = tomllib.loads

    def counted(text: str) -> dict[str, Any]:
        parses.append(text)
        return real(text)

    monkeypatch.setattr(tomllib, "loads", counted)
    with fsutil.reading_once():
        first = projectparts.read(path)
        first["project"]["dependencies"].append("changed>=1")
        first["tool"]["tierlock"]["extra"] = {"x": [1]}
        del first["tool"]["pytest"]
        second = projectparts.read(path)
    assert len(parses) == 1
    assert second == projectparts.parts(real(TEXT))  # the first reader's changes are its own
    assert second["project"] is not first["project"]


def test_the_files_of_a_command_are_parsed_once_each_whatever_the_order_they_are_read_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(A workspace member's pyproject.toml beside the project's: each stays kept while the other is read.)"""
    projectparts._PARSED.clear()
    one, two = tmp_path / "pyproject.toml", tmp_path / "member.toml"
    one.write_text(TEXT)
    two.write_text(TEXT.replace('name = "app"', 'name = "member"'))
    parses: list[str] = []
    real = tomllib.loads

    def counted(text: str) -> dict[str, Any]:
        parses.append(text)
        return real(text)

    monkeypatch.setattr(tomllib, "loads", counted)
    names = [projectparts.read(path)["project"]["name"] for path in (one, two, one, two, one)]
    assert names == ["app", "member", "app", "member", "app"]
    assert len(parses) == 2


def test_a_file_parsed_by_the_kept_answers_check_is_not_parsed_again_by_the_command_that_runs_in_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(The first run after a dependency bound changed: the kept answer's check parses pyproject.toml to compare its
    parts, finds them changed, and the command that then runs in full reads the same bytes.)"""
    path = tmp_path / "pyproject.toml"
    path.write_text(TEXT)
    projectparts._PARSED.clear()
    parses: list[str] = []
    real = tomllib.loads

    def counted(text: str) -> dict[str, Any]:
        parses.append(text)
        return real(text)

    monkeypatch.setattr(tomllib, "loads", counted)
    checked = projectparts.parts_of(str(path))
    document = projectparts.read(path)
    assert len(parses) == 1
    assert checked == projectparts.fingerprint(document)
    document["project"]["dependencies"].append("changed>=1")  # a reader's copy: the kept parse is not changed
    assert projectparts.read(path)["project"]["dependencies"] == ["a>=1"]
    assert projectparts.parts_of(str(path)) == checked
    assert len(parses) == 1


def test_other_bytes_are_parsed_again_even_at_the_same_size_and_time(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text(TEXT)
    before = os.stat(path)
    assert projectparts.read(path)["project"]["dependencies"] == ["a>=1"]
    path.write_text(TEXT.replace("a>=1", "a>=2"))  # same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert projectparts.read(path)["project"]["dependencies"] == ["a>=2"]
    assert projectparts.parts_of(str(path)) == projectparts.fingerprint(projectparts.read(path))


def test_the_parsed_files_kept_stay_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(projectparts, "_KEPT", 2)
    path = tmp_path / "pyproject.toml"
    for version in range(6):
        path.write_text(TEXT.replace('version = "1"', f'version = "{version}"'))
        assert projectparts.read(path)["project"]["version"] == str(version)
        assert len(projectparts._PARSED) <= 2


def test_the_kept_paths_size_limit_is_the_readers() -> None:
    assert projectparts.MAX_BYTES == fsutil.MAX_BYTES


def test_parts_of_is_none_for_what_a_command_could_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    good = tmp_path / "good.toml"
    good.write_text(TEXT)
    assert projectparts.parts_of(str(good)) == projectparts.fingerprint(projectparts.read(good))
    cases = {"bad.toml": b"[a\n", "latin.toml": b"x = '\xff'\n", "deep.toml": b"x = " + b"[" * 5000 + b"]" * 5000}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        assert projectparts.parts_of(str(tmp_path / name)) is None, name
    assert projectparts.parts_of(str(tmp_path / "gone.toml")) is None
    assert projectparts.parts_of(str(tmp_path)) is None  # a folder
    os.mkfifo(tmp_path / "fifo.toml")
    assert projectparts.parts_of(str(tmp_path / "fifo.toml")) is None
    monkeypatch.setattr(projectparts, "MAX_BYTES", len(TEXT))
    assert projectparts.parts_of(str(good)) == projectparts.fingerprint(projectparts.read(good))  # at the limit
    for over in (1, 2):
        monkeypatch.setattr(projectparts, "MAX_BYTES", len(TEXT) - over)
        assert projectparts.parts_of(str(good)) is None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=200) | st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_for_any_bytes_the_kept_check_agrees_with_the_commands_read(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "pyproject.toml"
    for content in (data, TEXT.encode() + data, data + TEXT.encode()):
        path.write_bytes(content)
        try:
            wanted: bytes | None = projectparts.fingerprint(projectparts.read(path))
        except (ValueError, RecursionError):
            wanted = None
        assert projectparts.parts_of(str(path)) == wanted


# -- what a recorded run notes -------------------------------------------------------------------------------


class Scene:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.cache = root / "cache"
        self.pyproject = root / "pyproject.toml"
        self.pyproject.write_text(TEXT)
        self.writer = -1
        self.age()

    def age(self) -> None:
        os.utime(self.pyproject, (OLD, OLD))
        os.utime(self.root, (OLD, OLD))

    def command(self) -> int:
        """As a command reads the file: looked up (its kind), then read by its parts, twice."""
        assert os.path.isfile(self.pyproject)
        print(projectparts.read(self.pyproject)["project"]["name"])
        print(projectparts.read(self.pyproject)["tool"]["tierlock"])
        return 0

    def record(self, command: Callable[[], int] | None = None) -> dict[str, Any]:
        recorder = Recorder(str(self.cache))
        with recorder:
            code = (command or self.command)()
        entry = recorder.entry(keptrun.who(ARGV), code)
        assert entry is not None
        return entry

    def holds(self, entry: dict[str, Any]) -> tuple[bool, list[Any]]:
        seen: list[Any] = []
        return keptrun.holds(entry, ARGV, seen), seen


@pytest.fixture
def scene(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Scene:
    monkeypatch.setattr(keptrecord, "module_files", lambda: (set(), set()))
    return Scene(tmp_path)


def test_a_file_read_only_by_its_parts_is_kept_by_their_fingerprint_besides_its_bytes(scene: Scene) -> None:
    entry = scene.record()
    path = str(scene.pyproject)
    assert entry["parts"] == {path: projectparts.parts_of(path)}
    assert path in entry["files"]
    assert scene.holds(entry) == (True, [])  # unchanged: no parse


def test_an_edit_of_a_part_no_answer_rests_on_holds_and_says_so(scene: Scene) -> None:
    entry = scene.record()
    scene.pyproject.write_text(TEXT + "\n[tool.black]\nline-length = 1\n")
    held, seen = scene.holds(entry)
    assert held
    assert seen == [("parts", {str(scene.pyproject): keptrun.identity(str(scene.pyproject))})]


def _fifo_in_place(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


@pytest.mark.parametrize(
    "edit",
    [
        lambda p: p.write_text(TEXT.replace('"a>=1"', '"a>=2"')),
        lambda p: p.write_text(TEXT + "[broken\n"),
        lambda p: p.write_bytes(TEXT.encode() + b"# \xff\n"),
        lambda p: p.unlink(),
        lambda p: (p.unlink(), p.mkdir()),
        _fifo_in_place,
    ],
    ids=["a dependency", "broken TOML", "not UTF-8", "deleted", "a folder", "a FIFO"],
)
def test_an_edit_of_a_part_or_of_what_the_file_is_does_not_hold(scene: Scene, edit: Callable[[Path], Any]) -> None:
    entry = scene.record()
    edit(scene.pyproject)
    assert scene.holds(entry)[0] is False


def test_a_symlink_in_the_files_place_holds_by_its_parts_only_where_nothing_took_the_files_own_kind(
    scene: Scene,
) -> None:
    def lstat_too() -> int:
        assert not os.path.islink(scene.pyproject)  # the file's own kind taken (an lstat)
        return scene.command()

    plain, linked = scene.record(), scene.record(lstat_too)
    target = scene.root / "elsewhere.toml"
    target.write_text(TEXT + "\n[tool.black]\nx = 1\n")
    scene.pyproject.unlink()
    scene.pyproject.symlink_to(target)
    assert scene.holds(plain)[0] is True
    assert scene.holds(linked)[0] is False


def _raw(scene: Scene) -> int:
    scene.command()
    print(scene.pyproject.read_text()[:3])  # another reader: the text itself
    return 0


def _rewrite(scene: Scene, text: str) -> None:
    """The file's bytes replaced in place through a descriptor opened before the run (a write the recorder
    does not see: it stands for another process's), dated back."""
    os.lseek(scene.writer, 0, os.SEEK_SET)
    os.ftruncate(scene.writer, 0)
    os.write(scene.writer, text.encode())
    os.utime(scene.writer, (OLD, OLD))


def _failed_read(scene: Scene) -> int:
    scene.command()
    _rewrite(scene, "[broken\n")
    with contextlib.suppress(tomllib.TOMLDecodeError):
        projectparts.read(scene.pyproject)
    _rewrite(scene, TEXT)
    return 0


def _other_parts(scene: Scene) -> int:
    scene.command()
    _rewrite(scene, TEXT.replace('"a>=1"', '"a>=2"'))
    projectparts.read(scene.pyproject)
    _rewrite(scene, TEXT)
    return 0


def _memo_read(scene: Scene) -> int:
    with fsutil.reading_once():
        fsutil.read_bytes(scene.pyproject)  # a command's own read of the bytes (kept for the next reader)
        scene.command()
        fsutil.read_bytes(scene.pyproject)
    return 0


@pytest.mark.parametrize(
    "command",
    [_raw, _failed_read, _other_parts, _memo_read],
    ids=["opened by another reader", "a reading that failed", "two readings, other parts", "a command's own bytes"],
)
def test_a_file_not_read_by_its_parts_alone_is_kept_by_its_bytes(scene: Scene, command: Callable[[Scene], int]) -> None:
    scene.writer = os.open(scene.pyproject, os.O_WRONLY)
    try:
        entry = scene.record(lambda: command(scene))
    finally:
        os.close(scene.writer)
    assert entry["parts"] == {}
    scene.pyproject.write_text(TEXT + "\n[tool.black]\nline-length = 1\n")
    assert scene.holds(entry)[0] is False


def test_nothing_is_told_when_no_run_is_recorded(scene: Scene, monkeypatch: pytest.MonkeyPatch) -> None:
    told: list[Any] = []
    monkeypatch.setattr(keptnote, "tell", lambda *args: told.append(args))
    projectparts.read(scene.pyproject)
    assert told == []


def test_a_refreshed_entry_holds_the_edited_file_by_its_identity(scene: Scene) -> None:
    def scanned() -> int:
        assert scene.pyproject.name in [e.name for e in os.scandir(scene.root)]
        return scene.command()

    entry = scene.record(scanned)
    path = str(scene.pyproject)
    scene.pyproject.write_text(TEXT + "\n[tool.black]\nline-length = 1\n")
    os.utime(scene.pyproject, (OLD, OLD))
    held, seen = scene.holds(entry)
    assert held
    keptedit.parts_refreshed(entry, seen[0][1])
    identity = keptrun.identity(path)
    assert entry["files"][path] == (identity, None)
    assert entry["stats"][path] == identity
    assert dict(entry["scans"][str(scene.root)])["pyproject.toml"] == identity
    assert scene.holds(entry) == (True, [])  # the next run parses nothing
    scene.pyproject.write_text(TEXT.replace('"a>=1"', '"a>=2"'))
    assert scene.holds(entry)[0] is False


def test_a_refresh_leaves_a_look_up_of_another_kind_as_it_was() -> None:
    entry: dict[str, Any] = {
        "files": {"/p": ((1, 2), b"x")},
        "stats": {"/p": (0o100644, 1, 2, 3, 4, 5)},
        "lstats": {"/p": (0o120777, 9, 9, 9, 9, 9)},
        "scans": {"/": (("p", (0o120777, 9, 9, 9, 9, 9)), ("q", (1,))), "/other": -2},
    }
    keptedit.parts_refreshed(entry, {"/p": (0o100644, 5, 6, 7, 8, 9)})
    assert entry["files"]["/p"] == ((0o100644, 5, 6, 7, 8, 9), None)
    assert entry["stats"]["/p"] == (0o100644, 5, 6, 7, 8, 9)
    assert entry["lstats"]["/p"] == (0o120777, 9, 9, 9, 9, 9)
    assert entry["scans"]["/"] == (("p", (0o120777, 9, 9, 9, 9, 9)), ("q", (1,)))


def test_a_scanned_folder_holds_only_with_the_same_names_each_loose_one_still_of_its_kind() -> None:
    from tierlock.keptloose import entries_hold

    file, other = (0o100644, 1, 2, 3, 4, 5), (0o100644, 9, 9, 9, 4, 9)
    loose = {"/d/pyproject.toml"}
    was = (("a", file), ("pyproject.toml", file))
    assert entries_hold("/d", (("a", file), ("pyproject.toml", other)), was, loose)
    assert not entries_hold("/d", (("b", file), ("pyproject.toml", file)), was, loose)  # renamed, same count
    assert not entries_hold("/d", (("a", other), ("pyproject.toml", file)), was, loose)  # not a loose file
    assert not entries_hold("/d", (("a", file),), was, loose)
    assert not entries_hold("/d", -2, was, loose)
    assert not entries_hold("/d", (("a", file), ("pyproject.toml", (0o040755, 3, 4))), was, loose)  # a folder now
