"""The WHEEL file's tags against the target's: a distribution installed from a wheel no tag of which the target
accepts is partial, saying which tags and what the target takes; a pure wheel (``-any``) is never judged, and a
compressed tag set is read as its tags.

:class:`tierlock.wheeltags.Fit` is exact for a target of this process's platform; for one on another platform
string (a macOS build for another deployment target) a tag fits by its interpreter and ABI and its system family and
machine. Folders written here, probed through a :class:`SiteIndex` of the running interpreter (the pytest plugin's).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from packaging import tags as packaging_tags

from tierlock.probing import SiteIndex, distinfo, probe_distribution
from tierlock.targetmodel import Target
from tierlock.wheeltags import Fit, kind

MAC = (
    "cp312-cp312-macosx_14_0_arm64",
    "cp312-abi3-macosx_14_0_arm64",
    "cp311-abi3-macosx_14_0_arm64",
    "cp312-none-macosx_14_0_arm64",
    "py3-none-macosx_14_0_arm64",
    "py3-none-any",
)
OWN = next(iter(packaging_tags.sys_tags()))


def _folder(site: Path, name: str, wheel: str | None) -> None:
    """An installed distribution ``name-1.0`` whose one module is there with its size, and WHEEL (when given)."""
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (site / name).mkdir()
    (site / name / "__init__.py").write_text("X = 1\n")
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "INSTALLER").write_text("pip\n")
    rows = [f"{name}/__init__.py,,6", f"{name}-1.0.dist-info/METADATA,,", f"{name}-1.0.dist-info/INSTALLER,,"]
    if wheel is not None:
        (info / "WHEEL").write_text(wheel)
        rows.append(f"{name}-1.0.dist-info/WHEEL,,")
    (info / "RECORD").write_text("\n".join([*rows, f"{name}-1.0.dist-info/RECORD,,"]) + "\n")


def _wheel(*lines: str) -> str:
    return "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n" + "".join(f"Tag: {t}\n" for t in lines)


@pytest.mark.parametrize(
    ("platform", "expected"),
    [
        ("manylinux_2_17_x86_64", ("linux", "x86_64")),
        ("manylinux2014_aarch64", ("linux", "aarch64")),
        ("linux_x86_64", ("linux", "x86_64")),
        ("musllinux_1_2_x86_64", ("linux", "x86_64")),  # (the C library of another platform string: not told)
        ("macosx_11_0_arm64", ("macosx", "arm64")),
        ("macosx_10_9_universal2", ("macosx", "universal2")),
        ("win_amd64", ("win", "amd64")),
        ("win32", ("win32", "")),
        ("linux_386", ("linux", "386")),  # the last part is the machine, digits or not
        ("macosx_10_15_7_x86_64", ("macosx", "x86_64")),  # however many version numbers
    ],
)
def test_a_platform_tag_is_its_system_family_and_machine(platform: str, expected: tuple[str, str]) -> None:
    assert kind(platform) == expected


def test_an_exact_fit_takes_only_the_targets_own_tags() -> None:
    fit = Fit(MAC, exact=True)
    assert fit.first == MAC[0]
    assert fit.accepts("py3-none-macosx_14_0_arm64")
    assert not fit.accepts("py3-none-macosx_11_0_arm64")  # (exact: the target's own range is the whole truth)


@pytest.mark.parametrize(
    ("tag", "fits"),
    [
        ("cp312-cp312-macosx_11_0_arm64", True),  # an older deployment target of the same machine
        ("cp311-abi3-macosx_10_9_universal2", True),  # universal2 holds arm64
        ("py3-none-macosx_12_0_arm64", True),
        ("cp312-cp312-macosx_11_0_x86_64", False),  # another machine
        ("cp313-cp313-macosx_11_0_arm64", False),  # another Python
        ("cp312-cp312-manylinux_2_17_aarch64", False),  # another system
        ("py3-none-win_amd64", False),
    ],
)
def test_a_loose_fit_judges_a_tag_by_its_interpreter_abi_system_and_machine(tag: str, fits: bool) -> None:
    """A target whose platform string is not this process's (no range of its platform tags can be made here)."""
    assert Fit(MAC, exact=False).accepts(tag) is fits


def test_a_loose_fit_of_a_universal2_target_takes_either_machine() -> None:
    universal = tuple(t.replace("arm64", "universal2") for t in MAC)
    assert Fit(universal, exact=False).accepts("cp312-cp312-macosx_11_0_x86_64")
    assert not Fit(universal, exact=False).accepts("cp312-cp312-manylinux_2_17_x86_64")


@pytest.mark.parametrize(
    ("tags", "foreign"),
    [
        ((), False),  # no WHEEL file: nothing to judge
        (("py3-none-any",), False),
        (("cp39-none-any",), False),  # -any: never judged
        (("py3-none-win_amd64",), True),
        (("py3-none-win_amd64", "py3-none-macosx_11_0_arm64"), False),  # one tag the target takes is enough
    ],
)
def test_a_wheel_is_foreign_when_no_tag_of_it_fits(tags: tuple[str, ...], foreign: bool) -> None:
    assert Fit(MAC, exact=False).foreign(tags) is foreign


def test_the_running_fit_is_the_running_interpreters_tags() -> None:
    fit = Fit.running()
    assert fit.exact
    assert fit.first == str(OWN)
    assert fit.tags == frozenset(str(t) for t in packaging_tags.sys_tags())


def test_a_wheel_of_another_platform_is_partial_with_its_tags_and_what_the_target_takes(tmp_path: Path) -> None:
    other = "win_amd64" if not sys.platform.startswith("win") else "manylinux_2_17_x86_64"
    _folder(tmp_path, "winpkg", _wheel(f"py3-none-{other}", f"cp312-cp312-{other}", f"cp313-cp313-{other}"))
    found = probe_distribution("winpkg", paths=[tmp_path])
    assert found.state == "partial"
    assert found.reasons == [
        f"installed from a wheel for py3-none-{other}, cp312-cp312-{other} and 1 more (its WHEEL file's tags), which "
        f"this environment does not accept (it takes {OWN} and the like): built for another platform or Python"
    ]


@pytest.mark.parametrize(
    "wheel",
    [
        _wheel("py2.py3-none-any"),  # compressed: py2-none-any and py3-none-any
        _wheel(str(OWN)),
        _wheel("py3-none-win_amd64", str(OWN)),
        "Wheel-Version: 1.0\nRoot-Is-Purelib: true\n",  # no tag at all
        None,  # no WHEEL file (an installer that writes none)
    ],
    ids=["compressed-any", "own-tag", "one-tag-fits", "no-tag", "no-wheel-file"],
)
def test_a_wheel_for_this_target_or_no_wheel_file_is_present(tmp_path: Path, wheel: str | None) -> None:
    _folder(tmp_path, "okpkg", wheel)
    found = probe_distribution("okpkg", paths=[tmp_path])
    assert (found.state, found.reasons) == ("present", [])


def test_a_compressed_tag_set_is_read_as_its_tags(tmp_path: Path) -> None:
    _folder(tmp_path, "setpkg", _wheel("py2.py3-none-win32.win_amd64", "bad", "Tag-ish: x-y-z"))
    (info,) = SiteIndex.scan([tmp_path]).find("setpkg")
    facts, _ = distinfo.read(info, SiteIndex.scan([tmp_path]).suffixes, again=True)
    assert facts.wheel_tags == ("py2-none-win32", "py2-none-win_amd64", "py3-none-win32", "py3-none-win_amd64")


def test_an_index_of_other_suffixes_without_a_target_judges_no_wheel(tmp_path: Path) -> None:
    """Another interpreter's site folders scanned without its target (its tags unknown): nothing is judged."""
    _folder(tmp_path, "winpkg", _wheel("py3-none-win_amd64"))
    index = SiteIndex.scan([tmp_path], (".cpython-399-x86_64-linux-gnu.so",), "/nowhere/python")
    assert index.fit() is None
    assert probe_distribution("winpkg", index=index).state == "present"


@pytest.mark.parametrize(
    ("suffix", "abis"),
    [
        (".cpython-312-x86_64-linux-gnu.so", ["cp312"]),
        (".cpython-313t-x86_64-linux-gnu.so", ["cp313t"]),
        (".cp312-win_amd64.pyd", ["cp312"]),
        (".pypy310-pp73-x86_64-linux-gnu.so", ["pypy310_pp73"]),
        (".graalpy240-310-native-x86_64-linux.so", ["graalpy240_310_native"]),
        (".abi3.so", ["abi3"]),
        (".cpython-.so", []),  # no version after the name
        (".cpython.so", []),
        (".cpython-312-x86_64-linux-gnu.so.1", ["cp312"]),  # (more dots: the second part still names it)
        (".so", []),
        ("cpython-312-x86_64-linux-gnu.so", []),  # not a suffix
        ("", []),
    ],
)
def test_the_abi_an_ext_suffix_names(suffix: str, abis: list[str]) -> None:
    from tierlock.wheeltags import abis_of

    assert abis_of(suffix) == abis


def _target(
    *, implementation: str = "cpython", ext_suffix: str = "", bits: int = 64, platform: str = "linux-x86_64"
) -> Target:
    """A target of Python 3.12 on *platform* with no C library named (never this process's platform)."""
    here = Path("/nowhere")
    env = {"implementation_name": implementation}
    return Target(here, here, here, (), here, here, here, env, platform, (3, 12, 1), (), ext_suffix, "", bits)


def test_the_tags_of_a_target_on_another_platform_string_are_its_own_platforms() -> None:
    tags = _target().ordered_tags
    assert tags[:2] == ("cp312-cp312-linux_x86_64", "cp312-abi3-linux_x86_64")  # (no EXT_SUFFIX: its version's ABI)
    assert "py312-none-linux_x86_64" in tags
    assert "py3-none-any" in tags
    assert "cp312-none-any" in tags
    assert _target(bits=32).ordered_tags[0] == "cp312-cp312-linux_i686"  # a 32-bit build on a 64-bit kernel
    assert _target(bits=32, platform="macosx-11.0-arm64").ordered_tags[0] == "cp312-cp312-macosx_11_0_arm64"
    assert not Fit.of(_target()).exact


def test_the_tags_of_a_pypy_target_are_its_abi_and_pp3() -> None:
    tags = _target(implementation="pypy", ext_suffix=".pypy310-pp73-x86_64-linux-gnu.so").ordered_tags
    assert tags[0] == "pp312-pypy310_pp73-linux_x86_64"
    assert "pp3-none-any" in tags
    assert not any(t.startswith("cp3") for t in tags)


def test_the_running_interpreter_as_a_target_is_judged_exactly_with_packagings_own_tags() -> None:
    """A target on this process's platform, C library and width: packaging's platform range, an exact fit."""
    from tierlock import wheeltags
    from tierlock.environment import current

    here = current()
    assert Fit.of(here).exact
    assert wheeltags.platform_tags(here) == list(packaging_tags.platform_tags())
    assert here.ordered_tags == tuple(str(t) for t in packaging_tags.sys_tags())


@pytest.mark.parametrize("count", [1, 2])
def test_a_wheel_of_one_or_two_tags_names_them_all(tmp_path: Path, count: int) -> None:
    tags = ["py3-none-win_amd64", "py3-none-win32"][:count]
    _folder(tmp_path, "winpkg", _wheel(*tags))
    (reason,) = probe_distribution("winpkg", paths=[tmp_path]).reasons
    assert reason.startswith(f"installed from a wheel for {', '.join(tags)} (its WHEEL file's tags)"), reason
