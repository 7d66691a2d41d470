"""What ``tierlock lock`` remembers of its last run (the uv commands it starts early next time), and what never.

Pure file work in a temporary cache folder: no backend runs.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from tierlock import lockstart


def command(tier: str, *argv: str, requirement: str = "alpha>=1") -> lockstart.Command:
    return lockstart.Command(
        tier=tier,
        argv=("uv", "pip", "compile", f"{lockstart.WORK}/{tier}.in", *argv),
        files=((f"{tier}.in", f"{requirement}\n"),),
        seed=None,
        lockfile=f"/nowhere/{tier}.txt",
        existed=False,
        cwd="/nowhere",
        what="uv pip compile",
        remedy=f"tierlock lock {tier}",
    )


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return tmp_path / "cache"


def remembered(cache: Path) -> list[dict[str, object]]:
    (found,) = cache.glob("lock-*.json")
    commands = json.loads(found.read_text(encoding="utf-8"))["commands"]
    assert isinstance(commands, list)
    return commands


def run_once(argv: tuple[str, ...], *commands: lockstart.Command) -> None:
    lockstart.start(argv)
    for c in commands:
        assert lockstart.take(c, None) is None  # nothing remembered to start yet, or another command
    lockstart.finish()


def test_a_run_remembers_its_commands_in_a_file_only_its_user_reads(cache: Path) -> None:
    run_once(("lock",), command("base"), command("brain"))
    assert [c["tier"] for c in remembered(cache)] == ["base", "brain"]
    (found,) = cache.glob("lock-*.json")
    assert stat.S_IMODE(found.stat().st_mode) == 0o600


def test_output_options_do_not_change_which_command_line_is_remembered(cache: Path) -> None:
    run_once(("lock", "-q"), command("base"))
    run_once(("--json", "lock", "-v"), command("base", "--upgrade"))
    assert len(list(cache.glob("lock-*.json"))) == 1
    argv = remembered(cache)[0]["argv"]
    assert isinstance(argv, list)
    assert argv[-1] == "--upgrade"


@pytest.mark.parametrize(
    ("argv", "extra", "requirement"),
    [
        pytest.param(("lock",), ("--index-url", "https://alice:s3cret@index.example/simple"), "a", id="index URL"),
        pytest.param(("lock",), (), "private @ https://bob:hunter2@files.example/p-1.0.whl", id="direct reference"),
        pytest.param(("lock", "-i", "https://alice:s3cret@index.example/simple"), (), "a", id="command line"),
    ],
)
def test_a_command_carrying_a_password_is_never_written_down(
    cache: Path, argv: tuple[str, ...], extra: tuple[str, ...], requirement: str
) -> None:
    run_once(argv, command("base", *extra, requirement=requirement))
    written = "".join(p.read_text(encoding="utf-8") for p in cache.glob("*")) if cache.exists() else ""
    assert "s3cret" not in written
    assert "hunter2" not in written
