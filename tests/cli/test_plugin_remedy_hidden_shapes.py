"""The remedy a strict run prints for tests a missing tier hides in the newer shapes, run as printed, converges.

A project whose tests hide the tier in the ways the census and the run-time backstop learned last: xarray's made
flag and mark (``has_brain, requires_brain = _importorskip("brainpkg")``, the reason naming nothing), an expected
failure on the flag (``xfail(not has_brain)``), a mark alias in ``pytest.param``, a module-level skip, and a
``conftest.py`` that computes ``collect_ignore`` from ``find_spec`` (a run of the file it may leave out is read at
collection and fails at its end; a run of every file stops before collection, on those no branch can leave out).
pytest runs in a real venv of its own; the printed ``to fix:`` command is run exactly as printed (the index options
from the user's configuration), and the next strict run passes with every test run.
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
    "tests/__init__.py": """\
        import importlib

        import pytest


        def _importorskip(modname):
            try:
                importlib.import_module(modname)
                has = True
            except ImportError:
                has = False
            return has, pytest.mark.skipif(not has, reason="backend unavailable")


        has_brain, requires_brain = _importorskip("brainpkg")
        """,
    "tests/conftest.py": """\
        import importlib.util

        collect_ignore = []
        if importlib.util.find_spec("brainpkg") is None:
            collect_ignore.append("test_models.py")
        """,
    "tests/test_models.py": """\
        import brainpkg


        def test_model():
            assert brainpkg
        """,
    "tests/test_made.py": """\
        import pytest

        from tests import has_brain, requires_brain


        @requires_brain
        def test_mark():
            import brainpkg  # noqa: F401


        @pytest.mark.xfail(not has_brain, reason="no model")
        def test_expected():
            import brainpkg  # noqa: F401


        @pytest.mark.parametrize("backend", ["plain", pytest.param("brain", marks=requires_brain)])
        def test_param(backend):
            if backend == "brain":
                import brainpkg  # noqa: F401
        """,
    "tests/test_module_skip.py": """\
        import pytest

        from tests import has_brain

        if not has_brain:
            pytest.skip("backend unavailable", allow_module_level=True)


        def test_whole_module():
            import brainpkg  # noqa: F401
        """,
}


@pytest.fixture(scope="module")
def house(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hidden-wheels")
    build_wheel(folder, "brainpkg", "1.0")
    return folder


def test_the_strict_runs_remedy_for_hidden_shapes_run_as_printed_makes_the_next_strict_run_pass(
    tmp_path: Path, house: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop(monkeypatch)
    project = lock_offline(tmp_path / "inner", house, PYPROJECT)
    write_files(project, FILES)
    python = own_venv(tmp_path)
    strict = {"CI": "true"}
    others = ("--ignore=tests/test_made.py", "--ignore=tests/test_module_skip.py")
    hidden = run(python, project, "tests", *others, extra=strict)  # only the file the conftest may leave out
    assert hidden.returncode == EXIT_TIER_MISSING, hidden.stdout + hidden.stderr
    assert "tests/test_models.py (a test file that needs it, ignored by the project's conftest" in hidden.stdout
    first = run(python, project, "tests", extra=strict)  # the others no branch of it can leave out: known now
    assert first.returncode == EXIT_TIER_MISSING, first.stdout + first.stderr
    assert "stopping before collection" in first.stderr, first.stderr
    assert remedy_of(hidden.stdout, "to fix: ") == remedy_of(first.stderr, "to fix: ")
    printed = remedy_of(first.stderr, "to fix: ")
    assert printed == shlex.join(["install-tier", "brain", "--python", str(python)])
    armed = run_printed(printed, project, offline(house))
    assert armed.returncode == 0, armed.stdout + armed.stderr
    second = run(python, project, "tests", "-rsx", extra=strict)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "6 passed" in second.stdout, second.stdout
    assert "skipped" not in second.stdout
    assert "xfailed" not in second.stdout
    assert "xpassed" not in second.stdout
