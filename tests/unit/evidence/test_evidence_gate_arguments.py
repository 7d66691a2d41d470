"""``tierlock verified`` read by its fast path: every argument order it knows gives the CLI's answer, and
anything it does not know (a missing value, an option before its command, another command) is left to the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.gitrepo import IDENTITY, check, git, make_repo
from tierlock.cli import main
from tierlock.evidence import fastgate

OK = "print('all good')\n"
SCRIPT = str(Path(sys.executable).parent / "tierlock")


pytestmark = pytest.mark.usefixtures("git_identity")


@pytest.fixture(scope="module")
def verified_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A checkout whose current tree has a passing receipt, in its git dir and in ``<tmp>/evidence``."""
    repo = make_repo(tmp_path_factory.mktemp("gate") / "r", {"ok.py": OK}, [check("unit", "ok.py")])
    env = {**os.environ, **IDENTITY}
    for extra in ([], ["--evidence-dir", str(repo.parent / "evidence")]):
        proc = subprocess.run(
            [SCRIPT, "--project", str(repo), "verify", "--json", *extra],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return repo


def _printed(capsys: pytest.CaptureFixture[str], call: Callable[[], int | None]) -> tuple[int | None, str, str]:
    capsys.readouterr()
    code = call()
    out, err = capsys.readouterr()
    return code, out, err


#: Argument lists the fast path answers itself, with R the checkout and E its second evidence folder.
KNOWN = [
    ["--project", "R", "verified"],
    ["verified", "--project", "R"],
    ["--project=R", "verified"],
    ["verified", "--project=R"],
    ["--project", "R", "verified", "--json"],
    ["--json", "--project", "R", "verified"],
    ["--project", "R", "--json", "verified"],
    ["verified", "--json", "--project", "R"],
    ["--project", "R", "verified", "-q"],
    ["--quiet", "--project", "R", "verified"],
    ["--project", "R", "verified", "--config", "R/tierlock.runtime.json"],
    ["--project", "R", "verified", "--config=R/tierlock.runtime.json", "--json"],
    ["verified", "--config", "R/tierlock.runtime.json", "--project", "R", "--json"],
    ["--project", "R", "verified", "--evidence-dir", "E", "--json"],
    ["verified", "--evidence-dir=E", "--project=R", "-q"],
    ["--project", "R", "verified", "--config-from", "main", "--json"],
    ["verified", "--json", "--config-from=main", "--project", "R"],
    ["--project", "R", "verified", "--evidence-dir", "E", "--config", "R/tierlock.runtime.json", "--json", "-q"],
]


def _argv(template: list[str], repo: Path) -> list[str]:
    def fill(token: str) -> str:
        token = token.replace("R/", f"{repo}/").replace("=R", f"={repo}").replace("=E", f"={repo.parent / 'evidence'}")
        return {"R": str(repo), "E": str(repo.parent / "evidence")}.get(token, token)

    return [fill(t) for t in template]


@pytest.mark.parametrize("template", KNOWN, ids=[" ".join(t) for t in KNOWN])
def test_every_argument_order_the_fast_path_reads_gives_the_clis_answer(
    capsys: pytest.CaptureFixture[str], verified_repo: Path, template: list[str]
) -> None:
    argv = _argv(template, verified_repo)
    fast = _printed(capsys, lambda: fastgate.fast(argv))
    full = _printed(capsys, lambda: main(argv))
    assert fast[0] is not None, "the fast path left a form it knows to the CLI"
    assert fast == full
    if any(t.startswith("--config-from") for t in argv):  # the receipt was made without it: not the same evidence
        assert fast[0] == 1
        assert "not made with --config-from main" in (fast[1] + fast[2])
        return
    assert fast[0] == 0
    if "--json" in argv:
        assert json.loads(fast[1])["reason"] == "verified"
    elif "-q" in argv or "--quiet" in argv:
        assert (fast[1], fast[2]) == ("", "")
    else:
        assert fast[1].startswith("verified: commit ")


def test_the_fast_path_answers_for_the_options_it_was_given(
    capsys: pytest.CaptureFixture[str], verified_repo: Path, tmp_path: Path
) -> None:
    """Each value reaches the gate: an empty evidence folder has no run, another config file does not match."""
    empty = tmp_path / "none"
    other = verified_repo / "other.json"  # untracked: the tree stays the one verified
    other.write_text((verified_repo / "tierlock.runtime.json").read_text())
    cases = (
        (["verified", "--evidence-dir", str(empty), "--project", str(verified_repo), "--json"], "no-run"),
        (["--project", str(verified_repo), "verified", f"--evidence-dir={empty}", "--json"], "no-run"),
        (["--project", str(verified_repo), "verified", "--json", "--config", str(other)], "stale-config"),
        (["--project", str(tmp_path), "verified", "--json"], "not-a-checkout"),
    )
    try:
        for argv, reason in cases:
            code, out, _ = _printed(capsys, lambda argv=argv: fastgate.fast(argv))  # type: ignore[misc]
            assert (code, json.loads(out)["reason"]) == (1, reason), argv
    finally:
        other.unlink()


#: Argument lists the fast path does not answer: the CLI decides (and reports a usage error where one is due).
UNKNOWN = [
    [],
    ["--json"],
    ["--project", "R"],
    ["verified", "--config"],
    ["verified", "--project"],
    ["--project", "R", "verified", "--evidence-dir"],
    ["verified", "--config-from"],
    ["verified", "--config", "--json"],
    ["verified", "--config", "-q"],
    ["--project", "--json", "verified"],
    ["--config", "R/tierlock.runtime.json", "verified"],
    ["--evidence-dir=E", "verified"],
    ["verified", "verified"],
    ["verified", "--project", "R", "extra"],
    ["verify", "--evidence-dir", "verified"],
    ["--project", "R", "verify", "--config", "verified"],
    ["check", "verified"],
    ["verified", "--config", "a", "--config", "b"],
    ["verified", "--project=R", "--project", "R"],
    ["verified", "-v"],
    ["verified", "--color=never"],
    ["verified", "--help"],
    ["verified", "--jso"],
]


@pytest.mark.parametrize("template", UNKNOWN, ids=[" ".join(t) or "(nothing)" for t in UNKNOWN])
def test_a_form_the_fast_path_does_not_know_is_left_to_the_cli(
    capsys: pytest.CaptureFixture[str], verified_repo: Path, template: list[str]
) -> None:
    argv = _argv(template, verified_repo)
    code, out, err = _printed(capsys, lambda: fastgate.fast(argv))
    assert (code, out, err) == (None, "", "")


@pytest.mark.parametrize(
    ("template", "said"),
    [
        (["verified", "--config"], "argument --config: expected one argument"),
        (["--project", "R", "verified", "--evidence-dir"], "argument --evidence-dir: expected one argument"),
        (["verified", "--config-from", "-q"], "argument --config-from: expected one argument"),
        (["verified", "--project"], "argument --project: expected one argument"),
        (["--config", "R/tierlock.runtime.json", "verified"], "unknown command"),
    ],
    ids=lambda t: " ".join(t) if isinstance(t, list) else "",
)
def test_a_missing_or_misplaced_value_is_the_clis_usage_error_not_a_crash(
    verified_repo: Path, template: list[str], said: str
) -> None:
    argv = _argv(template, verified_repo)
    proc = subprocess.run([SCRIPT, *argv], capture_output=True, text=True, cwd=verified_repo, check=False)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("ERROR tierlock")
    assert said in proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_another_command_with_an_argument_named_verified_runs_that_command(verified_repo: Path, tmp_path: Path) -> None:
    """``verified`` as an option's value (an evidence folder of that name) does not make the command the gate."""
    env = {**os.environ, **IDENTITY}
    proc = subprocess.run(
        [SCRIPT, "--project", str(verified_repo), "verify", "--json", "--evidence-dir", "verified"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    document = json.loads(proc.stdout)
    assert (document["result"], document["commit"]) == ("passed", git(verified_repo, "rev-parse", "HEAD").strip())
    assert Path(document["receipt"]).is_relative_to(tmp_path / "verified")
