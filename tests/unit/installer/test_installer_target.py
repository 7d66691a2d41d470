"""The target's pure parts: where the project environment is, one name per environment, backend causes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tierlock import load_project
from tierlock.errors import ConfigError
from tierlock.installer.backends import causes
from tierlock.installer.location import PROJECT_ENV_VAR, environment_key, linked_venv_python, locate, prefix_of


def _venv(folder: Path) -> Path:
    (folder / "bin").mkdir(parents=True)
    (folder / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (folder / "bin" / "python").symlink_to(sys.executable)
    (folder / "bin" / "python3").symlink_to("python")
    (folder / "bin" / "install-tier").write_text("#!/bin/sh\n")
    return folder


def _project(folder: Path, table: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pyproject.toml").write_text(f'[project]\nname = "p"\n\n[tool.tierlock]\n{table}', encoding="utf-8")
    return folder


def test_every_spelling_of_a_venv_names_its_prefix(tmp_path: Path) -> None:
    venv = _venv(tmp_path / "venv")
    (tmp_path / "link").symlink_to(venv)
    for spelling in ("venv", "venv/bin/python", "venv/bin/python3", "venv/bin/install-tier", "link", "link/bin/python"):
        found = prefix_of(str(tmp_path / spelling))
        assert found is not None, spelling
        assert environment_key(found) == environment_key(venv), spelling
    assert prefix_of(str(tmp_path)) is None
    assert prefix_of(str(tmp_path / "elsewhere" / "bin" / "python")) is None


def test_a_link_elsewhere_to_a_venvs_interpreter_is_no_venv_but_says_which_it_links_to(tmp_path: Path) -> None:
    # Python finds pyvenv.cfg beside the path it is started from: through this link it runs as the base.
    venv = _venv(tmp_path / "venv")
    (tmp_path / "py").symlink_to(venv / "bin" / "python")
    (tmp_path / "py3").symlink_to(venv / "bin" / "python3")  # a link to a link inside the venv
    for link in ("py", "py3"):
        assert prefix_of(str(tmp_path / link)) is None, link
        assert linked_venv_python(tmp_path / link) is not None, link
    assert linked_venv_python(tmp_path / "py") == str(venv / "bin" / "python")
    assert linked_venv_python(venv / "bin" / "python") is None  # run by its own path, it is the venv
    assert linked_venv_python(sys.executable if not Path(sys.executable).is_symlink() else tmp_path) is None


def test_without_python_or_an_active_venv_the_project_environment_is_the_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.delenv(PROJECT_ENV_VAR, raising=False)
    root = _project(tmp_path / "proj")
    location = locate(None, load_project(root))
    assert (location.source, location.folder, location.missing) == ("project", str(root / ".venv"), True)

    _project(root, 'venv = "envs/dev"\n')
    assert locate(None, load_project(root)).folder == str(root / "envs" / "dev")

    monkeypatch.setenv(PROJECT_ENV_VAR, str(tmp_path / "elsewhere"))
    assert locate(None, load_project(root)).folder == str(tmp_path / "elsewhere")

    active = _venv(tmp_path / "active")
    monkeypatch.setenv("VIRTUAL_ENV", str(active))
    assert (locate(None, load_project(root)).python, locate(None, load_project(root)).source) == (
        str(active),
        "VIRTUAL_ENV",
    )
    assert locate("x/bin/python", load_project(root)).source == "--python"


def test_a_venv_key_that_is_not_a_folder_name_is_a_config_error(tmp_path: Path) -> None:
    root = _project(tmp_path / "proj", "venv = 3\n")
    with pytest.raises(ConfigError) as info:
        load_project(root)
    assert "[tool.tierlock].venv: must be a non-empty string" in "\n".join(info.value.lines())


def test_backend_causes_keep_the_lines_that_say_why_however_much_follows() -> None:
    output = "\n".join(
        [
            "Resolved 3 packages",
            "  x Failed to download `numpy==2.4.6`",
            "  |-> Hash mismatch for `numpy==2.4.6`",
            *[f"    --hash=sha256:{i:064x}" for i in range(100)],
            "ERROR: No matching distribution found for helper==1.0",
        ]
    )
    found = causes(output)
    assert found[:2] == ["x Failed to download `numpy==2.4.6`", "|-> Hash mismatch for `numpy==2.4.6`"]
    assert "ERROR: No matching distribution found for helper==1.0" in found
    assert not any("--hash" in line for line in found)
