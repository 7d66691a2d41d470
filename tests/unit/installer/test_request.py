"""What ``install-tier`` is asked and what it did (``installer/request.py``): the values behave as the dataclasses they
were (defaults, keyword and positional construction, equality, hashing, immutability, ``replace``), and the command
a request prints repeats it."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.support.venvshape import armed, project
from tierlock.frozen import replace
from tierlock.installer import fastpath
from tierlock.installer.location import environment_key
from tierlock.installer.plan import Installed, Plan, Step
from tierlock.installer.request import Outcome, Request
from tierlock.lockfiles.locks import LockEntry


def test_a_request_has_the_defaults_the_dataclass_had() -> None:
    request = Request(("brain",))
    assert (request.tiers, request.python, request.system, request.backend) == (("brain",), None, False, None)
    assert (request.dry_run, request.deep, request.reinstall, request.reinstall_packages) == (False, False, False, ())
    assert (request.armed, request.index, request.replace_armed, request.install_project) == (False, (), False, True)


def test_a_request_built_by_position_sets_each_field_in_order() -> None:
    values = (("a", "b"), "py", True, "uv", True, True, True, ("x",), True, ("--no-index",), True, False)
    request = Request(*values)
    assert tuple(getattr(request, name) for name in Request._fields) == values
    by_name: dict[str, Any] = dict(zip(Request._fields, values, strict=True))
    assert Request(**by_name) == request


def test_requests_are_equal_and_hash_alike_by_their_fields_and_cannot_be_changed() -> None:
    one, same, other = Request(("brain",), "py"), Request(("brain",), python="py"), Request(("brain",), "py", True)
    assert one == same
    assert hash(one) == hash(same)
    assert one != other
    assert len({one, same, other}) == 2
    with pytest.raises(AttributeError):
        one.python = "other"  # type: ignore[misc]
    assert repr(one).startswith("Request(tiers=('brain',), python='py', system=False, backend=None,")


def test_replace_gives_a_request_with_one_field_changed() -> None:
    request = Request(("brain",), backend="pip", deep=True)
    moved = replace(request, python="../v312")
    assert moved == Request(("brain",), python="../v312", backend="pip", deep=True)
    assert request.python is None
    with pytest.raises(TypeError, match="no field 'pyhton'"):
        replace(request, pyhton="x")


@pytest.mark.parametrize(
    ("request_", "printed"),
    [
        (Request(("brain",)), "install-tier brain"),
        (Request(("brain",), python="../my venv"), "install-tier brain --python '../my venv'"),
        (Request(("brain",), system=True), "install-tier brain --system"),
        (Request(("brain",), backend="pip"), "install-tier brain --backend pip"),
        (Request(("brain",), deep=True), "install-tier brain --deep"),
        (Request(("brain",), install_project=False), "install-tier brain --no-install-project"),
        (Request(("brain",), replace_armed=True), "install-tier brain --replace-armed"),
        (Request(("brain",), armed=True), "install-tier brain --armed"),
        (
            Request(("x",), "py", True, "uv", deep=True, armed=True, replace_armed=True, install_project=False),
            "install-tier brain viz --python py --system --backend uv --deep --no-install-project --replace-armed "
            "--armed",
        ),
    ],
)
def test_the_command_a_request_prints_repeats_it_for_the_tiers_named(request_: Request, printed: str) -> None:
    tiers = ["brain", "viz"] if "viz" in printed else ["brain"]
    assert request_.command(tiers) == printed
    assert shlex.split(printed)[0] == "install-tier"


def test_what_a_request_does_not_repeat_is_left_out_of_its_command() -> None:
    """A dry run, a reinstall and the index lines are not part of the command that repeats the install."""
    request = Request(("brain",), dry_run=True, reinstall=True, reinstall_packages=("a",), index=("--no-index",))
    assert request.command(["brain"]) == "install-tier brain"


def test_an_outcome_has_the_defaults_the_dataclass_had_each_list_its_own() -> None:
    one, two = Outcome(["brain"], "installed", "/venv", 3), Outcome(["brain"], "installed", "/venv", 3)
    assert (one.files_checked, one.plan, one.backend, one.backend_version, one.backend_seconds) == (
        0,
        None,
        None,
        None,
        None,
    )
    assert (one.duration, one.waited, one.receipts, one.noop, one.cleared, one.local) == (0.0, False, [], None, [], [])
    assert one == two
    one.receipts.append("r.json")
    one.cleared.append("~x")
    one.local.append(None)  # type: ignore[arg-type]
    assert (two.receipts, two.cleared, two.local) == ([], [], [])
    assert one != two
    with pytest.raises(TypeError):
        hash(one)


def test_an_outcome_built_by_position_sets_each_field_in_order_and_is_changed_in_place() -> None:
    values: tuple[Any, ...] = (
        ["a"],
        "repaired",
        "/v",
        2,
        7,
        None,
        "uv",
        "0.9",
        1.5,
        2.25,
        True,
        ["r"],
        None,
        ["c"],
        [],
    )
    outcome = Outcome(*values)
    assert tuple(getattr(outcome, name) for name in Outcome._fields) == values
    outcome.waited = False
    assert outcome.waited is False
    assert repr(outcome).startswith("Outcome(tiers=['a'], result='repaired', prefix='/v', packages=2, files_checked=7,")


def test_an_outcomes_json_says_every_field() -> None:
    entry = LockEntry(canonicalize_name("alpha"), Version("1.0"), None, ("sha256:" + "0" * 64,))
    plan = Plan(
        (Step(entry, "install", "not installed"), Step(entry, "repair", "x", Installed(entry.name, None, "partial")))
    )
    outcome = Outcome(
        ["brain", "viz"],
        "installed",
        "/venv",
        2,
        files_checked=9,
        plan=plan,
        backend="uv",
        backend_version="0.9.1",
        backend_seconds=0.123456,
        duration=1.234567,
        waited=True,
        receipts=["/venv/tierlock/receipts/brain.json"],
        cleared=["/venv/lib/~lpha"],
    )
    document = outcome.to_json()
    assert document["tier"] == "brain viz"
    assert document["tiers"] == ["brain", "viz"]
    assert (document["result"], document["target"], document["package_count"]) == ("installed", "/venv", 2)
    assert document["counts"] == {"install": 1, "replace": 0, "repair": 1, "satisfied": 0}
    assert [p["name"] for p in document["packages"]["install"]] == ["alpha"]
    assert (document["files_checked"], document["backend"], document["backend_version"]) == (9, "uv", "0.9.1")
    assert (document["backend_s"], document["duration_s"], document["waited_for_lock"]) == (0.1235, 1.2346, True)
    assert document["receipts"] == ["/venv/tierlock/receipts/brain.json"]
    assert document["leftovers_cleared"] == ["/venv/lib/~lpha"]
    assert document["local_packages"] == []
    assert Outcome(["b"], "unchanged", "/v", 0).to_json()["backend_s"] is None


def test_an_outcome_the_receipts_proved_a_no_op_says_what_they_vouched_for_and_whether_it_waited(
    tmp_path: Path,
) -> None:
    """An install that waited for another's lock and then found the tiers armed (no plan made) answers with the no-op
    document, its wait said; one with a plan answers with the plan's, whatever no-op it also carries."""
    root = project(tmp_path / "proj")
    armed(tmp_path / "venv", root)
    noop, why = fastpath.check(
        ["brain"], tmp_path / "venv", environment_key(tmp_path / "venv"), root / "pyproject.toml"
    )
    assert noop is not None, why
    waited = Outcome(["brain"], "unchanged", str(tmp_path / "venv"), 1, duration=0.5, waited=True, noop=noop)
    assert waited.to_json() == {**fastpath.to_json(noop, 0.5), "waited_for_lock": True}
    assert waited.to_json()["counts"]["satisfied"] == 1
    planned = Outcome(["brain"], "unchanged", str(tmp_path / "venv"), 1, plan=Plan(()), noop=noop)
    assert planned.to_json()["counts"] == {"install": 0, "replace": 0, "repair": 0, "satisfied": 0}
