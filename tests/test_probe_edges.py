"""Probe decisions at their edges: a root the lockfile does not list at all, pip's ``~`` leftovers that
only look like a moved-aside package, byte-code rows in RECORD before the files that matter."""

from __future__ import annotations

from pathlib import Path

from tests.test_markers_required import LINUX_311, PYPROJECT
from tierlock.lockfiles.model import Lock
from tierlock.lockfiles.requirements import parse
from tierlock.probing import probe_distribution
from tierlock.probing.required import required
from tierlock.probing.site import pip_leftover_of
from tierlock.tiers import load_project


def test_a_root_the_lockfile_does_not_list_at_all_is_still_required(project_dir: Path) -> None:
    (project_dir / "pyproject.toml").write_text(PYPROJECT)
    proj = load_project(project_dir)
    parsed = parse("both==2.0\n")  # alpha is missing from the lock (a stale lock): not "pinned only elsewhere"
    lock = Lock(
        path=Path("base.txt"), format="requirements", header=None, entries=tuple(parsed.entries), file_digest=""
    )
    needs = required(proj, proj.tier("base"), LINUX_311, lock)
    assert needs.roots == ("alpha", "both")
    assert not any(note.startswith("alpha") for note in needs.marked_away)


def test_a_tilde_name_whose_last_letter_differs_is_no_leftover_of_the_package() -> None:
    assert pip_leftover_of("~umpy", "numpy")
    assert pip_leftover_of("~-mpy", "numpy")
    assert not pip_leftover_of("~umpx", "numpy")
    assert not pip_leftover_of("~umpy", "numpz")


def test_a_missing_file_listed_after_byte_code_rows_makes_the_package_partial(tmp_path: Path) -> None:
    site = tmp_path / "site"
    info = site / "alpha-1.0.dist-info"
    (site / "alpha").mkdir(parents=True)
    info.mkdir()
    (site / "alpha" / "__init__.py").write_text("")
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: alpha\nVersion: 1.0\n")
    (info / "INSTALLER").write_text("pip\n")
    (info / "RECORD").write_text(
        "alpha/__pycache__/__init__.cpython-312.pyc,,\n"
        "alpha/__init__.py,,\n"
        "alpha/_speedups.py,,\n"
        "alpha-1.0.dist-info/METADATA,,\n"
        "alpha-1.0.dist-info/INSTALLER,,\n"
        "alpha-1.0.dist-info/RECORD,,\n"
    )
    result = probe_distribution("alpha", paths=[site])
    assert result.state == "partial"
    assert any("alpha/_speedups.py" in reason for reason in result.reasons), result.reasons
