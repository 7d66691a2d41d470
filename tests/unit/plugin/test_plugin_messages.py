"""The plugin's lines read without a pytest run: what a strict run says before collection and at its end, and
the summary's counts and commands, from a decision made by hand."""

from __future__ import annotations

from typing import Any

from tierlock import volume
from tierlock.pytest_plugin.decision import Gate
from tierlock.pytest_plugin.messages import fail_closed_at_end, fail_closed_message, header_lines, summary_lines


def gate(*, strict: bool = True, **rest: Any) -> Gate:
    settings: dict[str, Any] = {"required": ["brain"], "exact": True}
    settings.update(rest)
    return Gate(
        root="/p",
        strict=strict,
        why="CI=true",
        states={"base": "present", "brain": "absent", "vision": "absent"},
        gated={},
        install={"brain": "install-tier brain", "vision": "install-tier vision"},
        broken={"brain": ["brainpkg is not installed"], "vision": ["visionpkg is not installed"]},
        **settings,
    )


def test_a_missing_required_tier_says_how_many_selected_files_need_it_counting_globbed_and_named_files() -> None:
    assert "  this run selects 2 test file(s) that need it" in fail_closed_message(gate(needed={"brain": 2}), ["brain"])
    both = fail_closed_message(gate(needed={"brain": 2}, globbed={"brain": 1}), ["brain"])
    assert "  this run selects 3 test file(s) that need it" in both
    assert not any("test file(s)" in line for line in fail_closed_message(gate(), ["brain"]))


def test_only_a_tier_whose_rearming_makes_a_needed_one_stale_says_no_install_is_the_fix() -> None:
    plain = fail_closed_message(gate(), ["brain"])
    assert not any("pin a package differently" in line for line in plain)
    looping = fail_closed_message(gate(rearm={"brain": ["vision"]}, required=["brain", "vision"]), ["brain"])
    assert any(line.startswith("  its lock and vision's pin a package differently") for line in looping)


def test_the_end_of_a_strict_run_lists_some_tests_then_how_many_more() -> None:
    decision = gate()
    shown = volume.PACKAGES
    decision.at_run = {"brain": [[f"tests/test_{n}.py::t", "skipped: x", "skipped"] for n in range(shown + 2)]}
    lines = fail_closed_at_end(decision, ["brain"], {})
    assert lines[0].startswith(
        f"tierlock: tier brain is required in CI (ci-require) but it is absent; {shown + 2} tests "
    )
    assert [line for line in lines if line.startswith("  - ")] == [
        *(f"  - tests/test_{n}.py::t (skipped: x)" for n in range(shown)),
        "  - and 2 more",
    ]
    decision.at_run = {"brain": decision.at_run["brain"][:shown]}
    assert not any("more" in line for line in fail_closed_at_end(decision, ["brain"], {}))


def test_each_missing_tiers_summary_line_counts_its_tests_and_arms_every_tier_they_need() -> None:
    decision = gate(required=[], strict=False)
    both = ["tests/test_a.py::test_both", "skipped: tier brain is absent, vision is absent", "skipped"]
    alone = ["tests/test_a.py::test_vision", "skipped: tier vision is absent", "skipped"]
    decision.at_run = {"brain": [both], "vision": [both, alone]}
    lines = summary_lines(decision)
    assert lines == [
        "tierlock: 0 test files not collected and 1 test skipped because brain absent; "
        "to run them: install-tier brain vision",
        "tierlock: 0 test files not collected and 2 tests skipped because vision absent; "
        "to run them: install-tier vision brain",
    ]
    decision.at_run = {"vision": [alone]}
    assert summary_lines(decision)[-1].endswith(
        "1 test skipped because vision absent; to run them: install-tier vision"
    )


def test_a_test_file_two_missing_tiers_gate_is_counted_on_both_lines_and_each_command_arms_both() -> None:
    decision = gate(required=[], strict=False, globbed={"brain": 1, "vision": 2})
    decision.kept_by_tier = {"brain": {"/p/tests/ml/test_seen.py"}, "vision": {"/p/tests/ml/test_seen.py"}}
    decision.worker_kept = {"vision": {"/p/tests/vision/test_alone.py"}}
    assert summary_lines(decision) == [
        "tierlock: 1 test file not collected and 0 tests skipped because brain absent; "
        "to run them: install-tier brain vision",
        "tierlock: 2 test files not collected and 0 tests skipped because vision absent; "
        "to run them: install-tier vision brain",
    ]
    decision.kept_by_tier = {"brain": {"/p/tests/ml/test_one.py"}}
    assert summary_lines(decision)[0].endswith("because brain absent; to run them: install-tier brain")


def test_the_header_names_a_tier_of_another_matrix_job_as_such_and_leaves_it_out_of_the_command() -> None:
    decision = gate(required=["brain"], job=["brain"], globbed={"brain": 1, "vision": 1})
    lines = header_lines(decision)
    assert lines[0] == (
        "tierlock: brain absent · vision absent (another matrix job) — to run them: install-tier brain"
    ), lines


def test_a_test_skipped_for_a_tier_here_and_one_of_another_matrix_job_arms_only_the_one_here() -> None:
    decision = gate(required=["brain"], job=["brain"], strict=False)
    both = ["tests/test_a.py::test_both", "skipped: tier brain is absent, vision is absent", "skipped"]
    decision.at_run = {"brain": [both], "vision": [both]}
    assert summary_lines(decision)[0].endswith("because brain absent; to run them: install-tier brain")
