"""The line ``install-tier`` prints after arming: what the backend did to the pinned packages, and what it installed
from the project's tree (alone when every pinned package was there already: not "installed -  of 3 package(s)")."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tierlock.commands.install import report
from tierlock.installer.plan import Plan, Step
from tierlock.installer.projecttree import LocalStep
from tierlock.installer.request import Outcome
from tierlock.lockfiles.locks import LocalPackage, LockEntry


class Lines:
    def __init__(self) -> None:
        self.said: list[str] = []
        self.json_mode = False

    def line(self, text: str) -> None:
        self.said.append(text)


def _entry(name: str) -> LockEntry:
    from packaging.utils import canonicalize_name
    from packaging.version import Version

    return LockEntry(canonicalize_name(name), Version("1.0"), None, ())


def _local(name: str, action: str) -> LocalStep:
    return LocalStep(LocalPackage(name, "0.1.0", Path("/p"), True), action, "why")  # type: ignore[arg-type]


def _said(actions: dict[str, str], local: list[LocalStep], result: Any = "installed", receipts: Any = ("r",)) -> str:
    plan = Plan(tuple(Step(_entry(n), a, "why") for n, a in actions.items()))  # type: ignore[arg-type]
    outcome = Outcome(["brain"], result, "/v", len(actions), plan=plan, backend="uv", duration=0.42, local=local)
    outcome.receipts = list(receipts)
    ui = Lines()
    report(outcome, SimpleNamespace(ui=ui))  # type: ignore[arg-type]
    assert len(ui.said) == 1
    return ui.said[0]


@pytest.mark.parametrize(
    ("actions", "local", "said"),
    [
        ({"a": "install", "b": "satisfied"}, [], "1 installed of 2 package(s) with uv"),
        (
            {"a": "install", "b": "replace", "c": "repair"},
            [],
            "1 installed, 1 replaced, 1 repaired of 3 package(s) with uv",
        ),
        (
            {"a": "install", "b": "satisfied"},
            [_local("app", "install")],
            "1 installed of 2 package(s), and app from the project tree, with uv",
        ),
        (
            {"a": "satisfied", "b": "satisfied"},
            [_local("app", "install"), _local("member", "install")],
            "app, member from the project tree (2 package(s) already present) with uv",
        ),
        ({"a": "install"}, [_local("app", "satisfied")], "1 installed of 1 package(s) with uv"),
    ],
)
def test_the_line_says_what_was_installed_and_what_came_from_the_project_tree(
    actions: dict[str, str], local: list[LocalStep], said: str
) -> None:
    assert _said(actions, local) == f"brain: installed - {said} in 0.4s; verified by the probe, receipt written"


def test_a_receipt_already_saying_this_is_named_unchanged() -> None:
    line = _said({"a": "repair"}, [], result="repaired", receipts=())
    assert line == "brain: repaired - 1 repaired of 1 package(s) with uv in 0.4s; verified by the probe, receipt " + (
        "unchanged (it already said this)"
    )


def _report(outcome: Outcome) -> list[str]:
    ui = Lines()
    report(outcome, SimpleNamespace(ui=ui))  # type: ignore[arg-type]
    return ui.said


def test_a_no_op_the_receipts_proved_says_what_they_checked() -> None:
    outcome = Outcome(["brain"], "unchanged", "/v", 3, files_checked=31)
    assert _report(outcome) == [
        "brain: already present (3 package(s), 31 file(s) checked against the receipt); nothing to do"
    ]


@pytest.mark.parametrize(("receipts", "done"), [((), "nothing to do"), (("r",), "receipt written")])
def test_a_full_run_that_changed_nothing_says_whether_it_wrote_the_receipt(receipts: Any, done: str) -> None:
    plan = Plan((Step(_entry("a"), "satisfied", "present"),))
    outcome = Outcome(["brain"], "unchanged", "/v", 1, plan=plan, receipts=list(receipts))
    assert _report(outcome) == [f"brain: already present (1 package(s) verified by the probe); {done}"]


def test_a_dry_run_prints_the_plan_as_a_table_and_nothing_else() -> None:
    plan = Plan((Step(_entry("a"), "install", "not installed"), Step(_entry("b"), "satisfied", "present")))
    outcome = Outcome(["brain"], "planned", "/v", 2, plan=plan)
    tables: list[tuple[str, list[str], list[list[str]]]] = []
    ui = Lines()
    ui.table = lambda title, header, rows: tables.append((title, header, rows))  # type: ignore[attr-defined]
    report(outcome, SimpleNamespace(ui=ui))  # type: ignore[arg-type]
    assert ui.said == []
    assert tables == [
        (
            "plan for brain in /v: 1 to install, 0 to replace, 0 to repair, 1 satisfied",
            ["action", "package", "version", "why"],
            [["install", "a", "1.0", "not installed"], ["satisfied", "b", "1.0", "present"]],
        )
    ]


def test_the_leftovers_deleted_are_named_before_the_line() -> None:
    plan = Plan((Step(_entry("a"), "repair", "why"),))
    outcome = Outcome(["brain"], "repaired", "/v", 1, plan=plan, backend="pip", duration=1.0, cleared=["/s/~orelib"])
    said = _report(outcome)
    assert said[0] == "  deleted /s/~orelib: left by an interrupted pip uninstall or upgrade"
    assert said[1].startswith("brain: repaired - 1 repaired of 1 package(s) with pip in 1.0s")
    assert len(said) == 2
