"""A FIFO standing where an installed file was: every command says what is wrong and ends, and the printed fix
repairs it, run exactly as printed, with uv and with pip.

Before, ``tierlock probe``/``status``/``admit`` (and a recorded run's end, digesting what it opened) waited on the
FIFO forever; once tierlock no longer did, the backend did: uv and pip read RECORD to uninstall the package they
repair. ``install-tier`` now deletes, in the ``.dist-info`` folder of a package it repairs, what no installer writes
there (a FIFO, a socket, a device), and says so with ``-v``.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

from tests.cli.test_rewritten_in_place_remedy import Scene
from tests.support.env import site_packages
from tests.support.native import needs_compiler

pytestmark = [needs_compiler, pytest.mark.slow, pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")]


RECORD = "corelib-1.0.dist-info/RECORD"
#: pip will not uninstall a package without RECORD (``uninstall-no-record-file``), and the FIFO deleted is one: the
#: state a RECORD deleted by hand leaves, whose pip repair this change does not take on.
PIP_WITHOUT_RECORD = pytest.mark.xfail(strict=True, reason="pip refuses to uninstall a package without RECORD")


@pytest.mark.parametrize(
    ("backend", "where"),
    [
        ("uv", RECORD),
        pytest.param("pip", RECORD, marks=PIP_WITHOUT_RECORD),
        *((backend, where) for backend in ("uv", "pip") for where in ("corelib-1.0.dist-info/METADATA", "extension")),
    ],
)
def test_a_fifo_in_place_of_an_installed_file_is_said_and_the_printed_fix_repairs_it(
    tmp_path: Path, backend: str, where: str
) -> None:
    scene = Scene(tmp_path, backend)
    path = scene.file("_native*.so") if where == "extension" else site_packages(scene.venv) / where
    path.unlink()
    os.mkfifo(path)
    probe = ["tierlock", "probe", "brain", "--python", str(scene.python)]
    for argv in (probe, [*probe, "--deep"], ["tierlock", "admit", "--tier", "brain", "--python", str(scene.python)]):
        for _kept in range(2):  # (recorded, then answered from what was kept)
            ran = scene.run(*argv)
            assert ran.returncode == 1, ran.stdout + ran.stderr
            assert "corelib" in ran.stdout
    said = scene.run(*probe).stdout
    assert f"brain is partial; to fix: {scene.fix}" in said
    repaired = scene.run(*shlex.split(scene.fix), "-v")
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert scene.imports().stdout.split() == ["0", "1"]
    assert scene.run(*probe).returncode == 0
    assert not path.exists() or path.is_file()
    assert "already present" in scene.run(*shlex.split(scene.fix)).stdout
