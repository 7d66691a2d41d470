"""A receipt read back gives every field it was built with; removing one and listing its files.

Files only (no install): the receipt is built, written and loaded the way the installer does it,
then read through the same properties ``tierlock status``, ``tierlock remove`` and the install
benchmark read.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from tierlock.installer import receipts

LOCK_DIGEST = "sha256:" + "b" * 64


def _dist(name: str, site: str, *files: tuple[str, int]) -> receipts.InstalledDist:
    return receipts.InstalledDist(name, "1.0", site, f"{name}-1.0.dist-info", tuple(files))


def _written(prefix: Path, tier: str, dists: list[receipts.InstalledDist], *, now: float | None = None) -> Path:
    doc = receipts.build(
        tier=tier,
        pyproject=("/p/pyproject.toml", "sha256:" + "a" * 64),
        lockfiles={"base": ("/p/lockfiles/base.txt", "sha256:" + "c" * 64), tier: ("/p/lockfiles/x.txt", LOCK_DIGEST)},
        packages=dists,
        backend="uv",
        backend_version="0.4.1",
        interpreter={"executable": "/e/bin/python", "environment": "/e"},
        project="/p",
        tierlock_version="9.9",
        now=now,
    )
    return receipts.write(prefix, doc)


def _loaded(path: Path) -> receipts.Receipt:
    receipt = receipts.load(path)
    assert receipt is not None
    return receipt


def test_a_receipt_read_back_gives_each_field_it_was_built_with(tmp_path: Path) -> None:
    dists = [_dist("zeta", "lib/site", ("zeta/__init__.py", 3)), _dist("alpha", "lib/site", ("alpha.py", 7))]
    receipt = _loaded(_written(tmp_path, "brain", dists, now=86400 * 365 + 3723))
    assert receipt.tier == "brain"
    assert receipt.lockfiles == {"base": "sha256:" + "c" * 64, "brain": LOCK_DIGEST}
    assert receipt.lockfile_paths == {
        "base": ("/p/lockfiles/base.txt", "sha256:" + "c" * 64),
        "brain": ("/p/lockfiles/x.txt", LOCK_DIGEST),
    }
    assert receipt.pyproject == ("/p/pyproject.toml", "sha256:" + "a" * 64)
    assert [p["name"] for p in receipt.packages] == ["alpha", "zeta"]  # sorted by name
    assert receipt.package_names == {"alpha", "zeta"}
    assert receipt.installed_at == "1971-01-01T01:02:03Z"
    assert receipt.backend == ("uv", "0.4.1")
    assert (receipt.data["package_count"], receipt.data["file_count"]) == (2, 2)


def test_a_receipt_built_without_a_time_carries_the_time_it_was_built(tmp_path: Path) -> None:
    before = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    receipt = _loaded(_written(tmp_path, "brain", []))
    after = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    assert before <= receipt.installed_at <= after


def test_a_receipt_of_an_unexpected_shape_reads_as_empty_fields(tmp_path: Path) -> None:
    receipt = receipts.Receipt(tmp_path / "r.json", {"schema": 1, "lockfiles": {"brain": "not a table"}})
    assert (receipt.tier, receipt.lockfiles, receipt.lockfile_paths) == ("", {}, {})
    assert (receipt.pyproject, receipt.packages, receipt.installed_at) == (("", ""), [], "")
    assert receipt.backend == ("none", "")
    odd = receipts.Receipt(tmp_path / "r.json", {"pyproject": "x", "packages": ["x", {"name": "a"}], "backend": "uv"})
    assert (odd.pyproject, odd.packages, odd.package_names) == (("", ""), [{"name": "a"}], {"a"})
    assert odd.backend == ("none", "")


def test_removing_a_receipt_says_whether_there_was_one(tmp_path: Path) -> None:
    path = _written(tmp_path, "brain", [])
    assert receipts.remove(tmp_path, "brain") is True
    assert not path.exists()
    assert receipts.remove(tmp_path, "brain") is False
    assert receipts.remove(tmp_path / "no-environment-here", "brain") is False


def test_recorded_paths_lists_every_file_of_every_receipt_under_its_site(tmp_path: Path) -> None:
    _written(tmp_path, "base", [_dist("basepkg", "lib/site", ("basepkg.py", 1))])
    _written(
        tmp_path,
        "brain",
        [
            _dist("corelib", "lib/site", ("corelib/_core.so", 64), ("corelib/../corelib.pth", 2)),
            _dist("helper", "lib64/site", ("helper/data.txt", 1)),
        ],
    )
    found = receipts.recorded_paths(tmp_path, receipts.load_all(tmp_path).values())
    site, site64 = os.path.join(tmp_path, "lib", "site"), os.path.join(tmp_path, "lib64", "site")
    assert found == {
        os.path.join(site, "basepkg.py"),
        os.path.join(site, "corelib", "_core.so"),
        os.path.join(site, "corelib.pth"),
        os.path.join(site64, "helper", "data.txt"),
    }
    assert receipts.recorded_paths(tmp_path, []) == set()
