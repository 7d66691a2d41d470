"""Whether a package's recorded wheels hold one for the target (:func:`tierlock.installer.builds.fits`, with its
shortcuts: a pure wheel taken without asking the target, wheels looked at in an order of likelihood) is
packaging's verdict on every set of wheels: one of their tags among the tags the target accepts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from packaging import tags
from packaging.utils import InvalidWheelFilename, parse_wheel_filename

from tierlock.installer.builds import Accepted, fits

PLATFORMS = ["manylinux_2_17_x86_64", "linux_x86_64"]


class Target:
    """A CPython *version* target on Linux x86-64, its tags packaging's (as :mod:`tierlock.wheeltags` makes them)."""

    def __init__(self, version: tuple[int, int]) -> None:
        self.version = (*version, 0)
        specific = tags.cpython_tags(version, [f"cp{version[0]}{version[1]}"], PLATFORMS)
        compatible = tags.compatible_tags(version, f"cp{version[0]}{version[1]}", PLATFORMS)
        self.tags = frozenset(str(t) for t in (*specific, *compatible))


def _packagings(wheels: list[str], target: Target) -> bool:
    for name in wheels:
        try:
            found = {str(t) for t in parse_wheel_filename(name)[3]}
        except InvalidWheelFilename:
            continue
        if found & target.tags:
            return True
    return False


@pytest.mark.parametrize(
    ("wheel", "version"),
    [
        ("newer-1.0-py313-none-any.whl", (3, 11)),
        ("newer-1.0-py312-none-any.whl", (3, 11)),
        ("newer-1.0-py3-none-any.whl", (3, 11)),
        ("older-1.0-py39-none-any.whl", (3, 11)),
        ("both-1.0-py2.py313-none-any.whl", (3, 10)),
        ("three-1.0-py310.py311-none-any.whl", (3, 12)),
    ],
)
def test_a_pure_wheel_of_a_python_version_fits_only_a_target_packaging_says_it_fits(
    wheel: str, version: tuple[int, int]
) -> None:
    target = Target(version)
    assert fits([wheel], Accepted(target)) is _packagings([wheel], target)  # type: ignore[arg-type]


_PYTHONS = st.sampled_from(
    ["py2", "py3", "py30", "py38", "py39", "py310", "py311", "py312", "py313", "py314", "cp311", "cp312", "cp39", "pp3"]
)
_PYTHON = st.lists(_PYTHONS, min_size=1, max_size=2, unique=True).map(".".join)
_ABI = st.sampled_from(["none", "abi3", "cp311", "cp312", "cp39"])
_PLATFORM = st.sampled_from(["any", "linux_x86_64", "manylinux_2_17_x86_64", "win_amd64", "macosx_11_0_arm64"])
_WHEEL = st.builds("pkg-1.0-{}-{}-{}.whl".format, _PYTHON, _ABI, _PLATFORM) | st.just("bad-name.whl")


@settings(max_examples=500, deadline=None)
@given(wheels=st.lists(_WHEEL, max_size=5), minor=st.integers(min_value=8, max_value=14))
def test_the_verdict_on_any_set_of_wheels_is_packagings(wheels: list[str], minor: int) -> None:
    target = Target((3, minor))
    assert fits(wheels, Accepted(target)) is _packagings(wheels, target)  # type: ignore[arg-type]
