"""Every command a line names runs as printed from the folder a command given ``--project DIR`` ran in.

Before, only a ``to fix:`` line named the project: ``census``'s summary (``fix them all: tierlock census
--fix``), ``check``'s last remedy (``tierlock census --fix  (applies every census fix above)``: words in
brackets after the command), ``tiers``' hint and ``init``'s next step printed the commands of someone standing
inside the project; run as printed from its parent they found no pyproject.toml. Each is run here exactly as
printed (the words in brackets left out: they say what the command does), and the state is then what it said.

``census`` also offered ``census --fix`` for every problem, a glob matching no file too (which no edit of it
fixes, and which it never showed): it now says that one with its own fix, offers ``--fix`` for those it fixes,
and counts as fixed only those.
"""

from __future__ import annotations

import shlex
import textwrap
from pathlib import Path

import pytest

from tests.support.cli import cli_json, run_cli
from tests.support.plugin_project import inner_pyproject

PLAIN = """\
[project]
name = "proj"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = []

[project.optional-dependencies]
brain = ["brainpkg"]
"""


def _command(line: str, after: str) -> list[str]:
    """The command *line* names after *after*, the words in brackets that follow it left out, as argv."""
    text = line.split(after, 1)[1]
    return shlex.split(text.partition(" (")[0] if text.endswith(")") else text)


@pytest.fixture
def outside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The folder commands run in: the project's parent (it has no pyproject.toml of its own)."""
    monkeypatch.chdir(tmp_path)
    for key in ("CI", "GITHUB_ACTIONS", "TIERLOCK_STRICT"):
        monkeypatch.delenv(key, raising=False)
    return tmp_path


def test_the_census_fix_named_by_census_and_check_runs_from_outside(
    outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = outside / "proj"
    (project / "tests" / "brain").mkdir(parents=True)
    (project / "pyproject.toml").write_text(inner_pyproject(cacheprovider=False), encoding="utf-8")
    (project / "tests" / "test_uses.py").write_text(
        textwrap.dedent("""\
            import brainpkg


            def test_uses():
                assert brainpkg
            """),
        encoding="utf-8",
    )
    code, out, _ = run_cli(capsys, "--project", "proj", "census")
    assert code == 1
    # the glob matching no file is no edit census --fix makes: said with its own fix, and not counted as fixable
    glob = "pyproject.toml: brain: census-glob: tests glob 'tests/brain/**' matches no file; to fix: fix the glob"
    assert glob in out
    summary = out.splitlines()[-1]
    assert "2 problem(s); fix 1 of them: " in summary
    argv = _command(summary, "fix 1 of them: ")
    assert argv == ["tierlock", "--project", "proj", "census", "--fix"]
    code, out, _ = run_cli(capsys, "--project", "proj", "check")
    (line,) = [line for line in out.splitlines() if "census --fix" in line]
    assert _command(line, "to fix: ") == argv
    code, out, _ = run_cli(capsys, *argv[1:])  # as printed, from outside: the project's test file is gated
    assert "fixed 1 finding(s) in 1 file(s): pyproject.toml" in out  # (before: "fixed 2", one of them not)
    assert [f["kind"] for f in cli_json(capsys, "--project", "proj", "census")[1]["findings"]] == ["census-glob"]
    (project / "tests" / "brain" / "test_brain.py").write_text("def test_brain():\n    pass\n", encoding="utf-8")
    code, out, _ = run_cli(capsys, "--project", "proj", "census")  # the glob's fix, made
    assert (code, out.splitlines()[-1].endswith(" 0 problem(s)")) == (0, True)


def test_the_hints_of_tiers_and_init_name_the_project_and_run_from_outside(
    outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = outside / "proj"
    project.mkdir()
    (project / "pyproject.toml").write_text(PLAIN, encoding="utf-8")
    code, out, _ = run_cli(capsys, "--project", "proj", "tiers")
    argv = _command(out.splitlines()[-1], "run: ")
    assert (code, argv) == (0, ["tierlock", "--project", "proj", "init"])
    code, out, _ = run_cli(capsys, *argv[1:])  # as printed
    assert code == 0
    (line,) = [line for line in out.splitlines() if line.startswith("next: ")]
    chain = line.split("then run: ", 1)[1]
    assert chain == "tierlock --project proj tiers && tierlock --project proj lock"
    assert "[tool.tierlock" in (project / "pyproject.toml").read_text(encoding="utf-8")
    first = shlex.split(chain.split(" && ")[0])
    assert run_cli(capsys, *first[1:])[0] == 0  # (the lock needs an index: run in the lock tests)
