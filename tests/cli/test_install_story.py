"""Installing tierlock: the wheel ``make dist`` builds is the pytest plugin alone (packaging is all it brings into
a test environment, and its console scripts name the command that adds the CLI); with the ``cli`` extra it is
the whole command-line tool, and the ``uv`` extra adds uv, so ``tierlock lock`` works after one command;
without any lock backend, ``lock`` names the command that installs one, and that command, run as printed,
fixes it.

Everything is offline: the fresh venvs install from a local folder holding the built wheel, pytest and
tierlock's dependencies repacked from this environment (uv included), through pip's own environment
variables.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support.dist import dependency_wheels, make_dist
from tests.support.env import clean_env
from tests.support.lockproj import build_wheel_dir, write_project
from tests.support.plugin_project import CI_VARS
from tests.support.repack import repack_closure
from tierlock._version import __version__
from tierlock.pytest_plugin import EXIT_TIER_MISSING

pytestmark = pytest.mark.slow

PROJECT = """\
[project]
name = "proj"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["alpha>=1"]
"""


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built sdist and wheel plus every dependency wheel (uv too) and pytest's, in one folder."""
    folder = tmp_path_factory.mktemp("wheelhouse")
    make_dist(folder)
    dependency_wheels(folder)
    repack_closure(["pytest"], folder)
    return folder


def _venv(path: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True, env=clean_env())
    return path / "bin"


def _offline_env(wheelhouse: Path, bin_dir: Path) -> dict[str, str]:
    """pip reads its options from the environment: no index, only the wheelhouse; PATH without any uv."""
    return clean_env(
        {
            "PIP_NO_INDEX": "1",
            "PIP_FIND_LINKS": str(wheelhouse),
            "PATH": os.pathsep.join([str(bin_dir), "/usr/bin", "/bin"]),
        }
    )


def _run(argv: list[str], env: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, check=False)


def test_make_dist_builds_an_sdist_and_a_wheel_with_the_console_scripts_and_the_plugin(wheelhouse: Path) -> None:
    assert (wheelhouse / f"tierlock-{__version__}.tar.gz").is_file()
    wheel = wheelhouse / f"tierlock-{__version__}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        entry_points = zf.read(f"tierlock-{__version__}.dist-info/entry_points.txt").decode()
        metadata = zf.read(f"tierlock-{__version__}.dist-info/METADATA").decode()
    assert "tierlock/py.typed" in names
    assert "tierlock/validators/runtime-config.schema.json" in names
    assert "tierlock = tierlock._entry:tierlock" in entry_points
    assert "install-tier = tierlock._entry:install_tier" in entry_points
    assert entry_points.count("[pytest11]") == 1
    assert entry_points.count("tierlock.pytest_plugin") == 1
    requires = [line.split(": ", 1)[1] for line in metadata.splitlines() if line.startswith("Requires-Dist: ")]
    assert [r for r in requires if "extra ==" not in r] == ["packaging>=26.1"]  # the plugin's only dependency
    assert "Provides-Extra: cli" in metadata
    assert "Provides-Extra: uv" in metadata
    for cli_dependency in ("rich>=13", "jsonschema>=4.18", "tomlkit>=0.13"):  # the uv extra is the cli extra + uv
        assert f"{cli_dependency}; extra == 'cli'" in requires
        assert f"{cli_dependency}; extra == 'uv'" in requires
    assert "uv>=0.12.11; extra == 'uv'" in requires


def _installed(python: Path, env: dict[str, str]) -> set[str]:
    code = "import importlib.metadata as m; print('\\n'.join(d.metadata['Name'].lower() for d in m.distributions()))"
    listed = _run([str(python), "-c", code], env)
    assert listed.returncode == 0, listed.stderr
    return set(listed.stdout.split()) - {"pip", "setuptools"}


PLUGIN_PROJECT = """\
[project]
name = "app"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = []

[project.optional-dependencies]
brain = ["brainpkg"]

[tool.tierlock.tiers.brain]
tests = ["tests/brain/**"]
"""


def test_the_plugin_alone_brings_only_packaging_into_a_test_environment_and_gates_there(
    wheelhouse: Path, tmp_path: Path
) -> None:
    """The httpx case: a test environment with its own pins gets tierlock and nothing pytest does not need."""
    bin_dir = _venv(tmp_path / "venv")
    env = _offline_env(wheelhouse, bin_dir)
    assert _run([str(bin_dir / "python"), "-m", "pip", "install", "pytest"], env).returncode == 0
    before = _installed(bin_dir / "python", env)
    assert "packaging" in before  # pytest requires it
    installed = _run([str(bin_dir / "python"), "-m", "pip", "install", "tierlock"], env)
    assert installed.returncode == 0, installed.stderr
    assert _installed(bin_dir / "python", env) - before == {"tierlock"}

    entry_points = _run(
        [str(bin_dir / "python"), "-c", "import importlib.metadata as m; print(m.entry_points(group='pytest11'))"],
        env,
    )
    assert entry_points.stdout.count("tierlock.pytest_plugin") == 1

    project = write_project(tmp_path / "app", PLUGIN_PROJECT)
    (project / "tests" / "brain").mkdir(parents=True)
    (project / "tests" / "test_base.py").write_text("def test_base() -> None:\n    pass\n", encoding="utf-8")
    (project / "tests" / "brain" / "test_brain.py").write_text(
        "import brainpkg\n\n\ndef test_brain() -> None:\n    assert brainpkg\n", encoding="utf-8"
    )
    laptop = {k: v for k, v in env.items() if k not in {*CI_VARS, "TIERLOCK_STRICT"}}
    run = _run([str(bin_dir / "python"), "-m", "pytest", "-p", "no:cacheprovider"], laptop, cwd=project)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "tierlock: brain absent" in run.stdout
    assert "1 passed" in run.stdout
    ci = _run(
        [str(bin_dir / "python"), "-m", "pytest", "-p", "no:cacheprovider"], {**laptop, "CI": "true"}, cwd=project
    )
    assert ci.returncode == EXIT_TIER_MISSING, ci.stdout + ci.stderr  # the same run in CI fails closed


def test_the_plugins_console_scripts_name_the_command_that_adds_the_cli_and_it_works_as_printed(
    wheelhouse: Path, tmp_path: Path
) -> None:
    bin_dir = _venv(tmp_path / "venv")
    env = _offline_env(wheelhouse, bin_dir)
    assert _run([str(bin_dir / "python"), "-m", "pip", "install", "tierlock"], env).returncode == 0
    project = write_project(tmp_path / "proj", PROJECT)
    refused = _run([str(bin_dir / "tierlock"), "check"], env, cwd=project)
    assert refused.returncode == 2, refused.stderr
    assert refused.stdout == ""
    assert "needs rich, jsonschema, tomlkit (the cli extra)" in refused.stderr
    assert "tierlock installed without an extra is the pytest plugin alone" in refused.stderr
    remedy = refused.stderr.split("to fix: ", 1)[1].strip()
    assert remedy == f"{bin_dir / 'python'} -m pip install 'tierlock[cli]'"
    json_run = _run([str(bin_dir / "install-tier"), "base", "--json"], env, cwd=project)
    assert json_run.returncode == 2
    assert '"package": "rich"' in json_run.stdout

    fixed = _run(["sh", "-c", remedy], env)  # exactly as printed
    assert fixed.returncode == 0, fixed.stderr
    assert {"rich", "jsonschema", "tomlkit"} <= _installed(bin_dir / "python", env)
    checked = _run([str(bin_dir / "tierlock"), "check"], env, cwd=project)
    assert checked.returncode == 1, checked.stderr  # the CLI runs: the project has no lockfile yet
    assert "no lockfile for tier base" in checked.stdout + checked.stderr


def test_the_cli_extra_without_uv_installs_and_lock_names_the_command_that_brings_a_backend(
    wheelhouse: Path, tmp_path: Path
) -> None:
    bin_dir = _venv(tmp_path / "venv")
    env = _offline_env(wheelhouse, bin_dir)
    installed = _run([str(bin_dir / "python"), "-m", "pip", "install", "tierlock[cli]"], env)
    assert installed.returncode == 0, installed.stderr
    version = _run([str(bin_dir / "tierlock"), "--version"], env)
    assert version.stdout == f"tierlock {__version__}\n"

    project = write_project(tmp_path / "proj", PROJECT)
    wheels = build_wheel_dir(tmp_path / "wheels")
    lock = [str(bin_dir / "tierlock"), "lock", "--no-index", "--find-links", str(wheels)]
    failed = _run(lock, env, cwd=project)
    assert failed.returncode == 3, failed.stderr
    assert "no lock backend" in failed.stderr
    assert "tierlock[uv]" in failed.stderr
    remedy = failed.stderr.split("to fix: ", 1)[1].strip()
    assert remedy == f"{bin_dir / 'python'} -m pip install uv"
    fixed = _run(["sh", "-c", remedy], env)  # exactly as printed
    assert fixed.returncode == 0, fixed.stderr

    locked = _run(lock, env, cwd=project)
    assert locked.returncode == 0, locked.stderr
    assert "locked 1 tier(s) with uv" in locked.stdout
    assert "alpha==1.1" in (project / "lockfiles" / "base.txt").read_text()


def test_the_uv_extra_is_the_whole_cli_and_makes_lock_work_after_one_install(wheelhouse: Path, tmp_path: Path) -> None:
    bin_dir = _venv(tmp_path / "venv")
    env = _offline_env(wheelhouse, bin_dir)
    installed = _run([str(bin_dir / "python"), "-m", "pip", "install", "tierlock[uv]"], env)
    assert installed.returncode == 0, installed.stderr
    assert (bin_dir / "uv").is_file()
    assert {"tierlock", "packaging", "rich", "jsonschema", "tomlkit", "uv"} <= _installed(bin_dir / "python", env)

    project = write_project(tmp_path / "proj", PROJECT)
    wheels = build_wheel_dir(tmp_path / "wheels")
    locked = _run([str(bin_dir / "tierlock"), "lock", "--no-index", "--find-links", str(wheels)], env, cwd=project)
    assert locked.returncode == 0, locked.stderr
    assert "with uv" in locked.stdout
    assert "# backend: uv " in (project / "lockfiles" / "base.txt").read_text()


def test_a_uv_tool_install_of_the_wheel_with_the_uv_extra_locks_with_its_own_uv(
    wheelhouse: Path, tmp_path: Path
) -> None:
    """The README's recommended install: an isolated tool whose uv comes along (no uv on PATH)."""
    uv = Path(sys.executable).parent / "uv"
    tools, bin_dir = tmp_path / "tools", tmp_path / "bin"
    env = _offline_env(wheelhouse, bin_dir)
    env.update({"UV_TOOL_DIR": str(tools), "UV_TOOL_BIN_DIR": str(bin_dir)})
    wheel = wheelhouse / f"tierlock-{__version__}-py3-none-any.whl"
    argv = [str(uv), "tool", "install", "--no-index", "--find-links", str(wheelhouse), f"{wheel}[uv]"]
    installed = _run(argv, env)
    assert installed.returncode == 0, installed.stderr
    assert _run([str(bin_dir / "tierlock"), "--version"], env).stdout == f"tierlock {__version__}\n"

    project = write_project(tmp_path / "proj", PROJECT)
    wheels = build_wheel_dir(tmp_path / "wheels")
    locked = _run([str(bin_dir / "tierlock"), "lock", "--no-index", "--find-links", str(wheels)], env, cwd=project)
    assert locked.returncode == 0, locked.stderr
    assert "with uv" in locked.stdout
