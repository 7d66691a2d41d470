"""The kept plan of an arming (``tierlock.earlyarm``, ``tierlock.armrecord``): how its facts are named and compared.

Paths inside the target are kept relative to its folder and by content, so a venv made the same way at another
folder matches and one that differs in what the install reads does not; the early backend is taken over only
by exactly its command. Real files, folders, links and processes in ``tmp_path``.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tierlock import armplan, armrecord, earlyarm, keptrecord


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


def test_the_site_folders_write_test_can_be_left_out_of_a_check(tmp_path: Path) -> None:
    inner = {"stats": {}, "lists": {}, "scans": {}, "files": {}, "writable": ["@T/site"]}
    assert armplan.inner_holds(inner, str(tmp_path), own=False, writes=False)
    assert not armplan.inner_holds(inner, str(tmp_path), own=False)


@pytest.mark.parametrize("site", [True, False], ids=["writable", "missing"])
def test_the_early_start_makes_the_write_test_once_under_the_install_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, site: bool
) -> None:
    target = tmp_path / "venv"
    target.mkdir()
    if site:
        (target / "site").mkdir()
    inner = {"stats": {}, "lists": {}, "scans": {}, "files": {}, "writable": ["@T/site"]}
    entry = {"outer": {}, "inner": inner, "config": {}, "command": {}}
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(earlyarm, "find", lambda where, argv: ("plan", str(target), entry))
    monkeypatch.setattr(earlyarm, "outer_holds", lambda outer, prefix: True)
    monkeypatch.setattr(earlyarm, "config_holds", lambda config, prefix: True)
    locked: list[bool] = []  # whether the install lock was held at each write test
    real = armplan.writable

    def writable(folder: str) -> bool:
        locked.append((target / "tierlock" / "install.lock").exists())
        return real(folder)

    started = earlyarm.Early(str(target), [], b"", str(tmp_path), -1)

    def launched(plan: str, prefix: str, command: object, fd: int) -> earlyarm.Early:
        os.close(fd)
        return started

    monkeypatch.setattr(armplan, "writable", writable)
    monkeypatch.setattr(earlyarm, "_launched", launched)
    assert earlyarm._start(["brain"]) is (started if site else None)
    assert locked == [True]
    # a site-packages that cannot be written: no early start, and the lock's folder is there as the install (which
    # takes the lock, then refuses the target) makes it
    assert (target / "tierlock" / "install.lock").exists()


def _early(tmp_path: Path, requirements: bytes, code: str = "pass") -> earlyarm.Early:
    """An early backend running *code* (this interpreter's ``-c``), as :func:`earlyarm.start` leaves one."""
    folder = tmp_path / "early"
    folder.mkdir()
    (folder / "requirements.txt").write_bytes(requirements)
    fd = os.open(tmp_path / "lock", os.O_RDWR | os.O_CREAT, 0o644)
    argv = [sys.executable, "-c", code, "-r", str(folder / "requirements.txt")]
    early = earlyarm.Early(str(tmp_path), argv, requirements, str(folder / "requirements.txt"), fd)
    earlyarm.current = early
    early.proc = subprocess.Popen(  # its own process group, as every backend tierlock starts
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, process_group=0
    )
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
    assert not Path(early.file).exists()


def test_the_lock_an_early_start_holds_is_the_installs_and_let_go_once(tmp_path: Path) -> None:
    early = _early(tmp_path, b"a==1\n")
    fd = early.lock_fd
    assert fd is not None
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


# -- a plan kept by hand, started for real -----------------------------------------------------------------------
def _venv(root: Path) -> Path:
    venv = root / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "lib" / "site").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\ncommand = made here\n", encoding="utf-8")
    return venv


def _keep(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, venv: Path) -> list[str]:
    """A plan for ``brain --python VENV/bin/python`` whose backend is a Python that exits at once."""
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(armplan, "terminal", lambda: False)
    monkeypatch.setattr(earlyarm, "YIELD", 0)  # the test process keeps its priority
    monkeypatch.setattr(earlyarm, "DEEP", 0)
    (tmp_path / "cache").mkdir(exist_ok=True)
    kept = ["brain", "--python", "@T/bin/python"]
    site = str(venv / "lib" / "site")
    entry = {
        "schema": armplan.SCHEMA,
        "who": armplan.who(kept),
        "prefix": "/elsewhere/venv",
        "outer": {"stats": {}, "lstats": {}, "lists": {}, "scans": {}, "files": {}, "env": {}},
        "inner": {
            "stats": {"@T/pyvenv.cfg": armplan.inner_sig(str(venv / "pyvenv.cfg"), str(venv))},
            "lists": {"@T/lib/site": ()},
            "scans": {},
            "files": {"@T/pyvenv.cfg": armplan.inner_bytes(str(venv / "pyvenv.cfg"))},
            "writable": ["@T/lib/site"],
        },
        "command": {"argv": [sys.executable, "-c", "pass", "@T/bin/python", "-r", "@R"], "requirements": b"a==1\n"},
        "config": armplan.config_facts("pip", str(venv)),
    }
    assert os.listdir(site) == []
    (tmp_path / "cache" / os.path.basename(armplan.plan_path(str(tmp_path / "cache"), kept))).write_bytes(
        __import__("marshal").dumps(entry)
    )
    return ["brain", "--python", str(venv / "bin" / "python")]


def test_a_plan_that_holds_starts_its_command_with_this_targets_folder_put_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = _venv(tmp_path)
    argv = _keep(tmp_path, monkeypatch, venv)
    early = earlyarm.start(argv)
    assert early is not None
    assert early.argv[:4] == [sys.executable, "-c", "pass", str(venv / "bin" / "python")]
    assert Path(early.argv[-1]).read_bytes() == b"a==1\n"
    assert earlyarm.held(str(venv)) == early.lock_fd
    assert (venv / "tierlock" / "install.lock").read_text(encoding="utf-8") == f"{os.getpid()}\n"


@pytest.mark.parametrize("change", ["a package there", "another pyvenv.cfg", "an option", "lock held"])
def test_a_plan_that_does_not_hold_starts_nothing(change: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import fcntl

    venv = _venv(tmp_path)
    argv = _keep(tmp_path, monkeypatch, venv)
    if change == "a package there":
        (venv / "lib" / "site" / "a-1.dist-info").mkdir()
    elif change == "another pyvenv.cfg":
        (venv / "pyvenv.cfg").write_text("home = /opt/bin\ncommand = made here\n", encoding="utf-8")
    elif change == "an option":
        argv.append("--dry-run")
    else:
        (venv / "tierlock").mkdir()
        fd = os.open(venv / "tierlock" / "install.lock", os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX)
    assert earlyarm.start(argv) is None
    assert earlyarm.current is None


def test_the_facts_in_tierlocks_folder_are_checked_under_the_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = _venv(tmp_path)
    argv = _keep(tmp_path, monkeypatch, venv)
    (venv / "tierlock" / "receipts").mkdir(parents=True)
    (venv / "tierlock" / "receipts" / "base.json").write_text("{}", encoding="utf-8")
    plan = next((tmp_path / "cache").glob("arms-*"))
    entry = __import__("marshal").loads(plan.read_bytes())
    entry["inner"]["lists"]["@T/tierlock/receipts"] = ()  # kept: no receipt there
    plan.write_bytes(__import__("marshal").dumps(entry))
    assert earlyarm.start(argv) is None
    fd = os.open(venv / "tierlock" / "install.lock", os.O_RDWR)
    try:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # let go: another process may take it
    finally:
        os.close(fd)


def test_a_taken_over_early_backend_is_counted_once_by_the_process_helper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tierlock import subproc

    seen: list[tuple[str, ...]] = []
    monkeypatch.setattr(subproc, "observers", [seen.append])
    early = _early(tmp_path, b"a==1\n")
    argv, path = _mine(tmp_path, b"a==1\n")
    proc = earlyarm.adopt(argv, path)
    assert proc is not None
    assert proc.pid in subproc._live
    assert seen == [tuple(early.argv)]
    result = subproc.run(argv, what="x", started=proc)
    assert result.returncode == 0
    assert seen == [tuple(early.argv)], "the run of the process taken over is not counted again"
    assert proc.pid not in subproc._live


# -- what a recorded run keeps -------------------------------------------------------------------------------------
def test_a_recorded_run_keeps_the_targets_facts_relative_and_the_others_as_they_are(tmp_path: Path) -> None:
    venv = _venv(tmp_path)
    outside = tmp_path / "pyproject.toml"
    outside.write_text("[project]\n", encoding="utf-8")
    old = 1_000_000_000
    os.utime(outside, (old, old))
    recorder = armrecord.ArmRecorder(str(tmp_path / "cache"))
    recorder.opened |= {str(outside), str(venv / "pyvenv.cfg"), armrecord.__file__}
    recorder.stats |= {str(venv / "bin"), str(outside)}
    recorder.lstats |= {str(venv / "pyvenv.cfg")}
    recorder.listed |= {str(venv / "lib" / "site"), str(tmp_path)}
    recorder.own_writes |= {str(venv / "tierlock" / "install.lock")}
    recorder.write_tests |= {str(venv / "lib" / "site")}
    facts = recorder.facts(str(venv))
    assert facts is not None
    inner, outer = facts["inner"], facts["outer"]
    assert set(inner["files"]) == {"@T/pyvenv.cfg"}
    assert set(inner["stats"]) == {"@T/bin", "@T/pyvenv.cfg"}
    assert inner["lists"] == {"@T/lib/site": ()}
    assert inner["writable"] == ["@T/lib/site"]
    assert set(outer["files"]) == {str(outside)}, "module files are known by their look-up, not their bytes"
    assert str(outside) in outer["stats"]
    assert armrecord.__file__ in outer["stats"]
    assert str(tmp_path) in outer["lists"]


@pytest.mark.parametrize("why", ["tainted", "lock elsewhere", "write test elsewhere", "just modified"])
def test_a_recorded_run_that_may_not_be_kept_keeps_nothing(why: str, tmp_path: Path) -> None:
    venv = _venv(tmp_path)
    recorder = armrecord.ArmRecorder(str(tmp_path / "cache"))
    if why == "tainted":
        recorder.taint("started a process")
    elif why == "lock elsewhere":
        recorder.own_writes.add(str(tmp_path / "other" / "tierlock" / "install.lock"))
    elif why == "write test elsewhere":
        recorder.write_tests.add(str(tmp_path))
    else:
        (tmp_path / "lock.txt").write_text("x", encoding="utf-8")
        recorder.opened.add(str(tmp_path / "lock.txt"))
    assert recorder.facts(str(venv)) is None


def test_only_tierlocks_lock_and_its_folder_may_be_written_by_a_recorded_run(tmp_path: Path) -> None:
    recorder = armrecord.ArmRecorder(str(tmp_path / "cache"))
    assert recorder._ours("/v/tierlock/install.lock", writing=True)
    assert recorder._ours("/v/tierlock", writing=True)
    assert not recorder._ours("/v/tierlock/receipts/brain.json", writing=True)
    assert not recorder._ours("/v/tierlock", writing=False)
    assert recorder.own_writes == {"/v/tierlock/install.lock", "/v/tierlock"}


def test_a_run_keeps_its_plan_only_when_it_ends_with_exit_0(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    venv = _venv(tmp_path)
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(tmp_path / "cache"))
    argv = ["brain", "--python", str(venv / "bin" / "python")]
    for code, kept in ((1, False), (0, True)):
        armrecord.begin()
        armrecord.pause()
        assert os.stat is keptrecord._real_stat, "the backend step ends the watching"
        armrecord.capture(
            ["uv", "-r", "/tmp/r.txt", str(venv / "bin" / "python")],
            "/tmp/r.txt",
            b"a==1\n",
            str(venv),
            fresh=True,
            backend="uv",
        )
        armrecord.end(argv, code)
        plans = list((tmp_path / "cache").glob("arms-*"))
        assert bool(plans) is kept
    entry = __import__("marshal").loads(plans[0].read_bytes())
    assert entry["command"]["argv"] == ["uv", "-r", "@R", "@T/bin/python"]
    assert entry["who"] == armplan.who(["brain", "--python", "@T/bin/python"])


def test_a_run_whose_plan_was_not_all_installs_keeps_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    venv = _venv(tmp_path)
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(tmp_path / "cache"))
    armrecord.begin()
    armrecord.capture(["uv"], "/r", b"a==1\n", str(venv), fresh=False, backend="uv")
    armrecord.capture(["uv"], "/r", b"a==1\n", str(venv), fresh=True, backend="uv")  # a second step: not the plan
    armrecord.end(["brain", "--python", str(venv / "bin" / "python")], 0)
    assert list((tmp_path / "cache").glob("arms-*")) == []


# -- checking the facts outside the target -------------------------------------------------------------------------
def test_a_fact_outside_the_target_that_changed_makes_the_plan_not_hold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tierlock.keptfirst import digest
    from tierlock.keptrun import listing, stat_sig

    f = tmp_path / "lock.txt"
    f.write_text("a==1\n", encoding="utf-8")
    outer = {
        "stats": {str(tmp_path / "gone"): stat_sig(str(tmp_path / "gone"))},
        "lstats": {},
        "lists": {str(tmp_path): listing(str(tmp_path))},
        "scans": {},
        "files": {str(f): (stat_sig(str(f)), digest(str(f)))},
        "env": {"TIERLOCK_TEST_VAR": "@T/x"},
    }
    monkeypatch.setenv("TIERLOCK_TEST_VAR", "/v/x")
    assert armplan.outer_holds(outer, "/v")
    monkeypatch.setenv("TIERLOCK_TEST_VAR", "/w/x")
    assert not armplan.outer_holds(outer, "/v")
    monkeypatch.setenv("TIERLOCK_TEST_VAR", "/v/x")
    st = f.stat()
    f.write_text("a==2\n", encoding="utf-8")
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert not armplan.outer_holds(outer, "/v"), "the bytes tell, whatever the identity says"
    f.write_text("a==1\n", encoding="utf-8")
    assert armplan.outer_holds(outer, "/v")
    (tmp_path / "gone").write_text("", encoding="utf-8")
    assert not armplan.outer_holds(outer, "/v")


def test_a_scanned_folder_inside_the_target_is_compared_entry_by_entry(tmp_path: Path) -> None:
    from tierlock.keptrun import scan

    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "a.pth").write_text("x", encoding="utf-8")
    inner = {
        "stats": {},
        "lists": {},
        "scans": {"@T/site": scan(str(tmp_path / "site"), lambda p: armplan.inner_sig(p, str(tmp_path)))},  # type: ignore[arg-type,return-value]
        "files": {},
        "writable": [],
    }
    assert armplan.inner_holds(inner, str(tmp_path), own=False)
    (tmp_path / "site" / "a.pth").write_text("xy", encoding="utf-8")
    assert not armplan.inner_holds(inner, str(tmp_path), own=False)


def test_only_the_venv_the_python_is_in_names_the_target(tmp_path: Path) -> None:
    (tmp_path / "pyvenv.cfg").write_text("", encoding="utf-8")  # an outer folder that looks like a venv too
    venv = _venv(tmp_path)
    python = str(venv / "bin" / "python")
    assert armplan.kept_forms(["--python", python])[0] == ["--python", "@T/bin/python"]
    assert len(armplan.kept_forms(["--python", python])) == 2


def test_a_plan_is_for_this_machine_whatever_its_host_name() -> None:
    machine = armplan.who([])[-1]
    assert isinstance(machine, list)
    assert os.uname().nodename not in machine


def test_only_a_folder_opened_to_write_is_the_installs_write_test(tmp_path: Path) -> None:
    recorder = armrecord.ArmRecorder(str(tmp_path / "cache"))
    recorder._open(str(tmp_path), "r", os.O_RDONLY)
    recorder._open(str(tmp_path), None, os.O_RDONLY)
    assert recorder.write_tests == set()
    recorder._open(str(tmp_path), None, os.O_TMPFILE | os.O_WRONLY)
    assert recorder.write_tests == {str(tmp_path)}
    assert recorder.tainted is None


def test_an_environment_variable_the_run_read_is_kept_relative_under_the_target_and_as_it_is_elsewhere(
    tmp_path: Path,
) -> None:
    venv = _venv(tmp_path)
    recorder = armrecord.ArmRecorder(str(tmp_path / "cache"))
    recorder.env.update({"INSIDE": str(venv / "bin"), "OUTSIDE": str(tmp_path / "uv"), "UNSET": None})
    facts = recorder.facts(str(venv))
    assert facts is not None
    assert facts["outer"]["env"] == {"INSIDE": "@T/bin", "OUTSIDE": str(tmp_path / "uv"), "UNSET": None}


# -- the backend's own configuration -------------------------------------------------------------------------------
def _hidden(value: str) -> str:
    """How a plan keeps a backend variable's value: its digest (the value may carry a credential)."""
    return hashlib.sha256(value.encode()).hexdigest()


def _configured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A venv, and an environment whose backend configuration is all the test's: no PIP_*/UV_* variable, the user's
    and the system's configuration folders in *tmp_path*, the working folder there too."""
    for name in list(os.environ):
        if name.startswith(("PIP_", "UV_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / "config"))
    monkeypatch.setenv("XDG_CONFIG_DIRS", str(tmp_path / "etc"))
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    return _venv(tmp_path)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


PIP_CHANGES: dict[str, Callable[[Path, pytest.MonkeyPatch], None]] = {
    "a variable set": lambda t, m: m.setenv("PIP_NO_COMPILE", "1"),
    "a variable's value": lambda t, m: m.setenv("PIP_FIND_LINKS", str(t / "other")),
    "a variable unset": lambda t, m: m.delenv("PIP_FIND_LINKS"),
    "the user's file made": lambda t, m: _write(t / "home" / "config" / "pip" / "pip.conf", "[global]\n"),
    "the old user's file made": lambda t, m: _write(t / "home" / ".pip" / "pip.conf", "[global]\n"),
    "a system file made": lambda t, m: _write(t / "etc" / "pip" / "pip.conf", "[global]\n"),
    "the target's own file made": lambda t, m: _write(t / "venv" / "pip.conf", "[global]\n"),
    "the chosen file edited": lambda t, m: _write(t / "chosen.conf", "[global]\ntimeout = 2\n"),
    "another file chosen": lambda t, m: m.setenv("PIP_CONFIG_FILE", str(t / "home" / "other.conf")),
    "the user's folder moved": lambda t, m: m.setenv("XDG_CONFIG_HOME", str(t / "elsewhere")),
}


@pytest.mark.parametrize("change", list(PIP_CHANGES))
def test_pips_variables_and_configuration_files_are_facts_of_a_pip_plan(
    change: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = _configured(tmp_path, monkeypatch)
    monkeypatch.setenv("PIP_FIND_LINKS", str(venv / "wheels"))
    _write(tmp_path / "chosen.conf", "[global]\ntimeout = 1\n")
    monkeypatch.setenv("PIP_CONFIG_FILE", str(tmp_path / "chosen.conf"))
    kept = armplan.config_facts("pip", str(venv))
    assert kept["env"] == {
        "PIP_FIND_LINKS": _hidden("@T/wheels"),
        "PIP_CONFIG_FILE": _hidden(str(tmp_path / "chosen.conf")),
    }
    assert "@T/pip.conf" in kept["files"], "the target's own pip.conf, kept relative to its folder"
    assert armplan.config_holds(kept, str(venv))
    PIP_CHANGES[change](tmp_path, monkeypatch)
    assert not armplan.config_holds(kept, str(venv))


def test_a_venv_made_the_same_way_elsewhere_holds_the_same_pip_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = _configured(tmp_path, monkeypatch)
    monkeypatch.setenv("PIP_FIND_LINKS", str(venv / "wheels"))
    _write(venv / "pip.conf", "[global]\n")
    kept = armplan.config_facts("pip", str(venv))
    other = tmp_path / "other"
    _write(other / "pip.conf", "[global]\n")
    assert not armplan.config_holds(kept, str(other)), "the variable names the first venv's folder"
    monkeypatch.setenv("PIP_FIND_LINKS", str(other / "wheels"))
    assert armplan.config_holds(kept, str(other))


def test_with_pips_configuration_file_the_null_device_pip_reads_no_file_and_none_is_a_fact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = _configured(tmp_path, monkeypatch)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    kept = armplan.config_facts("pip", str(venv))
    assert kept["files"] == {}
    _write(tmp_path / "home" / "config" / "pip" / "pip.conf", "[global]\n")
    assert armplan.config_holds(kept, str(venv))
    monkeypatch.delenv("PIP_CONFIG_FILE")
    assert not armplan.config_holds(kept, str(venv))


UV_CHANGES: dict[str, Callable[[Path, pytest.MonkeyPatch], None]] = {
    "a variable set": lambda t, m: m.setenv("UV_INDEX_URL", "https://example.invalid/simple"),
    "the user's file made": lambda t, m: _write(t / "home" / "config" / "uv" / "uv.toml", "native-tls = true\n"),
    "a system file made": lambda t, m: _write(t / "etc" / "uv" / "uv.toml", "native-tls = true\n"),
    "a project file above the working folder": lambda t, m: _write(t / "uv.toml", "native-tls = true\n"),
    "a pyproject in the working folder": lambda t, m: _write(t / "work" / "pyproject.toml", "[tool.uv]\n"),
    "the chosen file edited": lambda t, m: _write(t / "chosen.toml", "native-tls = false\n"),
}


@pytest.mark.parametrize("change", list(UV_CHANGES))
def test_uvs_variables_and_configuration_files_are_facts_of_a_uv_plan(
    change: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = _configured(tmp_path, monkeypatch)
    _write(tmp_path / "chosen.toml", "native-tls = true\n")
    monkeypatch.setenv("UV_CONFIG_FILE", str(tmp_path / "chosen.toml"))
    kept = armplan.config_facts("uv", str(venv))
    assert str(tmp_path / "work" / "uv.toml") in kept["files"]
    assert armplan.config_holds(kept, str(venv))
    UV_CHANGES[change](tmp_path, monkeypatch)
    assert not armplan.config_holds(kept, str(venv))


def test_each_backends_plan_rests_on_its_own_configuration_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = _configured(tmp_path, monkeypatch)
    pip, uv = armplan.config_facts("pip", str(venv)), armplan.config_facts("uv", str(venv))
    monkeypatch.setenv("UV_NO_CONFIG", "1")
    assert armplan.config_holds(pip, str(venv))
    assert not armplan.config_holds(uv, str(venv))
    assert armplan.config_facts("uv", str(venv))["files"] == {}, "uv told to read no configuration file"
    monkeypatch.setenv("PIP_NO_INPUT", "1")
    assert not armplan.config_holds(pip, str(venv))


def test_a_kept_plan_notes_its_backend_and_that_backends_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = _configured(tmp_path, monkeypatch)
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path / "wheels"))
    armrecord.begin()
    armrecord.capture([str(venv / "bin" / "python"), "-r", "/r"], "/r", b"a==1\n", str(venv), fresh=True, backend="pip")
    armrecord.end(["brain", "--python", str(venv / "bin" / "python")], 0)
    (plan,) = (tmp_path / "cache").glob("arms-*")
    entry = __import__("marshal").loads(plan.read_bytes())
    assert entry["command"]["backend"] == "pip"
    assert entry["config"] == armplan.config_facts("pip", str(venv))
    assert entry["config"]["env"] == {"PIP_FIND_LINKS": _hidden(str(tmp_path / "wheels"))}


def test_a_plan_kept_under_the_command_line_as_it_is_is_found_when_none_is_kept_under_the_venvs_place(
    tmp_path: Path,
) -> None:
    import marshal

    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    argv = ["brain", "--python", str(venv / "bin" / "python")]
    where = tmp_path / "cache"
    where.mkdir()
    entry = {"schema": armplan.SCHEMA, "who": armplan.who(argv), "prefix": str(venv)}
    with open(armplan.plan_path(str(where), argv), "wb") as fh:  # the second form kept_forms gives
        marshal.dump(entry, fh)
    found = armplan.find(str(where), argv)
    assert found is not None
    assert found[1:] == (str(venv), entry)
