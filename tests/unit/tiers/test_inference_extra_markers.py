"""Whether a dependency's marker can hold when an extra is asked for: only the ``extra`` comparisons decide, each
other comparison holds in some environment (``tierlock init``'s closure is universal), never tierlock's own."""

from __future__ import annotations

from typing import Any

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement

from tierlock.tiers.inference import _holds, closure


@pytest.mark.parametrize(
    ("marker", "extra", "holds"),
    [
        ('extra == "a"', "a", True),
        ('extra == "a"', "b", False),
        ('extra != "a"', "a", False),
        ('extra != "a"', "b", True),
        ('extra == "a" or extra == "b"', "b", True),
        ('extra == "a" and extra == "b"', "a", False),
        ('python_version < "3" or extra == "x"', "y", True),  # the Python comparison holds on some Python
        ('python_version < "3" and extra == "x"', "y", False),
        ('extra == "a" or extra == "b" and sys_platform == "win32"', "b", True),  # and binds first
        ('extra == "a" and sys_platform == "win32" or extra == "b"', "c", False),
        ('(extra == "a" or extra == "b") and sys_platform == "win32"', "b", True),
        ('(extra == "a" or extra == "b") and sys_platform == "win32"', "c", False),
        ('platform_machine == "arm64" and "gpu" == extra', "gpu", True),  # extra on the right
        ('python_full_version >= "3.99" and extra == "gpu"', "gpu", True),
    ],
)
def test_only_the_extra_comparisons_decide(marker: str, extra: str, holds: bool) -> None:
    assert _holds(Marker(marker), extra) is holds


class _Plain:
    """A marker of a packaging that keeps no ``_markers``: evaluated as it stands."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer

    def evaluate(self, environment: dict[str, str]) -> bool:
        if isinstance(self.answer, Exception):
            raise self.answer
        return bool(self.answer(environment))


def test_a_marker_without_its_parsed_form_is_evaluated_as_it_stands() -> None:
    assert _holds(_Plain(lambda env: env == {"extra": "a"}), "a") is True
    assert _holds(_Plain(lambda env: False), "a") is False
    assert _holds(_Plain(ValueError("odd")), "a") is False


def test_a_parsed_form_that_cannot_be_read_is_not_asked_for() -> None:
    class Odd:
        _markers = ((None, None, None),)  # neither side a variable: held

    assert _holds(Odd(), "a") is True
    broken = Marker('extra == "a"')
    broken._markers = [("not", "a", "comparison")]  # type: ignore[list-item]
    assert _holds(broken, "a") is True  # (no side names extra: held)
    broken._markers = 42  # type: ignore[assignment]
    assert _holds(broken, "a") is False


def test_the_closure_follows_an_extra_whatever_its_marker_compares_besides() -> None:
    requires = {
        "mlpkg": [Requirement('cudalib; python_version < "3.11" and extra == "cuda"'), Requirement("numpy")],
        "cudalib": [Requirement('winonly; sys_platform == "win32"')],
    }
    assert closure([Requirement("mlpkg[cuda]")], requires) == {"mlpkg", "cudalib", "numpy", "winonly"}
    assert closure([Requirement("mlpkg")], requires) == {"mlpkg", "numpy"}


def test_an_aggregate_is_a_tier_whose_roots_two_smaller_tiers_provide() -> None:
    from tierlock.tiers.inference import aggregates

    assert aggregates({"all": {"a", "b"}, "a": {"a"}, "b": {"b"}}) == {"all": ("a", "b")}
    assert aggregates({"all": {"a", "b", "c"}, "a": {"a"}, "b": {"b"}}) == {}  # c is its own
    assert aggregates({"all": {"a", "b"}, "a": {"a"}}) == {}  # one smaller tier: a layer, not an aggregate
    assert aggregates({"all": {"a", "b"}, "a": {"a"}, "b": {"b"}, "e": set()}) == {"all": ("a", "b")}
    assert aggregates({"all": {"a", "b", "a[x]"}, "a": {"a"}, "b": {"b"}}) == {"all": ("a", "b")}  # extras aside
    assert aggregates({"all": {"a", "b"}, "ab": {"a", "b"}, "a": {"a"}, "b": {"b"}}) == {
        "all": ("a", "b"),
        "ab": ("a", "b"),
    }  # (a tier of the same roots is no smaller part)
