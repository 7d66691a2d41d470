"""A kept lockfile parse's tests: a cache folder of their own, and each command's memory of it made new.

:mod:`tierlock.lockfiles.keptparse` keeps each parse in the cache folder and in the process's own memos;
these helpers play several commands in one test process: :func:`forget` is a new process, :func:`next_command`
ends a command (its kept parses written) and starts the next, :func:`parsed_keeping_nothing` is the slow path
every kept answer is compared with.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tierlock.lockfiles import fileread, keptparse, readercode


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A cache folder of this test's own (``TIERLOCK_CACHE_DIR``), and nothing in memory before or after."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(folder))
    forget()
    yield folder
    forget()


def forget() -> None:
    """As a new process: nothing read, parsed or waiting to be written (the process's own memos)."""
    fileread._READ.clear()
    keptparse._FILES.clear()
    keptparse._CHANGED.clear()
    keptparse._MARKERS.clear()
    readercode.CODE.clear()


def next_command() -> None:
    """This command ends (its kept parses written), and the next one starts."""
    keptparse.save_all()
    forget()


def parsed_keeping_nothing(path: Path, monkeypatch: pytest.MonkeyPatch) -> fileread.ReadResult:
    """*path* parsed with caching off: the answer every kept parse must equal."""
    with monkeypatch.context() as patch:
        patch.setenv("TIERLOCK_CACHE_DIR", "")
        return fileread._parsed(path, path.read_bytes())
