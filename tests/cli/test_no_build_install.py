"""``install-tier`` never builds what a no-build tier holds; where a tier may build, it says so and explains failures.

Real uv and pip install into real virtual environments from a local simple index. The sdists are built at test
time with an in-tree backend: one builds, one compiles C against a header that is not there (gcc is real), one
imports ``pkg_resources`` from a build dependency whose newest release dropped it (as setuptools 82 did). Every
remedy that is a command is run as printed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.support.cli import cli_json, run_cli
from tests.support.env import clean_env, make_venv, site_packages
from tests.support.lockproj import write_project
from tests.support.platformwheels import build_sdist, simple_index
from tests.support.wheels import build_wheel

PYPROJECT = """\
[project]
name = "app"
version = "0.1.0"
requires-python = ">=3.11,<3.13"
dependencies = [{base}]

[project.optional-dependencies]
brain = [{brain}]

[tool.tierlock]
platforms = ["linux-x86_64"]

[tool.tierlock.tiers.brain]
source = "extra:brain"
"""

HEADER = "tierlock_test_missing.h"


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    files = tmp_path_factory.mktemp("files")
    build_wheel(files, "purepkg", "1.0")
    build_sdist(files, "sdonly", "1.0")
    build_wheel(files, "sdonly", "2.0")
    salt = f"{worker_id}-{os.getpid()}-{files}"  # uv caches what it built by the sdist's hash
    build_sdist(files, "buildok", "1.0", salt=salt)
    build_sdist(files, "needsheader", "1.0", header=HEADER, salt=salt)
    build_sdist(files, "needsmodule", "1.0", imports=["tierlock_missing_build_module"], salt=salt)
    # A stand-in for setuptools: its newest release dropped pkg_resources (as setuptools 82 did), an older one
    # still ships it. Builds get it from this index like any build requirement.
    build_wheel(files, "setuptools", "90.0")
    build_wheel(files, "setuptools", "65.0", files={"pkg_resources/__init__.py": "", "setuptools/__init__.py": ""})
    legacy = build_sdist(files, "legacybuild", "1.0", imports=["pkg_resources"], salt=salt)
    _require_at_build(legacy, "setuptools")
    return files


def _require_at_build(sdist: Path, requirement: str) -> None:
    """Give *sdist*'s pyproject.toml a build requirement (rewrites the archive in place)."""
    import io
    import tarfile

    with tarfile.open(sdist) as archive:
        members = [(m, archive.extractfile(m)) for m in archive.getmembers()]
        contents = [(m, f.read() if f is not None else b"") for m, f in members]
    with tarfile.open(sdist, "w:gz") as archive:
        for member, data in contents:
            if member.name.endswith("pyproject.toml"):
                data = data.replace(b"requires = []", f'requires = ["{requirement}"]'.encode())
                member.size = len(data)
            archive.addfile(member, io.BytesIO(data))


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, files: Path) -> str:
    return simple_index(files, tmp_path_factory.mktemp("simple"))


@pytest.fixture(autouse=True)
def from_the_index(index: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The user's uv and pip settings: every lock and install (and remedy) resolves from the index."""
    monkeypatch.setenv("UV_INDEX_URL", index)
    monkeypatch.setenv("PIP_INDEX_URL", index)
    monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path / "uv-cache"))
    monkeypatch.delenv("CPATH", raising=False)


def installs(started: Sequence[tuple[str, ...]]) -> list[tuple[str, ...]]:
    return [a for a in started if "install" in a and "--require-hashes" in a]


def app(tmp_path: Path, capsys: pytest.CaptureFixture[str], base: Sequence[str], brain: Sequence[str]) -> Path:
    folder = write_project(
        tmp_path / "app",
        PYPROJECT.format(base=", ".join(f'"{b}"' for b in base), brain=", ".join(f'"{b}"' for b in brain)),
    )
    code, _, err = run_cli(capsys, "--project", str(folder), "-q", "lock")
    assert code == 0, err
    make_venv(folder / ".venv")
    return folder


def then_run(remedy: str) -> str:
    """The command after ``then run:`` up to the next ``;`` (what the remedy says to run once fixed)."""
    return remedy.split("then run: ", 1)[1].split("; ", 1)[0]


def shell(folder: Path, command: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """*command* exactly as printed, in a shell in *folder*, with this environment's console scripts first."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    variables = clean_env(
        {"PATH": path, **{k: os.environ[k] for k in ("UV_INDEX_URL", "PIP_INDEX_URL", "UV_CACHE_DIR")}}
    )
    variables.pop("UV_NO_PROGRESS", None)
    return subprocess.run(
        command, check=False, shell=True, cwd=folder, env={**variables, **(env or {})}, capture_output=True, text=True
    )


def test_a_no_build_tier_stops_before_the_backend_with_the_explanation_check_gives(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], started: list[tuple[str, ...]]
) -> None:
    folder = app(tmp_path, capsys, ["purepkg", "sdonly<2"], [])
    _, check = cli_json(capsys, "--project", str(folder), "check", "base")
    assert check["findings"][0]["detail"].startswith("sdonly 1.0 has no wheel for linux-x86_64 (manylinux_2_28_x86_64)")
    code, out, err = run_cli(capsys, "--project", str(folder), "install", "base")
    assert code == 1, err
    assert "ERROR sdonly 1.0 has no wheel for manylinux_" in err
    assert (
        "on Python 3.11, 3.12: the lock has only an sdist (sdonly-1.0.tar.gz); tier base installs from wheels only"
        in err
    )
    assert "nothing was installed" in err
    assert installs(started) == []  # the backend never ran
    assert not list(site_packages(folder / ".venv").glob("purepkg*"))
    # status says why, with the remedy, in text and JSON
    code, out, _ = run_cli(capsys, "--project", str(folder), "status", "base")
    assert "\n  the last install-tier of base failed" in out  # first among the tier's problems
    code, document = cli_json(capsys, "--project", str(folder), "status", "base")
    (row,) = document["tiers"]
    assert row["problems"][0].startswith("the last install-tier of base failed")
    assert row["last_failure"]["error"]["kind"] == "no-build"
    remedy = row["remedy"]
    assert remedy.startswith("require a version of sdonly that publishes wheels for every declared platform on Python")
    # the remedy: a version with wheels, then the command it prints
    pyproject = folder / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"sdonly<2"', '"sdonly>=2"'))
    command = then_run(remedy)
    assert command == f"tierlock --project {folder} lock base brain && install-tier --project {folder} base"
    done = shell(folder, command)
    assert done.returncode == 0, done.stderr
    code, document = cli_json(capsys, "--project", str(folder), "status", "base")
    assert document["tiers"][0]["state"] == "present"
    assert document["tiers"][0]["last_failure"] is None


def test_every_package_a_no_build_tier_would_build_is_named_the_first_with_its_explanation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], started: list[tuple[str, ...]]
) -> None:
    folder = app(tmp_path, capsys, ["purepkg", "sdonly<2", "buildok"], [])
    code, document = cli_json(capsys, "--project", str(folder), "install", "base")
    assert code == 1
    error = document["error"]
    assert (error["kind"], error["package"], error["tier"]) == ("no-build", "buildok", "base")
    assert error["message"].startswith("buildok 1.0 has no wheel for manylinux_")
    assert [p["where"] for p in error["problems"]] == ["tier base"]
    assert error["problems"][0]["message"].startswith("sdonly 1.0 has no wheel for manylinux_")
    assert installs(started) == []  # the backend never ran


@pytest.mark.parametrize("backend", ["uv", "pip"])
def test_install_passes_the_backends_no_build_option_and_says_what_it_builds_from_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], started: list[tuple[str, ...]], backend: str
) -> None:
    folder = app(tmp_path, capsys, ["purepkg"], ["buildok"])
    code, _, err = run_cli(capsys, "--project", str(folder), "install", "brain", "--backend", backend)
    assert code == 0, err
    (argv,) = installs(started)
    assert argv[argv.index("--only-binary") + 1] == "purepkg"  # base's package; brain's may build
    assert "--no-build" not in argv
    # said without -v: before the backend starts (from the lock's record), and when the build ends
    assert "building buildok 1.0 from source (only an sdist in the lock); this can take minutes" in err
    assert "built buildok from source (" in err
    started.clear()
    make_venv(folder / "other")
    code, _, err = run_cli(
        capsys, "--project", str(folder), "install", "base", "--backend", backend, "--python", str(folder / "other")
    )
    assert code == 0, err
    (argv,) = installs(started)
    if backend == "uv":
        assert "--no-build" in argv
    else:
        assert argv[argv.index("--only-binary") + 1] == ":all:"


def test_a_lock_without_a_record_installs_with_the_no_build_option_and_explains_the_backends_refusal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], started: list[tuple[str, ...]]
) -> None:
    folder = app(tmp_path, capsys, ["purepkg", "sdonly<2"], [])
    (folder / "lockfiles/base.artifacts.toml").unlink()  # an older lock: nothing tells before the backend runs
    code, _, err = run_cli(capsys, "--project", str(folder), "install", "base")
    assert code == 3, err
    assert "sdonly has no wheel for this environment and tier base installs from wheels only (no-build)" in err
    assert "--no-build" in installs(started)[0]
    assert f"then run: tierlock --project {folder} lock base && install-tier --project {folder} base (" in err
    code, document = cli_json(capsys, "--project", str(folder), "status", "base")
    assert document["tiers"][0]["last_failure"]["error"]["kind"] == "no-build"


@pytest.mark.parametrize("backend", ["uv", "pip"])
def test_a_failed_build_names_the_missing_header_status_reports_it_and_the_remedy_converges(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], backend: str
) -> None:
    folder = app(tmp_path, capsys, ["purepkg"], ["needsheader"])
    code, _, err = run_cli(capsys, "--project", str(folder), "install", "brain", "--backend", backend)
    assert code == 3, err
    assert f"needsheader 1.0 could not be built from source for brain: its build lacks the C header {HEADER}" in err
    remedy = err.split("to fix: ", 1)[1]
    assert remedy.startswith(f"install the development package that provides {HEADER}")
    code, out, _ = run_cli(capsys, "--project", str(folder), "status", "brain")
    assert "\n  the last install-tier of brain failed" in out
    code, document = cli_json(capsys, "--project", str(folder), "status", "brain")
    (row,) = document["tiers"]
    assert row["state"] == "absent"
    assert row["last_failure"]["error"]["build"] == {
        "package": "needsheader",
        "version": "1.0",
        "missing": [{"kind": "header", "name": HEADER}],
    }
    assert row["remedy"] == " ".join(remedy.split())  # the remedy that changes something, not the same command
    # the system package that provides the header (here: a folder on the compiler's include path), then the command
    include = tmp_path / "include"
    include.mkdir()
    (include / HEADER).write_text("#define TIERLOCK_TEST_HEADER 1\n")
    command = then_run(row["remedy"])
    assert command == f"install-tier brain --backend {backend}"
    done = shell(folder, command, {"CPATH": str(include)})
    assert done.returncode == 0, done.stderr
    code, document = cli_json(capsys, "--project", str(folder), "status", "brain")
    assert (document["tiers"][0]["state"], document["tiers"][0]["last_failure"]) == ("present", None)


def test_a_build_that_imports_a_module_its_build_dependency_dropped_gets_a_build_constraint_that_converges(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = app(tmp_path, capsys, ["purepkg"], ["legacybuild"])
    code, _, err = run_cli(capsys, "--project", str(folder), "install", "brain")
    assert code == 3, err
    assert (
        "legacybuild 1.0 could not be built from source for brain: its build lacks the build dependency pkg_resources"
        in err
    )
    _, document = cli_json(capsys, "--project", str(folder), "status", "brain")
    remedy = document["tiers"][0]["remedy"]
    command = remedy.split("; or ", 1)[0]
    assert command == (
        "printf '%s\\n' 'setuptools<82' > build-constraints.txt && "
        "UV_BUILD_CONSTRAINT=build-constraints.txt install-tier brain"
    )
    done = shell(folder, command)
    assert done.returncode == 0, done.stderr
    assert "built legacybuild from source" in done.stderr


def test_a_build_importing_an_undeclared_module_names_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = app(tmp_path, capsys, ["purepkg"], ["needsmodule"])
    code, _, err = run_cli(capsys, "--project", str(folder), "install", "brain")
    assert code == 3, err
    assert "its build lacks the build dependency tierlock_missing_build_module" in err
    assert "its build imports tierlock_missing_build_module, which its build requirements do not provide" in err
    _, document = cli_json(capsys, "--project", str(folder), "status", "brain")
    missing = document["tiers"][0]["last_failure"]["error"]["build"]["missing"]
    assert missing == [{"kind": "build-dependency", "name": "tierlock_missing_build_module"}]
