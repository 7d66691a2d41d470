"""The receipts folder as files: which receipts are read, which leftovers of a killed write are deleted."""

from __future__ import annotations

import json
from pathlib import Path

from tierlock.installer import receipts


def _write(prefix: Path, name: str, tier: str | None) -> Path:
    folder = receipts.receipts_dir(prefix)
    folder.mkdir(parents=True, exist_ok=True)
    doc: dict[str, object] = {"schema": receipts.SCHEMA, "packages": []}
    if tier is not None:
        doc["tier"] = tier
    path = folder / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_load_all_reads_every_receipt_by_its_tier_and_skips_hidden_and_other_files(tmp_path: Path) -> None:
    _write(tmp_path, "brain.json", "brain")
    _write(tmp_path, "named-by-file.json", None)  # no tier field: named after its file
    _write(tmp_path, ".brain.json.1234.tmp", "ghost")  # a killed write's temporary file
    _write(tmp_path, ".hidden.json", "hidden")
    _write(tmp_path, "notes.txt", "notes")
    (receipts.receipts_dir(tmp_path) / "broken.json").write_text("{", encoding="utf-8")
    assert sorted(receipts.load_all(tmp_path)) == ["brain", "named-by-file"]


def test_load_all_of_an_environment_without_receipts_is_empty(tmp_path: Path) -> None:
    assert receipts.load_all(tmp_path) == {}


def test_clean_temporary_deletes_only_the_hidden_tmp_files_of_killed_writes(tmp_path: Path) -> None:
    kept = [_write(tmp_path, "brain.json", "brain"), _write(tmp_path, "brain.tmp", "x"), _write(tmp_path, ".keep", "y")]
    left = [_write(tmp_path, ".brain.json.1.tmp", "brain"), _write(tmp_path, ".base.json.2.tmp", "base")]
    assert sorted(receipts.clean_temporary(tmp_path)) == sorted(p.name for p in left)
    assert all(p.exists() for p in kept)
    assert not any(p.exists() for p in left)
    assert receipts.clean_temporary(tmp_path) == []


def test_clean_temporary_of_an_environment_without_receipts_deletes_nothing(tmp_path: Path) -> None:
    assert receipts.clean_temporary(tmp_path) == []
