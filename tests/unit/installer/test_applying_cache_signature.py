"""Which damage after an install is uv's cache's (``applying._linked_and_resized``): a file of another size than
RECORD's that has another link (the cache's copy, written in place through a link of another environment). A file
of another size with no other link, one of the right size, one RECORD gives no size, or one missing is not."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, cast

from tierlock.installer.applying import _linked_and_resized

if TYPE_CHECKING:
    from tierlock.probing import DistributionProbe


def _probe(*rows: tuple[Path, int | None]) -> DistributionProbe:
    return cast("DistributionProbe", SimpleNamespace(records=[(str(p), p.name, size, None) for p, size in rows]))


def _linked(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    os.link(path, tmp_path / f"cache-{name}")  # one more link: two in all
    return path


def test_a_resized_file_with_one_more_link_is_the_caches_damage(tmp_path: Path) -> None:
    cut = _linked(tmp_path, "cut.py", b"x" * 10)
    assert os.stat(cut).st_nlink == 2
    assert _linked_and_resized(_probe((cut, 20)))


def test_a_missing_file_is_passed_over_for_a_later_one(tmp_path: Path) -> None:
    cut = _linked(tmp_path, "cut.py", b"x" * 10)
    assert _linked_and_resized(_probe((tmp_path / "gone.py", 5), (cut, 20)))
    assert not _linked_and_resized(_probe((tmp_path / "gone.py", 5)))


def test_a_resized_file_of_its_own_a_right_sized_link_or_no_recorded_size_is_not(tmp_path: Path) -> None:
    own = tmp_path / "own.py"
    own.write_bytes(b"x" * 10)
    whole = _linked(tmp_path, "whole.py", b"x" * 20)
    unsized = _linked(tmp_path, "unsized.py", b"x" * 10)
    assert not _linked_and_resized(_probe((own, 20), (whole, 20), (unsized, None)))
    assert not _linked_and_resized(None)
