"""RECORD rows the probe meets outside what installers write: fewer than three fields (a hand-edited or
truncated RECORD). Read from files in a site folder made here, no install needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tierlock.probing import probe_distribution


def _site(tmp_path: Path, extra_row: str, *, make_extra: bool) -> Path:
    site = tmp_path / "site"
    pkg = site / "alpha"
    info = site / "alpha-1.0.dist-info"
    pkg.mkdir(parents=True)
    info.mkdir()
    (pkg / "__init__.py").write_text("")
    if make_extra:
        (pkg / "extra.py").write_text("X = 1\n")
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: alpha\nVersion: 1.0\n")
    (info / "INSTALLER").write_text("pip\n")
    (info / "RECORD").write_text(
        "alpha/__init__.py,,\n"
        f"{extra_row}\n"
        "alpha-1.0.dist-info/METADATA,,\n"
        "alpha-1.0.dist-info/INSTALLER,,\n"
        "alpha-1.0.dist-info/RECORD,,\n"
    )
    return site


@pytest.mark.parametrize("row", ["alpha/extra.py", "alpha/extra.py,"])
def test_a_record_row_with_fewer_than_three_fields_names_a_file_like_any_other(tmp_path: Path, row: str) -> None:
    present = probe_distribution("alpha", paths=[_site(tmp_path / "a", row, make_extra=True)])
    assert present.state == "present", present.reasons
    gone = probe_distribution("alpha", paths=[_site(tmp_path / "b", row, make_extra=False)])
    assert gone.state == "partial"
    assert any("alpha/extra.py" in reason for reason in gone.reasons), gone.reasons
