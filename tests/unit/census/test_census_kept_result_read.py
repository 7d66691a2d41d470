"""A kept census result is read as far as the run needs it: a run that is not recorded reads the result alone (not
the tells after it, ~90% of the file), a length that points past the file's end is no result, and a part of the
result that holds no census object (the tests of every file) is given as it was loaded, not walked through."""

from __future__ import annotations

import builtins
from pathlib import Path
from typing import Any

import pytest

from tests.unit.census.test_census_kept_result import (  # noqa: F401  (the fixtures, used by name)
    TIERS,
    fresh,
    kept,
    record,
    root,
    stored,
    warm,
)
from tierlock.census import DiskTree, survey
from tierlock.census import keptresult as keptresult_module
from tierlock.census.keptresult import Kept, decoded, encoded
from tierlock.census.summary import canonical


def _bytes_read(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The bytes each read of a kept result's file gave (the module's own ``open``)."""
    taken: list[int] = []

    class Counted:
        def __init__(self, handle: Any) -> None:
            self.handle = handle

        def __enter__(self) -> Counted:
            self.handle.__enter__()
            return self

        def __exit__(self, *exc: object) -> None:
            self.handle.__exit__(*exc)

        def read(self, *size: int) -> bytes:
            data: bytes = self.handle.read(*size)
            taken.append(len(data))
            return data

        def fileno(self) -> int:
            return int(self.handle.fileno())

    monkeypatch.setattr(keptresult_module, "open", lambda *a, **k: Counted(builtins.open(*a, **k)), raising=False)  # noqa: SIM115
    return taken


def test_a_run_not_recorded_reads_the_result_but_not_the_tells_kept_after_it(
    warm: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    record(warm)  # kept by a recorded run: the result, then what it told the run
    store = Kept(str(warm))
    survey(DiskTree(warm), TIERS, kept=store)
    assert store.path is not None
    size = Path(store.path).stat().st_size
    taken = _bytes_read(monkeypatch)
    assert kept(warm) == fresh(warm)
    head = 40 + int.from_bytes(Path(store.path).read_bytes()[32:40], "little")
    assert head < size  # (tells were kept after the result)
    assert sum(taken) == head


def test_a_length_past_the_end_of_the_file_is_no_result(root: Path) -> None:  # noqa: F811
    path = stored(root)
    data = bytearray(path.read_bytes())
    data[32:40] = (2**62).to_bytes(8, "little")
    path.write_bytes(bytes(data))
    assert kept(root) == fresh(root)


def test_a_part_that_holds_no_census_object_is_given_as_it_was_loaded(root: Path) -> None:  # noqa: F811
    result = survey(DiskTree(root), TIERS)
    fields = {k: v for k, v in vars(result).items() if k not in ("cache_entry", "warnings")}
    form = encoded(fields)
    assert result.tests  # (a file -> its tests: containers in containers, no census object)
    assert form["tests"] == (..., None, result.tests)
    assert decoded(form["tests"]) is result.tests
    again = decoded((..., "Census", form))
    again.cache_entry, again.warnings = result.cache_entry, result.warnings  # (what the kept result leaves out)
    assert canonical(again) == canonical(result)


def test_a_container_holding_a_census_object_is_still_walked_through(root: Path) -> None:  # noqa: F811
    result = survey(DiskTree(root), TIERS)
    form = encoded(result)
    assert form[:2] == (..., "Census")
    tiers = decoded(form).tiers
    assert [type(t).__name__ for t in tiers] == ["TierReport", "TierReport"]
    assert encoded([{"a": [1, 2]}, 3]) == (..., None, [{"a": [1, 2]}, 3])
    assert encoded([1, 2]) == [1, 2]  # (nothing to look into: as it is)
