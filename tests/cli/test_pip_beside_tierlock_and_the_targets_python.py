"""The pip beside tierlock runs in the target: used only when it runs on the target's Python.

A target with no pip of its own (``uv venv``, ``python -m venv --without-pip``)
is installed into by the pip of tierlock's interpreter, run by the target
(``__pip-runner__.py``). That pip declares the Pythons it runs on
(``Requires-Python``: pip 25.3 and later need 3.9+, 26 needs 3.10+); a newer
tierlock interpreter's pip does not run on an older target. Before, the same
``install-tier --backend pip`` armed a 3.9 target when tierlock ran on 3.12
(whose pip is older) and failed when it ran on 3.11 (pip 26: "This version of
pip does not support python 3.9"), its remedy a rerun that failed the same
way; the project's own install command printed for such a target did the same.
Now nothing runs: the error names the pip and the target's Python, its remedy
(the target's own pip, from its standard library: ``python -m ensurepip``) is
run as printed, and the rerun arms the tier. The project environment made by
``python -m venv`` keeps its own pip when the pip beside tierlock cannot serve it.
"""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet

from tests.support.cli import cli_json
from tests.support.env import clean_env, site_packages
from tests.support.interpreters import VERSIONS, Interpreter, crypto_wheels, interpreter, make_venv_with
from tests.support.probe_env import editable_project
from tests.support.tierproject import write_lock
from tests.support.verdicts import every_verdict, offline_env, run_remedy
from tests.support.wheels import build_wheel

TIERS = """
[project.optional-dependencies]
crypto = ["cryptography>=40"]
gs = ["gcsfslike>=1"]

[tool.tierlock]
lock-dir = "lockfiles"
backend = "pip"

[tool.tierlock.tiers.crypto]
[tool.tierlock.tiers.gs]
"""


def _pip_requires_python() -> str:
    """The ``Requires-Python`` of the pip beside tierlock (this interpreter's), read here, not by tierlock."""
    try:
        return importlib.metadata.metadata("pip")["Requires-Python"] or ""
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("no pip beside tierlock")


def _older() -> Interpreter:
    """A target Python the pip beside tierlock does not run on (the test skips when it runs on every one)."""
    spec = SpecifierSet(_pip_requires_python())
    for version in VERSIONS:
        if version not in spec:
            return interpreter(version)
    pytest.skip(f"the pip beside tierlock (Requires-Python {spec}) runs on every target")


@pytest.fixture
def scene(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Interpreter, Path, Path, dict[str, str]]:
    """(the older Python, the project, its pipless venv, the offline settings): crypto locked with wheels whose
    compiled files are named for that Python; gs needs the project itself (an in-tree build backend)."""
    older = _older()
    house = tmp_path / "wheels"
    house.mkdir()
    wheels = crypto_wheels(house, older)
    gcsfslike = build_wheel(house, "gcsfslike", "1.0", requires=["app>=0.2"])
    root = editable_project(tmp_path / "app", name="app", version="0.2.0")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8") + TIERS, encoding="utf-8")
    write_lock(root, "base", [])
    write_lock(root, "crypto", [("cffi", "1.17.1", wheels["cffi"]), ("cryptography", "44.0.0", wheels["cryptography"])])
    write_lock(root, "gs", [("gcsfslike", "1.0", gcsfslike)], itself="app")
    offline = offline_env(house, tmp_path / "uv-cache")
    for key, value in offline.items():
        monkeypatch.setenv(key, value)
    python = make_venv_with(older.python, tmp_path / "venv")
    return older, root, python, offline


def test_a_pipless_target_the_pip_beside_tierlock_cannot_run_on_is_said_so_and_ensurepip_then_the_rerun_arms_it(
    scene: tuple[Interpreter, Path, Path, dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    older, root, python, offline = scene
    site = site_packages(python.parent.parent)
    before = sorted(p.name for p in site.iterdir())
    code, done = cli_json(capsys, "--project", str(root), "install", "crypto", "--python", str(python))
    assert code == 3, done
    error = done["error"]
    assert error["kind"] == "backend"
    assert f"Requires-Python {_pip_requires_python()}) does not run on Python {older.version}" in error["message"]
    assert f"of {python.parent.parent}, which has no pip of its own; nothing was installed" in error["message"]
    assert error["remedy"] == f"{python} -m ensurepip"
    assert error["remedy_argv"] == [[str(python), "-m", "ensurepip"]]
    assert sorted(p.name for p in site.iterdir()) == before  # nothing ran in the target

    fixed = run_remedy(error["remedy"], cwd=root, env=offline)
    assert fixed.returncode == 0, fixed.stderr
    code, done = cli_json(capsys, "--project", str(root), "install", "crypto", "--python", str(python))
    assert (code, done["result"]) == (0, "installed"), done
    assert (site / f"_cffi_backend{older.ext_suffix}").is_file()
    whole = every_verdict(capsys, root, python, "crypto")
    assert whole.states == ("present", "present", "present", "pass"), whole.reasons
    code, again = cli_json(capsys, "--project", str(root), "install", "crypto", "--python", str(python))
    assert (code, again["result"]) == (0, "unchanged")


def test_the_command_that_installs_the_project_into_such_a_target_brings_its_pip_first_and_runs_as_printed(
    scene: tuple[Interpreter, Path, Path, dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    _older_python, root, python, offline = scene
    code, done = cli_json(
        capsys, "--project", str(root), "install", "gs", "--python", str(python), "--no-install-project"
    )
    assert code == 3, done  # the backend first: gcsfslike cannot be installed by a pip that does not run there
    assert done["error"]["remedy"] == f"{python} -m ensurepip"
    assert run_remedy(done["error"]["remedy"], cwd=root, env=offline).returncode == 0
    code, done = cli_json(
        capsys, "--project", str(root), "install", "gs", "--python", str(python), "--no-install-project"
    )
    assert code == 1, done  # armed, but the project itself is missing: its command is printed
    subprocess.run([str(python), "-m", "pip", "uninstall", "-y", "pip"], check=True, env=clean_env(offline))
    broken = every_verdict(capsys, root, python, "gs")
    assert broken.states == ("partial", "partial", "partial", "fail")
    remedy = broken.probe["install_command"]
    assert remedy == f"{python} -m ensurepip && {python} -m pip install --no-deps -e {root}"
    assert broken.status["remedy"] == broken.admit["probe"]["remedy"] == remedy

    fixed = run_remedy(remedy, cwd=root, env=offline)
    assert fixed.returncode == 0, fixed.stderr
    healed = every_verdict(capsys, root, python, "gs")
    assert healed.states == ("present", "present", "present", "pass"), healed.reasons


def test_a_project_environment_made_with_an_older_python_keeps_its_own_pip_and_is_armed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    older = _older()
    house = tmp_path / "wheels"
    house.mkdir()
    wheels = crypto_wheels(house, older)
    root = tmp_path / "app"
    root.mkdir()
    minor = ".".join(older.version.split(".")[:2])
    (root / "pyproject.toml").write_text(
        f'[project]\nname = "app"\nversion = "0.1"\nrequires-python = "=={minor}.*"\ndependencies = []\n' + TIERS,
        encoding="utf-8",
    )
    write_lock(root, "base", [])
    write_lock(root, "crypto", [("cffi", "1.17.1", wheels["cffi"]), ("cryptography", "44.0.0", wheels["cryptography"])])
    for key, value in offline_env(house, tmp_path / "uv-cache").items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("PATH", f"{older.python.parent}{os.pathsep}{os.environ['PATH']}")  # python3.N is found
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    code, done = cli_json(capsys, "--project", str(root), "install", "crypto")
    assert (code, done.get("result")) == (0, "installed"), done
    venv = root / ".venv"
    assert (site_packages(venv) / f"_cffi_backend{older.ext_suffix}").is_file()
    assert any(site_packages(venv).glob("pip-*.dist-info"))  # its own pip, from its own ensurepip
