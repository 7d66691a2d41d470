"""Suite-wide isolation from this machine's pip/uv configuration, and shared fixtures."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

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
