"""Which commands run after one fails: --fail-fast stops at the first failing check, a failing setup step stops
the setup and every check, a missing tool blocks but the other checks still run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import cli_json
from tests.support.gitrepo import check, make_repo

OK = "print('all good')\n"
FAIL = "raise SystemExit(1)\n"


pytestmark = pytest.mark.usefixtures("git_identity")


def _ran(capsys: pytest.CaptureFixture[str], repo: Path, *args: str) -> tuple[int, list[tuple[str, Any, str]]]:
    code, document = cli_json(capsys, "--project", str(repo), "verify", "--json", *args)
    return code, [(c["list"], c["key"], c["status"]) for c in document["commands"]]


def test_fail_fast_stops_at_the_first_failing_check_and_without_it_every_check_runs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(
        tmp_path / "r",
        {"ok.py": OK, "bad.py": FAIL},
        [check("a", "ok.py"), check("b", "bad.py"), check("c", "ok.py"), check("d", "bad.py")],
    )
    code, ran = _ran(capsys, repo, "--fail-fast")
    assert (code, ran) == (1, [("verification", "a", "passed"), ("verification", "b", "failed")])
    code, ran = _ran(capsys, repo)
    assert (code, [status for _, _, status in ran]) == (1, ["passed", "failed", "passed", "failed"])


def test_a_failing_setup_step_stops_the_later_setup_steps_and_every_check(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(
        tmp_path / "r",
        {"ok.py": OK, "bad.py": FAIL},
        [check("a", "ok.py")],
        [check("first", "ok.py"), check("second", "bad.py"), check("third", "ok.py")],
    )
    code, ran = _ran(capsys, repo)
    assert (code, ran) == (3, [("setup", "first", "passed"), ("setup", "second", "failed")])


def test_a_missing_tool_blocks_yet_the_checks_after_it_still_run_and_fail_fast_does_not_hide_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(
        tmp_path / "r",
        {"ok.py": OK},
        [{"key": "lint", "command": "no-such-tool-tierlock"}, check("a", "ok.py")],
    )
    code, ran = _ran(capsys, repo)
    assert (code, ran) == (3, [("verification", "lint", "not-found"), ("verification", "a", "passed")])
    code, ran = _ran(capsys, repo, "--fail-fast")
    assert (code, ran) == (3, [("verification", "lint", "not-found")])


def test_a_setup_tool_that_is_missing_stops_every_check(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "r",
        {"ok.py": OK},
        [check("a", "ok.py")],
        [{"key": "arm", "command": "no-such-tool-tierlock"}],
    )
    code, ran = _ran(capsys, repo)
    assert (code, ran) == (3, [("setup", "arm", "not-found")])
