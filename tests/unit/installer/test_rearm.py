"""The remedy that re-arms a tier carries ``--replace-armed`` exactly when install-tier would refuse without it.

:func:`tierlock.installer.rearm.blocking` is pure over receipts, the tier's pins and what is installed;
:func:`tierlock.remedies.argv_of` turns a printed remedy into the argv lists ``--json`` carries.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tierlock.installer.rearm import FLAG, blocking, with_flag
from tierlock.installer.receipts import Receipt
from tierlock.remedies import argv_of


def receipt(tier: str, **pins: str) -> Receipt:
    data: dict[str, Any] = {"tier": tier, "packages": [{"name": n, "version": v} for n, v in pins.items()]}
    return Receipt(Path(f"/env/tierlock/receipts/{tier}.json"), data)


def test_a_package_another_receipt_pins_at_another_version_blocks_re_arming() -> None:
    armed = {"fast": receipt("fast", corelib="2.0")}
    assert blocking({"corelib": "1.0"}, {"corelib": "2.0"}, armed, skip=["brain"]) == {"fast": ["corelib"]}


def test_a_package_that_is_absent_still_blocks_as_install_tier_installs_it() -> None:
    armed = {"fast": receipt("fast", corelib="2.0")}
    assert blocking({"corelib": "1.0"}, {}, armed, skip=["brain"]) == {"fast": ["corelib"]}


def test_a_package_already_at_the_tiers_version_replaces_nothing() -> None:
    armed = {"fast": receipt("fast", corelib="2.0")}
    assert blocking({"corelib": "1.0"}, {"corelib": "1.0"}, armed, skip=["brain"]) == {}


def test_the_same_version_in_both_never_blocks() -> None:
    armed = {"fast": receipt("fast", corelib="1.0", other="3")}
    assert blocking({"corelib": "1.0"}, {"corelib": "0.1"}, armed, skip=["brain"]) == {}


def test_the_tier_itself_and_those_it_is_layered_on_never_block() -> None:
    armed = {"brain": receipt("brain", corelib="2.0"), "base": receipt("base", corelib="2.0")}
    assert blocking({"corelib": "1.0"}, {"corelib": "2.0"}, armed, skip=["base", "brain"]) == {}


def test_a_pin_the_other_tiers_current_lock_moved_to_the_new_version_does_not_block() -> None:
    armed = {"fast": receipt("fast", corelib="2.0")}
    others = {"fast": {"corelib": "1.0"}}
    assert blocking({"corelib": "1.0"}, {"corelib": "2.0"}, armed, skip=[], others_locked=others) == {}
    moved = {"fast": {"corelib": "3.0"}}
    assert blocking({"corelib": "1.0"}, {"corelib": "2.0"}, armed, skip=[], others_locked=moved) == {
        "fast": ["corelib"]
    }


def test_packages_the_tier_does_not_pin_never_block() -> None:
    armed = {"fast": receipt("fast", numpy="2.0")}
    assert blocking({"corelib": "1.0"}, {"numpy": "1.0"}, armed, skip=[]) == {}


def test_every_blocking_package_of_every_tier_is_named() -> None:
    armed = {"fast": receipt("fast", a="2", b="2"), "slow": receipt("slow", b="3")}
    found = blocking({"a": "1", "b": "1"}, {"a": "2", "b": "2"}, armed, skip=[])
    assert found == {"fast": ["a", "b"], "slow": ["b"]}


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("install-tier brain", "install-tier brain --replace-armed"),
        ("install-tier brain --replace-armed", "install-tier brain --replace-armed"),
        ("tierlock lock brain && install-tier brain", "tierlock lock brain && install-tier brain --replace-armed"),
    ],
)
def test_the_flag_goes_once_on_the_last_command(command: str, expected: str) -> None:
    assert with_flag(command) == expected
    assert FLAG == "--replace-armed"


@pytest.mark.parametrize(
    ("remedy", "argv"),
    [
        ("install-tier brain", [["install-tier", "brain"]]),
        ("install-tier brain --python '/a b/python'", [["install-tier", "brain", "--python", "/a b/python"]]),
        (
            "tierlock remove fast && install-tier --armed",
            [["tierlock", "remove", "fast"], ["install-tier", "--armed"]],
        ),
        ("make /site writable, then run the same command", None),
        ("install-tier brain (arms brain alone)", None),
        ("install-tier 'unclosed", None),
        ("install-tier brain &&", None),
        ("", None),
        (None, None),
    ],
)
def test_a_printed_remedy_is_an_argv_list_only_when_it_is_exactly_a_command(
    remedy: str | None, argv: list[list[str]] | None
) -> None:
    assert argv_of(remedy) == argv
