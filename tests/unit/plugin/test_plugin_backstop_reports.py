"""The run-time backstop on one report at a time, without a pytest run inside: what it attributes, what it turns into
a skip, what it keeps failing, and what it counts at the end.

A report here is a plain object with the attributes pytest's ``TestReport`` carries (``skipped``, ``failed``,
``outcome``, ``longrepr``, ``location``, ``nodeid``, ``wasxfail``); the decision is a real
:class:`~tierlock.pytest_plugin.decision.Gate` for a ``brain`` tier (root ``brainpkg``) that is absent.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from tierlock.pytest_plugin import backstop
from tierlock.pytest_plugin.backstop import NEED, attribute, failing_at_end, tally
from tierlock.pytest_plugin.decision import Gate

REASON = "tier brain is absent; to run these tests: install-tier brain"


def gate(*, strict: bool = False, exact: bool = True, **rest: Any) -> Gate:
    settings: dict[str, Any] = {
        "owners": {"brainpkg": "brain", "yamlish": "my-tier"},
        "words": {"brainpkg": "brain", "brain-dist": "brain"},
        "required": ["brain"],
        "exact": exact,
    }
    settings.update(rest)
    return Gate(
        root="/p",
        strict=strict,
        why="test",
        states={"base": "present", "brain": "absent", "my-tier": "absent"},
        gated={},
        install={"brain": "install-tier brain", "my-tier": "install-tier my-tier"},
        broken={},
        **settings,
    )


def skipped(reason: str, *, xfail: str | None = None) -> Any:
    report = SimpleNamespace(
        skipped=True,
        failed=False,
        outcome="skipped",
        longrepr=("/p/tests/test_a.py", 7, f"Skipped: {reason}"),
        location=("tests/test_a.py", 6, "test_a"),
        nodeid="tests/test_a.py::test_a",
    )
    if xfail is not None:
        report.wasxfail = xfail
    return report


def failed(**extra: Any) -> Any:
    fields: dict[str, Any] = {
        "skipped": False,
        "failed": True,
        "outcome": "failed",
        "longrepr": "Traceback ...",
        "location": ("tests/test_a.py", 6, "test_a"),
        "nodeid": "tests/test_a.py::test_a",
    }
    fields.update(extra)
    return SimpleNamespace(**fields)


def missing() -> ModuleNotFoundError:
    return ModuleNotFoundError("No module named 'brainpkg'", name="brainpkg")


# -- skips ---------------------------------------------------------------------------------------------------------


def test_a_skip_naming_a_missing_root_is_attributed_and_its_reason_names_the_tier_and_its_fix() -> None:
    report = skipped("needs brainpkg")
    attribute(gate(), report, None, "setup")
    assert getattr(report, NEED) == ["brain", "brainpkg", "skipped: needs brainpkg"]
    assert report.longrepr == ("/p/tests/test_a.py", 7, f"needs brainpkg ({REASON})")
    assert report.outcome == "skipped"


def test_an_expected_failure_naming_a_missing_root_is_attributed_as_xfailed() -> None:
    report = skipped("unused", xfail="reason: needs brainpkg")
    attribute(gate(), report, None, "call")
    assert getattr(report, NEED) == ["brain", "brainpkg", "xfailed: needs brainpkg"]
    assert report.wasxfail == f"needs brainpkg ({REASON})"
    assert report.longrepr == ("/p/tests/test_a.py", 7, "Skipped: unused")  # an xfail's reason is its wasxfail


def test_tierlocks_own_skip_is_attributed_to_its_tier_and_left_as_it_is() -> None:
    for said in (
        REASON,
        "tier brain runs elsewhere; to run these tests: y",
        "tier brain is absent; to run these tests: install-tier my-tier",
    ):
        report = skipped(said)
        attribute(gate(), report, None, "setup")
        assert getattr(report, NEED) == ["brain", "", f"skipped: {said}"], said
        assert report.longrepr == ("/p/tests/test_a.py", 7, f"Skipped: {said}")


def test_tierlocks_own_skip_naming_two_missing_tiers_is_attributed_to_both_and_counted_for_each() -> None:
    said = "tier my-tier is absent, brain is absent; to run these tests: x"
    decision = gate()
    report = skipped(said)
    attribute(decision, report, None, "setup")
    assert getattr(report, NEED) == ["brain", "", f"skipped: {said}", ["my-tier"]]  # (in the project's order)
    tally(decision, report)
    entry = ["tests/test_a.py::test_a", f"skipped: {said}", "skipped"]
    assert decision.at_run == {"brain": [entry], "my-tier": [entry]}


def test_a_skip_naming_roots_of_two_missing_tiers_is_attributed_to_both_and_its_reason_arms_both() -> None:
    decision = gate()
    report = skipped("needs yamlish and brainpkg")
    attribute(decision, report, None, "setup")
    assert getattr(report, NEED) == ["my-tier", "yamlish", "skipped: needs yamlish and brainpkg", ["brain"]]
    said = report.longrepr[2]
    assert said.startswith("needs yamlish and brainpkg (tier my-tier is absent, brain is absent; "), said
    tally(decision, report)
    assert set(decision.at_run) == {"my-tier", "brain"}


def test_a_skip_with_the_tier_reasons_marker_but_no_tier_named_reads_as_any_other_skip() -> None:
    report = skipped("tier other is absent; to run these tests: x")
    attribute(gate(), report, None, "setup")
    assert not hasattr(report, NEED)


def test_a_skip_naming_nothing_after_a_failed_import_of_a_root_is_that_roots_tiers() -> None:
    report = skipped("backend unavailable")
    attribute(gate(), report, None, "setup", failed=["other", "BrainPkg".lower()])
    assert getattr(report, NEED) == [
        "brain",
        "brainpkg",
        "skipped: backend unavailable; after a failed import of brainpkg",
    ]
    report = skipped("backend unavailable")
    attribute(gate(), report, None, "setup", failed=["BRAINPKG"])
    assert getattr(report, NEED)[:2] == ["brain", "BRAINPKG"]


def test_an_importorskip_of_another_module_is_not_blamed_on_a_failed_import_or_a_mark() -> None:
    report = skipped("could not import 'other': No module named 'other'")
    attribute(gate(), report, None, "setup", failed=["brainpkg"], marks=["brain"])
    assert not hasattr(report, NEED)


@pytest.mark.parametrize(
    ("mark", "tier"),
    [
        ("brain", "brain"),
        ("requires_brain", "brain"),
        ("needs_brainpkg", "brain"),
        ("Brain", "brain"),
        ("my_tier", "my-tier"),
        ("yamlish", "my-tier"),
        ("needs_brain_dist", "brain"),
        ("brain-dist", "brain"),
    ],
)
def test_a_skip_naming_nothing_is_a_missing_tiers_when_a_mark_names_it(mark: str, tier: str) -> None:
    report = skipped("unavailable")
    attribute(gate(), report, None, "setup", marks=["parametrize", "skipif", mark])
    assert getattr(report, NEED) == [tier, mark, f"skipped: unavailable; marked {mark}"]


@pytest.mark.parametrize("marks", [["skip", "skipif", "xfail", "tier", "usefixtures", "filterwarnings"], ["gpu"], []])
def test_pytests_own_marks_and_others_name_no_tier(marks: list[str]) -> None:
    report = skipped("unavailable")
    attribute(
        gate(words={}, owners={"skip": "brain", "tier": "brain", "xfail": "brain"}), report, None, "setup", marks=marks
    )
    assert not hasattr(report, NEED)


@pytest.mark.parametrize("longrepr", ["needs brainpkg", ["/p/tests/test_a.py", 7, "Skipped: needs brainpkg"], None])
def test_a_skip_without_a_reason_tuple_keeps_its_longrepr(longrepr: object) -> None:
    """Only pytest's (path, line, reason) tuple is read as a reason; a string or a list of three is not one."""
    report = skipped("needs brainpkg")
    report.longrepr = longrepr
    attribute(gate(), report, None, "setup")
    assert not hasattr(report, NEED)  # no reason could be read
    assert report.longrepr == longrepr


# -- errors and failures -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("when", "verb"), [("call", "failed"), ("setup", "error"), ("teardown", "error")])
def test_an_import_error_of_a_missing_root_becomes_a_skip_naming_the_tier_on_a_laptop(when: str, verb: str) -> None:
    report = failed()
    attribute(gate(), report, missing(), when)
    detail = "ModuleNotFoundError: No module named 'brainpkg'"
    assert getattr(report, NEED) == ["brain", "brainpkg", f"{verb} in {when}: {detail}"]
    assert report.outcome == "skipped"
    assert report.longrepr == ("tests/test_a.py", 7, f"{REASON} ({detail})")


def test_the_same_error_keeps_failing_a_strict_run_that_requires_the_tier() -> None:
    report = failed()
    attribute(gate(strict=True), report, missing(), "call")
    assert getattr(report, NEED)[0] == "brain"
    assert (report.outcome, report.longrepr) == ("failed", "Traceback ...")
    report = failed()
    attribute(gate(strict=True, required=[]), report, missing(), "call")
    assert report.outcome == "skipped"


def test_an_error_wrapping_the_import_error_names_the_import_error() -> None:
    try:
        try:
            raise missing()
        except ImportError as inner:
            raise RuntimeError("plugin failed\nsecond line") from inner
    except RuntimeError as outer:
        error = outer
    report = failed()
    attribute(gate(), report, error, "call")
    assert getattr(report, NEED)[2] == "failed in call: ModuleNotFoundError: No module named 'brainpkg'"


def test_an_error_naming_a_root_after_its_import_failed_is_attributed_and_named_as_raised() -> None:
    report = failed()
    attribute(gate(), report, RuntimeError("Do you have brainpkg installed?"), "call", ever=["brainpkg"])
    assert getattr(report, NEED) == [
        "brain",
        "brainpkg",
        "failed in call: RuntimeError: Do you have brainpkg installed?",
    ]
    report = failed()
    attribute(gate(), report, RuntimeError("Do you have brainpkg installed?"), "call")  # no import of it failed
    assert not hasattr(report, NEED)


def test_an_error_of_an_empty_message_is_named_by_its_type() -> None:
    report = failed()
    attribute(gate(), report, RuntimeError(""), "call", ever=["brainpkg"])
    assert not hasattr(report, NEED)
    assert backstop._exception_text(RuntimeError("")) == "RuntimeError"
    assert backstop._exception_text(RuntimeError("  first  \nsecond")) == "RuntimeError: first"


@pytest.mark.parametrize("exc", [None, ValueError("brainpkg"), ImportError("No module named 'other'", name="other")])
def test_a_failure_no_missing_tier_caused_is_left_alone(exc: BaseException | None) -> None:
    report = failed()
    attribute(gate(), report, exc, "call")
    assert not hasattr(report, NEED)
    assert (report.outcome, report.longrepr) == ("failed", "Traceback ...")


def test_a_passed_report_is_left_alone() -> None:
    report = failed(failed=False, outcome="passed")
    attribute(gate(), report, missing(), "call")
    assert not hasattr(report, NEED)


# -- a module the run does not keep ----------------------------------------------------------------------------------


def test_a_collection_error_of_a_module_not_kept_becomes_an_uncounted_skip() -> None:
    report = failed()
    attribute(gate(strict=True), report, missing(), "collect", kept=False)
    assert not hasattr(report, NEED)
    assert report.outcome == "skipped"
    detail = "ModuleNotFoundError: No module named 'brainpkg'; no test of it selected"
    assert report.longrepr == ("tests/test_a.py", 7, f"{REASON} ({detail})")


def test_a_wrapped_import_error_of_a_module_not_kept_is_shown_by_the_import_error_itself() -> None:
    try:
        try:
            raise missing()
        except ImportError as inner:
            raise RuntimeError("plugin setup broke") from inner
    except RuntimeError as outer:
        wrapped = outer
    report = failed()
    attribute(gate(strict=True), report, wrapped, "collect", kept=False)
    detail = "ModuleNotFoundError: No module named 'brainpkg'; no test of it selected"
    assert report.longrepr == ("tests/test_a.py", 7, f"{REASON} ({detail})")


@pytest.mark.parametrize("report", [failed(failed=False, outcome="passed"), skipped("needs brainpkg")])
def test_a_module_not_kept_that_did_not_fail_is_left_alone(report: Any) -> None:
    before = report.longrepr
    attribute(gate(), report, missing() if not report.skipped else None, "collect", kept=False)
    assert report.longrepr == before
    assert not hasattr(report, NEED)


def test_a_module_not_kept_that_failed_for_another_reason_is_left_alone() -> None:
    for exc in (None, ValueError("x")):
        report = failed()
        attribute(gate(), report, exc, "collect", kept=False)
        assert (report.outcome, report.longrepr) == ("failed", "Traceback ...")


# -- where a report is ------------------------------------------------------------------------------------------------


def test_a_reports_place_is_its_location_else_its_path_else_its_node_id() -> None:
    assert (backstop._where(failed()), backstop._line(failed())) == ("tests/test_a.py", 7)
    assert backstop._line(failed(location=("tests/test_a.py", None, "x"))) == 1
    no_location = failed(location=None, fspath="/p/tests/test_b.py")
    assert (backstop._where(no_location), backstop._line(no_location)) == ("/p/tests/test_b.py", 1)
    assert backstop._where(failed(location=None, fspath="", nodeid="tests/test_c.py::t")) == "tests/test_c.py"
    assert backstop._where(failed(location=None, nodeid="tests/test_d.py::t")) == "tests/test_d.py"


# -- counting ---------------------------------------------------------------------------------------------------------


def test_an_attributed_report_is_counted_once_per_node_and_what_happened() -> None:
    decision = gate()
    report = failed(outcome="skipped")
    setattr(report, NEED, ["brain", "brainpkg", "failed in call: x"])
    tally(decision, report)
    tally(decision, report)
    assert decision.at_run == {"brain": [["tests/test_a.py::test_a", "failed in call: x", "skipped"]]}
    nameless = failed(nodeid="", outcome="failed")
    setattr(nameless, NEED, ["brain", "brainpkg", "error in collect: y"])
    tally(decision, nameless)
    assert decision.at_run["brain"][1] == ["tests/test_a.py", "error in collect: y", "failed"]


@pytest.mark.parametrize(
    "need", [None, ["brain", "brainpkg"], ("brain", "brainpkg", "x"), "brain", ["brain", "b", "x", ["c"], "e"]]
)
def test_a_report_without_a_whole_attribution_is_not_counted(need: Any) -> None:
    decision = gate()
    report = failed()
    if need is not None:
        setattr(report, NEED, need)
    tally(decision, report)
    assert decision.at_run == {}


def test_the_run_fails_at_the_end_on_required_tiers_needed_at_run_time_in_project_order() -> None:
    decision = gate(strict=True, required=["brain", "my-tier"])
    decision.at_run = {"my-tier": [["n", "w", "failed"]], "brain": [["n", "w", "failed"]], "base": [["n", "w", "x"]]}
    assert failing_at_end(decision) == ["brain", "my-tier"]
    assert failing_at_end(gate(strict=False)) == []


def test_gated_files_pytest_reached_fail_the_end_only_when_the_counts_were_not_exact() -> None:
    exact = gate(strict=True)
    exact.kept_by_tier = {"brain": {"tests/brain/test_x.py"}}
    assert failing_at_end(exact) == []
    loose = gate(strict=True, exact=False)
    loose.kept_by_tier = {"brain": {"tests/brain/test_x.py"}, "my-tier": set()}
    assert failing_at_end(loose) == ["brain"]
    loose.at_run = {"brain": [["n", "w", "failed"]]}
    assert failing_at_end(loose) == ["brain"]  # once


def test_a_path_is_named_relative_to_the_project() -> None:
    assert backstop.relpath(gate(), "/p/tests/test_a.py") == "tests/test_a.py"
    assert backstop.relpath(gate(), "/elsewhere/t.py") == "../elsewhere/t.py"
