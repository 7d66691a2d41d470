"""The one safe reader (:mod:`tierlock.fsutil`): regular files of at most 64 MiB, anything else refused
before a byte is read; the project file found without passing a refused one over; and every file reader
of tierlock fuzzed over arbitrary bytes (a result or a configuration error, never another exception).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tierlock import fsutil, scratch
from tierlock.errors import ConfigError, UsageError
from tierlock.fsutil import FileRefused, NoPyproject, find_pyproject, read_bytes, read_text, regular_file

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def test_a_regular_file_is_read_whole_and_a_bom_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_bytes(b"\xef\xbb\xbf[project]\n")
    assert read_bytes(path) == b"\xef\xbb\xbf[project]\n"
    assert read_text(path) == "[project]\n"


@pytest.mark.parametrize(
    "data",
    [b"plain", b"\xef\xbb\xbfwith a bom", b"\xef\xbb\xbf", b"\xef\xbb", b"", b"\xef\xbb\xbf\xef\xbb\xbftwo", b"ab\xff",
     b"\xef\xbb\xbfab\xffc", b"\xc3", b"\xef\xbb\xbf\xc3", "é ü 😀".encode()],
)  # fmt: skip
@pytest.mark.parametrize("errors", ["strict", "replace"])
def test_text_is_decoded_as_the_utf_8_sig_codec_decodes_it_errors_and_their_positions_too(
    data: bytes, errors: str
) -> None:
    def outcome(decode: object) -> object:
        try:
            return decode()  # type: ignore[operator]
        except UnicodeDecodeError as exc:
            return (str(exc), exc.args)

    assert outcome(lambda: fsutil.utf8_text(data, errors)) == outcome(lambda: data.decode("utf-8-sig", errors))


@given(st.binary(max_size=12).map(lambda b: b"\xef\xbb\xbf" + b if b and b[0] % 2 else b))
@settings(max_examples=300)
def test_any_bytes_decode_as_with_the_utf_8_sig_codec(data: bytes) -> None:
    try:
        expected: object = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        expected = exc.args
    try:
        found: object = fsutil.utf8_text(data)
    except UnicodeDecodeError as exc:
        found = exc.args
    assert found == expected


def test_a_symlink_to_a_regular_file_is_read(tmp_path: Path) -> None:
    (tmp_path / "real.toml").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "pyproject.toml").symlink_to(tmp_path / "real.toml")
    assert read_text(tmp_path / "pyproject.toml") == "x = 1\n"


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    os.mkfifo(path)
    with pytest.raises(FileRefused) as err:
        read_bytes(path)
    assert err.value.message == f"{path} is a named pipe (FIFO), not a regular file: tierlock reads only regular files"
    assert err.value.exit_code == 2
    assert err.value.file == str(path)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_a_symlink_to_a_device_is_refused_and_says_where_it_leads(tmp_path: Path, device: str) -> None:
    path = tmp_path / "c.json"
    path.symlink_to(device)
    with pytest.raises(FileRefused, match=f"is a symlink to {device}, a character device, not a regular file"):
        read_bytes(path)


def test_a_folder_is_refused_as_a_folder(tmp_path: Path) -> None:
    (tmp_path / "dir.json").mkdir()
    with pytest.raises(FileRefused, match=r"dir\.json is a folder, not a regular file"):
        read_bytes(tmp_path / "dir.json")


def test_a_file_over_the_limit_is_refused_by_its_size_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.toml"
    with path.open("wb") as handle:
        handle.truncate(fsutil.MAX_BYTES + 1)
    with pytest.raises(FileRefused, match="is larger than 64 MiB") as err:
        read_bytes(path)
    assert err.value.too_large


def test_the_limit_holds_to_the_byte(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_bytes(b"x" * 17)
    assert read_bytes(path, limit=17) == b"x" * 17
    with pytest.raises(FileRefused, match="larger than"):
        read_bytes(path, limit=16)


def test_a_file_that_does_not_say_its_size_is_cut_at_the_limit(tmp_path: Path) -> None:
    """/proc files report a size of 0 and go on: the read stops one byte past the limit."""
    with pytest.raises(FileRefused, match="more than 16 bytes"):
        read_bytes("/proc/self/status", limit=16)


def test_a_missing_file_is_the_oserror_open_gives(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_bytes(tmp_path / "nowhere.json")
    assert regular_file(tmp_path / "nowhere.json") is False


def test_regular_file_refuses_what_it_would_not_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    for path in (tmp_path / "fifo", tmp_path):
        with pytest.raises(FileRefused):
            regular_file(path)
    (tmp_path / "ok.json").write_text("{}", encoding="utf-8")
    assert regular_file(tmp_path / "ok.json") is True


# -- the project file ----------------------------------------------------------------------------


def test_the_nearest_pyproject_above_a_folder_is_found(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    (tmp_path / "a" / "b").mkdir(parents=True)
    assert find_pyproject(tmp_path / "a" / "b") == (tmp_path / "pyproject.toml").resolve()


@pytest.mark.parametrize("kind", ["fifo", "folder", "dangling symlink", "symlink to /dev/zero"])
def test_a_nearer_pyproject_that_cannot_be_read_is_refused_not_passed_over(tmp_path: Path, kind: str) -> None:
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    child = tmp_path / "child"
    child.mkdir()
    near = child / "pyproject.toml"
    if kind == "fifo":
        os.mkfifo(near)
    elif kind == "folder":
        near.mkdir()
    elif kind == "dangling symlink":
        near.symlink_to(tmp_path / "gone.toml")
    else:
        near.symlink_to("/dev/zero")
    with pytest.raises(ConfigError, match=r"pyproject\.toml is"):
        find_pyproject(child)


def test_a_named_project_that_does_not_exist_is_no_such_folder(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    with pytest.raises(UsageError, match=r"^no such folder: .*nowhere$"):
        find_pyproject(tmp_path / "nowhere")
    with pytest.raises(UsageError, match=r"^no such file: .*pyproject\.toml$"):
        find_pyproject(tmp_path / "nowhere" / "pyproject.toml")


def test_a_named_project_that_is_a_fifo_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pyproject.toml")
    with pytest.raises(FileRefused, match="named pipe"):
        find_pyproject(tmp_path / "pyproject.toml")


def test_no_pyproject_anywhere_above_is_its_own_error(tmp_path: Path) -> None:
    with pytest.raises(NoPyproject, match=r"no pyproject\.toml in"):
        find_pyproject(tmp_path)


# -- every reader over arbitrary bytes ------------------------------------------------------------


@FUZZ
@given(data=st.binary(max_size=400) | st.text(max_size=200).map(lambda t: ("[project]\n" + t).encode()))
def test_any_bytes_as_a_pyproject_give_a_project_or_a_configuration_error(data: bytes, tmp_path: Path) -> None:
    from tierlock.tiers import load_project

    folder = tmp_path / "fuzz"
    folder.mkdir(exist_ok=True)
    (folder / "pyproject.toml").write_bytes(data)
    failed: ConfigError | None = None
    try:
        load_project(folder)
    except ConfigError as err:
        failed = err
    if failed is not None:
        assert failed.exit_code == 2
        assert str(folder / "pyproject.toml") in " ".join(failed.lines())


@FUZZ
@given(data=st.binary(max_size=400) | st.text(max_size=200).map(lambda t: ("pkg==1.0 \\\n" + t).encode()))
def test_any_bytes_as_a_lockfile_give_a_read_result(data: bytes, tmp_path: Path) -> None:
    from tierlock.lockfiles import read

    for name in ("base.txt", "pylock.base.toml"):
        path = tmp_path / name
        path.write_bytes(data)
        result = read(path)
        assert all(p.kind in ("integrity", "header") for p in result.problems)


@FUZZ
@given(data=st.binary(max_size=400))
def test_any_bytes_as_a_uv_config_leave_the_choice_to_the_defaults_or_to_what_they_say(
    data: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tierlock.lockfiles.resolvers import python_downloads_off

    monkeypatch.delenv("UV_PYTHON_DOWNLOADS", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    folder = tmp_path / "fuzz"
    folder.mkdir(exist_ok=True)
    (folder / "uv.toml").write_bytes(data)
    assert python_downloads_off(folder) in (True, False)


def test_a_pyproject_that_cannot_be_read_is_said_so_not_taken_for_one_without_a_runtime_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tierlock.validators import discover

    (tmp_path / "pyproject.toml").write_text("[tool.tierlock.runtime]\n", encoding="utf-8")

    def denied(path: object, **kwargs: object) -> str:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(fsutil, "read_bytes", denied)
    with pytest.raises(ConfigError, match=r"cannot read .*pyproject\.toml: Permission denied"):
        discover(tmp_path)


def test_the_limit_is_the_documented_64_mib() -> None:
    assert fsutil.MAX_BYTES == 64 * 1024 * 1024


def test_open_regular_opens_a_file_of_any_size_and_refuses_a_fifo(tmp_path: Path) -> None:
    wheel = tmp_path / "big.whl"
    wheel.write_bytes(b"PK" + b"\0" * 10)
    with fsutil.open_regular(wheel) as handle:
        assert handle.read() == b"PK" + b"\0" * 10
    fifo = tmp_path / "pipe.whl"
    os.mkfifo(fifo)
    with pytest.raises(FileRefused, match="FIFO"):
        fsutil.open_regular(fifo)


def test_write_atomic_keeps_an_existing_files_mode_and_gives_a_new_one_the_umasks(tmp_path: Path) -> None:
    kept = tmp_path / "kept.txt"
    kept.write_bytes(b"old")
    kept.chmod(0o640)
    scratch.write_atomic(kept, b"new")
    assert (kept.read_bytes(), kept.stat().st_mode & 0o7777) == (b"new", 0o640)
    previous = os.umask(0o002)
    try:
        fresh = tmp_path / "fresh.txt"
        scratch.write_atomic(fresh, b"x")
    finally:
        os.umask(previous)
    assert fresh.stat().st_mode & 0o7777 == 0o664  # what open() would give: 0666 less the umask
    assert os.umask(previous) == previous  # the process's umask is put back


def test_write_atomic_that_fails_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "folder"
    target.mkdir()
    with pytest.raises(IsADirectoryError):
        scratch.write_atomic(target, b"data")  # a folder cannot be replaced by a file
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder"]


def test_regular_file_takes_a_file_of_exactly_the_limit_and_refuses_one_byte_more(tmp_path: Path) -> None:
    at_limit = tmp_path / "at.toml"
    with at_limit.open("wb") as handle:
        handle.truncate(fsutil.MAX_BYTES)  # sparse: no disk spent
    assert regular_file(at_limit) is True
    over = tmp_path / "over.toml"
    with over.open("wb") as handle:
        handle.truncate(fsutil.MAX_BYTES + 1)
    with pytest.raises(FileRefused, match="bytes"):
        regular_file(over)
    assert regular_file(tmp_path / "absent.toml") is False
    assert regular_file(tmp_path / "absent" / "deeper.toml") is False


def test_a_file_over_the_limit_says_the_limit_in_mib_and_how_to_fix_it(tmp_path: Path) -> None:
    over = tmp_path / "huge.json"
    with over.open("wb") as handle:
        handle.truncate(fsutil.MAX_BYTES + 1)
    with pytest.raises(FileRefused) as refused:
        read_bytes(over)
    assert refused.value.message.startswith(f"{over} is larger than 64 MiB (")
    assert refused.value.remedy == f"make {over} smaller than 64 MiB"


def test_a_named_project_that_is_a_dangling_symlink_says_where_it_leads(tmp_path: Path) -> None:
    link = tmp_path / "proj"
    link.symlink_to(tmp_path / "gone")
    with pytest.raises(UsageError, match=r"is a symlink to .*gone, which does not exist"):
        fsutil.existing(link)


# -- one read per file per command (fsutil.reading_once) ------------------------------------------------
@pytest.fixture
def opens(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every file the safe reader opens."""
    seen: list[str] = []
    real = os.open

    def counting(path: str, flags: int, *args: int) -> int:
        seen.append(os.fspath(path))
        return real(path, flags, *args)

    monkeypatch.setattr(os, "open", counting)
    return seen


def test_within_one_command_a_file_is_read_once(tmp_path: Path, opens: list[str]) -> None:
    lock = tmp_path / "brain.txt"
    lock.write_bytes(b"numpy==2.0\n")
    with fsutil.reading_once():
        assert read_bytes(lock) == read_bytes(lock) == b"numpy==2.0\n"
        assert fsutil.kept_bytes(lock) == b"numpy==2.0\n"
    assert opens == [str(lock)]


def test_outside_a_command_every_read_opens_the_file(tmp_path: Path, opens: list[str]) -> None:
    lock = tmp_path / "brain.txt"
    lock.write_bytes(b"a\n")
    assert read_bytes(lock) == read_bytes(lock)
    assert opens == [str(lock), str(lock)]
    assert fsutil.kept_bytes(lock) is None


def test_a_file_changed_within_the_command_is_read_again(tmp_path: Path, opens: list[str]) -> None:
    lock = tmp_path / "brain.txt"
    lock.write_bytes(b"numpy==2.0\n")
    with fsutil.reading_once():
        read_bytes(lock)
        lock.write_bytes(b"numpy==2.1\n")  # the same size; another modification time or change time
        os.utime(lock, ns=(1, 1))
        assert fsutil.kept_bytes(lock) is None
        assert read_bytes(lock) == b"numpy==2.1\n"
        lock.unlink()
        assert fsutil.kept_bytes(lock) is None
        with pytest.raises(FileNotFoundError):
            read_bytes(lock)
    assert opens == [str(lock), str(lock)]


def test_a_kept_file_is_still_refused_over_a_smaller_limit(tmp_path: Path) -> None:
    lock = tmp_path / "brain.txt"
    lock.write_bytes(b"x" * 100)
    with fsutil.reading_once():
        assert len(read_bytes(lock)) == 100
        with pytest.raises(FileRefused):
            read_bytes(lock, limit=99)
        assert read_bytes(lock, limit=100) == b"x" * 100


def test_a_file_never_read_is_not_kept_and_blocks_nest(tmp_path: Path, opens: list[str]) -> None:
    lock = tmp_path / "brain.txt"
    lock.write_bytes(b"a\n")
    with fsutil.reading_once():
        assert fsutil.kept_bytes(lock) is None
        read_bytes(lock)
        with fsutil.reading_once():
            assert fsutil.kept_bytes(lock) is None  # an inner block starts empty
            read_bytes(lock)
        assert fsutil.kept_bytes(lock) == b"a\n"
    assert fsutil.kept_bytes(lock) is None
    assert len(opens) == 2


def test_a_file_over_the_memo_size_is_read_each_time(
    tmp_path: Path, opens: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fsutil, "_ONCE_BYTES", 4)
    big, small = tmp_path / "big", tmp_path / "small"
    big.write_bytes(b"12345")
    small.write_bytes(b"1234")
    with fsutil.reading_once():
        for _ in range(2):
            read_bytes(big)
            read_bytes(small)
    assert opens == [str(big), str(small), str(big)]
