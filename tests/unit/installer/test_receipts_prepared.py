"""The receipts' parts made while the backend runs (``installer/receiptrecord.prepare``).

Everything a receipt says besides its packages (the digests of pyproject.toml and the lockfiles as this command
read them, the environment's name, the interpreter, what each tier's lock applies and pins) does not depend on what
the backend installs: the install makes it beside the backend and writes the receipts from it after the
verification. The receipts are then the very ones made without it, and a receipts folder gone meanwhile is made
again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.unit.installer.test_receipts_rewritten_without_a_backend import _project, _target
from tierlock import load_project, lockfiles
from tierlock.environment import Target
from tierlock.installer import receiptrecord, receipts

DISTS = [
    receipts.InstalledDist("basepkg", "1.0", "lib/site", "basepkg-1.0.dist-info", (("basepkg.py", 5),)),
    receipts.InstalledDist("pkg", "1.0", "lib/site", "pkg-1.0.dist-info", (("pkg.py", 3), ("pkg/_c.so", 9))),
]


def _record(root: Path, target: Target, *, prepared: bool) -> dict[str, Any]:
    project = load_project(root)
    tiers = [project.tier("base"), project.tier("brain")]
    locks = {t.name: lockfiles.load(t.lockfile) for t in tiers}
    made = receiptrecord.prepare(project, tiers=tiers, locks=locks, target=target) if prepared else None
    written = receiptrecord.record(
        project,
        tiers=tiers,
        locks=locks,
        target=target,
        dists=DISTS,
        backend="uv",
        backend_version="0.4.1",
        prepared=made,
    )
    out = {}
    for path in written:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
        document.pop("installed_at")
        out[document["tier"]] = document
    return out


def test_receipts_written_from_the_parts_made_beside_the_backend_are_the_ones_written_without_them(
    tmp_path: Path,
) -> None:
    root, target = _project(tmp_path / "proj"), _target(tmp_path / "venv")
    without = _record(root, target, prepared=False)
    for tier in ("base", "brain"):
        receipts.receipt_path(target.prefix, tier).unlink()
    made = _record(root, target, prepared=True)
    assert made == without
    assert set(made) == {"base", "brain"}
    assert made["brain"]["packages"][0]["files"] == [["pkg.py", 3], ["pkg/_c.so", 9]]


def test_preparing_makes_the_receipts_folder_and_a_folder_gone_since_is_made_again_by_the_write(
    tmp_path: Path,
) -> None:
    root, target = _project(tmp_path / "proj"), _target(tmp_path / "venv")
    (target.prefix / "tierlock").mkdir()
    project = load_project(root)
    tiers = [project.tier("brain")]
    locks = {t.name: lockfiles.load(t.lockfile) for t in tiers}
    made = receiptrecord.prepare(project, tiers=tiers, locks=locks, target=target)
    assert receipts.receipts_dir(target.prefix).is_dir()
    receipts.receipts_dir(target.prefix).rmdir()
    receiptrecord.record(
        project, tiers=tiers, locks=locks, target=target, dists=DISTS, backend="uv", backend_version="1", prepared=made
    )
    receipt = receipts.load_tier(target.prefix, "brain")
    assert receipt is not None
    assert receipt.package_names == {"pkg"}
    assert receipt.data["left_out"] == []


def test_the_project_itself_goes_into_a_tiers_receipt_only_when_that_tiers_lock_reaches_it(tmp_path: Path) -> None:
    """No lock here pins the project: a dist of the project's tree armed beside the tier is none of its packages."""
    root, target = _project(tmp_path / "proj"), _target(tmp_path / "venv")
    project = load_project(root)
    tiers = [project.tier("brain")]
    locks = {t.name: lockfiles.load(t.lockfile) for t in tiers}
    itself = receipts.InstalledDist("app", "0.1.0", "lib/site", "app-0.1.0.dist-info", (("app.py", 1),), project=True)
    made = receiptrecord.prepare(project, tiers=tiers, locks=locks, target=target)
    assert not made.tiers["brain"][2], "brain's lock does not reach the project"
    receiptrecord.record(
        project,
        tiers=tiers,
        locks=locks,
        target=target,
        dists=[*DISTS, itself],
        backend="uv",
        backend_version="1",
        prepared=made,
    )
    receipt = receipts.load_tier(target.prefix, "brain")
    assert receipt is not None
    assert receipt.package_names == {"pkg"}


def test_a_receipt_records_the_real_path_of_the_venvs_interpreter_and_is_written_again_when_it_leads_elsewhere(
    tmp_path: Path,
) -> None:
    import os
    import sys

    root, target = _project(tmp_path / "proj"), _target(tmp_path / "venv")
    python = Path(target.python)
    python.parent.mkdir(parents=True, exist_ok=True)
    first = tmp_path / "base" / "python3.12"
    first.parent.mkdir()
    first.symlink_to(sys.executable)
    python.symlink_to(first)
    made = _record(root, target, prepared=True)
    assert made["brain"]["interpreter"]["real"] == os.path.realpath(sys.executable)
    assert _record(root, target, prepared=True) == {}  # the same receipt: none written
    other = tmp_path / "other" / "python3"
    other.parent.mkdir()
    other.write_bytes(b"")
    first.unlink()
    first.symlink_to(other)  # the base's name moved to another interpreter
    again = _record(root, target, prepared=True)
    assert set(again) == {"base", "brain"}
    assert again["brain"]["interpreter"]["real"] == str(other)
