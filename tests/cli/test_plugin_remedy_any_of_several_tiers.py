"""The remedy a strict run prints for a test that any one of two tiers runs, run as printed, converges.

``skipif(not (HAS_PD or HAS_PL))``, ``HAS_ANY = HAS_PD or HAS_PL``, ``@needs_any("pdpkg", "plpkg")`` and a ``try:
import pdpkg`` falling back to ``pytest.importorskip("plpkg")``: with neither tier armed a strict run stops before
collection naming one tier (``pl``, declared first: the smallest), and its command arms that one only; the next strict
run passes with every test run, though ``pd`` is still absent. pytest runs in a real venv of its own, of this Python
and of others under pyenv.
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

PYPROJECT = locked_pyproject({"pl": ["plpkg"], "pd": ["pdpkg"]}, ["pl", "pd"])

FILES = {
    "tests/__init__.py": "",
    "tests/helpers.py": """\
        from importlib.util import find_spec

        import pytest

        try:
            import pdpkg
            HAS_PD = True
        except ImportError:
            HAS_PD = False
        HAS_PL = find_spec("plpkg") is not None
        HAS_ANY = HAS_PD or HAS_PL


        def needs_any(*modules):
            reason = "needs one of " + ", ".join(modules)
            return pytest.mark.skipif(all(find_spec(m) is None for m in modules), reason=reason)
        """,
    "tests/test_or.py": """\
        import pytest

        from tests.helpers import HAS_PD, HAS_PL


        @pytest.mark.skipif(not (HAS_PD or HAS_PL), reason="needs a dataframe library")
        def test_or():
            pass  # (an import here would be read as the need: the skip alone must be)
        """,
    "tests/test_flag.py": """\
        import pytest

        from tests.helpers import HAS_ANY


        @pytest.mark.skipif(not HAS_ANY, reason="needs a dataframe library")
        def test_flag():
            pass
        """,
    "tests/test_maker.py": """\
        from tests.helpers import needs_any


        @needs_any("pdpkg", "plpkg")
        def test_maker():
            pass
        """,
    "tests/test_fallback.py": """\
        import pytest

        try:
            import pdpkg as lib
        except ImportError:
            lib = pytest.importorskip("plpkg")


        def test_fallback():
            assert lib
        """,
}


@pytest.fixture(scope="module")
def house(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("any-of-wheels")
    build_wheel(folder, "plpkg", "1.0")
    build_wheel(folder, "pdpkg", "1.0")
    return folder


@pytest.mark.parametrize("version", [None, "3.12.1", "3.13.0"], ids=["own", "3.12", "3.13"])
def test_the_strict_runs_remedy_for_a_test_either_tier_runs_arms_one_and_the_next_run_passes(
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
    expected = shlex.join(["install-tier", "pl", "--python", str(python)])
    for shape in sorted(f for f in FILES if f.startswith("tests/test_")):
        stopped = run(python, project, shape, extra=strict)
        assert stopped.returncode == EXIT_TIER_MISSING, shape + stopped.stdout + stopped.stderr
        assert "tierlock: stopping before collection" in stopped.stderr
        assert "tier pd is required" not in stopped.stderr, stopped.stderr
        assert remedy_of(stopped.stderr, "to fix: ") == expected
    lenient = run(python, project, "tests", "-rs")
    assert lenient.returncode == 0, lenient.stdout + lenient.stderr
    assert "because pd absent" not in lenient.stdout, lenient.stdout
    assert f"because pl absent; to run them: {expected}" in lenient.stdout, lenient.stdout
    printed = remedy_of(stopped.stderr, "to fix: ")
    armed = run_printed(printed, project, offline(house))
    assert armed.returncode == 0, armed.stdout + armed.stderr
    second = run(python, project, "tests", "-rsx", extra=strict)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "4 passed" in second.stdout, second.stdout
    assert "skipped" not in second.stdout
