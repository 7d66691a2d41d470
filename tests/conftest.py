"""Suite-wide isolation from this machine's pip/uv configuration, and shared fixtures.

The shared set, for any test module: ``wheels`` (the lock tests' wheel folder), ``wheelhouse`` and
``uv_wheelhouse`` (the install and uv tests' wheels), ``locked`` (the
sample project locked once from it: read it, never change it), ``project`` (a copy of ``locked`` to
change), and ``cli`` / ``cli_json`` (``tierlock`` run in-process). A module that needs other wheels or
another project defines its own fixture of the same name, which wins inside that module.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

# In CI the property tests try a fixed set of examples (each run the same: a failure there is reproducible); on a
# workstation each run tries new ones. No example has a deadline: hypothesis' 200 ms per example is a timing
# assertion, which a loaded machine (a mutation run, two test runs on two cores) failed now and then.
settings.register_profile("workstation", deadline=None)
settings.register_profile("ci", derandomize=True, database=None, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "workstation")

# The product respects a user's pip and uv configuration; the tests must not
# depend on this machine's, so it is neutralised for the whole test process
# (in-process CLI calls) and every subprocess it starts.
for _key in [k for k in os.environ if k.startswith(("PIP_", "UV_"))]:
    del os.environ[_key]
os.environ["PIP_CONFIG_FILE"] = os.devnull
os.environ["UV_NO_CONFIG"] = "1"
os.environ["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
os.environ.pop("VIRTUAL_ENV", None)
# The probe keeps its shared-library verdicts in the user's cache folder: the suite keeps its own.
_CACHE = tempfile.mkdtemp(prefix="tierlock-test-cache-")
os.environ["TIERLOCK_CACHE_DIR"] = _CACHE
# Removed as the process ends (every process that loads this file: pytest, each xdist worker), after the session's
# last writer: tierlock's own pytest plugin gates this suite and keeps its facts there when the session finishes.
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)


@pytest.fixture(autouse=True)
def _signals_unblocked() -> Iterator[None]:
    """Every test starts and ends with SIGINT and SIGTERM unblocked in the worker's main thread: a process a test
    starts inherits the mask, and one left blocked (by code that blocks them for a while, stopped half way) would
    make a later test's child deaf to the signals it is sent."""
    import signal

    yield
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, []) & {signal.SIGINT, signal.SIGTERM}
    if blocked:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, blocked)
        names = sorted(signal.Signals(s).name for s in blocked)
        pytest.fail(f"the test left {names} blocked in the main thread", pytrace=False)


@pytest.fixture(scope="session", autouse=True)
def _own_cache_folder() -> Iterator[None]:
    """The suite's cache folder, removed when the session ends."""
    yield
    shutil.rmtree(_CACHE, ignore_errors=True)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--network", action="store_true", default=False, help="run tests that need the registry")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--network"):
        return
    skip = pytest.mark.skip(reason="needs the package registry; run with --network")
    for item in items:
        if "network" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def not_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run as on a laptop: no CI variables."""
    from tests.support.plugin_project import CI_VARS

    for key in (*CI_VARS, "TIERLOCK_STRICT"):
        monkeypatch.delenv(key, raising=False)


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    """An empty project folder."""
    folder = tmp_path / "proj"
    folder.mkdir()
    return folder


@pytest.fixture
def git_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    """A git author and committer for the commits a test makes, and the evidence kept at its default."""
    from tests.support.gitrepo import IDENTITY

    for key, value in IDENTITY.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("TIERLOCK_EVIDENCE_KEEP", raising=False)


@pytest.fixture(scope="session")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The lock tests' wheel folder (``tests/support/lockproj.py``: ``WHEELS``), built once per session."""
    from tests.support.lockproj import build_wheel_dir

    return build_wheel_dir(tmp_path_factory.mktemp("wheels"))


@pytest.fixture(scope="session")
def locked(tmp_path_factory: pytest.TempPathFactory, wheels: Path) -> Path:
    """The sample project (``lockproj.PYPROJECT``) locked once with uv from ``wheels``: read it, never change it."""
    from tests.support.lockproj import lock_offline

    return lock_offline(tmp_path_factory.mktemp("locked") / "proj", wheels)


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The install tests' wheels (``tests/support/tierproject.py``), ``name-version`` -> file, built once."""
    from tests.support.tierproject import build_wheelhouse

    return build_wheelhouse(tmp_path_factory.mktemp("wheelhouse"))


@pytest.fixture(scope="session")
def uv_wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The uv project tests' wheel folder (``tests/support/uvproject.py``), built once."""
    from tests.support.uvproject import build_uv_wheelhouse

    return build_uv_wheelhouse(tmp_path_factory.mktemp("uv-wheelhouse"))


@pytest.fixture
def project(tmp_path: Path, locked: Path) -> Path:
    """A copy of ``locked`` for this test to change."""
    return Path(shutil.copytree(locked, tmp_path / "proj"))


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """``cli(*argv)``: ``tierlock ARGV`` in-process, (exit code, stdout, stderr)."""
    from tests.support.cli import run_cli

    return lambda *argv: run_cli(capsys, *argv)


@pytest.fixture
def cli_json(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, Any]]:
    """``cli_json(*argv)``: ``tierlock ARGV --json`` in-process, (exit code, the one JSON document)."""
    from tests.support.cli import cli_json as run

    return lambda *argv: run(capsys, *argv)
