"""Which packages of a plan the backend would build: a recorded wheel that fits the target, looked for cheaply.

A lock's artifact record lists every platform's wheels of each package (1,046 for a JAX tier's 46 packages); the
install asks, before its backend, whether one of them fits the target. The verdicts are packaging's tags of each
name against the target's, and the target's tags are one set for the whole plan.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from tierlock.installer.builds import Accepted, fits, planned

LINUX = "cp311-cp311-manylinux_2_17_x86_64"
OTHERS = [
    f"numpy-2.1.0-cp{v}-cp{v}-{p}.whl"
    for v in ("310", "312", "313")
    for p in ("macosx_11_0_arm64", "win_amd64", "manylinux_2_17_aarch64.manylinux2014_aarch64")
]


class Target:
    """A target whose tags are counted as they are asked (or refused, to prove they are not needed)."""

    version = (3, 11, 7)

    def __init__(self, tags: frozenset[str] = frozenset({LINUX, "py3-none-any"}), *, refuse: bool = False) -> None:
        self._tags = tags
        self.refuse = refuse
        self.asked = 0

    @property
    def tags(self) -> frozenset[str]:
        self.asked += 1
        if self.refuse:
            raise AssertionError("the target's tags were asked")
        return self._tags


def _plan(packages: dict[str, list[str]]) -> tuple[Any, list[Any]]:
    """A policy recording *packages*' wheel names (name -> file names), and a step installing each."""
    files = {name: tuple(SimpleNamespace(kind="wheel", filename=f) for f in names) for name, names in packages.items()}
    rules = SimpleNamespace(no_build={}, files=lambda entry: files[entry.name])
    steps = [SimpleNamespace(name=n, entry=SimpleNamespace(name=n)) for n in packages]
    return rules, steps


def test_a_package_fits_when_its_one_wheel_for_the_target_is_listed_last() -> None:
    wheels = [*OTHERS, "numpy-2.1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"]
    assert fits(wheels, Accepted(Target()))  # type: ignore[arg-type]


def test_a_package_whose_wheels_are_all_for_other_platforms_is_built() -> None:
    rules, steps = _plan({"numpy": OTHERS})
    built = planned(rules, steps, Target())  # type: ignore[arg-type]
    assert [b.entry.name for b in built] == ["numpy"]


def test_a_pure_wheel_fits_without_asking_the_target_for_its_tags() -> None:
    target = Target(refuse=True)
    wheels = [*OTHERS, "six-1.16.0-py2.py3-none-any.whl"]
    assert fits(wheels, Accepted(target))  # type: ignore[arg-type]
    assert target.asked == 0


def test_the_targets_tags_are_one_set_for_every_wheel_of_the_plan() -> None:
    packages = {f"pkg{i}": [w.replace("numpy", f"pkg{i}") for w in OTHERS] for i in range(4)}
    packages["last"] = [*OTHERS, "last-1.0-cp311-cp311-manylinux_2_17_x86_64.whl"]
    rules, steps = _plan(packages)
    target = Target()
    built = planned(rules, steps, target)  # type: ignore[arg-type]
    assert [b.entry.name for b in built] == ["pkg0", "pkg1", "pkg2", "pkg3"]
    assert target.asked == 1


@pytest.mark.parametrize(
    ("name", "fit"),
    [
        ("abi3pkg-1.0-cp39-abi3-manylinux_2_17_x86_64.whl", True),  # an abi3 wheel of an older Python fits
        ("py3only-1.0-py3-none-manylinux_2_17_x86_64.whl", False),  # not in the accepted set given
        ("bad-name.whl", False),  # a name packaging cannot read carries no tag
    ],
)
def test_each_wheel_is_judged_by_packagings_tags_against_the_targets(name: str, fit: bool) -> None:
    target = Target(frozenset({LINUX, "cp39-abi3-manylinux_2_17_x86_64", "py3-none-any"}))
    assert fits([name], Accepted(target)) is fit  # type: ignore[arg-type]


class Tagged:
    """A target whose wheel tags are given in its order of preference."""

    def __init__(self, *ordered: str) -> None:
        self.ordered_tags = ordered


@pytest.mark.parametrize(
    ("ordered", "platform"),
    [
        (("cp311-cp311-musllinux_1_2_x86_64", "py3-none-any"), "musllinux_1_2_x86_64"),
        (("cp312-cp312-manylinux_2_39_aarch64", "cp312-abi3-manylinux_2_39_aarch64"), "manylinux_2_39_aarch64"),
        (("cp311-cp311-linux_riscv64", "cp311-cp311-macosx_14_0_arm64"), "macosx_14_0_arm64"),
        (("py3-none-any",), "manylinux_2_17_x86_64"),
    ],
)
def test_the_targets_platform_is_its_most_preferred_tag_a_platform_can_be_read_from(
    ordered: tuple[str, ...], platform: str
) -> None:
    from tierlock.installer.builds import target_platform

    assert target_platform(Tagged(*ordered)).tag == platform  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "debian"),
    [
        ('NAME="Ubuntu"\nID=ubuntu\nID_LIKE=debian\n', True),
        ("ID=debian\n", True),
        ('ID=linuxmint\nID_LIKE="ubuntu debian"\n', True),
        ('ID=fedora\nID_LIKE="rhel centos"\n', False),
        ("ID=alpine\n", False),
        (None, False),
    ],
)
def test_apt_package_names_are_said_only_on_a_machine_like_debian(
    tmp_path: Any, text: str | None, debian: bool
) -> None:
    from tierlock.installer.builds import _debian

    os_release = tmp_path / "os-release"
    if text is not None:
        os_release.write_text(text, encoding="utf-8")
    assert _debian(os_release) is debian
