"""The verification's stats taken while the backend runs, proven untouched at its end (``installer/inrun``).

A package the backend finished is watched, then stat-ed, in-run; at the end it is given to the verification only
when nothing it rests on changed since: each change here (a file truncated in place or through another hard link,
removed, renamed, replaced, touched; a folder on the way renamed; an entry added to its ``.dist-info``; the site
folder replaced; its console script removed) spoils it, while a change beside it (another package's files) does not,
nor does what happened before its own watches.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tierlock.installer import inotify, inrun
from tierlock.probing import SiteIndex, distinfo

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/sys/fs/inotify"), reason="inotify is Linux's")

SUFFIXES = (".cpython-311-x86_64-linux-gnu.so", ".abi3.so", ".so")


def _package(site: Path, name: str = "alpha") -> Path:
    """*name* 1.0 in *site*: a module folder with a subfolder and a compiled file, a console script outside the site
    folder, RECORD with every size and INSTALLER (a finished install)."""
    info = site / f"{name}-1.0.dist-info"
    files = {
        f"{info.name}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n",
        f"{info.name}/INSTALLER": "uv\n",
        f"../../../bin/{name}": "#!python\n",  # (before the module's rows: every folder after it is watched too)
        f"{name}/__init__.py": "X = 1\n",
        f"{name}/sub/util.py": "def f():\n    return 1\n",
        f"{name}/_speed{SUFFIXES[0]}": "\x7fELF" + "x" * 60,
    }
    rows = []
    for rel, text in files.items():
        path = Path(os.path.normpath(site / rel))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        rows.append(f"{rel},,{len(text.encode())}")
    rows.append(f"{info.name}/RECORD,,")
    (info / "RECORD").write_text("\n".join(rows) + "\n")
    return info


def _site(tmp_path: Path) -> Path:
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    return site


def _take(proof: inrun.Proof, site: Path, name: str = "alpha") -> str:
    (found,) = SiteIndex.scan([site], SUFFIXES).find(name)
    assert distinfo.prepare(found, SUFFIXES)
    assert proof.take(found, SUFFIXES, lambda: False)
    return found.path


@pytest.fixture(autouse=True)
def _nothing_made(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(distinfo, "_PREPARED", {})
    monkeypatch.setattr(distinfo, "_MEMO", {})


def _until(test: Callable[[], bool], seconds: float = 10.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if test():
            return True
        time.sleep(0.01)
    return False


def _truncate(path: Path) -> None:
    with open(path, "r+b") as fh:
        fh.truncate(2)


def _through_a_hard_link(site: Path) -> None:
    other = site.parents[3] / "cache-link"
    os.link(site / "alpha" / "sub" / "util.py", other)
    _truncate(other)  # the same file, changed through a name in a folder nobody watches (as uv's cache)


def _replaced(path: Path) -> None:
    new = path.with_name("new")
    new.write_bytes(path.read_bytes())  # the same size: only its identity differs
    os.replace(new, path)


def _site_replaced(folder: Path) -> None:
    os.rename(folder, folder.with_name("old"))  # (above the site folder: no watch sees it, its path names another)
    shutil.copytree(folder.with_name("old"), folder, symlinks=True)


def _away_and_back(site: Path) -> None:
    os.rename(site / "alpha", site / "beside")
    os.rename(site / "beside", site / "alpha")


def _added(site: Path) -> None:
    (site / "alpha-1.0.dist-info" / "direct_url.json").write_text("{}")


CHANGES: dict[str, Callable[[Path], object]] = {
    "a file truncated in place": lambda site: _truncate(site / "alpha" / "__init__.py"),
    "a file truncated through another hard link": _through_a_hard_link,
    "a file removed": lambda site: (site / "alpha" / "sub" / "util.py").unlink(),
    "a file renamed away": lambda site: os.rename(site / "alpha" / "__init__.py", site / "alpha" / "moved.py"),
    "a file replaced by one of the same size": lambda site: _replaced(site / "alpha" / "__init__.py"),
    "a compiled file touched": lambda site: os.utime(site / "alpha" / f"_speed{SUFFIXES[0]}", (1, 1)),
    "a folder on the way renamed": lambda site: os.rename(site / "alpha" / "sub", site / "alpha" / "other"),
    "the module folder renamed away and back": _away_and_back,
    "an entry added to its .dist-info": _added,
    "METADATA rewritten with the same size": lambda site: _replaced(site / "alpha-1.0.dist-info" / "METADATA"),
    "its console script removed": lambda site: (site.parents[2] / "bin" / "alpha").unlink(),
    "the site folder replaced by a copy": _site_replaced,
    "a folder above the site folder replaced by a copy": lambda site: _site_replaced(site.parents[1]),
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_a_package_stat_ed_in_run_is_not_proven_once_anything_it_rests_on_changed(tmp_path: Path, change: str) -> None:
    site = _site(tmp_path)
    _package(site)
    proof = inrun.Proof()
    folder = _take(proof, site)
    CHANGES[change](site)
    assert folder not in proof.proven()
    assert (folder, SUFFIXES) in distinfo._PREPARED  # read after the backend as without the proof


def test_a_package_nothing_touched_since_its_in_run_stat_is_proven_with_the_stats_the_verification_takes(
    tmp_path: Path,
) -> None:
    site = _site(tmp_path)
    _package(site)
    proof = inrun.Proof()
    folder = _take(proof, site)
    (site / "unrelated.py").write_text("x = 1\n")  # beside it in the site folder: another package's file
    (site / "alpha" / "__pycache__").mkdir()  # a byte-code cache: RECORD lists none
    proven = proof.proven()
    assert list(proven) == [folder]
    facts, stats, seen = proven[folder]
    assert facts.path == folder
    assert not any(stats)
    assert set(seen) == {str(site / "alpha" / f"_speed{SUFFIXES[0]}")}
    assert (folder, SUFFIXES) not in distinfo._PREPARED  # given: a later read of the folder reads it
    assert _until(lambda: proof.watcher.fd is None)  # the watches let go (in a thread of their own)


def test_what_changed_before_a_package_was_watched_is_not_counted_against_it(tmp_path: Path) -> None:
    site = _site(tmp_path)
    _package(site, "alpha")
    proof = inrun.Proof()
    first = _take(proof, site, "alpha")
    _package(site, "beta")  # its folders made after alpha's watches (events on the site folder), before its own
    second = _take(proof, site, "beta")
    assert sorted(proof.proven()) == sorted([first, second])


def test_a_package_with_a_file_not_whole_in_run_is_left_to_the_stat_after_the_backend(tmp_path: Path) -> None:
    site = _site(tmp_path)
    _package(site)
    (found,) = SiteIndex.scan([site], SUFFIXES).find("alpha")
    assert distinfo.prepare(found, SUFFIXES)
    _truncate(site / "alpha" / "__init__.py")  # (the backend still writing it)
    proof = inrun.Proof()
    assert not proof.take(found, SUFFIXES, lambda: False)
    assert proof.proven() == {}


def test_a_take_stops_when_the_install_stops_waiting_and_proves_nothing_of_that_package(tmp_path: Path) -> None:
    site = _site(tmp_path)
    _package(site)
    (found,) = SiteIndex.scan([site], SUFFIXES).find("alpha")
    assert distinfo.prepare(found, SUFFIXES)
    proof = inrun.Proof()
    assert not proof.take(found, SUFFIXES, lambda: True)
    assert proof.proven() == {}


def test_an_overflowed_queue_proves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = _site(tmp_path)
    _package(site)
    proof = inrun.Proof()
    _take(proof, site)
    monkeypatch.setattr(proof.watcher, "events", lambda: [(-1, inotify.Q_OVERFLOW, "")])
    assert proof.proven() == {}


def test_a_package_whose_files_cannot_all_be_watched_is_left_to_the_stat_after_the_backend(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = _site(tmp_path)
    _package(site)
    proof = inrun.Proof()
    real = proof.watcher.add
    monkeypatch.setattr(proof.watcher, "add", lambda path: None if path.endswith("util.py") else real(path))
    (found,) = SiteIndex.scan([site], SUFFIXES).find("alpha")
    assert distinfo.prepare(found, SUFFIXES)
    assert not proof.take(found, SUFFIXES, lambda: False)
    assert proof.proven() == {}


def test_an_arming_holds_at_most_its_share_of_the_users_watches_and_stats_the_rest_after_the_backend(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = _site(tmp_path)
    _package(site, "alpha")
    _package(site, "beta")
    monkeypatch.setattr(inrun, "_limit", lambda: 4 * 21)  # room for alpha's 12 folders and files, 9 of beta's 10
    proof = inrun.Proof()
    first = _take(proof, site, "alpha")
    (found,) = SiteIndex.scan([site], SUFFIXES).find("beta")
    assert distinfo.prepare(found, SUFFIXES)
    assert not proof.take(found, SUFFIXES, lambda: False)
    assert list(proof.proven()) == [first]
