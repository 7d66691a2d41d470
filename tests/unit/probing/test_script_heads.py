"""The interpreter a console script's first line runs (``tierlock.probing.scriptheads``): pip's and uv's plain
``#!`` line and their ``/bin/sh`` trampoline; nothing for ``env``, a relative path, a shell expression (uv's
relocatable scripts) or a program that is no Python. And which scripts of a venv run another path's interpreter."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tierlock.probing.scriptheads import elsewhere, interpreter


@pytest.mark.parametrize(
    ("head", "path"),
    [
        (b"#!/srv/app/.venv/bin/python\n# -*- coding: utf-8 -*-\nimport re\n", "/srv/app/.venv/bin/python"),
        (b"#!/srv/app/.venv/bin/python3 -E\nimport sys\n", "/srv/app/.venv/bin/python3"),
        (b"#! /opt/v/bin/pypy3\n", "/opt/v/bin/pypy3"),
        (b"#!/srv/v/bin/python3.12\r\nimport sys\r\n", "/srv/v/bin/python3.12"),
        (
            b"#!/bin/sh\n'''exec' \"/a path/with space/bin/python\" \"$0\" \"$@\"\n' '''\n",
            "/a path/with space/bin/python",
        ),
        (b"#!/bin/sh\n'''exec' '/long/venv/bin/python3' \"$0\" \"$@\"\n' '''\n", "/long/venv/bin/python3"),
    ],
)
def test_the_interpreter_pip_and_uv_name_is_read_from_the_line_or_the_trampoline(head: bytes, path: str) -> None:
    assert interpreter(head) == path


@pytest.mark.parametrize(
    "head",
    [
        b"",
        b"\x7fELF\x02\x01",
        b"#!/usr/bin/env python3\n",
        b"#!python\n",
        b"#!/bin/bash\necho hi\n",
        b"#!/bin/sh\n'''exec' \"$(dirname -- \"$(realpath -- \"$0\")\")\"/'python' \"$0\" \"$@\"\n' '''\n",
        b"#!/bin/sh\necho not a trampoline\n",
        b"#!/bin/sh\n'''exec' \"unclosed\n",
        b"#!/bin/sh\n'''exec' \n",
        b"#!\n",
    ],
)
def test_a_line_that_names_no_absolute_python_is_not_judged(head: bytes) -> None:
    assert interpreter(head) is None


@given(st.binary(max_size=600))
def test_any_bytes_give_an_absolute_python_path_or_none(head: bytes) -> None:
    found = interpreter(head)
    assert found is None or (os.path.isabs(found) and os.path.basename(found).startswith(("python", "pypy", "graalpy")))


def _venv(folder: Path) -> Path:
    (folder / "bin").mkdir(parents=True)
    (folder / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    (folder / "bin" / "python").write_bytes(b"")
    return folder / "bin"


def test_only_a_venvs_scripts_naming_an_interpreter_outside_their_folder_are_named(tmp_path: Path) -> None:
    here = _venv(tmp_path / "new")
    old = _venv(tmp_path / "old")
    (here / "own").write_bytes(f"#!{here}/python\nimport tool\n".encode())
    (here / "other").write_bytes(f"#!{old}/python\nimport tool\n".encode())
    (here / "gone").write_bytes(f"#!{tmp_path}/gone/bin/python\nimport tool\n".encode())
    (here / "relocatable").write_bytes(b"#!/usr/bin/env python\n")
    linked = tmp_path / "linked"
    linked.symlink_to(tmp_path / "new")
    (here / "through-a-link").write_bytes(f"#!{linked}/bin/python\n".encode())
    names = ["own", "other", "gone", "relocatable", "through-a-link", "missing"]
    found = elsewhere([str(here / n) for n in names])
    assert found == [
        f"console script {here}/other runs {old}/python, another environment's interpreter: the environment was "
        f"moved or copied from {tmp_path}/old",
        f"console script {here}/gone runs {tmp_path}/gone/bin/python, which does not exist: the environment was "
        f"moved or copied from {tmp_path}/gone",
    ]


def test_scripts_outside_a_venv_are_not_judged(tmp_path: Path) -> None:
    folder = tmp_path / "local" / "bin"
    folder.mkdir(parents=True)
    (folder / "tool").write_bytes(b"#!/usr/bin/python3\nimport tool\n")
    (folder / "gone").write_bytes(f"#!{tmp_path}/nowhere/python3\n".encode())
    assert elsewhere([str(folder / "tool"), str(folder / "gone")]) == []


def test_a_fifo_where_a_script_was_is_never_waited_on(tmp_path: Path) -> None:
    here = _venv(tmp_path / "v")
    os.mkfifo(here / "tool")
    assert elsewhere([str(here / "tool")]) == []
