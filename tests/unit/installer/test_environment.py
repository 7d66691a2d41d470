"""The target environment: the in-process description and the one-subprocess inspection agree."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tierlock import environment, subproc, targetanswer
from tierlock.errors import UsageError


def test_inspecting_this_interpreter_gives_what_it_knows_about_itself() -> None:
    here = environment.current()
    asked = environment.inspect(sys.executable)
    assert dict(asked.marker_env) == dict(here.marker_env)
    for name in ("prefix", "base_prefix", "purelib", "platlib", "stdlib", "platform", "version"):
        assert getattr(asked, name) == getattr(here, name), name
    # The child runs isolated (-I): no PYTHONPATH, no script folder; pytest adds folders to this one's path.
    assert set(asked.paths) <= set(here.paths)
    assert asked.site_paths == tuple(p for p in here.site_paths if p in asked.paths)


def test_an_inspection_started_early_is_collected_once_by_resolve(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, ...]] = []
    monkeypatch.setattr(subproc, "observers", [lambda argv: seen.append(tuple(argv))])
    monkeypatch.setattr(environment, "_SEEN", {})  # nothing remembered from other tests
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", "")  # nor kept on disk by them
    pending = environment.start(sys.executable)
    assert pending is not None
    target = environment.resolve(sys.executable, pending=pending)
    assert target.prefix == Path(sys.prefix)
    assert len(seen) == 1


def test_an_early_start_nobody_collects_is_ended_and_reaped_when_the_command_ends(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """What :func:`environment.start_early` started for a command that ended before it asked (a usage error): the
    command's end (:func:`environment.end_early`, run by the CLI whatever the outcome) kills and reaps it."""
    held = tmp_path / "env" / "bin" / "python"
    held.parent.mkdir(parents=True)
    held.write_text("#!/bin/sh\nexec sleep 60\n")  # (an interpreter whose start-up never ends)
    held.chmod(0o755)
    monkeypatch.setattr(environment, "_SEEN", {})
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", "")
    monkeypatch.setattr(environment, "_STARTED", {})
    environment.start_early(held)
    (pending,) = environment._STARTED.values()
    proc = pending._started
    assert proc is not None
    assert proc.poll() is None
    environment.end_early()
    assert environment._STARTED == {}
    assert proc.returncode is not None  # killed and reaped
    assert proc.pid not in subproc._live
    environment.end_early()  # (nothing left: nothing done)


def test_nothing_is_started_for_the_running_interpreter_or_a_missing_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    assert environment.start(None) is None
    assert environment.start(tmp_path / "nope" / "python") is None
    with pytest.raises(UsageError, match="no interpreter at"):
        environment.resolve(tmp_path / "nope" / "python")


def test_one_interpreter_is_asked_once_until_its_site_folder_or_its_file_changes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from tests.support.env import make_venv

    python = make_venv(tmp_path / "venv")
    seen: list[tuple[str, ...]] = []
    monkeypatch.setattr(subproc, "observers", [lambda argv: seen.append(tuple(argv))])
    first = environment.inspect(python)
    assert environment.inspect(tmp_path / "venv") is first  # another spelling, the same interpreter
    asked = len(seen)
    assert asked <= 1  # none when a venv made like it was asked before (tierlock.targetcache.from_sibling)
    (first.purelib / "extra.pth").write_text(str(tmp_path / "elsewhere") + "\n")
    (tmp_path / "elsewhere").mkdir()
    again = environment.inspect(python)
    assert len(seen) == asked + 1
    assert tmp_path / "elsewhere" in again.paths


def test_a_console_script_of_an_environment_names_its_interpreter(tmp_path: Path) -> None:
    from tests.support.env import make_venv

    python = make_venv(tmp_path / "venv")
    script = python.parent / "tool"
    script.write_text("#!/bin/sh\n")
    assert environment.interpreter(script) == python
    assert environment.interpreter(python) == python
    assert environment.interpreter(tmp_path / "venv") == python
    loose = tmp_path / "elsewhere" / "bin" / "tool"  # (no environment around it)
    assert environment.interpreter(loose) == loose


def test_this_interpreter_is_described_again_when_its_import_path_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    before = environment.current()
    assert environment.current() is before
    monkeypatch.setattr(sys, "path", [*sys.path, "/nowhere/added"])
    after = environment.current()
    assert Path("/nowhere/added") in after.paths
    assert Path("/nowhere/added") not in before.paths


def test_a_sibling_venvs_answer_that_does_not_parse_is_not_taken(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from tests.support.env import make_venv
    from tierlock import targetcache

    python = make_venv(tmp_path / "venv")
    monkeypatch.setattr(environment, "_SEEN", {})
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(tmp_path / "cache"))
    fields = ["x"] * (targetanswer.HEAD + len(targetanswer.MARKERS) + targetanswer.FACTS)  # a version of no numbers
    monkeypatch.setattr(targetcache, "from_sibling", lambda exe, folders: "\0".join(fields))
    seen: list[tuple[str, ...]] = []
    monkeypatch.setattr(subproc, "observers", [lambda argv: seen.append(tuple(argv))])
    target = environment.inspect(python)
    assert len(seen) == 1  # asked
    assert target.python == python
    assert target.prefix == tmp_path / "venv"


def test_an_answer_with_an_empty_import_path_is_read_with_no_paths() -> None:
    head = ["/v/bin/python", "/v", "/usr", "/v/lib", "/v/lib", "/usr/lib", "linux-x86_64", "3.12.1"]
    facts = [".so\1.abi3.so", ".cpython-312-x86_64-linux-gnu.so", "2.39", "64"]
    answer = "\0".join([*head, *[f"m{i}" for i in range(len(targetanswer.MARKERS))], *facts])
    target = targetanswer.parse(Path("/v/bin/python"), answer)
    assert target.paths == ()
    assert target.version == (3, 12, 1)
    assert target.ext_suffixes == (".so", ".abi3.so")
    assert target.bits == 64
    with pytest.raises(UsageError, match="did not describe its environment"):
        targetanswer.parse(Path("/v/bin/python"), answer.rpartition("\0")[0])
