"""``[tool.uv] environments`` and ``required-environments`` against uv.lock's ``supported-markers`` and
``required-markers``: a change is drift, another spelling of the same environments is not (pure). The same against
real uv (``uv lock --check``) is in ``tests/cli/test_uv_lock_environments.py``."""

from __future__ import annotations

import pytest

from tierlock.lockfiles.uvenvironments import changes

Table = dict[str, object]

DARWIN = "sys_platform == 'darwin'"
LINUX = "sys_platform == 'linux'"


@pytest.mark.parametrize(
    ("declared", "locked"),
    [
        ({}, {}),
        ({"environments": [DARWIN]}, {"supported-markers": [DARWIN]}),
        ({"environments": "sys_platform=='darwin'"}, {"supported-markers": [DARWIN]}),
        ({"environments": [DARWIN, LINUX]}, {"supported-markers": [f"{LINUX} or {DARWIN}"]}),
        (
            {"environments": [f"{LINUX} and python_version >= '3.8'"]},
            {"supported-markers": [LINUX]},
        ),
        (
            {"required-environments": [f"{LINUX} and python_version >= '3.12'"]},
            {"required-markers": [f"{LINUX} and python_full_version >= '3.12'"]},
        ),
        ({"environments": ["sys_platform ==="]}, {"supported-markers": [DARWIN]}),
        ({"environments": [DARWIN]}, {"supported-markers": ["not a marker ]["]}),
        ({"environments": [7, DARWIN], "required-environments": 7}, {"supported-markers": [DARWIN]}),
        ({"environments": {"a": DARWIN}}, {"supported-markers": 3, "required-markers": {"a": DARWIN}}),
    ],
    ids=[
        "none",
        "the same",
        "one string respelled",
        "split in two",
        "a bound requires-python decides",
        "python_version as python_full_version",
        "declared no marker",
        "locked no marker",
        "items of the wrong type",
        "lists of the wrong type",
    ],
)
def test_the_same_environments_however_written_are_no_drift(declared: Table, locked: Table) -> None:
    assert changes(declared, locked, ">=3.11") == []


@pytest.mark.parametrize(
    ("declared", "locked", "expected"),
    [
        ({"environments": [DARWIN, LINUX]}, {"supported-markers": [DARWIN]}, f"{DARWIN} became {DARWIN}, {LINUX}"),
        ({}, {"supported-markers": [DARWIN]}, f"{DARWIN} became (none)"),
        ({"environments": [LINUX]}, {}, f"(none) became {LINUX}"),
        ({"environments": [f"{LINUX} and python_version >= '3.12'"]}, {"supported-markers": [LINUX]}, "became"),
    ],
    ids=["one added", "removed", "declared", "narrowed"],
)
def test_a_change_of_the_environments_is_drift_naming_both(declared: Table, locked: Table, expected: str) -> None:
    (found,) = changes(declared, locked, ">=3.11")
    assert found.startswith("[tool.uv].environments: ")
    assert expected in found


def test_a_change_of_the_required_environments_is_drift_of_that_key() -> None:
    found = changes({"environments": [LINUX], "required-environments": [LINUX]}, {"supported-markers": [LINUX]}, None)
    assert found == [f"[tool.uv].required-environments: (none) became {LINUX}"]


def test_environments_that_are_no_markers_leave_the_required_ones_compared() -> None:
    declared = {"environments": ["sys_platform ==="], "required-environments": [LINUX]}
    found = changes(declared, {"supported-markers": [DARWIN]}, None)
    assert found == [f"[tool.uv].required-environments: (none) became {LINUX}"]
