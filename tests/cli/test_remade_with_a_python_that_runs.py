"""The Python a fix makes a venv again with (its Python outside the project's ``requires-python``) is one that runs and
whose own version satisfies it: asked of the interpreter, not read from its name.

Before, ``python3.N`` was taken from ``PATH`` by its name alone: a pyenv shim of a version that is not selected
(``pyenv: python3.13: command not found``, exit 127; every pyenv install has such shims) was printed, and the fix
removed the venv's interpreter links and then failed; and a ``python3.12`` that is 3.12.1 was taken for a
``>=3.12.2`` project (the name says nothing of the micro version), so the venv made again was still outside.

A 3.10 venv acted on by tierlock (3.11) for a project that requires 3.12; on ``PATH`` a ``python3.13`` that does
not run (a shim's answer) and real interpreters of 3.12.1 and 3.13.0 (pyenv's, linked by their names). Each printed
fix is run as printed, and every verdict is then present.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support.cli import cli_json
from tests.support.env import clean_env
from tests.support.interpreters import interpreter
from tests.support.tierproject import write_lock, write_pyproject
from tests.support.verdicts import every_verdict, offline_env, run_remedy
from tests.support.wheels import build_wheel

pytestmark = pytest.mark.slow

_SHIM = '#!/bin/sh\necho "pyenv: $(basename "$0"): command not found" >&2\nexit 127\n'


def _path_with(folder: Path, names: dict[str, Path | None]) -> str:
    """*folder* holding each name of *names* (a link to that interpreter, or None: a shim that does not run), put
    first on PATH."""
    folder.mkdir()
    for name, target in names.items():
        if target is None:
            (folder / name).write_text(_SHIM)
            (folder / name).chmod(0o755)
        else:
            (folder / name).symlink_to(target)
    return f"{folder}{os.pathsep}{os.environ['PATH']}"


@pytest.mark.parametrize(
    ("spec", "on_path", "chosen"),
    [
        (">=3.12", {"python3.13": None, "python3.12": "3.12.1"}, "python3.12"),  # the shim first, not run
        (">=3.12.2", {"python3.13": "3.13.0", "python3.12": "3.12.1"}, "python3.13"),  # (asked: 3.13.0 fits)
        (">=3.12.2,<3.13", {"python3.12": "3.12.1", "python3.11": "3.11.7"}, None),  # none satisfies it
    ],
    ids=["shim-first", "micro-version", "none-satisfies"],
)
def test_the_fix_for_a_venv_outside_requires_python_names_a_python_that_runs_and_satisfies_it(
    spec: str,
    on_path: dict[str, str | None],
    chosen: str | None,
    *,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    old = interpreter("3.10.13")
    links: dict[str, Path | None] = {n: None if v is None else interpreter(v).python for n, v in on_path.items()}
    monkeypatch.setenv("PATH", _path_with(tmp_path / "on-path", links))
    house = tmp_path / "wheels"
    basepkg, helper = build_wheel(house, "basepkg", "1.0"), build_wheel(house, "helper", "1.0")
    root = tmp_path / "app"
    write_pyproject(root, brain=("helper>=1",))
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('requires-python = ">=3.11"', f'requires-python = "{spec}"'))
    write_lock(root, "base", [("basepkg", "1.0", basepkg)])
    write_lock(root, "brain", [("basepkg", "1.0", basepkg), ("helper", "1.0", helper)])
    offline = offline_env(house, tmp_path / "uv-cache")
    for key, value in offline.items():
        monkeypatch.setenv(key, value)
    venv = tmp_path / "venv"
    subprocess.run([str(old.python), "-m", "venv", "--without-pip", str(venv)], check=True, env=clean_env())

    code, doc = cli_json(capsys, "--project", str(root), "probe", "brain", "--python", str(venv))
    assert code == 1, doc
    (tier,) = doc["tiers"]
    remedy = str(tier["remedy"])
    assert any(f"runs Python 3.10.13, which the project's requires-python '{spec}'" in n for n in tier["notes"])
    install = f"install-tier --project {root} brain --python {venv}"
    if chosen is None:  # no Python here satisfies it: no venv is taken apart for nothing
        assert remedy == install, remedy
        return
    assert remedy.endswith(f" && {tmp_path / 'on-path' / chosen} -m venv {venv} && {install}"), remedy

    fixed = run_remedy(remedy, cwd=tmp_path, env=offline)  # exactly as printed
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    whole = every_verdict(capsys, root, venv, "brain")
    assert whole.states == ("present", "present", "present", "pass"), whole.reasons
    ran = subprocess.run([str(venv / "bin" / "python"), "-V"], capture_output=True, text=True, check=True)
    assert ran.stdout.strip() == f"Python {on_path[chosen]}"


def test_a_venv_whose_base_is_gone_is_not_made_again_from_a_python_on_path_that_does_not_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The base of a 3.12 venv removed; on PATH only a ``python3.12`` that does not run (a pyenv shim of a version
    not selected). Before, the fix removed the venv's interpreter links and made it again with that shim (which
    failed); now no such command is printed, and one that runs is taken when it is there."""
    target = interpreter("3.12.1")
    base = tmp_path / "base" / "bin"
    base.mkdir(parents=True)
    (base / "python3.12").symlink_to(target.python.parent / "python3.12")
    venv = tmp_path / "venv"
    subprocess.run([str(base / "python3.12"), "-m", "venv", "--without-pip", str(venv)], check=True, env=clean_env())
    (tmp_path / "base").rename(tmp_path / "moved")
    root = tmp_path / "app"
    write_pyproject(root, brain=("helper>=1",))
    bare = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if "pyenv" not in p)
    monkeypatch.setenv("PATH", f"{_path_with(tmp_path / 'shims', {'python3.12': None}).split(os.pathsep)[0]}:{bare}")
    code, dead = cli_json(capsys, "--project", str(root), "status", "--python", str(venv))
    assert code == 2, dead
    assert dead["error"]["remedy"] == "pass --python PATH to a python executable"

    monkeypatch.setenv("PATH", f"{_path_with(tmp_path / 'real', {'python3.12': target.python})}")
    code, dead = cli_json(capsys, "--project", str(root), "status", "--python", str(venv))
    assert code == 2, dead
    remedy = dead["error"]["remedy"]
    assert f"{tmp_path / 'real' / 'python3.12'} -m venv --without-pip {venv}" in remedy, remedy
    fixed = run_remedy(remedy, cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stderr
    code, alive = cli_json(capsys, "--project", str(root), "status", "--python", str(venv))
    assert code == 0, alive
