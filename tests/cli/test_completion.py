"""``tierlock completion SHELL``: scripts generated from the parser, so every command completes; bash's parses and
completes commands, options and the project's tier names."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.cli import run_cli
from tests.support.env import bin_dir, clean_env
from tests.support.lockproj import write_project
from tests.support.pyproject import pyproject
from tierlock.cli import COMMANDS

PYPROJECT = pyproject(
    name="p",
    version="1",
    requires_python=None,
    dependencies=None,
    extras={"brain": ["numpy"], "bravo": ["scipy"]},
    tiers={"brain": {"source": "extra:brain"}, "bravo": {"source": "extra:bravo"}},
)


def _script(capsys: pytest.CaptureFixture[str], shell: str) -> str:
    code, out, _ = run_cli(capsys, "completion", shell)
    assert code == 0
    return out


def test_the_bash_script_parses_and_names_every_command(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    script = tmp_path / "tierlock.bash"
    script.write_text(_script(capsys, "bash"))
    subprocess.run(["bash", "-n", str(script)], check=True)
    text = script.read_text()
    for command in COMMANDS:
        assert f"        {command}) opts=" in text
    assert "complete -o default -F _tierlock tierlock" in text
    assert "complete -o default -F _install_tier install-tier" in text


def _complete(script: Path, cwd: Path, *words: str) -> list[str]:
    """Run the bash completion function for *words* (the last one is being typed) and return its candidates."""
    function = "_install_tier" if words[0] == "install-tier" else "_tierlock"
    quoted = " ".join(f"'{w}'" for w in words)
    program = (
        f'source {script}; COMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}; {function}; echo "${{COMPREPLY[*]}}"'
    )
    env = clean_env({"PATH": f"{bin_dir()}:/usr/bin:/bin"})
    out = subprocess.run(["bash", "-c", program], cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_bash_completes_commands_options_and_tier_names(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    script = tmp_path / "tierlock.bash"
    script.write_text(_script(capsys, "bash"))
    project = write_project(tmp_path / "p", PYPROJECT)
    assert _complete(script, project, "tierlock", "ins") == ["install"]
    assert _complete(script, project, "tierlock", "--project", ".", "exp") == ["export"]
    assert _complete(script, project, "tierlock", "lock", "--dry") == ["--dry-run"]
    assert _complete(script, project, "tierlock", "install", "br") == ["brain", "bravo"]
    assert _complete(script, project, "install-tier", "bra") == ["brain", "bravo"]
    assert _complete(script, project, "install-tier", "--find") == ["--find-links"]


def test_list_tiers_prints_one_name_a_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    project = write_project(tmp_path / "p", PYPROJECT)
    code, out, _ = run_cli(capsys, "--project", str(project), "completion", "--list-tiers")
    assert (code, out) == (0, "base\nbrain\nbravo\n")


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_scripts_name_every_command(
    capsys: pytest.CaptureFixture[str], shell: str, tmp_path: Path
) -> None:
    text = _script(capsys, shell)
    for command in COMMANDS:
        assert command in text
    path = tmp_path / f"tierlock.{shell}"
    path.write_text(text)
    if shutil.which(shell):
        subprocess.run([shell, "-n", str(path)], check=True)


def test_completion_without_a_shell_names_the_choices(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "completion")
    assert code == 2
    assert "name a shell: bash, zsh or fish" in err
