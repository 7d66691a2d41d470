"""Arbitrary marker texts (hypothesis): whether two markers overlap or are equivalent is never a wrong "no".

Markers are drawn from PEP 508's whole grammar - every variable, every operator, literals on either side, single
or double quotes, ``and``/``or`` nested - including comparisons packaging cannot evaluate (``os_name ~= "nt"``,
an order on ``extras``). Evaluation errors are no answer, taken conservatively: :func:`overlap` never says two
markers cannot hold together when some environment (drawn from the same values and others) makes both hold,
:func:`equivalent` never says two markers are the same when some environment tells them apart, and no other
error escapes. Before, a variable written after its value (``"nt" == os_name``) was not varied at all (this
machine's own value was used), and any error counted as "holds" for both markers of :func:`equivalent`.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from packaging.markers import InvalidMarker, Marker, UndefinedComparison, UndefinedEnvironmentName

from tierlock.lockfiles.markers import _possible, equivalent, overlap

VARIABLES = ("os_name", "sys_platform", "platform_release", "platform_machine", "implementation_name")
VERSIONS = ("python_version", "python_full_version")
SETS = ("extras", "dependency_groups")
OPERATORS = ("==", "!=", "<", "<=", ">", ">=", "~=", "===", "in", "not in")
LITERALS = ("nt", "posix", "linux", "win32", "x86_64", "cpython", "3.9", "3.11", "3.12.1", "5.0", "6", "a b", "x")


@st.composite
def atoms(draw: st.DrawFn) -> str:
    variable = draw(st.sampled_from(VARIABLES + VERSIONS + SETS + ("extra",)))
    op = draw(st.sampled_from(OPERATORS))
    literal = draw(st.sampled_from(LITERALS))
    quote = draw(st.sampled_from(['"', "'"]))
    value = f"{quote}{literal}{quote}"
    if draw(st.booleans()):
        return f"{value} {op} {variable}"
    return f"{variable} {op} {value}"


markers = st.recursive(
    atoms(),
    lambda inner: st.tuples(inner, st.sampled_from(["and", "or"]), inner).map(lambda t: f"({t[0]}) {t[1]} ({t[2]})"),
    max_leaves=4,
)


@st.composite
def environments(draw: st.DrawFn) -> dict[str, object]:
    env: dict[str, object] = {v: draw(st.sampled_from((*LITERALS, "other"))) for v in VARIABLES}
    full = draw(st.sampled_from(("3.8.10", "3.9.0", "3.9.5", "3.10.2", "3.11.0", "3.11.9", "3.12.1", "3.13.0")))
    env["python_full_version"] = full
    env["python_version"] = ".".join(full.split(".")[:2])
    env["implementation_version"] = full
    for name in SETS:
        env[name] = frozenset(draw(st.lists(st.sampled_from(("x", "a-b", "nt", "other")), max_size=2)))
    env["extra"] = draw(st.sampled_from(("", "x", "nt")))
    return env


def _parsed(text: str) -> Marker:
    try:
        return Marker(text)
    except InvalidMarker:
        assume(False)
        raise


def _answer(marker: Marker, env: dict[str, object]) -> bool | None:
    try:
        return marker.evaluate(env)  # type: ignore[arg-type]
    except (UndefinedComparison, UndefinedEnvironmentName, TypeError, AssertionError):
        return None  # (AssertionError: a set compared, in the lowest packaging supported)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(markers, markers, environments())
def test_two_markers_that_both_hold_somewhere_overlap(first: str, second: str, env: dict[str, object]) -> None:
    a, b = _parsed(first), _parsed(second)
    env = {**env, "extra": ""}  # (overlap lets each marker have an extra of its own: the witness needs none)
    if _answer(a, env) and _answer(b, env):
        assert overlap(a, b), f"both hold in {env}"
    assert isinstance(overlap(a, b), bool)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(markers, markers, environments())
def test_two_markers_told_apart_somewhere_are_not_equivalent(first: str, second: str, env: dict[str, object]) -> None:
    """Somewhere that can exist: not a ``sys_platform`` of one platform with another's ``platform_system`` or
    ``os_name`` (``win32`` is ``Windows`` and ``nt``: uv writes one for the other)."""
    assume(_possible(env))
    a, b = _parsed(first), _parsed(second)
    answers = (_answer(a, env), _answer(b, env))
    if str(a) != str(b) and (answers[0] != answers[1] or None in answers):
        assert not equivalent(a, b), f"told apart (or not answered) in {env}: {answers}"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(markers, environments())
def test_a_marker_that_holds_somewhere_overlaps_itself_and_is_equivalent_to_itself(
    text: str, env: dict[str, object]
) -> None:
    marker = _parsed(text)
    # (packaging 26.1 writes an extra normalised that it compares as written: its text then names another marker)
    assume(str(Marker(str(marker))) == str(marker))
    if _answer(marker, {**env, "extra": ""}) is not False:
        assert overlap(marker, Marker(str(marker)))
    assert equivalent(marker, Marker(str(marker)))


def test_a_variable_written_after_its_value_is_varied_like_one_written_before_it() -> None:
    assert overlap(Marker("'nt' == os_name"), Marker('os_name == "nt"'))
    assert overlap(Marker("'nt' == os_name"), Marker("'nt' == os_name and python_version > '3'"))
    assert not overlap(Marker("'nt' == os_name"), Marker("os_name != 'nt'"))


def test_versions_beyond_two_release_bounds_are_tried() -> None:
    assert overlap(Marker('platform_release > "5.0"'), Marker('platform_release > "6.0"'))
    assert not overlap(Marker('platform_release < "5.0"'), Marker('platform_release > "6.0"'))


@pytest.mark.parametrize(
    "bound",
    ['python_version < "4.0"', 'python_version < "4"', 'python_full_version < "3.0.0"', 'python_version <= "3"'],
)
def test_a_python_bound_below_a_major_release_holds_below_it(bound: str) -> None:
    assert overlap(Marker(bound), Marker('os_name == "nt"'))
    assert overlap(Marker(bound), Marker(bound))
    assert not equivalent(Marker(bound), Marker('python_version >= "3.0"'))


def test_python_bounds_below_two_major_releases_are_told_apart() -> None:
    assert not equivalent(Marker('python_version < "3.0"'), Marker('python_version < "2.8"'))
    assert equivalent(Marker('python_version < "4.0"'), Marker('python_full_version < "4.0"'))


def test_a_substring_comparison_is_tried_on_values_beyond_its_literals() -> None:
    # "posix" holds "x" and is not in "linux": the second marker is false there, the first true
    assert not equivalent(
        Marker('os_name == "nt" or os_name != "nt"'), Marker('os_name in "linux" or "x" not in os_name')
    )
    assert not equivalent(Marker('os_name in "linux"'), Marker('os_name == "linux"'))  # "lin" is in "linux"
    assert overlap(Marker('os_name in "nt"'), Marker('os_name in "linux"'))  # "n" is in both
    assert overlap(Marker('"ab" in os_name'), Marker('"cd" in os_name'))  # "abcd"
    assert not overlap(Marker('"x" in os_name'), Marker('os_name == "nt"'))
    assert not equivalent(Marker('"x" not in os_name'), Marker('os_name != "x"'))  # "x-..." holds "x"


def test_a_comparison_packaging_cannot_evaluate_may_hold_and_is_equivalent_to_nothing_else() -> None:
    unanswerable = Marker('os_name ~= "nt"')
    assert overlap(unanswerable, Marker('os_name == "posix"'))
    assert not equivalent(unanswerable, Marker('os_name == "nt"'))
    assert not equivalent(Marker('extras < "x"'), Marker('"x" in extras'))


def test_a_variable_written_after_arbitrary_equality_is_tried_with_a_value_no_specifier_can_hold() -> None:
    # ``"nt" === platform_release`` is packaging's specifier ``===VALUE``: a release with a space in it cannot be one,
    # and the comparison has no answer there, so it is not a marker that holds nowhere
    never = Marker('python_version == "nt"')
    assert not equivalent(never, Marker('(os_name < "nt") and ("nt" === platform_release)'))
    assert not equivalent(Marker('"5.0" === platform_release'), Marker('platform_release == "5.0"'))
    assert equivalent(Marker('platform_release === "5.0"'), Marker("platform_release === '5.0'"))
