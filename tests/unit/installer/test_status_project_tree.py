"""``tierlock status`` of a tier whose project step failed, or that was armed without the project itself.

A failed install is shown only while the tier is not present (a later install got it there some other way), except
a failure at the project's tree: the tier's own packages were in by then, so the tier is present and the failure
(with its remedy, ``--no-install-project``) is what status has to say. A tier armed without the project says so in
its line and in ``--json``, with no fix (it is a choice). Pure: rows built by hand.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, Literal

import pytest

from tests.support.targets import a_target
from tierlock.environment import Target
from tierlock.installer import failures, receipts
from tierlock.installer.status import TierStatus, _one, lines, pruned_reason, rearm_command, with_failure

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
    return a_target(Path("/work/app/.venv"), version=(3, 12, 8))


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


# -- the rest of a row, as the report says it --------------------------------------------------------------------------


def test_a_failure_goes_before_the_problems_the_probe_found() -> None:
    row = _row("partial")
    row.problems.append("corelib 1.0: file listed in RECORD is missing: corelib/_core.so")
    with_failure(row, _failed(step=None))
    assert row.problems[0].startswith("the last install-tier of brain failed")
    assert row.problems[1].startswith("corelib 1.0")


@pytest.mark.parametrize(
    ("state", "satisfied", "words"),
    [
        ("partial", 1, "partial — 1 of 2 packages broken, 9 files checked"),
        ("absent", 0, "absent — 2 of 2 packages not installed, 9 files checked"),
    ],
)
def test_a_tier_not_present_counts_what_is_broken(
    state: Literal["partial", "absent"], satisfied: int, words: str
) -> None:
    row = TierStatus("brain", state, 2, satisfied, [], None, False, None, False, 9)
    assert lines(_target(), [row])[1] == f"brain: {words}"


def test_the_problems_are_cut_at_five_unless_verbose() -> None:
    row = _row("partial")
    row.problems.extend(f"pkg{n} 1.0: gone" for n in range(7))
    cut = lines(_target(), [row])
    assert cut[2:8] == [
        *(f"  pkg{n} 1.0: gone" for n in range(5)),
        "  and 2 more problems (-v lists them all, --json too)",
    ]
    assert lines(_target(), [row], verbose=True)[2:9] == [f"  pkg{n} 1.0: gone" for n in range(7)]


def test_the_command_that_rearms_names_the_interpreter_status_was_given() -> None:
    assert rearm_command("brain", None) == "install-tier brain"
    assert rearm_command("brain", "/v/bin/python") == "install-tier brain --python /v/bin/python"


@pytest.mark.parametrize(("lock", "uv"), [(None, False), (Path("uv.lock"), True), (Path("pylock.toml"), False)])
def test_a_pruned_tier_names_what_went_and_on_a_uv_project_the_plain_uv_sync(lock: Path | None, uv: bool) -> None:
    said = pruned_reason(SimpleNamespace(lock=lock), "brain", "2026-12-03", ["numpy", "scipy"])  # type: ignore[arg-type]
    assert said.startswith("armed on 2026-12-03 (its receipt is there), but packages (numpy, scipy) were removed")
    assert ("a plain `uv sync`" in said) is uv
    assert ("uv pip sync of another lock" in said) is not uv
    assert "but packages were removed" in pruned_reason(SimpleNamespace(lock=None), "brain", "x", [])  # type: ignore[arg-type]


def _dist(name: str) -> SimpleNamespace:
    return SimpleNamespace(name=name, present=True, state="present", version_text="1.0", reasons=[])


def test_a_present_tier_with_its_receipt_counts_every_package_and_is_neither_pruned_nor_older(tmp_path: Path) -> None:
    lockfile = tmp_path / "brain.txt"
    lockfile.write_text("pkg==1.0\n", encoding="utf-8")
    receipt = _receipt(lockfiles={"brain": {"path": str(lockfile), "digest": receipts.file_digest(lockfile)}})
    result = SimpleNamespace(
        present=True, broken=[], checked=[_dist("a"), _dist("b")], state="present", files_checked=4
    )
    tier = SimpleNamespace(name="brain", lockfile=lockfile)
    row = _one(SimpleNamespace(lock=None), tier, result, receipt, None, prefix=tmp_path)  # type: ignore[arg-type]
    assert (row.state, row.packages, row.satisfied, row.files_checked) == ("present", 2, 2, 4)
    assert (row.problems, row.pruned, row.stale, row.remedy) == ([], False, False, None)
    lockfile.write_text("pkg==2.0\n", encoding="utf-8")  # the lock moved on since it was armed
    row = _one(SimpleNamespace(lock=None), tier, result, receipt, "/v/bin/python", prefix=tmp_path)  # type: ignore[arg-type]
    assert (row.stale, row.remedy) == (True, "install-tier brain --python /v/bin/python")


@pytest.mark.parametrize(("packages", "files", "words"), [(1, 1, "1 package, 1 file"), (0, 0, "0 packages, 0 files")])
def test_one_package_and_one_file_are_said_in_the_singular(packages: int, files: int, words: str) -> None:
    row = TierStatus("brain", "present", packages, packages, [], None, False, None, False, files)
    assert lines(_target(), [row])[1] == f"brain: present — {words} checked"
