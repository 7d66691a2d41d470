"""``--reinstall-package`` names checked against the tiers' locks before anything runs, and armed tiers listed.

A name no lock of the request holds is a usage error that names every unknown one, lists the locked packages, and
whose remedy is the same command with the closest locked name (or ``--reinstall`` when none is close). A receipt of
a tier ``pyproject.toml`` no longer declares is noted and skipped.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.support.venvshape import armed, project
from tierlock.errors import UsageError
from tierlock.installer import receipts
from tierlock.installer.preflight import armed_tiers, forced_names
from tierlock.installer.request import Request
from tierlock.lockfiles.locks import LockEntry
from tierlock.tiers import load_project


def _entries(*names: str) -> list[LockEntry]:
    return [LockEntry(canonicalize_name(n), Version("1.0"), None, ()) for n in names]


def test_the_named_packages_are_forced_and_reinstall_forces_every_locked_one() -> None:
    entries = _entries("numpy", "scipy")
    assert forced_names(Request(("brain",), reinstall_packages=("NumPy",)), entries) == {"numpy"}
    assert forced_names(Request(("brain",), reinstall=True), entries) == {"numpy", "scipy"}


def test_an_unknown_name_is_refused_with_the_closest_locked_name_in_the_remedy() -> None:
    request = Request(("brain",), python="/v/bin/python", reinstall_packages=("nunpy", "zzz-unknown"))
    with pytest.raises(UsageError) as caught:
        forced_names(request, _entries("numpy", "scipy"))
    assert str(caught.value) == (
        "--reinstall-package nunpy, zzz-unknown: not in the locks of brain for this target; "
        "the locked packages are numpy, scipy"
    )
    assert caught.value.remedy == "install-tier brain --python /v/bin/python --reinstall-package numpy"


def test_an_unknown_name_nothing_is_close_to_gets_reinstall_and_no_lock_says_none() -> None:
    with pytest.raises(UsageError) as caught:
        forced_names(Request(("brain",), reinstall_packages=("zzz",)), _entries("numpy"))
    assert caught.value.remedy == "install-tier brain --reinstall"
    with pytest.raises(UsageError) as empty:
        forced_names(Request((), reinstall_packages=("zzz",)), [])
    assert str(empty.value) == (
        "--reinstall-package zzz: not in the locks of these tiers for this target; the locked packages are (none)"
    )


class _Notes:
    def __init__(self) -> None:
        self.said: list[str] = []

    def note(self, text: str) -> None:
        self.said.append(text)


def test_a_receipt_of_a_tier_no_longer_declared_is_noted_and_skipped(tmp_path: Path) -> None:
    table = '\n[project.optional-dependencies]\nbrain = ["pkg"]\n\n[tool.tierlock.tiers.brain]\n'
    root = project(tmp_path / "proj", table)
    venv = tmp_path / "venv"
    armed(venv, root, "brain")
    receipt = json.loads(receipts.receipt_path(venv, "brain").read_text(encoding="utf-8"))
    receipts.receipt_path(venv, "gone").write_text(json.dumps({**receipt, "tier": "gone"}), encoding="utf-8")
    notes = _Notes()
    target = type("T", (), {"prefix": venv})()
    assert armed_tiers(load_project(root / "pyproject.toml"), target, notes) == ["brain"]  # type: ignore[arg-type]
    assert notes.said == [f"{venv} has a receipt for tier 'gone', which pyproject.toml no longer declares: skipped"]
