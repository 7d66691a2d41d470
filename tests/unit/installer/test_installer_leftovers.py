"""pip's ``~`` leftovers: which belong to the packages being repaired (files only, no backend)."""

from __future__ import annotations

from pathlib import Path

from tierlock.installer import leftovers
from tierlock.probing import SiteIndex, probe_distribution


def dist(site: Path, folder: str, name: str, version: str, record: list[str]) -> None:
    info = site / folder
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\n")
    (info / "RECORD").write_text("".join(f"{row},,\n" for row in record))


def test_a_leftover_belongs_to_a_package_by_its_top_level_names_or_a_moved_dist_info(tmp_path: Path) -> None:
    site = tmp_path
    (site / "corelib").mkdir()
    (site / "corelib" / "__init__.py").write_text("")
    dist(site, "corelib-2.0.dist-info", "corelib", "2.0", ["corelib/__init__.py", "corelib-2.0.dist-info/RECORD"])
    (site / "~orelib").mkdir()  # the old package folder pip moved aside
    dist(site, "~-relib-1.0.dist-info", "CoreLib", "1.0", ["corelib_data/x", "~-relib-1.0.dist-info/RECORD"])
    (site / "~orelib_data").mkdir()  # named after a top of the moved-aside RECORD
    (site / "~elper").mkdir()  # helper's, which is not being repaired
    (site / "~nrelated").mkdir()
    probes = {"corelib": probe_distribution("corelib", index=SiteIndex.scan([site]))}

    assert leftovers.owned(str(site), {"corelib"}, probes) == {"~orelib", "~-relib-1.0.dist-info", "~orelib_data"}
    assert leftovers.owned(str(site), {"helper"}, probes) == set()

    deleted = leftovers.clear([site], {"corelib"}, probes)
    assert sorted(Path(p).name for p in deleted) == ["~-relib-1.0.dist-info", "~orelib", "~orelib_data"]
    assert sorted(p.name for p in site.iterdir() if p.name.startswith("~")) == ["~elper", "~nrelated"]


def test_a_site_without_leftovers_or_that_cannot_be_listed_owns_none(tmp_path: Path) -> None:
    assert leftovers.owned(str(tmp_path), {"corelib"}, {}) == set()
    assert leftovers.owned(str(tmp_path / "missing"), {"corelib"}, {}) == set()
