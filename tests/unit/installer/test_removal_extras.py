"""``tierlock remove`` keeps what a staying package needs through an extra (real dist-info folders on disk).

``needed_by_staying`` reads each staying distribution's ``Requires-Dist``; a requirement with extras
(``core[duck]``) makes the extra-marked requirements of that package count too, and the reason names
the extra.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tierlock.installer.removal import needed_by_staying, requirements_of, requires_dist
from tierlock.probing.site import SiteIndex

ENV = {"python_version": "3.12", "sys_platform": "linux", "platform_system": "Linux"}


def dist(site: Path, name: str, requires: Sequence[str] = ()) -> None:
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    lines = ["Metadata-Version: 2.1", f"Name: {name}", "Version: 1.0", *(f"Requires-Dist: {r}" for r in requires)]
    (info / "METADATA").write_text("\n".join(lines) + "\n")
    (info / "RECORD").write_text("")


def index(site: Path) -> SiteIndex:
    return SiteIndex.scan([str(site)], (".so",))


def test_an_extra_a_staying_package_asks_for_keeps_what_that_extra_requires(tmp_path: Path) -> None:
    dist(tmp_path, "staying", ["core[duck]>=1"])
    dist(tmp_path, "core", ['duck>=1; extra == "duck"', 'arrow; extra == "arrow"'])
    dist(tmp_path, "duck")
    dist(tmp_path, "arrow")
    kept = needed_by_staying(index(tmp_path), {"core", "duck", "arrow"}, ENV)
    assert kept == {"core": "staying", "duck": "core[duck]"}


def test_an_extra_of_a_package_that_stays_itself_counts_too(tmp_path: Path) -> None:
    dist(tmp_path, "staying", ["core[duck]"])
    dist(tmp_path, "core", ['duck; extra == "duck"'])
    dist(tmp_path, "duck")
    assert needed_by_staying(index(tmp_path), {"duck"}, ENV) == {"duck": "core[duck]"}


def test_without_extras_an_extra_marked_requirement_keeps_nothing(tmp_path: Path) -> None:
    dist(tmp_path, "staying", ["core"])
    dist(tmp_path, "core", ['duck; extra == "duck"'])
    dist(tmp_path, "duck")
    assert needed_by_staying(index(tmp_path), {"core", "duck"}, ENV) == {"core": "staying"}


def test_requirements_are_read_with_their_extras_and_markers(tmp_path: Path) -> None:
    dist(tmp_path, "core", ['duck[fast]; extra == "duck"', "win; sys_platform == 'win32'", "plain", "not valid !!"])
    info = str(tmp_path / "core-1.0.dist-info")
    assert requires_dist(info, ENV) == ["plain"]
    assert requirements_of(info, ENV, {"duck"}) == [("duck", frozenset({"fast"})), ("plain", frozenset())]
    assert requires_dist(str(tmp_path / "missing.dist-info"), ENV) == []
