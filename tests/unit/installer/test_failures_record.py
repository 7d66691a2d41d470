"""The record of a failed install (``<prefix>/tierlock/failures/<tier>.json``): written for each tier of the run,
read back as written, marked when it failed at the project's tree, forgotten on success. Files only."""

from __future__ import annotations

import json
from pathlib import Path

from tierlock.installer import failures


def test_a_failure_is_written_for_every_tier_and_read_back(tmp_path: Path) -> None:
    failures.write(tmp_path, ["base", "brain"], {"kind": "backend", "message": "m"})
    for tier in ("base", "brain"):
        record = failures.read(tmp_path, tier)
        assert record is not None
        assert (record["tiers"], record["error"]) == (["base", "brain"], {"kind": "backend", "message": "m"})
        assert "step" not in record
        assert record["failed_at"][:2] == "20"
    assert failures.failure_path(tmp_path, "brain") == tmp_path / "tierlock" / "failures" / "brain.json"


def test_a_failure_at_the_project_tree_is_marked(tmp_path: Path) -> None:
    failures.write(tmp_path, ["brain"], {"kind": "backend"}, step=failures.PROJECT_STEP)
    record = failures.read(tmp_path, "brain")
    assert record is not None
    assert record["step"] == "project-tree"


def test_a_cleared_failure_is_gone_and_others_stay(tmp_path: Path) -> None:
    failures.write(tmp_path, ["base", "brain"], {"kind": "backend"})
    failures.clear(tmp_path, ["brain", "never-failed"])
    assert failures.read(tmp_path, "brain") is None
    assert failures.read(tmp_path, "base") is not None


def test_an_unreadable_or_odd_record_reads_as_none(tmp_path: Path) -> None:
    path = failures.failure_path(tmp_path, "brain")
    path.parent.mkdir(parents=True)
    for text in ("{", "[]", json.dumps({"error": "x"}), json.dumps({"tiers": []})):
        path.write_text(text, encoding="utf-8")
        assert failures.read(tmp_path, "brain") is None


def test_a_record_that_cannot_be_written_is_only_a_lost_note(tmp_path: Path) -> None:
    (tmp_path / "tierlock").write_text("a file where the folder goes", encoding="utf-8")
    failures.write(tmp_path, ["brain"], {"kind": "backend"})
    assert failures.read(tmp_path, "brain") is None
