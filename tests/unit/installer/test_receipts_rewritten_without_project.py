"""A receipt says when its tier was armed without the project itself, and is rewritten when that changes.

``install-tier brain --no-install-project`` on a project that is a package leaves the project out of the
environment; its receipt says ``"without_project": true`` so that the no-op fast path never answers a later plain
``install-tier brain`` with "nothing to do". The project armed, the receipt says nothing of it (and vouches for the
project's files). Files only: :func:`tierlock.installer.receiptrecord.record` on a real project and lockfiles, for
an environment laid out like a venv.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.installer.test_receipts_rewritten_without_a_backend import _project, _target
from tierlock import load_project, lockfiles
from tierlock.environment import Target
from tierlock.frozen import replace
from tierlock.installer import receiptrecord, receipts
from tierlock.lockfiles.locks import LocalPackage

BASE = receipts.InstalledDist("basepkg", "1.0", "lib/site", "basepkg-1.0.dist-info", (("basepkg.py", 5),))
PKG = receipts.InstalledDist("pkg", "1.0", "lib/site", "pkg-1.0.dist-info", (("pkg.py", 1),))
APP = receipts.InstalledDist("app", "0.1.0", "lib/site", "app-0.1.0.dist-info", (("app.pth", 9),), project=True)
MEMBER = receipts.InstalledDist("member", "1.0", "lib/site", "member-1.0.dist-info", (("m.pth", 9),), project=True)


def _record(root: Path, target: Target, dists: list[receipts.InstalledDist], local: tuple[str, ...]) -> list[str]:
    """Record *dists* for brain, whose lock reaches the local packages *local* (the project's tree)."""
    project = load_project(root)
    tier = project.tier("brain")
    packages = tuple(LocalPackage(name, "0.1.0", root, True) for name in local)  # type: ignore[arg-type]
    lock = replace(lockfiles.load(tier.lockfile), local=packages)
    return receiptrecord.record(
        project, tiers=[tier], locks={tier.name: lock}, target=target, dists=dists, backend="uv", backend_version="1"
    )


def _brain(target: Target) -> receipts.Receipt:
    receipt = receipts.load(receipts.receipt_path(target.prefix, "brain"))
    assert receipt is not None
    return receipt


def test_a_tier_armed_without_the_project_says_so_and_armed_with_it_says_nothing(tmp_path: Path) -> None:
    root, target = _project(tmp_path / "proj"), _target(tmp_path / "venv")
    assert _record(root, target, [BASE, PKG], ("app",))
    assert _brain(target).data["without_project"] is True
    assert _record(root, target, [BASE, PKG, APP], ("app",))  # the plain command armed it: rewritten
    assert "without_project" not in _brain(target).data
    assert _brain(target).package_names == {"pkg", "app"}
    assert _record(root, target, [BASE, PKG, APP], ("app",)) == []  # the same again: left as it is
    assert _record(root, target, [BASE, PKG], ("app",))  # without it again: rewritten again
    assert _brain(target).data["without_project"] is True
    assert _record(root, target, [BASE, PKG], ("app",)) == []


@pytest.mark.parametrize(
    ("dists", "local"),
    [
        ([BASE, PKG], ()),  # no package of the tree: nothing to leave out
        ([BASE, PKG, MEMBER], ("member",)),  # only a workspace member: the project is no package
        ([BASE, PKG, APP, MEMBER], ("app", "member")),
    ],
    ids=["no-tree", "member-only", "both-armed"],
)
def test_a_receipt_says_nothing_when_the_project_is_not_left_out(
    tmp_path: Path, dists: list[receipts.InstalledDist], local: tuple[str, ...]
) -> None:
    root, target = _project(tmp_path / "proj"), _target(tmp_path / "venv")
    assert _record(root, target, dists, local)
    assert "without_project" not in _brain(target).data


def test_a_member_armed_without_the_project_still_counts_the_project_left_out(tmp_path: Path) -> None:
    root, target = _project(tmp_path / "proj"), _target(tmp_path / "venv")
    assert _record(root, target, [BASE, PKG, MEMBER], ("app", "member"))
    assert _brain(target).data["without_project"] is True
    assert _brain(target).package_names == {"pkg", "member"}


def test_a_dist_of_the_project_name_not_from_its_tree_does_not_count_as_armed(tmp_path: Path) -> None:
    """A package named like the project but not installed from its tree (the index's) is no arming of it."""
    root, target = _project(tmp_path / "proj"), _target(tmp_path / "venv")
    pinned = receipts.InstalledDist("app", "0.1.0", "lib/site", "app-0.1.0.dist-info", (("app.py", 3),))
    assert _record(root, target, [BASE, PKG, pinned], ("app",))
    assert _brain(target).data["without_project"] is True


def test_the_document_carries_the_key_only_when_true() -> None:
    common = {
        "tier": "brain",
        "pyproject": ("p", "d"),
        "lockfiles": {},
        "packages": [],
        "backend": "uv",
        "backend_version": "1",
        "interpreter": {},
        "project": "/p",
        "tierlock_version": "0",
        "now": 0.0,
    }
    assert receipts.build(**common, without_project=True)["without_project"] is True  # type: ignore[arg-type]
    assert "without_project" not in receipts.build(**common)  # type: ignore[arg-type]
