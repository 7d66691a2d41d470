"""The tool-install remedy names this tierlock's own source, so it installs what runs now; the command that adds
the CLI's dependencies fits the kind of environment tierlock is in (a uv tool, pipx, a venv with pip)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from tierlock import _entry
from tierlock._entry import CLI_MODULES, missing_cli_modules
from tierlock.selfinstall import cli_install_command, missing_cli_error, tool_install_command, tool_requirement

ROOT = Path(__file__).resolve().parents[3]


def test_the_tool_install_remedy_names_the_source_this_tierlock_was_installed_from() -> None:
    # The test environment holds an editable install of this checkout (make venv: pip install -e .).
    assert tool_requirement() == f"tierlock[uv] @ {ROOT.as_uri()}"
    assert shlex.split(tool_install_command()) == ["uv", "tool", "install", f"tierlock[uv] @ {ROOT.as_uri()}"]


def test_the_cli_remedy_reinstalls_a_uv_tool_with_the_uv_extra(tmp_path: Path) -> None:
    (tmp_path / "uv-receipt.toml").write_text("[tool]\n", encoding="utf-8")
    command = cli_install_command(prefix=str(tmp_path), executable=str(tmp_path / "bin" / "python"))
    assert shlex.split(command) == ["uv", "tool", "install", "--force", f"tierlock[uv] @ {ROOT.as_uri()}"]


def test_the_cli_remedy_reinstalls_a_pipx_environment_with_the_uv_extra(tmp_path: Path) -> None:
    prefix = tmp_path / "pipx" / "venvs" / "tierlock"
    command = cli_install_command(prefix=str(prefix), executable=str(prefix / "bin" / "python"))
    assert shlex.split(command) == ["pipx", "install", "--force", f"tierlock[uv] @ {ROOT.as_uri()}"]


def test_the_cli_remedy_adds_the_cli_extra_with_the_environments_own_pip(tmp_path: Path) -> None:
    python = tmp_path / "bin" / "python"
    command = cli_install_command(prefix=str(tmp_path), executable=str(python))
    assert shlex.split(command) == [str(python), "-m", "pip", "install", f"tierlock[cli] @ {ROOT.as_uri()}"]


def test_the_cli_modules_are_the_cli_extras_requirements() -> None:
    from importlib.metadata import requires

    from packaging.requirements import Requirement

    extra = [Requirement(r).name for r in requires("tierlock") or () if "extra == 'cli'" in r or 'extra == "cli"' in r]
    assert sorted(extra) == sorted(CLI_MODULES)
    assert missing_cli_modules() == []


def test_the_missing_cli_error_names_every_missing_module_and_the_remedy() -> None:
    err = missing_cli_error(["rich", "tomlkit"])
    assert err.exit_code == 2
    assert "needs rich, tomlkit (the cli extra), which are not installed in" in err.message
    assert err.package == "rich"
    assert err.remedy == cli_install_command()
    assert "which is not installed" in missing_cli_error(["jsonschema"]).message


def test_the_cli_modules_are_looked_for_past_the_bundles_finder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The bundle's finder (first on sys.meta_path in a read-only command's full run) gives a spec only for a module
    the finders after it find, and asks them for any other: the look-up skips it, the answer the same."""
    from tierlock import codebundle

    asked: list[str] = []
    monkeypatch.setattr(
        codebundle._Finder, "find_spec", staticmethod(lambda name, path=None, target=None: asked.append(name))
    )
    for modules in (CLI_MODULES, ("tierlock_no_such_module", *CLI_MODULES)):
        monkeypatch.setattr(_entry, "CLI_MODULES", modules)
        without = missing_cli_modules()
        monkeypatch.setattr(sys, "meta_path", [codebundle._Finder, *sys.meta_path])
        assert missing_cli_modules() == without
        monkeypatch.setattr(sys, "meta_path", sys.meta_path[1:])
    assert asked == []
    assert without == ["tierlock_no_such_module"]
