"""What the plan is given of each probed distribution (``inventory.verdicts``), which locked entries are probed at all
(``inventory.probe_all``), and what a receipt records of the project itself (``inventory.project_dist``)."""

from __future__ import annotations

from pathlib import Path

from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.support.targets import a_target
from tests.unit.installer.test_installer_receipts import fake_env
from tierlock.installer import inventory
from tierlock.lockfiles.locks import LockEntry
from tierlock.probing import DistributionProbe, probe_distribution

_LIB = ("pkg/_core.so", "libq.so.1", None)
_WHY = "compiled artifact pkg/_core.so needs libq.so.1, which the dynamic loader cannot find"


def _probe(state: str, reasons: list[str], missing: tuple[tuple[str, str, str | None], ...] = ()) -> DistributionProbe:
    return DistributionProbe("pkg", state, reasons, version_text="1.0", missing_libraries=missing)  # type: ignore[arg-type]


def test_a_distribution_lacking_only_a_system_library_is_present_to_the_plan_and_anything_else_is_as_probed() -> None:
    name = canonicalize_name("pkg")
    cases = {
        "libraries only": _probe("partial", [_WHY], (_LIB,)),
        "a file too": _probe("partial", [_WHY, "file listed in RECORD is missing: pkg/x.py"], (_LIB,)),
        "files only": _probe("partial", ["file listed in RECORD is missing: pkg/x.py"]),
        "present": _probe("present", []),
    }
    got = {case: inventory.verdicts({name: probe})[name] for case, probe in cases.items()}
    assert (got["libraries only"].state, got["libraries only"].reasons) == ("present", ())
    assert (got["a file too"].state, len(got["a file too"].reasons)) == ("partial", 2)
    assert (got["files only"].state, got["files only"].reasons) == (
        "partial",
        ("file listed in RECORD is missing: pkg/x.py",),
    )
    assert (got["present"].state, got["present"].version) == ("present", Version("1.0"))


def test_only_the_locked_entries_found_in_the_target_are_probed(tmp_path: Path) -> None:
    prefix, site, _project = fake_env(tmp_path)
    target = a_target(prefix, site, stdlib=tmp_path / "stdlib")
    assert target.site_paths == (site,)
    hashes = ("sha256:" + "a" * 64,)
    entries = [LockEntry(canonicalize_name(n), Version("1.0"), None, hashes) for n in ("absent", "pkg")]
    probes = inventory.probe_all(entries, target, {})
    assert list(probes) == ["pkg"]
    assert probes[canonicalize_name("pkg")].present


def test_the_project_itself_is_recorded_as_the_project_and_nothing_without_its_folder(tmp_path: Path) -> None:
    prefix, site, _project = fake_env(tmp_path)
    probe = probe_distribution("pkg", paths=[site])
    (dist,) = inventory.project_dist(probe, prefix)
    assert dist.project is True
    assert (dist.name, dist.version, dist.site) == ("pkg", "1.0", "lib/python3.11/site-packages")
    written = (site / "pkg" / "_core.so").stat().st_mtime_ns
    assert dist.files[:2] == (("pkg/__init__.py", 6), ("pkg/_core.so", 64, written))
    assert inventory.project_dist(DistributionProbe("pkg", "absent"), prefix) == []
    unreadable = DistributionProbe("pkg", "partial", dist_info_dir=probe.dist_info_dir)  # a METADATA without a version
    assert inventory.project_dist(unreadable, prefix) == []
