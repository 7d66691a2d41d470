"""A venv whose base interpreter was removed or moved (a Python built in a folder since deleted, an upgrade that
moved it): every command says its interpreter is gone, and the fix makes the venv's interpreter again from a Python
of the same version on ``PATH`` - what the venv holds (a compiled extension for that version) stays armed.

Before, with the base gone, the fix was "pass --python PATH to a python executable": no command, the venv left
dead although a Python that runs everything it holds was on ``PATH``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.cli import cli_json
from tests.support.env import clean_env, site_packages
from tests.support.interpreters import CRYPTO_PYPROJECT, crypto_wheels, interpreter
from tests.support.tierproject import write_lock
from tests.support.verdicts import every_verdict, offline_env, run_remedy


@pytest.mark.parametrize("command", ["status", "probe", "install"])
def test_a_venv_whose_base_is_gone_is_made_again_from_the_same_python_on_path_and_keeps_its_tier(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    target = interpreter("3.12.1")
    house = tmp_path / "wheels"
    house.mkdir()
    wheels = crypto_wheels(house, target)
    root = tmp_path / "app"
    root.mkdir()
    (root / "pyproject.toml").write_text(CRYPTO_PYPROJECT.format(format=""), encoding="utf-8")
    write_lock(root, "base", [])
    write_lock(root, "crypto", [("cffi", "1.17.1", wheels["cffi"]), ("cryptography", "44.0.0", wheels["cryptography"])])
    offline = offline_env(house, tmp_path / "uv-cache")
    for key, value in offline.items():
        monkeypatch.setenv(key, value)
    # The base: a folder of its own whose python3.12 runs the pyenv build; deleted once the venv is armed.
    base = tmp_path / "base" / "bin"
    base.mkdir(parents=True)
    (base / "python3.12").symlink_to(target.python.parent / "python3.12")
    venv = tmp_path / "venv"
    subprocess.run([str(base / "python3.12"), "-m", "venv", "--without-pip", str(venv)], check=True, env=clean_env())
    code, done = cli_json(capsys, "--project", str(root), "install", "crypto", "--python", str(venv))
    assert (code, done["result"]) == (0, "installed"), done
    shutil.rmtree(tmp_path / "base")

    bare = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if not shutil.which("python3.12", path=p))
    monkeypatch.setenv("PATH", bare)  # no python3.12 on it
    argv = {"status": ["status"], "probe": ["probe", "crypto"], "install": ["install", "crypto"]}[command]
    code, dead = cli_json(capsys, "--project", str(root), *argv, "--python", str(venv))
    assert code == 2, dead
    assert dead["error"]["message"] == (
        f"no interpreter at {venv / 'bin' / 'python'}: the environment {venv} has a pyvenv.cfg, but its interpreter "
        "is gone"
    )
    assert dead["error"]["remedy"] == "pass --python PATH to a python executable"

    same = target.python.parent
    path = f"{same}{os.pathsep}{bare}"
    monkeypatch.setenv("PATH", path)
    code, dead = cli_json(capsys, "--project", str(root), *argv, "--python", str(venv))
    assert code == 2, dead
    links = " ".join(str(venv / "bin" / n) for n in ("python", "python3", "python3.12"))
    remedy = f"rm -f {links} && {same / 'python3.12'} -m venv --without-pip {venv}"
    assert dead["error"]["remedy"] == remedy

    fixed = run_remedy(remedy, cwd=tmp_path, env={**offline, "PATH": path})
    assert fixed.returncode == 0, fixed.stderr
    whole = every_verdict(capsys, root, venv, "crypto")  # nothing installed again: what it held stays
    assert whole.states == ("present", "present", "present", "pass"), whole.reasons
    assert (site_packages(venv) / f"_cffi_backend{target.ext_suffix}").is_file()
    code, again = cli_json(capsys, "--project", str(root), "install", "crypto", "--python", str(venv))
    assert (code, again["result"]) == (0, "unchanged")
