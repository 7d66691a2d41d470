"""The probe's version comparison: release numbers are compared without ``packaging``, with its result.

The probe parses a version with ``packaging`` only when it is more than a
release number (``1.0rc1``, ``1.0+cu121``); these cases prove the shortcut
and ``packaging.version`` agree, for locked versions given as strings or as
``Version`` objects.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.version import Version

from tierlock.probing import probe_distribution

PAIRS = [
    ("1.0", "1.0.0"),
    ("1.0.0", "1"),
    ("01.2", "1.2"),
    ("1.2", "1.3"),
    ("1.10", "1.1"),
    ("0", "0.0"),
    ("1.0", "1.0.post1"),
    ("1.0rc1", "1.0"),
    ("2.0+cu121", "2.0"),
    ("2.0", "2.0+cu121"),
]


def install_by_hand(site: Path, version: str) -> None:
    """A complete install of distribution ``alpha`` at *version*: METADATA, INSTALLER, RECORD and one module."""
    info = site / "alpha-0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: alpha\nVersion: {version}\n\n")
    (info / "INSTALLER").write_text("pip\n")
    (site / "alpha.py").write_text("X = 1\n")
    (info / "RECORD").write_text(
        "alpha.py,,6\nalpha-0.dist-info/METADATA,,\nalpha-0.dist-info/INSTALLER,,4\nalpha-0.dist-info/RECORD,,\n"
    )


@pytest.mark.parametrize(("installed", "locked"), PAIRS)
@pytest.mark.parametrize("locked_as", [str, Version])
def test_version_comparison_agrees_with_packaging(
    tmp_path: Path, installed: str, locked: str, locked_as: type[str] | type[Version]
) -> None:
    install_by_hand(tmp_path, installed)
    result = probe_distribution("alpha", paths=[tmp_path], locked_version=locked_as(locked))
    equal = Version(installed) == Version(locked)
    assert result.state == ("present" if equal else "partial")
    assert result.version == Version(installed)
    assert result.locked_version == Version(locked)
    assert result.to_dict()["version"] == str(Version(installed))
    if not equal:
        assert result.reasons[0].startswith(f"installed version {Version(installed)} differs from the locked {locked}")


def test_an_invalid_installed_version_is_partial(tmp_path: Path) -> None:
    install_by_hand(tmp_path, "1.0-what")
    result = probe_distribution("alpha", paths=[tmp_path], locked_version="1.0")
    assert result.state == "partial"
    assert result.reasons == ["METADATA version '1.0-what' is not a valid version"]
    assert result.version is None


def test_a_release_installed_against_a_local_lock_says_only_the_labels_differ(tmp_path: Path) -> None:
    install_by_hand(tmp_path, "2.0")
    result = probe_distribution("alpha", paths=[tmp_path], locked_version="2.0+cu121")
    assert result.reasons == [
        "installed version 2.0 differs from the locked 2.0+cu121 (the local version labels differ)"
    ]
