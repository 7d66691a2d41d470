"""What a receipt records of each package (``inventory.dists_of``): every RECORD row with a size, RECORD with the size
the verification read, and the libraries outside the site folder its extensions were found to rely on."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.unit.installer.test_installer_receipts import fake_env
from tierlock.installer import inventory
from tierlock.lockfiles.locks import LockEntry
from tierlock.probing import DistributionProbe, libraries, probe_distribution

_ID = (0, 0, 0)


def _entry(name: str, version: str = "1.0") -> LockEntry:
    return LockEntry(canonicalize_name(name), Version(version), None, ("sha256:" + "a" * 64,))


@pytest.fixture
def verdicts(monkeypatch: pytest.MonkeyPatch) -> dict[tuple[str, str], object]:
    kept: dict[tuple[str, str], object] = {}
    monkeypatch.setattr(libraries, "_VERDICTS", kept)
    return kept


def _other_package(site: Path) -> None:
    """A second installed package beside pkg: ``other`` 2.0 with an extension of its own."""
    (site / "other").mkdir()
    (site / "other" / "_ext.so").write_bytes(b"\0" * 32)
    dist = site / "other-2.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Name: other\nVersion: 2.0\n")
    (dist / "INSTALLER").write_text("uv\n")
    (dist / "RECORD").write_text("other/_ext.so,sha256=q,32\nother-2.0.dist-info/RECORD,,\n")


def test_each_package_records_the_libraries_outside_the_site_folder_its_own_extensions_rely_on(
    tmp_path: Path, verdicts: dict[tuple[str, str], object]
) -> None:
    prefix, site, _project = fake_env(tmp_path)
    _other_package(site)
    outside = tmp_path / "opt" / "libfoo.so.1"
    outside.parent.mkdir()
    outside.write_bytes(b"\0" * 7)
    verdicts[str(site / "pkg" / "_core.so"), "env"] = (
        _ID,
        ((str(outside), (7, 0, 0)), (str(site / "pkg.libs" / "libin.so"), (5, 0, 0))),
    )
    verdicts[str(site / "other" / "_ext.so"), "env"] = (_ID, (("/usr/lib/libbar.so.2", (9, 0, 0)),))
    entries = [_entry("pkg"), _entry("other", "2.0")]
    probes = {e.name: probe_distribution(str(e.name), paths=[site]) for e in entries}
    pkg, other = inventory.dists_of(entries, probes, prefix)
    assert (pkg.name, pkg.site, pkg.dist_info) == ("pkg", "lib/python3.11/site-packages", "pkg-1.0.dist-info")
    written = (site / "pkg" / "_core.so").stat().st_mtime_ns  # a shared object's row: the time it was written too
    assert pkg.files[:2] == (("pkg/__init__.py", 6), ("pkg/_core.so", 64, written))
    assert ("../../../../opt/libfoo.so.1", 7) in pkg.files  # relative to the site folder, with its size
    assert not [row for row in pkg.files if "libin" in row[0] or "libbar" in row[0]]  # inside the site; another's
    assert [f for f in other.files if "libbar" in f[0]] == [(os.path.relpath("/usr/lib/libbar.so.2", site), 9)]
    assert not [row for row in other.files if "libfoo" in row[0]]


def test_records_size_is_the_one_the_verification_read_else_the_one_on_disk(tmp_path: Path) -> None:
    prefix, site, _project = fake_env(tmp_path)
    entry = _entry("pkg")
    probe = probe_distribution("pkg", paths=[site])
    on_disk = (site / "pkg-1.0.dist-info" / "RECORD").stat().st_size
    fields = dict(zip(DistributionProbe._fields, probe._values(), strict=True))
    read = DistributionProbe(**{**fields, "record_size": on_disk + 1})  # type: ignore[arg-type]
    unread = DistributionProbe(**{**fields, "record_size": None})  # type: ignore[arg-type]
    ((rows_read,), (rows_unread,)) = (
        [d.files for d in inventory.dists_of([entry], {entry.name: p}, prefix)] for p in (read, unread)
    )
    assert rows_read[-1] == ("pkg-1.0.dist-info/RECORD", on_disk + 1)
    assert rows_unread[-1] == ("pkg-1.0.dist-info/RECORD", on_disk)


def test_a_package_not_installed_at_its_locked_version_gets_no_rows(tmp_path: Path) -> None:
    prefix, site, _project = fake_env(tmp_path)
    probe = probe_distribution("pkg", paths=[site])
    assert inventory.dists_of([_entry("pkg", "2.0")], {canonicalize_name("pkg"): probe}, prefix) == []
    assert inventory.dists_of([_entry("pkg")], {}, prefix) == []
    _other_package(site)
    probes = {canonicalize_name(n): probe_distribution(n, paths=[site]) for n in ("pkg", "other")}
    (other,) = inventory.dists_of([_entry("pkg", "2.0"), _entry("other", "2.0")], probes, prefix)
    assert other.name == "other"  # the packages after one left out still recorded
