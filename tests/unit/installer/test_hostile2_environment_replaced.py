"""An interpreter whose files change while it answers (its venv made again meanwhile) is asked again, and an answer is
kept - on disk (:mod:`tierlock.targetcache`) and in the process - only when its files held still while it was given.

Real venvs and real inspections; the change is a new ``pyvenv.cfg`` (a new file: another identity) put in place
between the early start of the inspection (:class:`tierlock.environment.Pending`) and the read of its answer.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support.env import make_venv
from tests.support.kept import backdate
from tierlock import environment, subproc, targetcache


@pytest.fixture
def venv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(tmp_path / "cache"))  # nothing told by a venv made like it
    monkeypatch.setattr(environment, "_SEEN", {})
    monkeypatch.setattr(environment, "_STARTED", {})
    python = make_venv(tmp_path / "venv")
    backdate(tmp_path / "venv")  # (an answer resting on files modified within the last second is never kept)
    return python


def _asked(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    seen: list[tuple[str, ...]] = []
    monkeypatch.setattr(subproc, "observers", [lambda argv: seen.append(tuple(argv))])
    return seen


def _made_again(python: Path) -> None:
    """The venv's ``pyvenv.cfg`` replaced by a new file of the same text (as ``python -m venv --clear`` leaves it)."""
    cfg = python.parent.parent / "pyvenv.cfg"
    fresh = cfg.with_name("pyvenv.cfg.new")
    fresh.write_bytes(cfg.read_bytes())
    os.utime(fresh, ns=(cfg.stat().st_atime_ns, cfg.stat().st_mtime_ns - 10**10))  # (settled: older than a second)
    os.replace(fresh, cfg)


def _key(python: Path) -> tuple[str, tuple[str, str]]:
    return os.path.abspath(python), environment._cfg_folders(python)


@pytest.mark.parametrize("replaced", [True, False], ids=["files replaced since", "files unchanged"])
def test_an_answer_started_early_is_taken_when_its_files_held_else_asked_again_and_that_answer_kept(
    venv: Path, monkeypatch: pytest.MonkeyPatch, replaced: bool
) -> None:
    seen = _asked(monkeypatch)
    pending = environment.start(venv)
    assert pending is not None
    if replaced:
        _made_again(venv)
    target = pending.target()
    asked = 2 if replaced else 1  # (replaced: the process started early answered for the files that were there)
    assert len(seen) == asked
    assert targetcache.load(*_key(venv)) is not None
    assert environment.inspect(venv) is target, "remembered in the process"
    assert len(seen) == asked


def test_an_answer_given_while_the_files_kept_changing_is_used_but_never_kept(
    venv: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _asked(monkeypatch)
    count = iter(range(10**6))
    monkeypatch.setattr(environment, "_made", lambda exe: (next(count),))  # another identity at every look
    target = environment.inspect(venv)
    assert target.prefix == venv.parent.parent
    assert len(seen) == 1
    assert targetcache.load(*_key(venv)) is None, "nothing kept on disk"
    assert os.path.abspath(venv) not in environment._SEEN, "nor in the process"
    pending = environment.start(venv)
    assert pending is not None
    pending.target()
    assert len(seen) == 3, "started early, then asked again: neither kept"
    assert targetcache.load(*_key(venv)) is None


def test_an_inspection_a_failed_command_started_early_is_ended_with_it_and_never_taken_by_the_next(
    venv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``probe`` of a tier the project does not declare fails before it asks the target it started early: the
    command's end (:func:`tierlock.environment.end_early`) ends and reaps that process, also in a process that runs
    commands one after the other (``tierlock.cli.main`` called in-process), and the next command never takes it."""
    from tierlock import cli

    ended: list[subprocess.Popen[str]] = []
    close = environment.Pending.close

    def noted(self: environment.Pending) -> None:
        if self._started is not None:
            ended.append(self._started)
        close(self)

    monkeypatch.setattr(environment.Pending, "close", noted)
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "pyproject.toml").write_text(
        '[project]\nname = "p"\nversion = "1"\n\n[tool.tierlock.tiers.brain]\nrequires = []\n', encoding="utf-8"
    )
    argv = ["--project", str(tmp_path / "proj"), "--json", "probe", "nosuch", "--python", str(venv)]
    for command in (1, 2):
        assert cli.main(argv) == 2
        assert environment._STARTED == {}, "ended with the command that started it"
        assert len(ended) == command
    first, second = ended
    assert second is not first
    for started in ended:
        assert started.returncode is not None, "reaped"
        assert started.pid not in subproc._live
