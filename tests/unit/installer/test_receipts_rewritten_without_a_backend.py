"""A receipt rewritten when no backend ran keeps the backend that installed the packages.

An install whose plan is all ``satisfied`` runs no backend, yet rewrites a receipt that no longer
matches (its recorded sizes changed, the project moved on): the packages are still the ones the
earlier backend installed, so the new receipt names that backend and its version. With no earlier
receipt either, it names none. Files only: :func:`tierlock.installer.receipts.record` on a real
project and lockfiles, for an environment laid out like a venv.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.targets import a_target
from tierlock import load_project, lockfiles
from tierlock.environment import Target
from tierlock.installer import receiptrecord, receipts

PYPROJECT = """\
[project]
name = "app"
version = "0.1.0"
dependencies = ["basepkg"]

[project.optional-dependencies]
brain = ["pkg"]

[tool.tierlock]
lock-dir = "lockfiles"

[tool.tierlock.tiers.brain]
source = "extra:brain"
"""


def _target(prefix: Path) -> Target:
    (prefix / "bin").mkdir(parents=True)
    (prefix / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    return a_target(prefix, prefix / "lib" / "site")


def _record(
    root: Path,
    target: Target,
    size: int,
    backend: str | None,
    version: str | None,
    *,
    tiers: tuple[str, ...] = ("brain",),
) -> list[str]:
    """Record basepkg and pkg (one file of *size* bytes) for *tiers*; the receipts written (brain's among them)."""
    project = load_project(root)
    chosen = [project.tier(name) for name in tiers]
    dists = [
        receipts.InstalledDist("basepkg", "1.0", "lib/site", "basepkg-1.0.dist-info", (("basepkg.py", 5),)),
        receipts.InstalledDist("pkg", "1.0", "lib/site", "pkg-1.0.dist-info", (("pkg.py", size),)),
    ]
    written = receiptrecord.record(
        project,
        tiers=chosen,
        locks={tier.name: lockfiles.load(tier.lockfile) for tier in chosen},
        target=target,
        dists=dists,
        backend=backend,
        backend_version=version,
    )
    assert str(receipts.receipt_path(target.prefix, "brain")) in written
    return written


def _brain(target: Target) -> receipts.Receipt:
    receipt = receipts.load(receipts.receipt_path(target.prefix, "brain"))
    assert receipt is not None
    return receipt


def _project(root: Path) -> Path:
    (root / "lockfiles").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (root / "lockfiles" / "base.txt").write_text(f"basepkg==1.0 --hash=sha256:{'b' * 64}\n", encoding="utf-8")
    (root / "lockfiles" / "brain.txt").write_text(f"pkg==1.0 --hash=sha256:{'a' * 64}\n", encoding="utf-8")
    return root


def test_a_receipt_rewritten_without_a_backend_run_keeps_the_backend_of_the_one_it_replaces(tmp_path: Path) -> None:
    root, target = _project(tmp_path / "proj"), _target(tmp_path / "venv")
    _record(root, target, 1, "uv", "0.4.1")
    assert _brain(target).backend == ("uv", "0.4.1")
    _record(root, target, 2, None, None)  # the recorded size changed: rewritten, nothing installed
    assert _brain(target).packages[0]["files"] == [["pkg.py", 2]]
    assert _brain(target).backend == ("uv", "0.4.1")
    _record(root, target, 3, "pip", "24.2")
    assert _brain(target).backend == ("pip", "24.2")  # a backend that ran is named


def test_a_first_receipt_written_without_a_backend_run_names_none(tmp_path: Path) -> None:
    root, target = _project(tmp_path / "proj"), _target(tmp_path / "venv")
    _record(root, target, 1, None, None)
    assert _brain(target).backend == ("none", "")


def test_a_tier_whose_receipt_still_holds_is_skipped_and_the_next_tier_still_recorded(tmp_path: Path) -> None:
    root, target = _project(tmp_path / "proj"), _target(tmp_path / "venv")
    assert len(_record(root, target, 1, "uv", "0.4.1", tiers=("base", "brain"))) == 2
    # Only brain's recorded size changed: base's receipt holds and is left as it is; brain's is rewritten.
    assert _record(root, target, 2, None, None, tiers=("base", "brain")) == [
        str(receipts.receipt_path(target.prefix, "brain"))
    ]
    assert _brain(target).packages[0]["files"] == [["pkg.py", 2]]


def test_a_receipt_names_what_its_lockfile_pins_that_was_not_installed_here(tmp_path: Path) -> None:
    root, target = _project(tmp_path / "proj"), _target(tmp_path / "venv")
    lock = root / "lockfiles" / "brain.txt"
    lock.write_text(
        lock.read_text(encoding="utf-8") + f"winonly==1.0 ; sys_platform == 'win32' --hash=sha256:{'c' * 64}\n"
    )
    _record(root, target, 1, "uv", "0.4.1")
    assert _brain(target).data["left_out"] == ["winonly"]  # pkg was installed; basepkg is not brain's pin
    assert _brain(target).package_names == {"pkg"}


def test_the_project_itself_is_marked_in_the_receipt_and_nothing_else_is() -> None:
    itself = receipts.InstalledDist("app", "0.2.0.dev1", "lib/site", "app-0.2.0.dev1.dist-info", (), project=True)
    other = receipts.InstalledDist("pkg", "1.0", "lib/site", "pkg-1.0.dist-info", ())
    assert itself.to_dict()["project"] is True
    assert "project" not in other.to_dict()
