# ruff: noqa: F811  (pytest fixtures imported from the installer's end-to-end tests are redefined as parameters)
"""The ``.dist-info`` folders read while the backend installs give the verdict the slow path gives.

Every arming here runs twice into its own copy of the same empty venv: with the thread that reads each
finished ``.dist-info`` folder while the backend runs (:mod:`tierlock.installer.ahead`), and without it
(the slow path: every folder read after the backend). The answers must be the same, exit code and what
the error says, when the backend (real uv behind a wrapper) changes a folder after the thread read it:
RECORD rewritten with the same size, INSTALLER deleted, an extension module deleted; after an interrupted
arming, with uv and with pip; and for a target of another Python (its own extension suffixes).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_install_cli import (  # noqa: F401  (fixtures shared with the installer's end-to-end tests)
    Kit,
    World,
    empty_venv,
    kit,
    uv_cache,
    wheel_dir,
    wheels,
    world,
)
from tests.support.interpreters import crypto_wheels, interpreter, make_venv_with
from tests.support.tierproject import write_lock, write_pyproject
from tierlock.installer import ahead
from tierlock.probing import distinfo

pytestmark = pytest.mark.slow

#: What the wrapper does to the site folder once the thread has read every folder (``none``: nothing).
TAMPER = r"""
import os, sys
site, how = sys.argv[1], sys.argv[2]
info = os.path.join(site, "helper-1.0.dist-info")
if how == "record-same-size":  # helper/data.txt's recorded size 1 -> 2: the file now differs from RECORD
    path = os.path.join(info, "RECORD")
    text = open(path).read()
    assert "helper/data.txt,sha256=" in text
    rows = [r.rsplit(",", 1)[0] + ",2" if r.startswith("helper/data.txt,") else r for r in text.split("\n")]
    open(path, "w").write("\n".join(rows))
elif how == "installer-gone":
    os.remove(os.path.join(info, "INSTALLER"))
elif how == "extension-gone":
    for name in os.listdir(os.path.join(site, "corelib")):
        if name.endswith(".so"):
            os.remove(os.path.join(site, "corelib", name))
"""

WRAPPER = """#!/bin/sh
"{uv}" "$@"; code=$?
[ "$1 $2" = "pip install" ] || exit $code
i=0
while [ ! -e "{ready}" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
"{python}" "{tamper}" "$TAMPER_SITE" "{how}"
exit $code
"""


class Ahead:
    """Counts what the thread read and the verification took; makes a file once it read every folder."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, ready: Path, folders: int) -> None:
        self.prepared: list[str] = []
        self.taken: list[str] = []
        real_prepare, real_prepared = distinfo.prepare, distinfo._prepared

        def prepare(info: Any, suffixes: tuple[str, ...]) -> bool:
            done = real_prepare(info, suffixes)
            if done:
                self.prepared.append(os.path.basename(info.path))
                if len(self.prepared) >= folders:
                    ready.touch()
            return done

        def prepared(held_facts: Any, path: str, key: tuple[object, ...]) -> Any:
            facts = real_prepared(held_facts, path, key)
            if facts is not None:
                self.taken.append(os.path.basename(path))
            return facts

        monkeypatch.setattr(distinfo, "prepare", prepare)
        monkeypatch.setattr(distinfo, "_prepared", prepared)


def _slow(monkeypatch: pytest.MonkeyPatch) -> None:
    """No reading while the backend runs: every folder is read after it (the slow path)."""
    monkeypatch.setattr(ahead.Ahead, "look", lambda self: None)


def _arm(world: World, kit: Kit, name: str, *args: str) -> tuple[int, str, Any]:
    """Arm brain into a fresh copy of the empty venv *name*: (exit code, stderr with the venv's path named V,
    the JSON document without durations and paths)."""
    world.venv = world.venv.parent / name
    shutil.copytree(kit.empty_venv, world.venv, symlinks=True)
    run = world.install("brain", *args)
    doc = json.loads(run.out.replace(str(world.venv), "V"))
    for key in ("duration_s", "backend_s", "backend_version"):
        doc.pop(key, None)
    doc.get("error", {}).pop("duration_s", None)
    return run.code, run.err.replace(str(world.venv), "V"), doc


def _wrapper(world: World, how: str, ready: Path) -> Path:
    """uv behind a script that, after a successful install, waits for *ready* and then changes the site folder
    ``$TAMPER_SITE`` as *how* says."""
    script = world.root.parent / "tamper.py"
    script.write_text(TAMPER)
    path = world.root.parent / f"uv-{how}"
    uv = Path(sys.executable).parent / "uv"
    path.write_text(WRAPPER.format(uv=uv, ready=ready, python=sys.executable, tamper=script, how=how))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.mark.parametrize("how", ["none", "record-same-size", "installer-gone", "extension-gone"])
def test_a_folder_changed_after_the_thread_read_it_gets_the_slow_paths_verdict(
    world: World, kit: Kit, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    ready = world.root.parent / "ready"
    monkeypatch.setenv("TIERLOCK_UV", str(_wrapper(world, how, ready)))
    answers = []
    for name, fast in (("fast", True), ("slow", False)):
        ready.unlink(missing_ok=True)
        with monkeypatch.context() as m:
            if fast:
                seen = Ahead(m, ready, folders=3)
            else:
                _slow(m)
                ready.touch()  # nothing to wait for
            m.setenv("TAMPER_SITE", str(world.venv.parent / name / world.site.relative_to(world.venv)))
            answers.append(_arm(world, kit, name, "--backend", "uv"))
    (code, err, doc), slow = answers
    assert (code, err, doc) == slow
    assert code == (0 if how == "none" else 3), err
    assert sorted(seen.prepared) == ["basepkg-1.0.dist-info", "corelib-1.0.dist-info", "helper-1.0.dist-info"]
    if how in ("record-same-size", "installer-gone"):  # the changed folder is read again after the backend
        assert sorted(seen.taken) == ["basepkg-1.0.dist-info", "corelib-1.0.dist-info"]
    else:
        assert sorted(seen.taken) == sorted(seen.prepared)


@pytest.mark.parametrize("backend", ["uv", "pip"])
def test_an_interrupted_arming_armed_again_gets_the_slow_paths_verdict_and_files(
    world: World, kit: Kit, monkeypatch: pytest.MonkeyPatch, backend: str
) -> None:
    answers = []
    for name, fast in (("fast", True), ("slow", False)):
        with monkeypatch.context() as m:
            if not fast:
                _slow(m)
            code, _err, _doc = _arm(world, kit, name, "--backend", backend)
            assert code == 0
            # What an interrupted backend leaves: a folder without its INSTALLER (written last), an extension gone.
            (world.site / "helper-1.0.dist-info" / "INSTALLER").unlink()
            next((world.site / "corelib").glob("*.so")).unlink()
            (world.venv / "tierlock" / "receipts" / "brain.json").unlink()
            answers.append(_arm_again(world, "--backend", backend))
            probe = world.probe()
            assert probe.state == "present", (answers[-1], probe.to_dict())
    assert answers[0] == answers[1]
    assert answers[0][0] == 0


def _arm_again(world: World, *args: str) -> tuple[int, Any]:
    run = world.install("brain", *args)
    doc = json.loads(run.out.replace(str(world.venv), "V"))
    return run.code, {k: v for k, v in doc.items() if k not in ("duration_s", "backend_s", "backend_version")}


@pytest.fixture
def other_python(tmp_path: Path, kit: Kit, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A project locking cffi and cryptography built for Python 3.12 (its extension suffix), and that Python."""
    target = interpreter("3.12.1")
    dest = tmp_path / "wheels312"
    built = crypto_wheels(dest, target)
    root = tmp_path / "proj312"
    write_pyproject(root, base=[], brain=["cryptography>=44"])
    write_lock(root, "base", [])
    pins = [("cffi", "1.17.1", built["cffi"]), ("cryptography", "44.0.0", built["cryptography"])]
    write_lock(root, "brain", pins)
    for key, value in (("UV_FIND_LINKS", str(dest)), ("PIP_FIND_LINKS", str(dest))):
        monkeypatch.setenv(key, value)
    return root, target.python


@pytest.mark.parametrize("backend", ["uv", "pip"])
def test_a_target_of_another_python_gets_the_slow_paths_verdict(
    world: World, other_python: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, backend: str
) -> None:
    root, python = other_python
    world.root = root  # the world's own project stays as it was (its teardown checks it)
    answers = []
    for name, fast in (("fast", True), ("slow", False)):
        with monkeypatch.context() as m:
            if fast:
                seen = Ahead(m, root.parent / "ready", folders=2)
                if backend == "uv":  # held until the thread read both folders (uv alone can end before its first look)
                    m.setenv("TIERLOCK_UV", str(_wrapper(world, "none", root.parent / "ready")))
            else:
                _slow(m)
            world.venv = root.parent / name
            make_venv_with(python, world.venv)
            answers.append(_arm_again(world, "--backend", backend))
            assert answers[-1][0] == 0, answers[-1]
            assert world.probe().state == "present"
            next(world.site.glob("_cffi_backend*.so")).unlink()  # then a deleted extension is found
            assert world.probe().state != "present"
    assert answers[0] == answers[1]
    assert answers[0][0] == 0, answers[0]
    assert sorted(seen.prepared) == ["cffi-1.17.1.dist-info", "cryptography-44.0.0.dist-info"]
    assert sorted(seen.taken) == sorted(seen.prepared)
