"""A receipt written by an interpreter of another machine (a venv shared between an arm64 host and an x86_64
container: the same ``venv/bin/python`` names another file on each) proves no no-op here; one written by this
interpreter does, and so does one written before receipts kept the machine."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from tests.support import binaries
from tests.unit.installer.test_installer_receipts import fake_env, write_receipt
from tierlock.installer import fastpath
from tierlock.installer.location import environment_key, machine_of


def _rewrite(path: Path, machine: object, *, drop: bool = False) -> None:
    doc = json.loads(path.read_text())
    if drop:
        del doc["interpreter"]["machine"]
    else:
        doc["interpreter"]["machine"] = machine
    path.write_text(json.dumps(doc))


def test_the_fast_path_holds_only_for_a_receipt_of_this_interpreters_machine(tmp_path: Path) -> None:
    prefix, site, project = fake_env(tmp_path)
    path = write_receipt(prefix, site, project).path
    python = str(prefix / "bin" / "python")
    own = machine_of(python)
    assert own is not None
    args = (["brain"], prefix, environment_key(prefix), project / "pyproject.toml")

    _rewrite(path, own)
    noop, why = fastpath.check(*args)
    assert noop is not None, why
    other = [own[0], own[1], 183 if own[2] != 183 else 62]
    _rewrite(path, other)
    noop, why = fastpath.check(*args)
    assert noop is None
    assert why == f"the receipt was written by an interpreter of another machine than {python}"
    _rewrite(path, None)  # written by an interpreter that is no ELF file: this one is
    assert fastpath.check(*args)[0] is None
    _rewrite(path, None, drop=True)  # a receipt written before the machine was kept
    noop, why = fastpath.check(*args)
    assert noop is not None, why


def test_the_machine_is_read_from_the_file_the_interpreter_links_to(tmp_path: Path) -> None:
    with open(os.path.realpath(sys.executable), "rb") as fh:
        own = fh.read(20)
    machine = int.from_bytes(own[18:20], "little") if own[5] == 1 else int.from_bytes(own[18:20], "big")
    assert machine_of(sys.executable) == [own[4], own[5], machine]
    real = tmp_path / "python3.99"
    (tmp_path / "python").symlink_to(real)
    real.write_bytes(binaries.elf(elf_class=1, little=False, machine=8))
    assert machine_of(str(tmp_path / "python")) == [1, 2, 8]
    real.write_bytes(binaries.elf(machine=183))
    assert machine_of(str(tmp_path / "python")) == [2, 1, 183]
    real.write_bytes(b'#!/bin/sh\nexec python3 "$@"\n')
    assert machine_of(str(tmp_path / "python")) is None  # a script
    real.write_bytes(binaries.elf()[:19])
    assert machine_of(str(tmp_path / "python")) is None  # cut short
    assert machine_of(str(tmp_path / "gone")) is None


def _relink(path: Path, real: object, *, drop: bool = False) -> None:
    doc = json.loads(path.read_text())
    if drop:
        doc["interpreter"].pop("real", None)
    else:
        doc["interpreter"]["real"] = real
    path.write_text(json.dumps(doc))


def test_the_fast_path_holds_only_while_the_venvs_interpreter_leads_to_the_file_it_led_to(tmp_path: Path) -> None:
    # A venv made by `python3 -m venv` links to the name python3; an upgrade moves that name to another version:
    # the venv's interpreter runs it, without the site folder the receipt's files are in.
    prefix, site, project = fake_env(tmp_path)
    path = write_receipt(prefix, site, project).path
    python = str(prefix / "bin" / "python")
    args = (["brain"], prefix, environment_key(prefix), project / "pyproject.toml")
    _relink(path, os.path.realpath(sys.executable))
    noop, why = fastpath.check(*args)
    assert noop is not None, why
    other = str(tmp_path / "python3.99")
    _relink(path, other)
    noop, why = fastpath.check(*args)
    assert noop is None
    assert why == f"{python} led to {other} when brain was installed; it leads to another interpreter now"
    _relink(path, None, drop=True)  # a receipt written before it was kept
    noop, why = fastpath.check(*args)
    assert noop is not None, why


def test_a_receipt_records_the_file_the_venvs_interpreter_leads_to_and_is_written_again_when_it_changes(
    tmp_path: Path,
) -> None:
    from tierlock.installer.receiptrecord import _same

    prefix, site, project = fake_env(tmp_path)
    receipt = write_receipt(prefix, site, project)
    kept = dict(receipt.data["interpreter"])
    wanted = {
        "lockfiles": receipt.lockfile_paths,
        "pyproject": receipt.pyproject,
        "environment": kept["environment"],
        "interpreter": kept,
        "left_out": receipt.data.get("left_out"),
        "without_project": bool(receipt.data.get("without_project")),
    }
    packages = receipt.packages
    assert receipt.data.get("shared_objects_dated")
    assert _same(receipt, wanted, packages)
    wanted["interpreter"] = {**kept, "real": str(tmp_path / "python3.99")}
    assert not _same(receipt, wanted, packages)
