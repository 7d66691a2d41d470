"""What one look of the read-ahead thread costs when nothing changed since the one before (``installer/ahead``).

The thread runs beside a backend that keeps both cores busy, every few milliseconds: a look that finds nothing new
stats, and reads nothing. The site folders are listed again only when one of them changed; a folder is read only
once its ``INSTALLER`` is there and, after a read that found it unfinished, once its RECORD changed. A change the
file system's clock could hide (a stamp newer than :data:`ahead.TICK_NS`) is looked at again.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from tests.unit.installer.test_ahead import _folder, _target
from tierlock import earlyarm
from tierlock.installer import ahead
from tierlock.probing import distinfo
from tierlock.probing.site import SiteIndex

PAST_NS = time.time_ns() - 3_600 * 10**9


def _settle(*paths: Path) -> None:
    """Move the modification time of *paths* an hour back (what a look finds of files written long before it)."""
    for path in paths:
        os.utime(path, ns=(PAST_NS, PAST_NS))


@pytest.fixture(autouse=True)
def _nothing_made(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(distinfo, "_PREPARED", {})
    monkeypatch.setattr(earlyarm, "current", None)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The folders :func:`distinfo.prepare` was asked to read, in order."""
    calls: list[str] = []
    real = distinfo.prepare

    def counting(found: Any, suffixes: tuple[str, ...]) -> bool:
        calls.append(Path(found.path).name)
        return real(found, suffixes)

    monkeypatch.setattr(distinfo, "prepare", counting)
    return calls


@pytest.fixture
def listings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One item per listing of the site folders."""
    calls: list[int] = []
    real = SiteIndex.scan.__func__  # type: ignore[attr-defined]

    def counting(cls: type[SiteIndex], *args: Any, **kwargs: Any) -> SiteIndex:
        calls.append(1)
        return real(cls, *args, **kwargs)  # type: ignore[no-any-return]

    monkeypatch.setattr(SiteIndex, "scan", classmethod(counting))
    return calls


def test_a_folder_without_its_installer_file_yet_is_not_read_until_it_has_one(tmp_path: Path, reads: list[str]) -> None:
    site = tmp_path / "site"
    info = _folder(site, "alpha", installer=False)
    looking = ahead.Ahead(_target(site), ["alpha"])
    for _ in range(3):
        looking.look()
    assert reads == []
    (info / "INSTALLER").write_text("uv\n")
    looking.look()
    assert reads == [info.name]
    assert looking.done == {str(info)}


def test_a_folder_found_unfinished_is_read_again_only_once_its_record_changed(tmp_path: Path, reads: list[str]) -> None:
    site = tmp_path / "site"
    info = _folder(site, "alpha", listed=False)  # the wheel's own RECORD: the installer has not written its own
    _settle(info / "RECORD")
    looking = ahead.Ahead(_target(site), ["alpha"])
    for _ in range(3):
        looking.look()
    assert reads == [info.name]
    assert looking.done == set()
    (info / "RECORD").write_text((info / "RECORD").read_text() + f"{info.name}/INSTALLER,,\n")
    looking.look()
    assert reads == [info.name] * 2
    assert looking.done == {str(info)}


def test_a_record_changed_too_recently_to_tell_is_read_again_at_the_next_look(tmp_path: Path, reads: list[str]) -> None:
    site = tmp_path / "site"
    info = _folder(site, "alpha", listed=False)  # just written: a rewrite in the same clock tick keeps its stamp
    looking = ahead.Ahead(_target(site), ["alpha"])
    looking.look()
    looking.look()
    assert reads == [info.name] * 2


def test_the_site_folders_are_listed_again_only_when_one_of_them_changed(
    tmp_path: Path, reads: list[str], listings: list[int]
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    _settle(site)
    looking = ahead.Ahead(_target(site), ["alpha"])
    for _ in range(3):
        looking.look()
    assert len(listings) == 1
    info = _folder(site, "alpha")  # the backend adds a package: the site folder changes
    looking.look()
    assert len(listings) == 2
    assert looking.done == {str(info)}


def test_a_site_folder_changed_too_recently_to_tell_is_listed_at_every_look(
    tmp_path: Path, listings: list[int]
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    looking = ahead.Ahead(_target(site), ["alpha"])
    looking.look()
    looking.look()
    assert len(listings) == 2


def test_once_every_package_wanted_has_its_facts_made_the_site_folders_are_not_listed_again(
    tmp_path: Path, reads: list[str], listings: list[int]
) -> None:
    site = tmp_path / "site"
    alpha = _folder(site, "alpha")
    looking = ahead.Ahead(_target(site), ["alpha", "beta"])
    looking.look()
    assert looking.done == {str(alpha)}
    beta = _folder(site, "beta")  # (the site folder changes at each package, as a backend writes them)
    looking.look()
    assert looking.done == {str(alpha), str(beta)}
    _folder(site, "gamma")  # not wanted
    for _ in range(3):
        looking.look()
    assert len(listings) == 2
    assert reads == [alpha.name, beta.name]
