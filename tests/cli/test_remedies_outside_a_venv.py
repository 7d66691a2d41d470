"""A remedy for a Python that is no virtual environment says ``--system``: install-tier refuses it otherwise.

Re-running "one truth about the target" on interpreters that are not venvs (a container's own
``/usr/local/bin/python`` is the common case in CI; here the base interpreter of this venv): ``tierlock probe``,
``status`` and ``admit`` named it with ``--python`` and printed ``install-tier TIER --python X``, and the pytest
plugin (pytest run by that interpreter) printed the same; run as printed, install-tier refused it (exit 2, "is
not a virtual environment ... or --system to install anyway"). The tests never install into the base
interpreter: they run the printed remedy with ``--dry-run`` added, which plans exactly what it would do.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.env import bin_dir, clean_env
from tests.support.lockproj import build_wheel_dir, lock_offline
from tests.support.plugin_project import inner_pyproject, laptop, write_files
from tests.support.pyproject import pyproject

BASE_PYTHON = Path(sys.base_prefix) / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"

PROJECT = pyproject(
    dependencies=[],
    extras={"brain": ["gamma>=1"]},
    tierlock={"ci-require": ["brain"]},
    tiers={"brain": {"source": "extra:brain"}},
)


def _outside_a_venv() -> None:
    if sys.prefix == sys.base_prefix or not BASE_PYTHON.is_file():
        pytest.skip("the tests run in a venv whose base interpreter is at hand")
    stdlib = subprocess.run(
        [str(BASE_PYTHON), "-c", "import sysconfig; print(sysconfig.get_path('stdlib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if (Path(stdlib) / "EXTERNALLY-MANAGED").is_file():
        pytest.skip("the base interpreter is externally managed: install-tier refuses it even with --system")


def _run(root: Path, wheels: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = clean_env({"PATH": str(bin_dir()), "UV_NO_INDEX": "1", "UV_FIND_LINKS": str(wheels), "NO_COLOR": "1"})
    return subprocess.run(list(argv), cwd=root, env=env, capture_output=True, text=True, check=False, timeout=300)


@pytest.mark.parametrize("reader", [("probe", "brain"), ("status",), ("admit",)])
def test_the_remedy_for_a_python_outside_any_venv_is_accepted_by_install_tier(
    tmp_path: Path, reader: tuple[str, ...]
) -> None:
    _outside_a_venv()
    wheels = build_wheel_dir(tmp_path / "wheels")
    root = lock_offline(tmp_path / "project", wheels, PROJECT)
    done = _run(root, wheels, "tierlock", *reader, "--python", str(BASE_PYTHON), "--json")
    document = json.loads(done.stdout.splitlines()[-1] if reader[0] == "admit" else done.stdout)
    remedies = [r for r in _remedies(document) if "install-tier" in r]
    assert remedies, done.stdout
    for remedy in remedies:
        argv = shlex.split(remedy)
        assert argv[-1] == "--system", remedy
        planned = _run(root, wheels, *argv, "--dry-run")
        assert planned.returncode == 0, f"{remedy}: {planned.stdout}{planned.stderr}"


def _remedies(node: object) -> list[str]:
    if isinstance(node, dict):
        own = [node["remedy"]] if isinstance(node.get("remedy"), str) else []
        return own + [r for v in node.values() for r in _remedies(v)]
    if isinstance(node, list):
        return [r for v in node for r in _remedies(v)]
    return []


def test_a_venvs_remedy_gains_no_system_flag(tmp_path: Path) -> None:
    wheels = build_wheel_dir(tmp_path / "wheels")
    root = lock_offline(tmp_path / "project", wheels, PROJECT)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    done = _run(root, wheels, "tierlock", "probe", "brain", "--python", str(venv / "bin" / "python"), "--json")
    (tier,) = json.loads(done.stdout)["tiers"]
    assert tier["remedy"] == f"install-tier brain --python {venv / 'bin' / 'python'}"


def test_pytest_outside_any_venv_prints_the_remedy_with_system(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop(monkeypatch)
    monkeypatch.delenv("VIRTUAL_ENV")  # install-tier's default is then the project's .venv, not this interpreter
    monkeypatch.setattr(sys, "base_prefix", sys.prefix)  # the interpreter running pytest is no venv
    pytester.makefile(".toml", pyproject=inner_pyproject(cacheprovider=False).replace("tests/brain/", "testing/brain/"))
    write_files(pytester.path, {"testing/brain/test_x.py": "def test_x():\n    pass\n"})
    result = pytester.runpytest_inprocess("testing")
    result.stdout.fnmatch_lines(
        [
            f"tierlock: 1 test file not collected and 0 tests skipped because brain absent; to run them: *--python "
            f"{sys.executable} --system"
        ]
    )


def _externally_managed() -> Path:
    for python in (Path("/usr/bin/python3"), Path(sys.base_prefix) / "bin" / "python3"):
        if not python.is_file():
            continue
        stdlib = subprocess.run(
            [
                str(python),
                "-c",
                "import sys, sysconfig; print(sysconfig.get_path('stdlib'), sys.prefix == sys.base_prefix)",
            ],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.split()
        if len(stdlib) == 2 and stdlib[1] == "True" and (Path(stdlib[0]) / "EXTERNALLY-MANAGED").is_file():
            return python
    pytest.skip("no externally managed Python on this machine")


def test_the_remedy_for_an_externally_managed_python_is_a_command_that_arms_a_venv_of_it(tmp_path: Path) -> None:
    """It was ``python -m venv .venv && .venv/bin/install-tier TIER``: a placeholder, and a venv without tierlock."""
    python = _externally_managed()
    wheels = build_wheel_dir(tmp_path / "wheels")
    root = lock_offline(tmp_path / "project", wheels, PROJECT)
    refused = _run(root, wheels, "install-tier", "brain", "--python", str(python), "--json")
    assert refused.returncode == 2
    error = json.loads(refused.stdout)["error"]
    assert "TIER" not in error["remedy"]
    for argv in error["remedy_argv"]:
        done = _run(root, wheels, *argv)
        assert done.returncode == 0, f"{argv}: {done.stdout}{done.stderr}"
    probed = _run(root, wheels, "tierlock", "probe", "brain", "--python", str(root / ".venv" / "bin" / "python"))
    assert probed.returncode == 0, probed.stdout


@pytest.mark.parametrize("reader", [("probe", "brain"), ("status",), ("admit",)])
def test_the_readers_remedy_for_an_externally_managed_python_arms_a_venv_of_it_run_as_printed(
    tmp_path: Path, reader: tuple[str, ...]
) -> None:
    """It was ``install-tier brain --python /usr/bin/python3 --system``, which install-tier refuses (PEP 668)."""
    python = _externally_managed()
    wheels = build_wheel_dir(tmp_path / "wheels")
    root = lock_offline(tmp_path / "project", wheels, PROJECT)
    done = _run(root, wheels, "tierlock", *reader, "--python", str(python), "--json")
    document = json.loads(done.stdout.splitlines()[-1] if reader[0] == "admit" else done.stdout)
    (remedy,) = {r for r in _remedies(document) if "install-tier" in r}
    assert remedy == f"{python} -m venv --without-pip .venv && install-tier brain --python .venv/bin/python"
    armed = _run(root, wheels, "/bin/sh", "-c", remedy)  # as a user pastes it into a shell
    assert armed.returncode == 0, f"{remedy}: {armed.stdout}{armed.stderr}"
    probed = _run(root, wheels, "tierlock", "probe", "brain", "--python", str(root / ".venv" / "bin" / "python"))
    assert probed.returncode == 0, probed.stdout


def test_pytest_run_by_an_externally_managed_python_prints_the_venv_remedy(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    laptop(monkeypatch)
    monkeypatch.delenv("VIRTUAL_ENV")
    monkeypatch.setattr(sys, "base_prefix", sys.prefix)  # the interpreter running pytest is no venv ...
    stdlib = tmp_path / "stdlib"
    stdlib.mkdir()
    (stdlib / "EXTERNALLY-MANAGED").write_text("[externally-managed]\nError = no\n", encoding="utf-8")
    monkeypatch.setattr(os, "__file__", str(stdlib / "os.py"))  # ... and its standard library is marked (PEP 668)
    pytester.makefile(".toml", pyproject=inner_pyproject(cacheprovider=False).replace("tests/brain/", "testing/brain/"))
    write_files(pytester.path, {"testing/brain/test_x.py": "def test_x():\n    pass\n"})
    result = pytester.runpytest_inprocess("testing")
    result.stdout.fnmatch_lines(
        [
            "tierlock: 1 test file not collected and 0 tests skipped because brain absent; to run them: *&& "
            f"{sys.executable} -m venv --without-pip .venv && install-tier brain --python .venv/bin/python"
        ]
    )
