"""The uv.lock reader, selector and drift check take any input: arbitrary bytes, or the lock real uv wrote with any
value of any type where uv writes a table, an array or a string. What does not fit is a problem with its place,
never an exception (before: ``supported-markers = 1``, ``requires-dev = [...]`` or a member's
``dependencies = 1`` ended ``tierlock check`` with an internal error)."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.uvproject import MEMBER, PYPROJECT
from tierlock.lockfiles.uvdrift import Member, drift
from tierlock.lockfiles.uvlock import UvLock, parse
from tierlock.lockfiles.uvselect import select

DATA = Path(__file__).parent / "data" / "uv.lock"
TEXT = DATA.read_text(encoding="utf-8")
DOCUMENT = tomllib.loads(TEXT)
MEMBERS = [Member("proj", ".", tomllib.loads(PYPROJECT)), Member("member", "packages/member", tomllib.loads(MEMBER))]

#: Any TOML value: scalars, arrays and tables of them, a few levels deep.
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8) | st.sampled_from(["==1", "extra == 'x'", "."]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
#: Where uv writes something: top-level keys, a package's keys, its metadata's and its dependencies' keys.
_TOP = ["version", "revision", "requires-python", "supported-markers", "resolution-markers", "conflicts", "manifest"]
_PACKAGE = ["name", "version", "source", "dependencies", "optional-dependencies", "dev-dependencies", "sdist", "wheels"]
_PACKAGE += ["metadata"]
_METADATA = ["requires-dist", "provides-extras", "requires-dev"]
_DEPENDENCY = ["name", "version", "source", "marker", "extra"]


def _whole(lock: UvLock) -> None:
    """Everything a command does with a lock: every tier's part, the workspace, the drift."""
    lock.members  # noqa: B018 (read as every command reads it)
    for extras, groups in (((), ()), (("brain",), ("tools",)), (("old",), ("test",))):
        select(lock, "proj", extras, groups)
    drift(lock, MEMBERS, "proj")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400) | st.text(max_size=400).map(str.encode))
def test_arbitrary_bytes_are_read_into_problems_never_an_exception(data: bytes) -> None:
    _whole(parse(data.decode("utf-8", "replace"), DATA))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), value=_VALUES)
def test_any_value_anywhere_in_a_real_lock_is_a_problem_or_read_never_an_exception(
    data: st.DataObject, value: Any
) -> None:
    document = copy.deepcopy(DOCUMENT)
    where = data.draw(st.sampled_from(["top", "package", "metadata", "dependency"]))
    packages = document["package"]
    package = packages[data.draw(st.integers(0, len(packages) - 1))]
    if where == "top":
        document[data.draw(st.sampled_from(_TOP))] = value
    elif where == "package":
        package[data.draw(st.sampled_from(_PACKAGE))] = value
    elif where == "metadata":
        package.setdefault("metadata", {})[data.draw(st.sampled_from(_METADATA))] = value
    else:
        package.setdefault("dependencies", [{}])
        if package["dependencies"]:
            package["dependencies"][0][data.draw(st.sampled_from(_DEPENDENCY))] = value
    _whole(parse(TEXT, DATA, document))


@pytest.mark.parametrize(
    ("top", "problem"),
    [
        ("supported-markers = 1", "supported-markers must be an array"),
        ('members = "member"', "[manifest].members must be an array"),
        ("manifest = 3", "[manifest] must be a table"),
    ],
)
def test_a_top_level_value_of_the_wrong_type_is_a_problem_of_the_lock(top: str, problem: str) -> None:
    if top.startswith("members"):  # in the [manifest] table uv wrote
        text = TEXT.replace("[manifest]\n", f"[manifest]\n{top}\n", 1).replace("members = [", "x = [", 1)
    else:
        text = f"{top}\n{TEXT}".replace("[manifest]", "[unknown]")
    lock = parse(text, DATA)
    assert problem in [p.detail for p in lock.problems]
    _whole(lock)


@pytest.mark.parametrize(
    ("key", "value", "problem"),
    [
        ("requires-dev", '["x"]', "proj: [package.metadata].requires-dev must be a table"),
        ("provides-extras", "1", "proj: [package.metadata].provides-extras must be an array"),
        ("requires-dist", '"alpha"', "proj: [package.metadata].requires-dist must be an array"),
    ],
)
def test_a_metadata_value_of_the_wrong_type_is_a_problem_on_its_packages_line(
    key: str, value: str, problem: str
) -> None:
    document = copy.deepcopy(DOCUMENT)
    (proj,) = (p for p in document["package"] if p["name"] == "proj")
    proj["metadata"][key] = tomllib.loads(f"v = {value}")["v"]
    lock = parse(TEXT, DATA, document)
    (found,) = (p for p in lock.problems if p.detail == problem)
    assert found.line == next(p.line for p in lock.packages if p.name == "proj")
    _whole(lock)


@pytest.mark.parametrize(
    "member",
    [
        MEMBER.replace('dependencies = ["beta<2"]', "dependencies = 1"),
        MEMBER.replace('dependencies = ["beta<2"]', 'dependencies = ["beta<2"]\ndynamic = 1'),
        MEMBER.replace('dependencies = ["beta<2"]', "optional-dependencies = [1]"),
        MEMBER + '\n[dependency-groups]\nx = "beta"\n\n[tool.uv]\nconflicts = 1\nconstraint-dependencies = 2\n',
    ],
    ids=["dependencies", "dynamic", "optional-dependencies", "groups-and-uv-settings"],
)
def test_a_workspace_members_damaged_declarations_are_no_exception(member: str) -> None:
    members = [MEMBERS[0], Member("member", "packages/member", tomllib.loads(member))]
    drift(parse(TEXT, DATA), members, "proj")
