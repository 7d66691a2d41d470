"""The kept plan of an arming (``tierlock.earlyarm``, ``tierlock.armrecord``): how its facts are named and compared.

Paths inside the target are kept relative to its folder and by content, so a venv made the same way at another
folder matches and one that differs in what the install reads does not; the early backend is taken over only
by exactly its command. Real files, folders, links and processes in ``tmp_path``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tierlock import armplan, armrecord, earlyarm


@pytest.fixture(autouse=True)
def _no_early_left() -> Iterator[None]:
    yield
    earlyarm.finish(0)


def test_a_path_under_the_target_is_kept_relative_and_placed_back_under_another_target() -> None:
    assert armplan.relative("/w/venv/lib/site", "/w/venv") == "@T/lib/site"
    assert armplan.relative("/w/venv", "/w/venv") == "@T"
    assert armplan.placed("@T/lib/site", "/x/other") == "/x/other/lib/site"
    assert armplan.placed("/elsewhere", "/x/other") == "/elsewhere"


def test_a_sibling_folder_whose_name_starts_like_the_target_is_not_under_it() -> None:
    assert armplan.relative("/w/venv2/lib", "/w/venv") is None
    assert armplan.relative("/w/ven", "/w/venv") is None


def test_the_target_of_a_new_command_line_is_where_it_names_the_kept_path_now() -> None:
    kept = ["brain", "--python", "@T/bin/python"]
    assert armplan.target_of(kept, ["brain", "--python", "/x/new/bin/python"], "/w/old") == "/x/new"
    assert armplan.target_of(["brain"], ["brain"], "/w/old") == "/w/old"


@pytest.mark.parametrize(
    "argv",
    [
        ["brain", "--python", "/x/new/bin/python3"],  # another path inside the venv
        ["viz", "--python", "/x/new/bin/python"],  # another tier
        ["brain", "--python", "/x/new/bin/python", "--json"],  # another length
        ["brain", "--python", "/bin/python"],  # nothing left for the folder
    ],
)
def test_a_command_line_that_differs_but_for_the_target_matches_no_kept_plan(argv: list[str]) -> None:
    assert armplan.target_of(["brain", "--python", "@T/bin/python"], argv, "/w/old") is None


def test_two_kept_paths_that_name_two_targets_now_match_no_plan() -> None:
    kept = ["--python", "@T/bin/python", "--project", "@T/proj"]
    assert armplan.target_of(kept, ["--python", "/a/bin/python", "--project", "/b/proj"], "/w") is None
    assert armplan.target_of(kept, ["--python", "/a/bin/python", "--project", "/a/proj"], "/w") == "/a"


def test_a_python_inside_a_venv_is_looked_up_by_its_place_in_the_venv(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    python = str(venv / "bin" / "python")
    assert armplan.kept_forms(["brain", "--python", python]) == [
        ["brain", "--python", "@T/bin/python"],
        ["brain", "--python", python],
    ]
    assert armplan.kept_forms(["brain"]) == [["brain"]]
    assert armplan.python_of(["--python=/p/bin/python"]) == "/p/bin/python"


@pytest.mark.parametrize(
    ("argv", "eligible"),
    [
        (["brain", "--python", "/v/bin/python", "--backend", "uv", "--json", "-q"], True),
        (["brain", "--python=/v/bin/python", "--quiet"], True),
        (["brain", "--dry-run"], False),
        (["brain", "--replace-armed"], False),
        (["brain", "--deep"], False),
        (["brain", "--reinstall"], False),
        (["brain", "-v"], False),
        (["brain", "--python", "--dry-run"], True),  # a value, not an option (argparse decides the rest)
    ],
)
def test_only_a_plain_arming_with_options_proven_safe_may_start_early(
    argv: list[str], eligible: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(armplan, "terminal", lambda: False)
    assert armplan.eligible(argv) is eligible


def test_no_cache_folder_or_a_terminal_is_no_early_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(armplan, "terminal", lambda: False)
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", "")
    assert not armplan.eligible(["brain"])
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(tmp_path))
    assert armplan.eligible(["brain"])
    monkeypatch.setattr(armplan, "terminal", lambda: True)
    assert not armplan.eligible(["brain"])


def test_a_file_inside_the_target_is_known_by_its_mode_and_size_a_folder_by_its_mode(tmp_path: Path) -> None:
    prefix = str(tmp_path)
    (tmp_path / "f").write_bytes(b"abc")
    (tmp_path / "d").mkdir()
    file_sig = armplan.inner_sig(str(tmp_path / "f"), prefix)
    assert file_sig[1] == 3
    assert armplan.inner_sig(str(tmp_path / "d"), prefix) == (os.stat(tmp_path / "d").st_mode,)
    assert armplan.inner_sig(str(tmp_path / "gone"), prefix) == (-2,)  # -ENOENT
    os.utime(tmp_path / "f", (0, 0))  # another time, the same content: the same fact
    assert armplan.inner_sig(str(tmp_path / "f"), prefix) == file_sig
    (tmp_path / "f").write_bytes(b"abcd")
    assert armplan.inner_sig(str(tmp_path / "f"), prefix) != file_sig


def test_a_link_inside_the_target_is_known_by_its_text_and_what_it_leads_to(tmp_path: Path) -> None:
    prefix = tmp_path / "venv"
    (prefix / "bin").mkdir(parents=True)
    base = tmp_path / "base"
    base.write_bytes(b"python")
    (prefix / "bin" / "python").symlink_to(base)
    (prefix / "bin" / "python3").symlink_to("python")
    outer = armplan.inner_sig(str(prefix / "bin" / "python"), str(prefix))
    assert outer[1] == str(base)
    inner = armplan.inner_sig(str(prefix / "bin" / "python3"), str(prefix))
    assert inner[1] == "python"
    assert inner[2] == outer[2], "both lead to the same interpreter, by its identity"
    other = tmp_path / "other"
    other.write_bytes(b"python")  # same size, another file: another interpreter behind the venv
    (prefix / "bin" / "python").unlink()
    (prefix / "bin" / "python").symlink_to(other)
    assert armplan.inner_sig(str(prefix / "bin" / "python"), str(prefix)) != outer


def test_pyvenv_cfg_is_compared_without_the_lines_that_only_say_how_it_was_made(tmp_path: Path) -> None:
    cfg = tmp_path / "pyvenv.cfg"
    cfg.write_text("home = /usr/bin\nversion = 3.11.7\ncommand = /usr/bin/python -m venv /a\n", encoding="utf-8")
    first = armplan.inner_bytes(str(cfg))
    cfg.write_text("home = /usr/bin\nversion = 3.11.7\ncommand = /usr/bin/python -m venv /b\n", encoding="utf-8")
    assert armplan.inner_bytes(str(cfg)) == first
    cfg.write_text("home = /usr/bin\nversion = 3.12.1\ncommand = /usr/bin/python -m venv /b\n", encoding="utf-8")
    assert armplan.inner_bytes(str(cfg)) != first
    other = tmp_path / "RECORD"
    other.write_bytes(b"x")
    assert armplan.inner_bytes(str(other)) != armplan.inner_bytes(str(cfg))


def test_the_facts_in_tierlocks_own_folder_are_checked_apart_from_the_others(tmp_path: Path) -> None:
    (tmp_path / "tierlock").mkdir()
    inner = {
        "stats": {"@T/tierlock": armplan.inner_sig(str(tmp_path / "tierlock"), str(tmp_path))},
        "lists": {"@T": ("somethingelse",)},
        "scans": {},
        "files": {},
        "writable": [],
    }
    assert armplan.inner_holds(inner, str(tmp_path), own=True)
    assert not armplan.inner_holds(inner, str(tmp_path), own=False)


def test_the_site_folders_write_test_is_done_again(tmp_path: Path) -> None:
    inner = {"stats": {}, "lists": {}, "scans": {}, "files": {}, "writable": ["@T/site"]}
    assert not armplan.inner_holds(inner, str(tmp_path), own=False)  # no such folder: not writable
    (tmp_path / "site").mkdir()
    assert armplan.inner_holds(inner, str(tmp_path), own=False)


def _early(tmp_path: Path, requirements: bytes) -> earlyarm.Early:
    folder = tmp_path / "early"
    folder.mkdir()
    (folder / "requirements.txt").write_bytes(requirements)
    fd = os.open(tmp_path / "lock", os.O_RDWR | os.O_CREAT, 0o644)
    argv = [sys.executable, "-c", "pass", "-r", str(folder / "requirements.txt")]
    early = earlyarm.Early(str(tmp_path), argv, requirements, str(folder), fd)
    earlyarm.current.append(early)
    early.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return early


def _mine(tmp_path: Path, data: bytes) -> tuple[list[str], str]:
    path = tmp_path / "mine.txt"
    path.write_bytes(data)
    return [sys.executable, "-c", "pass", "-r", str(path)], str(path)


def test_the_install_takes_the_early_backend_over_only_when_its_command_is_the_very_same(tmp_path: Path) -> None:
    early = _early(tmp_path, b"a==1\n")
    assert earlyarm.fresh(str(tmp_path))
    assert earlyarm.held(str(tmp_path)) == early.lock_fd
    argv, path = _mine(tmp_path, b"a==1\n")
    assert earlyarm.adopt(argv, path) is early.proc
    assert not earlyarm.fresh(str(tmp_path)), "once taken over, the probe is the install's own again"
    assert not early.other


@pytest.mark.parametrize(
    "change",
    ["requirements", "argv", "environment"],
)
def test_an_early_backend_running_another_command_is_waited_for_and_its_plan_dropped(
    change: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan = tmp_path / "arms-x.marshal"
    plan.write_bytes(b"kept")
    early = _early(tmp_path, b"a==1\n")
    early.plan = str(plan)
    argv, path = _mine(tmp_path, b"a==2\n" if change == "requirements" else b"a==1\n")
    if change == "argv":
        argv.append("--reinstall-package")
    if change == "environment":
        monkeypatch.setenv("TIERLOCK_SOMETHING_NEW", "1")
    assert earlyarm.adopt(argv, path) is None
    assert early.proc is not None
    assert early.proc.returncode == 0, "it ran to its end"
    assert early.other
    earlyarm.finish(0)
    assert not plan.exists()
    assert not Path(early.folder).exists()


def test_the_lock_an_early_start_holds_is_the_installs_and_let_go_once(tmp_path: Path) -> None:
    early = _early(tmp_path, b"a==1\n")
    fd = early.lock_fd
    earlyarm.release(fd)
    assert earlyarm.held(str(tmp_path)) is None
    with pytest.raises(OSError, match="Bad file descriptor"):
        os.fstat(fd)


@pytest.mark.parametrize(
    ("data", "pins"),
    [
        (b"tierlock==0.1 \\\n    --hash=sha256:00\n", True),
        (b"a==1\nTierLock==0.1\n", True),
        (b"tierlock_extra==1\n", False),
        (b"--index-url https://x\nb==1\n", False),
    ],
)
def test_a_plan_that_installs_tierlock_itself_is_not_kept(data: bytes, pins: bool) -> None:
    assert armrecord._pins_tierlock(data) is pins
