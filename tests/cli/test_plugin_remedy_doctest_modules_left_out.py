"""The remedy a strict doctest-only run prints for modules its conftest leaves out on a flag, run as printed, converges.

networkx's shape: ``conftest.py`` tries ``import brainpkg`` into ``has_brainpkg``, lists the modules whose doctests
need it and writes ``if not has_brainpkg: collect_ignore += needs_brainpkg``; the module imports brainpkg only inside
its function. ``CI=true pytest --doctest-modules pkg --ignore-glob=*/tests/*`` fails at its end naming the module
left out and ``install-tier brain --python VENV``; that command, run exactly as printed, arms the tier, and the next
strict run collects the module and runs its doctest. pytest runs in a real venv of its own, of this Python and of
3.12.1 under pyenv.
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
    "pkg/__init__.py": "",
    "pkg/conftest.py": """\
        try:
            import brainpkg

            has_brainpkg = True
        except ImportError:
            has_brainpkg = False

        collect_ignore = []
        needs_brainpkg = ["model.py"]
        if not has_brainpkg:
            collect_ignore += needs_brainpkg
        """,
    "pkg/model.py": '''\
        def model():
            """
            >>> model()
            1
            """
            import brainpkg  # noqa: F401

            return 1
        ''',
    "pkg/plain.py": '''\
        def plain():
            """
            >>> plain()
            2
            """
            return 2
        ''',
}


@pytest.fixture(scope="module")
def house(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("doctest-wheels")
    build_wheel(folder, "brainpkg", "1.0")
    return folder


@pytest.mark.parametrize("version", [None, "3.12.1"], ids=["own", "3.12"])
def test_the_strict_doctest_runs_remedy_run_as_printed_collects_the_module_next_time(
    tmp_path: Path, house: Path, monkeypatch: pytest.MonkeyPatch, version: str | None
) -> None:
    interpreter = None if version is None else PYENV / version / "bin" / "python"
    if interpreter is not None and not interpreter.exists():
        pytest.skip(f"Python {version} is not installed under {PYENV}")
    laptop(monkeypatch)
    project = lock_offline(tmp_path / "inner", house, PYPROJECT)
    write_files(project, FILES)
    python = own_venv(tmp_path, interpreter)
    args = ("--doctest-modules", "pkg", "--ignore-glob=*/tests/*")
    first = run(python, project, *args, extra={"CI": "true"})
    assert first.returncode == EXIT_TIER_MISSING, first.stdout + first.stderr
    assert "  - pkg/model.py (a test file that needs it, ignored by the project's conftest" in first.stdout
    printed = remedy_of(first.stdout, "to fix: ")
    assert printed == shlex.join(["install-tier", "brain", "--python", str(python)])
    armed = run_printed(printed, project, offline(house))
    assert armed.returncode == 0, armed.stdout + armed.stderr
    second = run(python, project, *args, extra={"CI": "true"})
    assert second.returncode == 0, second.stdout + second.stderr
    assert "2 passed" in second.stdout, second.stdout
