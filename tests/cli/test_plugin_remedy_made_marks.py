"""The remedy a strict run prints for marks and flags made by a helper of another file, run as printed, converges.

``from tests.helpers import needs`` / ``@needs("brainpkg")`` (a skip mark whose reason names nothing) and ``HAS_BRAIN
= probe("brainpkg")`` in a helper module (``probe`` a function trying the import): the census reads both now, and
the strict run stops before collection. A conftest whose flag is computed by such a function from a name no static
reading sees (``probe("brain" + "pkg")``), read by its own setup hook, which skips: the run-time backstop attributes
the skip and the run fails at its end. pytest runs in a real venv of its own, of this Python and of others under
pyenv; each strict run prints the same ``to fix:`` command, run exactly as printed, and the next strict run passes
with every test run.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tests.support.interpreters import PYENV
from tests.support.lockproj import lock_offline
from tests.support.plugin_project import laptop, write_files
from tests.support.plugin_venv import locked_pyproject, offline, own_venv, remedy_of, run_printed
from tests.support.plugin_venv import run_pytest as run
from tests.support.wheels import build_wheel
from tierlock.pytest_plugin import EXIT_TIER_MISSING

PYPROJECT = locked_pyproject({"brain": ["brainpkg"]}, ["brain"])

FILES = {
    "tests/__init__.py": "",
    "tests/helpers.py": """\
        from importlib import import_module
        from importlib.util import find_spec

        import pytest


        def needs(module):
            return pytest.mark.skipif(find_spec(module) is None, reason="optional dependency")


        def probe(name):
            try:
                import_module(name)
            except ImportError:
                return False
            return True


        HAS_BRAIN = probe("brainpkg")
        """,
    "tests/test_decorated.py": """\
        from tests.helpers import needs


        @needs("brainpkg")
        def test_model():
            import brainpkg  # noqa: F401
        """,
    "tests/test_flagged.py": """\
        import pytest

        from tests.helpers import HAS_BRAIN


        @pytest.mark.skipif(not HAS_BRAIN, reason="optional")
        def test_fit():
            import brainpkg  # noqa: F401
        """,
    "tests/hooked/__init__.py": "",
    "tests/hooked/conftest.py": """\
        import pytest

        from tests.helpers import probe

        HAS = probe("brain" + "pkg")


        def pytest_configure(config):
            config.addinivalue_line("markers", "backend: needs the backend")


        def pytest_runtest_setup(item):
            if "backend" in item.keywords and not HAS:
                pytest.skip("backend unavailable")
        """,
    "tests/hooked/test_hooked.py": """\
        import pytest


        @pytest.mark.backend
        def test_backend():
            __import__("brain" + "pkg")  # (a name no static reading sees)
        """,
}


@pytest.fixture(scope="module")
def house(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("made-wheels")
    build_wheel(folder, "brainpkg", "1.0")
    return folder


@pytest.mark.parametrize("version", [None, "3.12.1", "3.13.0"], ids=["own", "3.12", "3.13"])
def test_the_strict_runs_remedy_for_made_marks_and_flags_run_as_printed_makes_the_next_run_pass(
    tmp_path: Path, house: Path, monkeypatch: pytest.MonkeyPatch, version: str | None
) -> None:
    interpreter = None if version is None else PYENV / version / "bin" / "python"
    if interpreter is not None and not interpreter.exists():
        pytest.skip(f"Python {version} is not installed under {PYENV}")
    laptop(monkeypatch)
    project = lock_offline(tmp_path / "inner", house, PYPROJECT)
    write_files(project, FILES)
    python = own_venv(tmp_path, interpreter)
    strict = {"CI": "true"}
    expected = shlex.join(["install-tier", "brain", "--python", str(python)])
    for shape in ("tests/test_decorated.py", "tests/test_flagged.py"):
        stopped = run(python, project, shape, extra=strict)
        assert stopped.returncode == EXIT_TIER_MISSING, stopped.stdout + stopped.stderr
        assert "tierlock: stopping before collection" in stopped.stderr
        assert "this run selects 1 test file(s) that need it" in stopped.stderr
        assert remedy_of(stopped.stderr, "to fix: ") == expected
    hooked = run(python, project, "tests/hooked", extra=strict)
    assert hooked.returncode == EXIT_TIER_MISSING, hooked.stdout + hooked.stderr
    assert "test_backend (skipped: backend unavailable; after a failed import of brainpkg)" in hooked.stdout
    printed = remedy_of(hooked.stdout, "to fix: ")
    assert printed == expected
    armed = run_printed(printed, project, offline(house))
    assert armed.returncode == 0, armed.stdout + armed.stderr
    second = run(python, project, "tests", "-rsx", extra=strict)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "3 passed" in second.stdout, second.stdout
    assert "skipped" not in second.stdout
