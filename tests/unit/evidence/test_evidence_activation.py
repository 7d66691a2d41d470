"""Which environment verify's commands run in, and how it is activated (as ``uv run`` does).

Real folders and a real virtual environment: the active VIRTUAL_ENV first, else the project's own
(``$TIERLOCK_PROJECT_ENVIRONMENT``, ``[tool.tierlock].venv``, ``.venv``); activated only once it exists.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.env import make_venv
from tierlock.evidence import activation


def test_the_active_virtual_environment_is_the_target(tmp_path: Path) -> None:
    venv = tmp_path / "active"
    make_venv(venv)
    target = activation.locate(tmp_path, {"VIRTUAL_ENV": str(venv)})
    assert (target.path, target.source, target.existed_at_start) == (venv, "VIRTUAL_ENV", True)


@pytest.mark.parametrize(
    ("pyproject", "override", "expected"),
    [
        (None, None, ".venv"),
        ('[tool.tierlock]\nvenv = "envs/dev"\n', None, "envs/dev"),
        ('[tool.tierlock]\nvenv = "envs/dev"\n', "other", "other"),
        ('[tool.tierlock]\nvenv = ""\n', None, ".venv"),
        ("[tool.tierlock\nbroken", None, ".venv"),
        ('[tool]\ntierlock = "x"\n', None, ".venv"),
    ],
)
def test_without_one_the_project_environment_is_the_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pyproject: str | None, override: str | None, expected: str
) -> None:
    if pyproject is not None:
        (tmp_path / "pyproject.toml").write_text(pyproject)
    if override is None:
        monkeypatch.delenv("TIERLOCK_PROJECT_ENVIRONMENT", raising=False)
    else:
        monkeypatch.setenv("TIERLOCK_PROJECT_ENVIRONMENT", override)
    target = activation.locate(tmp_path, {})
    assert (target.path, target.source, target.existed_at_start) == (tmp_path / expected, "project", False)
    assert target.to_dict(False) == {
        "path": str(tmp_path / expected),
        "source": "project",
        "existedAtStart": False,
        "activated": False,
    }


def test_an_environment_is_activated_once_it_exists(tmp_path: Path) -> None:
    target = activation.Target(tmp_path / ".venv", "project", False)
    base = {"PATH": "/usr/bin:/bin", "PYTHONHOME": "/elsewhere", "KEEP": "1"}
    assert activation.activated(base, target) == (base, False)
    make_venv(tmp_path / ".venv")
    env, done = activation.activated(base, target)
    assert done is True
    assert env["PATH"] == os.pathsep.join([str(tmp_path / ".venv" / "bin"), "/usr/bin:/bin"])
    assert env["VIRTUAL_ENV"] == str(tmp_path / ".venv")
    assert "PYTHONHOME" not in env
    assert env["KEEP"] == "1"
    assert base["PYTHONHOME"] == "/elsewhere"  # the inherited mapping itself is left alone
    assert activation.activated({}, target)[0]["PATH"] == os.pathsep.join([str(tmp_path / ".venv" / "bin"), os.defpath])


def test_the_project_is_the_nearest_pyproject_up_to_the_checkout_top(tmp_path: Path) -> None:
    top = tmp_path / "top"
    config_dir = top / "a" / "b"
    config_dir.mkdir(parents=True)
    (tmp_path / "pyproject.toml").write_text("")  # above the checkout: not its project
    assert activation.project_root(config_dir, top) == config_dir.resolve()
    (top / "a" / "pyproject.toml").write_text("")
    assert activation.project_root(config_dir, top) == (top / "a").resolve()
