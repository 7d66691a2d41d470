"""``tierlock status`` of a tier whose project step failed, or that was armed without the project itself.

A failed install is shown only while the tier is not present (a later install got it there some other way), except
a failure at the project's tree: the tier's own packages were in by then, so the tier is present and the failure
(with its remedy, ``--no-install-project``) is what status has to say. A tier armed without the project says so in
its line and in ``--json``, with no fix (it is a choice). Pure: rows built by hand.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Literal

import pytest

from tierlock.environment import Target
from tierlock.installer import failures, receipts
from tierlock.installer.status import TierStatus, lines, with_failure

REMEDY = "install-tier brain --no-install-project"


def _row(
    state: Literal["present", "partial", "absent"] = "present",
    receipt: receipts.Receipt | None = None,
    remedy: str | None = None,
) -> TierStatus:
    return TierStatus("brain", state, 2, 2 if state == "present" else 1, [], receipt, False, remedy, False, 9)


def _failed(step: str | None = failures.PROJECT_STEP, kind: str = "backend", remedy: str = REMEDY) -> dict[str, Any]:
    record: dict[str, Any] = {
        "tiers": ["brain"],
        "failed_at": "2026-12-03T17:00:00+0000",
        "error": {"kind": kind, "message": "uv install of app failed", "remedy": remedy},
    }
    if step is not None:
        record["step"] = step
    return record


def _target() -> Target:
    prefix = Path("/work/app/.venv")
    return Target(
        python=prefix / "bin" / "python",
        prefix=prefix,
        base_prefix=Path(sys.base_prefix),
        paths=(),
        purelib=prefix,
        platlib=prefix,
        stdlib=Path(sys.base_prefix),
        marker_env={},
        platform="linux-x86_64",
        version=(3, 12, 8),
    )


def test_a_present_tier_whose_project_step_failed_shows_the_failure_and_its_remedy() -> None:
    row = with_failure(_row(), _failed())
    assert row.problems == [
        "the last install-tier of brain failed (2026-12-03T17:00:00+0000): uv install of app failed"
    ]
    assert (row.remedy, row.last_failure) == (REMEDY, _failed())
    assert row.to_json()["remedy_argv"] == [["install-tier", "brain", "--no-install-project"]]
    said = lines(_target(), [row])
    assert said[1:] == [
        "brain: present — 2 packages, 9 files checked",
        f"  {row.problems[0]}",
        f"  to fix: {REMEDY}",
    ]


def test_the_failures_own_remedy_replaces_the_rows() -> None:
    assert with_failure(_row(remedy="install-tier brain"), _failed()).remedy == REMEDY


def test_a_present_tier_whose_other_step_failed_shows_nothing() -> None:
    for failed in (_failed(step=None), _failed(step="backend"), None):
        row = with_failure(_row(remedy="install-tier brain"), failed)
        assert (row.problems, row.remedy, row.last_failure) == ([], "install-tier brain", None)


def test_a_failure_without_a_remedy_keeps_the_rows() -> None:
    row = with_failure(_row(remedy="install-tier brain"), _failed(remedy=""))
    assert row.remedy == "install-tier brain"
    assert row.last_failure is not None


@pytest.mark.parametrize(("kind", "taken"), [("build-failed", True), ("no-build", True), ("backend", False)])
def test_a_tier_not_present_takes_the_failures_remedy_only_for_an_explained_failure(kind: str, taken: bool) -> None:
    row = with_failure(_row("partial", remedy="install-tier brain"), _failed(step=None, kind=kind))
    assert row.problems[0].startswith("the last install-tier of brain failed")
    assert row.remedy == (REMEDY if taken else "install-tier brain")


def test_a_tier_not_present_whose_project_step_failed_takes_that_remedy() -> None:
    assert with_failure(_row("partial", remedy="install-tier brain"), _failed()).remedy == REMEDY


def _receipt(**extra: object) -> receipts.Receipt:
    data: dict[str, object] = {"schema": 1, "tier": "brain", "installed_at": "2026-12-03T17:40:00Z", **extra}
    return receipts.Receipt(Path("/work/app/.venv/tierlock/receipts/brain.json"), data)


def test_a_tier_armed_without_the_project_says_so_with_no_fix() -> None:
    row = _row(receipt=_receipt(without_project=True))
    assert row.without_project is True
    document = row.to_json()
    assert (document["without_project"], document["remedy"], document["remedy_argv"]) == (True, None, None)
    assert lines(_target(), [row])[1] == (
        "brain: present — 2 packages, 9 files checked; armed 2026-12-03T17:40:00Z; "
        "without the project itself (--no-install-project)"
    )


@pytest.mark.parametrize("receipt", [None, _receipt(), _receipt(without_project=False)])
def test_a_tier_armed_with_the_project_or_not_armed_says_nothing_of_it(receipt: receipts.Receipt | None) -> None:
    row = _row(receipt=receipt)
    assert row.without_project is False
    assert row.to_json()["without_project"] is False
    assert "without the project" not in lines(_target(), [row])[1]
