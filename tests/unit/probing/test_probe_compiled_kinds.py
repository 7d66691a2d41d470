"""A closure package is probed for every kind of compiled file its RECORD lists, whatever the platform's
suffix: a missing ``.pyd``, ``.dll`` or ``.dylib`` is seen as surely as a missing ``.so``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tierlock.probing import probe_distribution


def installed(site: Path, compiled: str) -> None:
    """pkg 1.0 in *site*, its RECORD listing *compiled* (which is not there) and its own files (which are)."""
    (site / "pkg").mkdir(parents=True)
    (site / "pkg" / "__init__.py").write_text("x = 1\n", encoding="utf-8")
    info = site / "pkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n", encoding="utf-8")
    (info / "INSTALLER").write_text("uv\n", encoding="utf-8")
    rows = ["pkg/__init__.py,,6", f"{compiled},,64", "pkg-1.0.dist-info/METADATA,,", "pkg-1.0.dist-info/INSTALLER,,"]
    (info / "RECORD").write_text("\n".join([*rows, "pkg-1.0.dist-info/RECORD,,"]) + "\n", encoding="utf-8")


@pytest.mark.parametrize("compiled", ["pkg/_core.pyd", "pkg/core.dll", "pkg/libcore.dylib", "pkg/_core.abi3.so"])
def test_a_missing_compiled_file_of_any_kind_makes_a_closure_package_partial(tmp_path: Path, compiled: str) -> None:
    installed(tmp_path, compiled)
    result = probe_distribution("pkg", paths=[tmp_path])
    assert result.reasons == [f"compiled artifact {compiled} is missing"]
    assert result.files_checked == 5  # every file RECORD lists, itself included
