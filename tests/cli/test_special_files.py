"""No input hangs or exhausts tierlock: every command that reads a config or a pyproject.toml refuses a
file that is not a regular one (a FIFO, a symlink to /dev/zero or /dev/urandom, a folder) or is larger
than 64 MiB, with exit 2 and a message that names the file and what it is; a named project that does not
exist is "no such folder"; a refused pyproject.toml is never passed over for a parent folder's.

Each case runs the real console script in a subprocess with a time limit and a memory limit, so that a
regression fails the test instead of hanging it or exhausting the machine.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.env import clean_env
from tests.support.gitrepo import git
from tierlock.cli import main

TIMEOUT = 60
MEMORY = 3 * 1024**3
PYPROJECT = """\
[project]
name = "parent"
version = "0"
dependencies = []

[project.optional-dependencies]
brain = []
"""
RUNTIME = {"schemaVersion": 1, "verification": [{"key": "unit", "command": "true"}]}


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def tierlock(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """The real CLI, stopped after TIMEOUT seconds and MEMORY bytes (a hang or an endless read fails the test)."""
    try:
        return subprocess.run(
            [sys.executable, "-m", "tierlock", *argv],
            cwd=cwd,
            env=clean_env({"NO_COLOR": "1", "CI": "true"}),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            preexec_fn=_limits,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"tierlock {' '.join(argv)} did not finish in {TIMEOUT} s (it waits on a FIFO?)")


def _fifo(path: Path) -> str:
    os.mkfifo(path)
    return "a named pipe (FIFO)"


def _zero(path: Path) -> str:
    path.symlink_to("/dev/zero")
    return "a symlink to /dev/zero, a character device"


def _urandom(path: Path) -> str:
    path.symlink_to("/dev/urandom")
    return "a symlink to /dev/urandom, a character device"


def _folder(path: Path) -> str:
    path.mkdir()
    return "a folder"


def _huge(path: Path) -> str:
    with path.open("wb") as handle:  # sparse: 65 MiB on paper, nothing on disk
        handle.truncate(65 * 1024 * 1024)
    return "larger than 64 MiB"


KINDS: dict[str, Callable[[Path], str]] = {
    "fifo": _fifo,
    "dev-zero": _zero,
    "dev-urandom": _urandom,
    "folder": _folder,
    "over-64-mib": _huge,
}


@pytest.fixture
def parent(tmp_path: Path) -> Path:
    """A valid project with a runtime config: what a silent fall-back from a refused child would read."""
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (tmp_path / "tierlock.runtime.json").write_text(json.dumps(RUNTIME), encoding="utf-8")
    (tmp_path / "child").mkdir()
    return tmp_path


def in_process(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """The CLI in this process: for the kinds that cannot hang (a folder, a missing path, a sparse file)."""
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def _assert_refused_by_validate(code: int, fmt: str, out: str, err: str, *, name: str, what: str) -> None:
    shown = out + err
    assert code == 2, shown
    assert "RC999:" not in shown
    assert '"ruleId": "RC999"' not in shown
    assert "internal error" not in shown
    assert name in shown
    assert what in shown
    if fmt in ("json", "sarif") and what != "is a folder":
        json.loads(out)  # still one document


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "dev-urandom"])
@pytest.mark.parametrize("fmt", ["text", "sarif"])
def test_validate_refuses_a_pipe_or_a_device_with_exit_2_without_reading_it(
    kind: str, fmt: str, tmp_path: Path
) -> None:
    what = KINDS[kind](tmp_path / "c.json")
    done = tierlock(tmp_path, "validate", "c.json", "--format", fmt)
    _assert_refused_by_validate(done.returncode, fmt, done.stdout, done.stderr, name="c.json", what=what)


@pytest.mark.parametrize("kind", ["folder", "over-64-mib"])
@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif"])
def test_validate_refuses_a_folder_or_a_file_over_64_mib_with_exit_2_in_every_format(
    kind: str, fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], not_ci: None
) -> None:
    path = tmp_path / ("dir.json" if kind == "folder" else "c.json")
    what = KINDS[kind](path)
    code, out, err = in_process(capsys, "validate", str(path), "--format", fmt)
    _assert_refused_by_validate(code, fmt, out, err, name=path.name, what="is a folder" if kind == "folder" else what)


COMMANDS = [
    ["tiers"],
    ["init", "--dry-run"],
    ["install", "brain"],
    ["status"],
    ["remove", "brain"],
    ["probe"],
    ["admit"],
    ["lock", "brain"],
    ["check"],
    ["validate"],
    ["setup-command"],
    ["export"],
    ["matrix"],
    ["census"],
    ["verify"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_named_project_whose_pyproject_is_a_fifo_is_exit_2_never_a_parent_folders(
    command: list[str], parent: Path
) -> None:
    what = _fifo(parent / "child" / "pyproject.toml")
    done = tierlock(parent, "--project", "child", *command)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"pyproject.toml is {what}, not a regular file" in done.stderr
    assert "parent" not in done.stdout  # nothing was read from the parent folder's project


@pytest.mark.parametrize("command", [["check"], ["install", "brain"], ["validate"], ["verify"]], ids=lambda c: c[0])
def test_a_named_project_whose_pyproject_is_dev_zero_is_refused_before_a_byte_is_read(
    command: list[str], parent: Path
) -> None:
    what = _zero(parent / "child" / "pyproject.toml")
    done = tierlock(parent, "--project", "child", *command)
    assert done.returncode == 2, done.stdout + done.stderr
    assert what in done.stderr


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
@pytest.mark.parametrize("kind", ["folder", "over-64-mib"])
def test_a_named_project_whose_pyproject_is_a_folder_or_too_large_is_exit_2(
    command: list[str], kind: str, parent: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    what = KINDS[kind](parent / "child" / "pyproject.toml")
    monkeypatch.chdir(parent)
    code, out, err = in_process(capsys, "--project", "child", *command)
    assert code == 2, out + err
    assert "pyproject.toml" in err
    assert what in err
    assert "parent" not in out


@pytest.mark.parametrize("command", [*COMMANDS, ["verified"]], ids=lambda c: c[0])
def test_a_named_project_that_does_not_exist_is_no_such_folder(
    command: list[str], parent: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(parent)
    code, out, err = in_process(capsys, "--project", "child/nowhere", *command)
    assert code == 2, out + err
    assert "no such folder: child/nowhere" in err
    assert "no runtime config found" not in err


def test_validate_in_a_project_that_does_not_exist_says_no_such_folder_in_json(parent: Path) -> None:
    done = tierlock(parent, "--project", "nowhere", "validate", "--json")
    assert done.returncode == 2
    assert json.loads(done.stdout)["error"]["message"] == "no such folder: nowhere"


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "folder"])
@pytest.mark.parametrize("command", [["validate"], ["setup-command"], ["verify"]], ids=lambda c: c[0])
def test_a_runtime_config_that_is_no_regular_file_is_refused_not_passed_over(
    kind: str, command: list[str], parent: Path
) -> None:
    (parent / "child" / "pyproject.toml").write_text(PYPROJECT.replace("parent", "child"), encoding="utf-8")
    what = KINDS[kind](parent / "child" / "tierlock.runtime.json")
    done = tierlock(parent, "--project", "child", *command)
    shown = done.stdout + done.stderr
    assert done.returncode == 2, shown
    assert "tierlock.runtime.json" in shown
    assert what.split(",")[0] in shown


def test_verify_refuses_a_config_named_with_config_that_is_a_fifo(parent: Path) -> None:
    _fifo(parent / "fifo.json")
    done = tierlock(parent, "verify", "--config", "fifo.json")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "fifo.json is a named pipe (FIFO), not a regular file" in done.stderr


@pytest.mark.usefixtures("git_identity")
def test_verified_does_not_wait_on_a_config_that_is_a_fifo(parent: Path) -> None:
    git(parent, "init", "-q")
    git(parent, "add", "-A")
    git(parent, "commit", "-q", "-m", "first")
    _fifo(parent / "fifo.json")
    tree = git(parent, "rev-parse", "HEAD^{tree}").strip()
    run = parent / ".git" / "tierlock" / "evidence" / "20260101T000000Z-1"
    run.mkdir(parents=True)
    receipt = {"receiptVersion": 1, "result": "passed", "tree": tree, "bound": True}
    receipt["config"] = {"path": "fifo.json", "digest": "sha256:" + "0" * 64}
    (run / "receipt.json").write_text(json.dumps(receipt), encoding="utf-8")  # the gate digests the config now
    done = tierlock(parent, "verified", "--config", "fifo.json")
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.startswith("not verified")


def test_install_tier_never_takes_a_parent_folders_receipts_for_a_fifo_pyproject(parent: Path) -> None:
    _fifo(parent / "child" / "pyproject.toml")
    script = Path(sys.executable).parent / "install-tier"
    done = subprocess.run(
        [str(script), "--project", "child", "brain"],
        cwd=parent,
        env=clean_env({"NO_COLOR": "1"}),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "is a named pipe (FIFO)" in done.stderr
