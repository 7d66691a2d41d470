"""The no-op fast path and a compiled file written in place after its receipt, its size and time put back.

``cp -p`` of a same-size build of another version onto an installed extension keeps its inode, size and
modification time: the sizes the receipt records still hold, but the probe, which reads the file's header and what
it needs, may say partial. Only the time the file's status last changed moved, and it is later than the receipt: the
fast path steps aside (the full path probes). A module changed so is what the probe sees by its size alone: the
fast path keeps vouching, as the probe does. A receipt dated later than the clock proves nothing.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from tests.unit.installer.test_installer_receipts import fake_env, write_receipt
from tierlock.installer import fastpath, receiptfiles, receiptrecord, receipts
from tierlock.installer.location import environment_key


def _args(prefix: Path, project: Path) -> tuple[list[str], Path, str, Path]:
    return (["brain"], prefix, environment_key(prefix), project / "pyproject.toml")


def _in_place(path: Path) -> None:
    """Write *path* in place with other bytes of its size, its modification time put back (``cp -p``), after the
    clock's tick that wrote the receipt."""
    time.sleep(0.02)
    was = path.stat()
    data = path.read_bytes()
    with open(path, "r+b") as fh:
        fh.write(data[:-1] + bytes([data[-1] ^ 1]))
    os.utime(path, ns=(was.st_atime_ns, was.st_mtime_ns))
    now = path.stat()
    assert (now.st_ino, now.st_size, now.st_mtime_ns) == (was.st_ino, was.st_size, was.st_mtime_ns)


def test_a_compiled_file_written_in_place_after_the_receipt_proves_no_noop(tmp_path: Path) -> None:
    prefix, site, project = fake_env(tmp_path)
    write_receipt(prefix, site, project)
    noop, why = fastpath.check(*_args(prefix, project))
    assert noop is not None, why
    _in_place(site / "pkg" / "_core.so")
    noop, why = fastpath.check(*_args(prefix, project))
    assert noop is None
    assert why == "pkg: pkg/_core.so changed since the receipt was written"


def test_a_module_written_in_place_is_what_the_probe_sees_by_its_size_and_the_noop_holds(tmp_path: Path) -> None:
    prefix, site, project = fake_env(tmp_path)
    write_receipt(prefix, site, project)
    _in_place(site / "pkg" / "__init__.py")
    noop, why = fastpath.check(*_args(prefix, project))
    assert noop is not None, why
    assert noop.files == 4


def test_a_receipt_dated_later_than_the_clock_proves_nothing(tmp_path: Path) -> None:
    prefix, site, project = fake_env(tmp_path)
    path = write_receipt(prefix, site, project).path
    ahead = time.time() + 3600
    os.utime(path, (ahead, ahead))
    assert receiptfiles.written_at(str(path)) is None
    noop, why = fastpath.check(*_args(prefix, project))
    assert noop is None
    assert why == "the receipt of brain is dated later than this machine's clock (set back since?)"
    os.utime(path, (ahead - 7200, ahead - 7200))
    assert receiptfiles.written_at(str(path)) == path.stat().st_mtime_ns
    assert receiptfiles.written_at(str(tmp_path / "none.json")) is None


def test_only_a_compiled_file_there_whose_status_changed_after_the_receipt_counts(tmp_path: Path) -> None:
    prefix, site, project = fake_env(tmp_path)
    path = write_receipt(prefix, site, project).path
    packages = json.loads(path.read_text())["packages"]
    written = path.stat().st_mtime_ns
    assert not receiptfiles.compiled_changed(packages, str(prefix), written)
    _in_place(site / "pkg" / "__init__.py")
    assert not receiptfiles.compiled_changed(packages, str(prefix), written)  # no compiled file
    assert receiptfiles.compiled_changed(packages, str(prefix), 0)  # every file is newer than that
    _in_place(site / "pkg" / "_core.so")
    assert receiptfiles.compiled_changed(packages, str(prefix), written)
    (site / "pkg" / "_core.so").unlink()  # gone: the probe says so, not this
    assert not receiptfiles.compiled_changed(packages, str(prefix), 0)


def test_a_receipt_that_says_the_same_is_written_again_only_when_older_than_a_compiled_file(tmp_path: Path) -> None:
    prefix, site, project = fake_env(tmp_path)
    receipt = write_receipt(prefix, site, project)

    class Target:  # (what _dated reads of the target)
        pass

    target = Target()
    target.prefix = prefix  # type: ignore[attr-defined]
    assert receiptrecord._dated(receipt, target)  # type: ignore[arg-type]
    _in_place(site / "pkg" / "_core.so")
    assert not receiptrecord._dated(receipt, target)  # type: ignore[arg-type]
    rewritten = receipts.load(receipts.write(prefix, dict(receipt.data)))
    assert rewritten is not None
    assert receiptrecord._dated(rewritten, target)  # type: ignore[arg-type]
    ahead = time.time() + 3600
    os.utime(rewritten.path, (ahead, ahead))
    assert not receiptrecord._dated(rewritten, target)  # type: ignore[arg-type]
