"""Each file of a distribution is looked up once, from the site folder's descriptor (the folders above it are not
walked again for every file), but while a run is recorded (its look-ups are noted by their absolute paths). The
verdict is the one the paths give: every file there with its size, a file missing, a file resized, a console
script outside the site folder."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.unit.probing.test_probe_distinfo_kept import OLD, _site
from tierlock import keptnote
from tierlock.probing import distinfo, probe_distribution


def _with_a_script(tmp_path: Path) -> tuple[Path, Path]:
    site = _site(tmp_path)
    script = tmp_path / "bin" / "alpha"
    script.parent.mkdir()
    script.write_text("#!python\n")
    record = site / "alpha-1.0.dist-info" / "RECORD"
    record.write_text(record.read_text() + f"../bin/alpha,,{len(script.read_bytes())}\n")
    for path in (record, script, script.parent, record.parent):
        os.utime(path, (OLD, OLD))
    return site, script


@pytest.fixture
def looked(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, object]]:
    """Every path os.stat was given, with the folder's descriptor it was given from (None: none)."""
    seen: list[tuple[str, object]] = []
    real = os.stat

    def counted(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        seen.append((os.fspath(path) if not isinstance(path, int) else str(path), kwargs.get("dir_fd")))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", counted)
    distinfo._MEMO.clear()
    return seen


def test_the_files_of_a_distribution_are_looked_up_from_the_site_folder(
    tmp_path: Path, looked: list[tuple[str, object]]
) -> None:
    site, script = _with_a_script(tmp_path)
    assert probe_distribution("alpha", paths=[site], locked_version="1.0").state == "present"
    near = {path: fd for path, fd in looked if fd is not None}
    assert near.keys() >= {"alpha/__init__.py", "alpha-1.0.dist-info/INSTALLER", str(script)}
    assert all(not os.path.isabs(p) or p == str(script) for p in near)


def test_while_a_run_is_recorded_every_file_is_looked_up_by_its_path(
    tmp_path: Path, looked: list[tuple[str, object]]
) -> None:
    site, script = _with_a_script(tmp_path)
    noted: list[str] = []

    def looker(paths: Any) -> list[os.stat_result]:
        noted.extend(paths)
        return [os.stat(p) for p in paths]

    keptnote.look_with(looker)
    try:
        assert probe_distribution("alpha", paths=[site], locked_version="1.0").state == "present"
    finally:
        keptnote.stop()
    assert {str(site / "alpha" / "__init__.py"), str(site / "alpha-1.0.dist-info" / "INSTALLER"), str(script)} <= set(
        noted
    )
    assert not [path for path, fd in looked if fd is not None]


@pytest.mark.parametrize("which", ["alpha/__init__.py", "script"])
def test_a_file_gone_or_resized_is_seen_from_the_site_folder(tmp_path: Path, which: str) -> None:
    site, script = _with_a_script(tmp_path)
    assert probe_distribution("alpha", paths=[site], locked_version="1.0").state == "present"
    path = script if which == "script" else site / which
    path.write_text(path.read_text() + "# longer\n")
    resized = probe_distribution("alpha", paths=[site], locked_version="1.0")
    assert resized.state == "partial"
    assert any("other size" in reason for reason in resized.reasons)
    path.unlink()
    gone = probe_distribution("alpha", paths=[site], locked_version="1.0")
    assert gone.state == "partial"
    assert any("missing" in reason for reason in gone.reasons)


def test_facts_read_back_from_disk_are_looked_up_from_the_site_folder_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tierlock.probing import distcache

    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(tmp_path / "cache"))
    site, script = _with_a_script(tmp_path)
    first = distinfo.read(next(iter(distinfo_dirs(site))), ())[0]
    distcache.save_all()
    distinfo._MEMO.clear()
    distcache._FILES.clear()
    again = distinfo.read(next(iter(distinfo_dirs(site))), ())[0]
    assert again is not first
    assert again.near == first.near
    assert len(again.near) == len(again.paths)
    assert str(script) in again.near
    script.unlink()
    assert probe_distribution("alpha", paths=[site], locked_version="1.0").state == "partial"


def distinfo_dirs(site: Path) -> Any:
    from tierlock.probing import SiteIndex

    return SiteIndex.scan([site]).dists["alpha"]
