"""The remedy a strict run prints for two more ways a test suite hides a missing tier, run as printed, converges.

An availability flag set by looking the distribution up (``importlib.metadata.version("brainpkg")`` under ``except
PackageNotFoundError``, read by the census: the run stops before collection), and a backend picked by its parameter
and skipped by a mark whose reason names nothing (anyio's style, caught by the run-time backstop: the run fails at
its end). pytest runs in a real venv of its own; each strict run prints the same ``to fix:`` command, run exactly as
printed, and the next strict run passes with every test run.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tests.support.lockproj import lock_offline
from tests.support.plugin_project import laptop, write_files
from tests.support.plugin_venv import locked_pyproject, offline, own_venv, remedy_of, run_printed
from tests.support.plugin_venv import run_pytest as run
from tests.support.wheels import build_wheel
from tierlock.pytest_plugin import EXIT_TIER_MISSING

PYPROJECT = locked_pyproject({"brain": ["brainpkg"]}, ["brain"])

FILES = {
    "tests/__init__.py": "",
    "tests/compat.py": """\
        import importlib.metadata

        try:
            importlib.metadata.version("brainpkg")
            HAS_BRAIN = True
        except importlib.metadata.PackageNotFoundError:
            HAS_BRAIN = False
        """,
    "tests/test_lookup.py": """\
        import pytest

        from tests.compat import HAS_BRAIN


        @pytest.mark.skipif(not HAS_BRAIN, reason="backend unavailable")
        def test_model():
            import brainpkg  # noqa: F401
        """,
    "tests/test_backends.py": """\
        import importlib.util

        import pytest

        AVAILABLE = {name for name in ("json", "brainpkg") if importlib.util.find_spec(name) is not None}


        BACKENDS = [
            pytest.param(name, marks=pytest.mark.skipif(name not in AVAILABLE, reason="not available"))
            for name in ("json", "brainpkg")
        ]


        @pytest.mark.parametrize("backend", BACKENDS)
        def test_run(backend):
            __import__(backend)
        """,
}


@pytest.fixture(scope="module")
def house(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("lookup-wheels")
    build_wheel(folder, "brainpkg", "1.0")
    return folder


def test_the_strict_runs_remedy_for_a_lookup_flag_and_a_skipped_backend_run_as_printed_makes_the_next_run_pass(
    tmp_path: Path, house: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop(monkeypatch)
    project = lock_offline(tmp_path / "inner", house, PYPROJECT)
    write_files(project, FILES)
    python = own_venv(tmp_path)
    strict = {"CI": "true"}
    expected = shlex.join(["install-tier", "brain", "--python", str(python)])
    backends = run(python, project, "tests/test_backends.py", extra=strict)
    assert backends.returncode == EXIT_TIER_MISSING, backends.stdout + backends.stderr
    assert "parametrized with brainpkg, whose import failed" in backends.stdout
    assert remedy_of(backends.stdout, "to fix: ") == expected
    lookup = run(python, project, "tests/test_lookup.py", extra=strict)
    assert lookup.returncode == EXIT_TIER_MISSING, lookup.stdout + lookup.stderr
    printed = remedy_of(lookup.stdout + lookup.stderr, "to fix: ")
    assert printed == expected
    armed = run_printed(printed, project, offline(house))
    assert armed.returncode == 0, armed.stdout + armed.stderr
    second = run(python, project, "tests", "-rsx", extra=strict)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "3 passed" in second.stdout, second.stdout
    assert "skipped" not in second.stdout
