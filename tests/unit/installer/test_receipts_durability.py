"""How durable a receipt is: replaced whole by a rename (any interrupt leaves the old one or the new one, never a
part), not flushed to the disk (an fsync right after a backend's install waits for the journal to take all of its
files); what a crash of the machine can leave instead (nothing, an empty file, zeros) is no receipt."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.venvshape import armed, project
from tierlock.installer import fastpath, receipts
from tierlock.installer.location import environment_key


def test_a_receipt_is_replaced_by_a_rename_without_waiting_for_the_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", synced.append)
    document = {"schema": receipts.SCHEMA, "tier": "brain", "packages": []}
    path = receipts.write(tmp_path, document)
    assert synced == []
    assert receipts.load(path) is not None
    assert [p.name for p in path.parent.iterdir()] == ["brain.json"], "no temporary file left"


@pytest.mark.parametrize("left", ["gone", "", "\x00" * 512], ids=["gone", "empty", "zeros"])
def test_what_a_crash_can_leave_of_a_receipt_sends_the_install_the_full_way(tmp_path: Path, left: str) -> None:
    venv = tmp_path / "venv"
    armed(venv, project(tmp_path / "proj"))
    path = receipts.receipt_path(venv, "brain")
    if left == "gone":
        path.unlink()
    else:
        path.write_text(left, encoding="utf-8")
    assert receipts.load(path) is None
    noop, why = fastpath.check(["brain"], venv, environment_key(venv), tmp_path / "proj" / "pyproject.toml")
    assert noop is None
    assert why == f"no receipt for brain in {venv}"
