"""The no-op fast path vouches for a shared object by its size and the time it was written: the probe reads inside
such a file (what it needs, whether this machine loads it), which another build's file of the same size changes.
A receipt of sizes alone answered the probe's own fix ``install-tier`` with "already present" (files only)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.venvshape import armed, project
from tierlock.installer import fastpath, receipts
from tierlock.installer.location import environment_key

SITE = Path("lib/python3.11/site-packages")


@pytest.fixture
def venv(tmp_path: Path) -> Path:
    armed(tmp_path / "venv", project(tmp_path / "proj"))
    return tmp_path / "venv"


def check(venv: Path) -> tuple[fastpath.NoOp | None, str]:
    return fastpath.check(["brain"], venv, environment_key(venv), venv.parent / "proj" / "pyproject.toml")


def test_a_shared_objects_row_carries_when_it_was_written_and_the_others_do_not(venv: Path) -> None:
    doc = json.loads(receipts.receipt_path(venv, "brain").read_text(encoding="utf-8"))
    written = (venv / SITE / "pkg" / "_core.so").stat().st_mtime_ns
    rows = doc["packages"][0]["files"]
    assert rows[:2] == [["pkg/__init__.py", 6], ["pkg/_core.so", 64, written]]
    assert [len(row) for row in rows[2:]] == [2]  # METADATA
    assert doc[receipts.STAMPED] is True
    noop, why = check(venv)
    assert noop is not None, why


@pytest.mark.parametrize("how", ["another file of the same size", "written in place", "a time set back"])
def test_a_shared_object_written_again_at_its_size_is_no_noop(venv: Path, tmp_path: Path, how: str) -> None:
    core = venv / SITE / "pkg" / "_core.so"
    before = core.stat()
    if how == "another file of the same size":  # cp -p of another build: its own time, not the armed file's
        other = tmp_path / "other.so"
        other.write_bytes(b"\1" * 64)
        os.utime(other, ns=(before.st_atime_ns, before.st_mtime_ns - 10**9))
        core.unlink()
        other.rename(core)
    elif how == "written in place":  # dd conv=notrunc
        with open(core, "r+b") as fh:
            fh.write(b"\1" * 4)
        os.utime(core, ns=(before.st_atime_ns, before.st_mtime_ns + 1))
    else:
        os.utime(core, ns=(before.st_atime_ns, before.st_mtime_ns - 1))
    assert core.stat().st_size == before.st_size
    assert check(venv) == (None, "pkg: pkg/_core.so was written again since it was armed")


def test_a_plain_files_time_is_not_looked_at(venv: Path) -> None:
    """Only what the probe reads inside is dated: a .py file touched (an editor, a checkout) keeps the no-op."""
    init = venv / SITE / "pkg" / "__init__.py"
    os.utime(init, ns=(0, init.stat().st_mtime_ns + 10**9))
    noop, why = check(venv)
    assert noop is not None, why


def test_a_receipt_an_older_tierlock_wrote_is_no_noop(venv: Path) -> None:
    """Written before shared objects were dated: it vouches for sizes only, so the first run goes the full way (which
    writes it again, dated: tests/unit/installer/test_receipts_refresh.py)."""
    path = receipts.receipt_path(venv, "brain")
    doc = json.loads(path.read_text(encoding="utf-8"))
    del doc[receipts.STAMPED]
    doc["packages"][0]["files"] = [row[:2] for row in doc["packages"][0]["files"]]
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert check(venv) == (None, "the receipt of brain does not date its shared objects (written by an older tierlock)")


@pytest.mark.parametrize(
    ("rel", "shared"),
    [
        ("pkg/_core.cpython-312-x86_64-linux-gnu.so", True),
        ("pkg.libs/libjpeg-8a13c6e0.so.62.4.0", True),
        ("pkg/_core.pyd", True),
        ("pkg/libz.dylib", True),
        ("pkg/z.dll", True),
        ("pkg/__init__.py", False),
        ("pkg/so.txt", False),
        ("pkg.so/__init__.py", False),
        ("pkg/data.so.json.txt", True),
    ],
)
def test_which_files_are_shared_objects(rel: str, shared: bool) -> None:
    assert receipts.shared_object(rel) is shared


def test_a_dated_row_is_a_recorded_path_like_any_other(venv: Path) -> None:
    """(What install-tier reads to tell its own files from others': a shared object's row of three counts too.)"""
    receipt = receipts.load(receipts.receipt_path(venv, "brain"))
    assert receipt is not None
    assert receipts.recorded_paths(venv, [receipt]) == {
        str(venv / SITE / rel) for rel in ("pkg/__init__.py", "pkg/_core.so", "pkg-1.0.dist-info/METADATA")
    }
