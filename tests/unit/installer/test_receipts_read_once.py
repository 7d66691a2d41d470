"""A receipt is read once per command by its identity: asked again, the same bytes are not parsed again, and a
receipt rewritten between two asks (same size, mtime put back) is read again and its new content seen."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tierlock.installer import receipts


def _write(prefix: Path, tier: str, stamp: str) -> Path:
    path = receipts.receipt_path(prefix, tier)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"schema": receipts.SCHEMA, "tier": tier, "installed_at": stamp}))
    return path


def _count_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    original = Path.read_bytes

    def counted(self: Path) -> bytes:
        seen.append(self.name)
        return original(self)

    monkeypatch.setattr(Path, "read_bytes", counted)
    return seen


@pytest.fixture(autouse=True)
def _nothing_read() -> None:
    receipts._LOADED.clear()


def _settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Receipts written a while ago: the tick of the clock (a few ms) passed, none is too recent to keep."""
    time.sleep(0.03)
    monkeypatch.setattr(receipts, "_RACY_NS", 10_000_000)


def test_every_receipt_is_read_once_however_often_the_command_asks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(tmp_path, "pandas", "2026-01-01T00:00:00")
    _write(tmp_path, "polars", "2026-01-01T00:00:00")
    _settled(monkeypatch)
    seen = _count_reads(monkeypatch)
    for _ in range(10):
        assert sorted(receipts.load_all(tmp_path)) == ["pandas", "polars"]
        assert receipts.load_tier(tmp_path, "pandas") is not None
    assert sorted(seen) == ["pandas.json", "polars.json"]


@pytest.mark.parametrize("settled", [True, False], ids=["written-a-while-ago", "written-just-now"])
def test_a_receipt_rewritten_with_the_same_size_and_mtime_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settled: bool
) -> None:
    path = _write(tmp_path, "pandas", "2026-01-01T00:00:00")
    if settled:
        _settled(monkeypatch)
    before = os.stat(path)
    assert receipts.load_all(tmp_path)["pandas"].installed_at == "2026-01-01T00:00:00"
    _write(tmp_path, "pandas", "2026-09-09T09:09:09")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(path).st_size == before.st_size
    assert receipts.load_all(tmp_path)["pandas"].installed_at == "2026-09-09T09:09:09"
    assert receipts.load_tier(tmp_path, "pandas").installed_at == "2026-09-09T09:09:09"  # type: ignore[union-attr]


def test_a_receipt_deleted_or_broken_after_it_was_read_is_no_receipt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(tmp_path, "pandas", "2026-01-01T00:00:00")
    _write(tmp_path, "polars", "2026-01-01T00:00:00")
    _settled(monkeypatch)
    assert sorted(receipts.load_all(tmp_path)) == ["pandas", "polars"]
    path.unlink()
    assert sorted(receipts.load_all(tmp_path)) == ["polars"]
    assert receipts.load_tier(tmp_path, "pandas") is None
    receipts.receipt_path(tmp_path, "polars").write_text("{not json")
    assert receipts.load_all(tmp_path) == {}


def test_the_receipts_kept_stay_bounded_and_each_is_still_right(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(5):
        _write(tmp_path / f"env{n}", "pandas", f"2026-01-0{n + 1}T00:00:00")
    _settled(monkeypatch)
    monkeypatch.setattr(receipts, "_KEPT", 2)
    for _ in range(2):
        for n in range(5):
            assert receipts.load_tier(tmp_path / f"env{n}", "pandas").installed_at == f"2026-01-0{n + 1}T00:00:00"  # type: ignore[union-attr]
            assert len(receipts._LOADED) <= 2


def test_a_receipt_changed_within_the_clocks_tick_is_not_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file system whose times move by ticks can rewrite a receipt in place without changing its identity: one
    changed less than ``_RACY_NS`` ago is read again at every ask; one changed before that is kept."""
    fresh = _write(tmp_path, "pandas", "2026-01-01T00:00:00")
    assert receipts.load(fresh) is not None
    assert fresh not in receipts._LOADED
    _settled(monkeypatch)
    assert receipts.load(fresh) is not None
    assert fresh in receipts._LOADED
