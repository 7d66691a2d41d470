"""Which interpreter a read-only command's entry starts before the command parses its arguments
(:mod:`tierlock.targetfirst`): the one the command will ask when the command line makes it plain, else none;
never one when an answer is kept for it; and what it started is taken only by the command asking that very
interpreter (:class:`tierlock.environment.Pending`), any other ended."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.env import make_venv
from tierlock import environment, spawning, subproc, targetfirst
from tierlock.errors import UsageError

OLD = time.time() - 60

PYPROJECT = '[project]\nname = "app"\nversion = "1"\n\n[tool.tierlock]\n{extra}\n'


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with a ``.venv`` folder holding a ``pyvenv.cfg`` (enough for the guess), no active venv."""
    root = tmp_path / "proj"
    (root / ".venv").mkdir(parents=True)
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / "pyproject.toml").write_text(PYPROJECT.format(extra='ci-require = ["brain"]'))
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.delenv("TIERLOCK_PROJECT_ENVIRONMENT", raising=False)
    monkeypatch.chdir(tmp_path)
    return root


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["probe", "--python", "/x/bin/python"], "/x/bin/python"),
        (["--project", "p", "status", "--python=/x/env"], "/x/env"),
        (["admit", "--python", "/a", "--python", "/b"], "/b"),
        (["probe", "brain", "--python", "/x/bin/python", "--json"], "/x/bin/python"),
        (["probe", "--pyth", "/x/bin/python"], None),
        (["probe", "--python", "/x/bin/python", "--help"], None),
        (["probe", "-h"], None),
        (["check", "--python", "/x/bin/python"], None),
        (["probe", "--python="], None),
        (["probe", "--", "--python", "/x"], None),
    ],
)
def test_the_interpreter_named_on_the_command_line_is_the_guess(
    project: Path, argv: list[str], expected: str | None
) -> None:
    command = next(token for token in argv if token in {"probe", "status", "admit", "check"})
    assert targetfirst.guess(argv, command) == expected


def test_without_python_the_guess_is_the_active_venv_unless_it_runs_tierlock(
    project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", str(tmp_path / "active"))
    assert targetfirst.guess(["--project", str(project), "probe"], "probe") == str(tmp_path / "active")
    import sys

    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)
    assert targetfirst.guess(["--project", str(project), "status"], "status") is None


def test_without_python_or_an_active_venv_the_guess_is_the_projects_environment(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert targetfirst.guess(["--project", str(project), "probe"], "probe") == str(project / ".venv")
    assert targetfirst.guess(["--project", str(project / "pyproject.toml"), "admit"], "admit") == str(project / ".venv")
    monkeypatch.chdir(project)
    assert targetfirst.guess(["status"], "status") == str(project / ".venv")
    monkeypatch.setenv("TIERLOCK_PROJECT_ENVIRONMENT", "elsewhere")
    assert targetfirst.guess(["status"], "status") is None  # (no pyvenv.cfg there: nothing to start)


def test_a_project_that_names_its_environment_in_pyproject_or_has_none_gets_no_guess(project: Path) -> None:
    (project / "pyproject.toml").write_text(PYPROJECT.format(extra='venv = "env"\nci-require = ["brain"]'))
    assert targetfirst.guess(["--project", str(project), "probe"], "probe") is None
    assert targetfirst.guess(["--project", str(project / "missing"), "probe"], "probe") is None


def test_admit_gets_a_guess_only_when_it_probes(project: Path) -> None:
    argv = ["--project", str(project), "admit"]
    assert targetfirst.guess(argv, "admit") == str(project / ".venv")
    (project / "pyproject.toml").write_text(PYPROJECT.format(extra=""))
    assert targetfirst.guess(argv, "admit") is None
    assert targetfirst.guess([*argv, "--tier", "brain"], "admit") == str(project / ".venv")
    assert targetfirst.guess([*argv, "--tier=brain"], "admit") == str(project / ".venv")
    assert targetfirst.guess(["--project", str(project), "probe"], "probe") == str(project / ".venv")


def test_the_interpreter_is_spelt_as_the_command_spells_it(tmp_path: Path) -> None:
    venv = tmp_path / "env"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    for given in (str(venv), f"{venv}/", str(venv / "bin" / "pip"), str(venv / "bin" / "python3.12"), "rel/python"):
        assert targetfirst.interpreter(given) == str(environment.interpreter(given))


@pytest.fixture
def venvs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two real venvs, dated back (their answers can be kept)."""
    root = tmp_path_factory.mktemp("first-venvs")
    made = tuple(make_venv(root / name).parent.parent for name in ("a", "b"))
    for venv in made:
        for folder, dirs, names in os.walk(venv):
            for name in [*dirs, *names]:
                os.utime(os.path.join(folder, name), (OLD, OLD), follow_symlinks=False)
    return made[0], made[1]


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[list[tuple[str, ...]]]:
    """An empty cache folder, no memory of earlier inspections; the inspections the command starts, counted."""
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(environment, "_SEEN", {})
    seen: list[tuple[str, ...]] = []
    monkeypatch.setattr(subproc, "observers", [lambda argv: seen.append(tuple(argv))])
    yield seen
    spawning.end_ahead()


def test_the_interpreter_started_first_is_taken_by_the_command_and_answers_as_one_started_late(
    venvs: tuple[Path, Path], fresh: list[tuple[str, ...]]
) -> None:
    a, _b = venvs
    python = str(a / "bin" / "python")
    targetfirst.start(["probe", "--python", python], "probe")
    first = spawning.peek(python)
    assert first is not None
    environment.start_early(python)
    got = environment.inspect(python)
    assert spawning.ahead == {}
    with pytest.raises(ChildProcessError):
        os.waitpid(first[0].pid, os.WNOHANG)  # read and reaped by the command
    assert len(fresh) == 1  # the observers told once, as for one started by the command
    environment._SEEN.clear()
    late = environment.inspect(python)  # kept now: read from the cache, nothing started
    assert late == got
    assert len(fresh) == 1
    assert got.prefix == a
    assert got.purelib.is_relative_to(a)


def test_an_interpreter_started_first_for_another_one_than_the_command_asks_is_ended(
    venvs: tuple[Path, Path], fresh: list[tuple[str, ...]]
) -> None:
    a, b = venvs
    targetfirst.start(["status", "--python", str(a)], "status")
    wrong = spawning.peek(str(a / "bin" / "python"))
    assert wrong is not None
    environment.start_early(b)
    assert spawning.ahead == {}
    with pytest.raises(ChildProcessError):
        os.waitpid(wrong[0].pid, os.WNOHANG)  # ended (or done already) and reaped
    assert environment.inspect(b).prefix == b
    assert fresh == [(str(b / "bin" / "python"), "-I", "-c", fresh[0][3])]


def test_nothing_is_started_first_for_an_interpreter_whose_answer_is_kept(
    venvs: tuple[Path, Path], fresh: list[tuple[str, ...]]
) -> None:
    a, _b = venvs
    environment.inspect(a)  # (asked and kept)
    environment._SEEN.clear()
    targetfirst.start(["probe", "--python", str(a)], "probe")
    assert spawning.ahead == {}
    targetfirst.start(["probe", "--python", str(a / "missing" / "python")], "probe")
    assert spawning.ahead == {}


def test_a_project_environment_started_first_is_taken_when_the_command_asks_it_without_an_early_start(
    venvs: tuple[Path, Path], fresh: list[tuple[str, ...]]
) -> None:
    a, _b = venvs
    targetfirst.start(["probe", "--python", str(a)], "probe")
    assert environment.start(None) is None  # (the project's environment: known to the command only later)
    assert spawning.peek(str(a / "bin" / "python")) is not None
    assert environment.inspect(a).prefix == a
    assert spawning.ahead == {}
    assert len(fresh) == 1


def test_an_interpreter_that_cannot_be_started_first_leaves_the_command_to_say_so(
    tmp_path: Path, fresh: list[tuple[str, ...]]
) -> None:
    named = tmp_path / "env" / "bin" / "python"
    named.parent.mkdir(parents=True)
    named.write_text("not a program\n")  # (no execute permission: posix_spawn refuses it)
    targetfirst.start(["probe", "--python", str(named)], "probe")  # (does not raise)
    assert spawning.ahead == {}
    with pytest.raises(UsageError, match=f"cannot run the interpreter at {named} \\(Permission denied\\)"):
        environment.inspect(named)
