"""Whether a project environment folder is whole, and the command that makes it whole (files only).

What a killed ``uv venv`` or ``python -m venv`` leaves, a dangling symlink, a
folder without ``pyvenv.cfg``: each is named, and the command recreates it
over itself when its ``pyvenv.cfg`` names an interpreter that is still there,
else deletes it (install-tier then creates it afresh).
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import pytest

from tierlock.environment import base_of
from tierlock.installer.location import incomplete, recreate_command
from tierlock.venvbase import version_run


def _venv(folder: Path, cfg: str | None = None, *, python: bool = True, site: bool = True) -> Path:
    (folder / "bin").mkdir(parents=True)
    home = Path(sys.base_prefix) / "bin"
    version = ".".join(str(v) for v in sys.version_info[:3])
    (folder / "pyvenv.cfg").write_text(cfg if cfg is not None else f"home = {home}\nversion_info = {version}\n")
    if python:
        (folder / "bin" / "python").symlink_to(sys.executable)
    if site:
        (folder / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages").mkdir(parents=True)
    return folder


def test_a_whole_venv_a_missing_folder_and_an_empty_one_are_not_incomplete(tmp_path: Path) -> None:
    assert incomplete(str(_venv(tmp_path / "whole"))) is None
    assert incomplete(str(tmp_path / "nothing")) is None
    (tmp_path / "empty").mkdir()
    assert incomplete(str(tmp_path / "empty")) is None


def test_each_incomplete_shape_is_named(tmp_path: Path) -> None:
    (tmp_path / "dangling").symlink_to("gone/venv")
    assert (
        incomplete(str(tmp_path / "dangling")) == f"is a symlink to {tmp_path / 'gone' / 'venv'}, which does not exist"
    )
    (tmp_path / "file").write_text("x")
    assert incomplete(str(tmp_path / "file")) == "is not a folder"
    (tmp_path / "nocfg").mkdir()
    (tmp_path / "nocfg" / "CACHEDIR.TAG").write_text("")
    assert incomplete(str(tmp_path / "nocfg")).startswith("has no pyvenv.cfg")  # type: ignore[union-attr]
    assert incomplete(str(_venv(tmp_path / "nopython", python=False))).startswith(  # type: ignore[union-attr]
        f"has no interpreter ({os.path.join('bin', 'python')} is missing"
    )
    assert incomplete(str(_venv(tmp_path / "nosite", site=False))) == (
        "has no site-packages folder (its creation was interrupted)"
    )
    (tmp_path / "linked").symlink_to(tmp_path / "nosite")
    assert incomplete(str(tmp_path / "linked")) == "has no site-packages folder (its creation was interrupted)"


def test_the_command_recreates_over_itself_with_the_interpreter_its_cfg_names_else_deletes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    venv = _venv(tmp_path / "my venv", python=False)
    base = base_of(venv)
    assert base is not None
    assert Path(base).name == f"python{sys.version_info[0]}.{sys.version_info[1]}"
    assert recreate_command(str(venv)) == shlex.join([base, "-m", "venv", "--without-pip", str(venv)])
    gone = _venv(tmp_path / "gone-base", f"home = /nonexistent/bin\nversion = {sys.version.split()[0]}\n")
    same = tmp_path / "elsewhere" / f"python{sys.version_info[0]}.{sys.version_info[1]}"  # its base moved: one on
    same.parent.mkdir()  # PATH runs what it holds ... once it runs: a script that says nothing is no Python
    same.write_text("#!/bin/sh\n", encoding="utf-8")
    same.chmod(0o755)
    monkeypatch.setenv("PATH", str(same.parent))
    assert recreate_command(str(gone)) == shlex.join(["rm", "-rf", str(gone)])
    same.unlink()
    same.symlink_to(os.path.realpath(sys.executable))
    assert recreate_command(str(gone)) == shlex.join([str(same), "-m", "venv", "--without-pip", str(gone)])
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert recreate_command(str(gone)) == shlex.join(["rm", "-rf", str(gone)])
    assert version_run(str(tmp_path / "nowhere" / same.name)) is None  # (not there: nothing to ask)
    (tmp_path / "nocfg").mkdir()
    assert recreate_command(str(tmp_path / "nocfg")) == shlex.join(["rm", "-rf", str(tmp_path / "nocfg")])


def test_the_base_is_read_from_either_spelling_of_the_version_and_python3_serves_without_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = Path(sys.base_prefix) / "bin"
    minor = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    assert base_of(_venv(tmp_path / "a", f"home = {home}\nversion = {sys.version.split()[0]}\n")) == str(home / minor)
    assert base_of(_venv(tmp_path / "b", f"Home={home}\n")) == str(home / "python3")
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert base_of(_venv(tmp_path / "c", "version = 3.11\n")) is None  # no home, no python3.11 on PATH
    assert base_of(tmp_path / "none") is None
