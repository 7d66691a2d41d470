"""What the three recorders (a read-only command's, a lock's, an arming's) take from :mod:`tierlock.keptsig` alike:
whether anything they looked at is too recent to keep their run by, and whether an ``open`` writes."""

from __future__ import annotations

import os
import time

import pytest

from tierlock import keptrun, keptsig

NOW = time.time_ns()
SETTLED = NOW - keptrun.SETTLE_NS
OLD_FILE = (0o100644, 3, NOW - 60 * 10**9, 1, 1)
NEW_FILE = (0o100644, 3, NOW, 2, 1)
FOLDER = (0o040755, 4, 1)


@pytest.mark.parametrize(
    ("sigs", "scans", "unsettled"),
    [
        ([OLD_FILE, FOLDER], {}, False),
        ([OLD_FILE, NEW_FILE], {}, True),
        ([OLD_FILE], {"/a": (("x", OLD_FILE), ("y", FOLDER))}, False),
        ([OLD_FILE], {"/a": (("x", OLD_FILE), ("y", NEW_FILE))}, True),  # a file in a folder scanned
        ([OLD_FILE], {"/a": -2}, False),  # a folder that could not be scanned: nothing in it
        ([(-2,)], {}, False),  # a path not there
    ],
)
def test_a_run_is_unsettled_when_a_file_it_looked_up_or_scanned_was_modified_just_now(
    sigs: list[tuple[int, ...]], scans: dict[str, object], unsettled: bool
) -> None:
    assert keptsig.unsettled(sigs, scans, SETTLED) is unsettled


@pytest.mark.parametrize(
    ("mode", "flags", "writes"),
    [
        ("r", 0, False),
        ("rb", 0, False),
        ("w", 0, True),
        ("ab", 0, True),
        ("x", 0, True),
        ("xb", 0, True),
        ("r+", 0, True),
        (None, os.O_RDONLY, False),
        (None, os.O_RDONLY | os.O_CLOEXEC, False),
        (None, os.O_WRONLY, True),
        (None, os.O_RDWR, True),
        (None, os.O_RDONLY | os.O_CREAT, True),
        (None, os.O_RDONLY | os.O_APPEND, True),
        (None, os.O_RDONLY | os.O_TRUNC, True),
    ],
)
def test_an_open_writes_by_its_mode_or_else_by_its_flags(mode: str | None, flags: int, writes: bool) -> None:
    assert keptsig.writes(mode, flags) is writes
