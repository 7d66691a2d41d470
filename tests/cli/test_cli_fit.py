"""A CLI that fits people's habits: did-you-mean for commands, colour control, admit's two faces, nothing said
twice, tables that wrap at 80 columns, progress on a terminal, and install's familiar index options."""

from __future__ import annotations

import io
import json
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from tests.support.cli import run_cli
from tests.support.env import make_venv
from tests.support.lockproj import offline, write_project
from tierlock.cli import COMMANDS, main
from tierlock.output import UI, plain_table


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


# -- did you mean -------------------------------------------------------------


@pytest.mark.parametrize(("typo", "meant"), [("isntall", "install"), ("lok", "lock"), ("tier", "tiers")])
def test_a_mistyped_command_suggests_the_closest_and_the_corrected_command_line(
    capsys: pytest.CaptureFixture[str], locked: Path, typo: str, meant: str
) -> None:
    code, out, _err = run_cli(capsys, "--project", str(locked), typo, "--json")
    assert code == 2
    doc = json.loads(out)
    assert doc["ok"] is False
    assert f"unknown command {typo!r} (did you mean {meant!r}?)" in doc["error"]["message"]
    assert doc["error"]["remedy"] == shlex.join(["tierlock", "--project", str(locked), meant, "--json"])


def test_the_corrected_command_line_runs_as_printed(capsys: pytest.CaptureFixture[str], locked: Path) -> None:
    code, _, err = run_cli(capsys, "--project", str(locked), "tires")
    assert code == 2
    remedy = err.split("to fix: ", 1)[1].strip()
    code, out, err = run_cli(capsys, *shlex.split(remedy)[1:])
    assert code == 0, err
    assert "tier(s) in pyproject.toml" in out


def test_a_command_like_nothing_known_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "frobnicate")
    assert code == 2
    assert "unknown command 'frobnicate'; commands: " + ", ".join(COMMANDS) in err


def test_a_mistyped_tierlock_key_suggests_the_known_one(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    folder = write_project(tmp_path / "p", '[project]\nname = "p"\nversion = "1"\n[tool.tierlock]\nci-requires = []\n')
    code, _, err = run_cli(capsys, "--project", str(folder), "tiers")
    assert code == 2
    assert "unknown key 'ci-requires' (did you mean 'ci-require'?)" in err


# -- colour --------------------------------------------------------------------


@pytest.mark.usefixtures("not_ci")
def test_color_never_and_no_color_keep_escape_codes_out_of_terminal_output(monkeypatch: pytest.MonkeyPatch) -> None:
    out = FakeTerminal()
    UI(stdout=out, color="never").line("failed", style="bold red")
    assert out.getvalue() == "failed\n"
    monkeypatch.setenv("NO_COLOR", "1")
    out = FakeTerminal()
    UI(stdout=out).line("failed", style="bold red")
    assert out.getvalue() == "failed\n"
    out = FakeTerminal()
    monkeypatch.delenv("NO_COLOR")
    UI(stdout=out).line("failed", style="bold red")
    assert "\x1b[" in out.getvalue()


def test_color_always_colours_even_a_pipe_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    out = io.StringIO()
    UI(stdout=out, color="always").line("failed", style="bold red")
    assert "\x1b[" in out.getvalue()
    out = io.StringIO()
    UI(stdout=out).line("failed", style="bold red")
    assert out.getvalue() == "failed\n"


def test_color_is_a_global_option_and_a_command_option(capsys: pytest.CaptureFixture[str], locked: Path) -> None:
    assert run_cli(capsys, "--color", "never", "--project", str(locked), "tiers")[0] == 0
    assert run_cli(capsys, "--project", str(locked), "tiers", "--color", "always")[0] == 0
    code, _, err = run_cli(capsys, "--project", str(locked), "tiers", "--color", "sometimes")
    assert code == 2
    assert "invalid choice: 'sometimes'" in err


# -- admit ---------------------------------------------------------------------


def test_admit_on_a_terminal_prints_a_summary_not_json(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, locked: Path
) -> None:
    monkeypatch.setenv("CI", "true")  # plain lines: the summary must not depend on rich
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    assert main(["--project", str(locked), "admit"]) == 0
    lines = terminal.getvalue().splitlines()
    assert lines[0].startswith("lockfiles: pass (tiers: 3, lockfiles: 3, packages: ")
    assert lines[1].startswith("runtime: skipped")
    assert lines[2].startswith("probe: skipped")
    assert lines[-1] == "admitted: no tier required"
    assert "{" not in terminal.getvalue()


def test_admit_with_json_is_one_line_with_ok(capsys: pytest.CaptureFixture[str], locked: Path) -> None:
    code, out, _ = run_cli(capsys, "--project", str(locked), "admit", "--json")
    assert code == 0
    assert len(out.splitlines()) == 1
    doc = json.loads(out)
    assert doc["ok"] is True
    assert doc["admitted"] is True


def test_admit_in_a_pipe_keeps_its_json_line_for_scripts(capsys: pytest.CaptureFixture[str], locked: Path) -> None:
    code, out, _ = run_cli(capsys, "--project", str(locked), "admit")
    assert code == 0
    assert json.loads(out)["ok"] is True


# -- nothing twice -------------------------------------------------------------


def test_an_interrupt_is_announced_once_even_when_the_command_explained_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, locked: Path
) -> None:
    from tierlock.commands import tiers

    def explained(_args: object, ctx: object) -> int:
        ctx.ui.note("interrupted: the backend was stopped and no receipt was written")  # type: ignore[attr-defined]
        raise KeyboardInterrupt

    monkeypatch.setattr(tiers, "run", explained)
    code, out, err = run_cli(capsys, "--project", str(locked), "tiers")
    assert code == 130
    assert err.count("interrupted") == 1
    code, out, err = run_cli(capsys, "--project", str(locked), "tiers", "--json")
    assert code == 130
    assert err.count("interrupted") == 1
    assert json.loads(out)["ok"] is False

    def silent(_args: object, _ctx: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(tiers, "run", silent)
    code, _, err = run_cli(capsys, "--project", str(locked), "tiers")
    assert code == 130
    assert err.count("interrupted") == 1


@pytest.mark.slow
def test_install_verbose_lists_each_package_once_and_takes_index_options(
    capsys: pytest.CaptureFixture[str], locked: Path, wheels: Path, tmp_path: Path
) -> None:
    project = Path(shutil.copytree(locked, tmp_path / "proj"))
    python = make_venv(tmp_path / "venv")
    argv = ["--project", str(project), "install", "base", "-v", "--python", str(python), *offline(wheels)]
    code, out, err = run_cli(capsys, *argv)
    assert code == 0, err
    assert (out + err).count("alpha==1.1") == 1, out + err
    assert (out + err).count("beta==2.0") == 1


@pytest.mark.slow
def test_install_accepts_the_backend_names_lock_accepts_and_passes_index_options_to_pip(
    capsys: pytest.CaptureFixture[str], locked: Path, wheels: Path, tmp_path: Path
) -> None:
    project = Path(shutil.copytree(locked, tmp_path / "proj"))
    python = make_venv(tmp_path / "venv")
    argv = ["--project", str(project), "install", "base", "--python", str(python), "--backend", "pip-tools"]
    code, out, err = run_cli(capsys, *argv, "--no-index", "--find-links", str(wheels))
    assert code == 0, err
    assert "with pip" in out


def test_install_without_the_index_options_reaches_no_local_wheels(
    capsys: pytest.CaptureFixture[str], locked: Path, tmp_path: Path
) -> None:
    """The options are what made the installs above work: an empty find-links folder finds nothing."""
    project = Path(shutil.copytree(locked, tmp_path / "proj"))
    python = make_venv(tmp_path / "venv")
    empty = tmp_path / "empty"
    empty.mkdir()
    argv = ["--project", str(project), "install", "base", "--python", str(python), "--no-index", "-f", str(empty)]
    code, _, err = run_cli(capsys, *argv)
    assert code == 3
    assert "alpha" in err


# -- tables and progress -------------------------------------------------------

LONG = "lockfiles/a/rather/deeply/nested/folder/for/the/brain-tier-lockfile.txt"
GLOB = "tests/brain/**/test_*.py"


def test_a_plain_table_wraps_at_80_columns_and_keeps_every_character_of_paths_and_globs() -> None:
    rows = [["brain", "extra:brain", "1", "base", LONG, "yes", GLOB]]
    lines = plain_table(["tier", "source", "roots", "layered-on", "lockfile", "ci", "tests"], rows, width=80)
    assert max(len(line) for line in lines) <= 80
    assert len(lines) > 2
    start = lines[1].index("lockfile") if "lockfile" in lines[1] else lines[0].index("lockfile")
    text = "".join(line[start:].split("  ")[0].strip() for line in lines[1:])
    assert LONG in text.replace(" ", "")
    assert "".join(lines).count("test_*.py") == 1


def test_a_plain_table_in_a_pipe_is_never_wrapped() -> None:
    rows = [["brain", LONG, GLOB]]
    assert plain_table(["tier", "lockfile", "tests"], rows) == [
        "tier   " + "lockfile".ljust(len(LONG)) + "  tests",
        "brain  " + LONG + "  " + GLOB,
    ]


@pytest.mark.usefixtures("not_ci")
def test_a_rich_table_on_an_80_column_terminal_folds_long_paths_instead_of_cutting_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    out = FakeTerminal()
    UI(stdout=out, color="never").table(
        "tiers", ["tier", "source", "lockfile", "tests"], [["brain", "extra:brain", LONG, GLOB]]
    )
    text = out.getvalue()
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) <= 80
    cells = [line.split("│")[1:-1] for line in text.splitlines() if line.startswith("│")]
    assert "".join(row[2].strip() for row in cells) == LONG
    assert "".join(row[3].strip() for row in cells) == GLOB


@pytest.mark.usefixtures("not_ci")
def test_progress_updates_one_spinner_on_a_terminal_and_prints_notes_elsewhere() -> None:
    terminal, err = FakeTerminal(), io.StringIO()
    with UI(stdout=terminal, stderr=err).progress() as step:
        step("locking base")
        step("locking brain")
    assert err.getvalue() == ""
    pipe, err = io.StringIO(), io.StringIO()
    with UI(stdout=pipe, stderr=err).progress() as step:
        step("locking base")
        step("locking brain")
    assert err.getvalue() == "locking base\nlocking brain\n"
    assert pipe.getvalue() == ""
