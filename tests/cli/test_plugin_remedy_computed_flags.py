"""The remedy a strict run prints for skips on computed flags, makers' later arguments, helper modules and doctested
modules, run as printed, converges.

Each shape went green in CI before with brain absent: ``NO_BRAIN = not has("brainpkg")`` / ``skipif(NO_BRAIN)``,
``skipif("not HAS_BRAIN")`` with ``HAS_BRAIN = brainpkg is not None``, ``@needs("json", "brainpkg")`` (``def
needs(*modules)``), ``@needs_why("optional", "brainpkg")`` (``def needs_why(reason, module)``), ``helpers =
pytest.importorskip("tests.needy")`` (a helper module importing brainpkg at its top), and a module collected for its
doctests whose top tries brainpkg, its doctest skipped by a conftest's hook. pytest runs in a real venv of its own, of
this Python and of others under pyenv; each strict run prints the same ``to fix:`` command, run exactly as printed, and
the next strict run passes with every test run.
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
        from importlib.util import find_spec

        import pytest


        def has(name):
            return find_spec(name) is not None


        def needs(*modules):
            return pytest.mark.skipif(any(find_spec(m) is None for m in modules), reason="optional dependency")


        def needs_why(reason, module):
            return pytest.mark.skipif(find_spec(module) is None, reason=reason)


        try:
            import brainpkg
        except ImportError:
            brainpkg = None

        HAS_BRAIN = brainpkg is not None
        NO_BRAIN = not has("brainpkg")
        """,
    "tests/needy.py": "import brainpkg\n",
    "tests/test_inverted.py": """\
        import pytest

        from tests.helpers import NO_BRAIN


        @pytest.mark.skipif(NO_BRAIN, reason="optional")
        def test_inverted():
            pass  # (an import here would be read as the need: the skip alone must be)
        """,
    "tests/test_string.py": """\
        import pytest

        from tests.helpers import HAS_BRAIN


        @pytest.mark.skipif("not HAS_BRAIN", reason="optional")
        def test_string():
            pass  # (an import here would be read as the need: the skip alone must be)
        """,
    "tests/test_star.py": """\
        from tests.helpers import needs


        @needs("json", "brainpkg")
        def test_star():
            pass  # (an import here would be read as the need: the skip alone must be)
        """,
    "tests/test_later.py": """\
        from tests.helpers import needs_why


        @needs_why("optional", "brainpkg")
        def test_later():
            pass  # (an import here would be read as the need: the skip alone must be)
        """,
    "tests/test_helper_module.py": """\
        import pytest

        needy = pytest.importorskip("tests.needy")


        def test_helper_module():
            assert needy.brainpkg
        """,
    "doctested/__init__.py": "",
    "doctested/conftest.py": """\
        import pytest


        def pytest_runtest_setup(item):
            if type(item).__name__ == "DoctestItem" and not item.dtest.globs.get("HAS_X", True):
                pytest.skip("optional")
        """,
    "doctested/mod.py": '''\
        try:
            import brainpkg
            HAS_X = True
        except ImportError:
            HAS_X = False


        def f():
            """
            >>> f()
            1
            """
            return 1
        ''',
}

STATIC = (
    "tests/test_inverted.py",
    "tests/test_string.py",
    "tests/test_star.py",
    "tests/test_later.py",
    "tests/test_helper_module.py",
)


@pytest.fixture(scope="module")
def house(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("computed-wheels")
    build_wheel(folder, "brainpkg", "1.0")
    return folder


@pytest.mark.parametrize("version", [None, "3.12.1", "3.13.0"], ids=["own", "3.12", "3.13"])
def test_the_strict_runs_remedy_for_computed_flags_helpers_and_doctests_run_as_printed_makes_the_next_run_pass(
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
    for shape in STATIC:
        stopped = run(python, project, shape, extra=strict)
        assert stopped.returncode == EXIT_TIER_MISSING, shape + stopped.stdout + stopped.stderr
        assert "tierlock: stopping before collection" in stopped.stderr
        assert "this run selects 1 test file(s) that need it" in stopped.stderr
        assert remedy_of(stopped.stderr, "to fix: ") == expected
    doctests = run(python, project, "--doctest-modules", "doctested", extra=strict)
    assert doctests.returncode == EXIT_TIER_MISSING, doctests.stdout + doctests.stderr
    assert "doctested/mod.py::doctested.mod.f (skipped: optional; after a failed import of brainpkg)" in doctests.stdout
    printed = remedy_of(doctests.stdout, "to fix: ")
    assert printed == expected
    armed = run_printed(printed, project, offline(house))
    assert armed.returncode == 0, armed.stdout + armed.stderr
    second = run(python, project, "--doctest-modules", "tests", "doctested", "-rsx", extra=strict)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "6 passed" in second.stdout, second.stdout
    assert "skipped" not in second.stdout
