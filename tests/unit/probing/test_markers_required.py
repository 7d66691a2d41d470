"""The one marker evaluation (``lockfiles.markers.applies``) and what a tier requires in a target environment."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.markers import Marker, default_environment

import tierlock
from tierlock.lockfiles.locks import Lock
from tierlock.lockfiles.markers import applies
from tierlock.lockfiles.requirements import parse
from tierlock.probing.required import required, scope
from tierlock.tiers import load_project

LINUX_311 = {
    "implementation_name": "cpython",
    "implementation_version": "3.11.7",
    "os_name": "posix",
    "platform_machine": "x86_64",
    "platform_python_implementation": "CPython",
    "platform_release": "6.1",
    "platform_system": "Linux",
    "platform_version": "#1",
    "python_full_version": "3.11.7",
    "python_version": "3.11",
    "sys_platform": "linux",
}
WINDOWS_310 = {
    **LINUX_311,
    "python_full_version": "3.10.4",
    "python_version": "3.10",
    "sys_platform": "win32",
    "platform_machine": "AMD64",
    "os_name": "nt",
}


@pytest.mark.parametrize(
    ("marker", "linux", "windows"),
    [
        ('python_version < "3.11"', False, True),
        ('sys_platform == "win32"', False, True),
        ('platform_machine == "AMD64"', False, True),
        ('implementation_name == "pypy"', False, False),
        ('python_full_version >= "3.11.5"', True, False),
        ('extra == "crypto"', False, False),
        ('"crypto" in extras', False, False),
        ('"dev" in dependency_groups', False, False),
    ],
)
def test_a_marker_is_evaluated_against_the_environment_it_is_given(marker: str, linux: bool, windows: bool) -> None:
    assert applies(Marker(marker), LINUX_311) is linux
    assert applies(Marker(marker), WINDOWS_310) is windows


def test_no_marker_holds_everywhere_and_the_default_is_this_interpreter() -> None:
    assert applies(None, WINDOWS_310)
    here = {k: str(v) for k, v in default_environment().items()}
    marker = Marker(f'python_full_version == "{here["python_full_version"]}"')
    assert applies(marker)
    assert not applies(marker, {**here, "python_full_version": "2.7.18"})


def test_extra_and_group_markers_hold_for_the_tiers_extras_and_groups() -> None:
    assert applies(Marker('extra == "crypto"'), LINUX_311, extras=["Crypto"])
    assert not applies(Marker('extra == "crypto"'), LINUX_311, extras=["docs"])
    assert applies(Marker('"crypto" in extras'), LINUX_311, extras=["crypto"])
    assert applies(Marker('"dev" in dependency_groups'), LINUX_311, groups=["dev"])
    assert applies(Marker('extra == "crypto" and python_version >= "3.11"'), LINUX_311, extras=["crypto"])
    assert not applies(Marker('extra == "crypto" and python_version < "3.11"'), LINUX_311, extras=["crypto"])


def test_lock_entries_use_the_same_evaluation() -> None:
    parsed = parse(
        "fork==1.0 ; python_version < '3.11'\n"
        "fork==2.0 ; python_version >= '3.11'\n"
        "winonly==1.0 ; sys_platform == 'win32'\n"
        "plain==3.0\n"
    )
    lock = Lock(
        path=Path("base.txt"), format="requirements", header=None, entries=tuple(parsed.entries), file_digest=""
    )
    assert [e.pin for e in lock.applicable(LINUX_311)] == ["fork==2.0", "plain==3.0"]
    assert [e.pin for e in lock.applicable(WINDOWS_310)] == ["fork==1.0", "winonly==1.0", "plain==3.0"]


PYPROJECT = """\
[project]
name = "proj"
version = "0.1"
dependencies = [
    "alpha",
    "shim; python_version < '3.11'",
    "both; python_version < '3.11'",
    "both; sys_platform == 'linux'",
]

[project.optional-dependencies]
crypto = ["cryptolib; extra == 'crypto'", "winlib; sys_platform == 'win32'"]

[dependency-groups]
dev = ["devtool; sys_platform == 'win32'"]

[tool.tierlock.tiers.crypto]

[tool.tierlock.tiers.dev]
"""


@pytest.fixture
def project(project_dir: Path) -> Path:
    (project_dir / "pyproject.toml").write_text(PYPROJECT)
    return project_dir


def test_a_root_is_required_when_one_of_its_requirements_holds_on_the_target(project: Path) -> None:
    proj = load_project(project)
    base = proj.tier("base")
    linux = required(proj, base, LINUX_311, None)
    assert linux.roots == ("alpha", "both")
    assert linux.marked_away == (
        'shim is not required here: its marker `python_version < "3.11"` does not hold '
        "(python_version 3.11, sys_platform linux, platform_machine x86_64, implementation_name cpython)",
    )
    assert required(proj, base, WINDOWS_310, None).roots == ("alpha", "shim", "both")


def test_the_tiers_extras_and_groups_decide_extra_markers(project: Path) -> None:
    proj = load_project(project)
    crypto, dev = proj.tier("crypto"), proj.tier("dev")
    assert scope(proj, crypto) == (("crypto",), ())
    assert required(proj, crypto, LINUX_311, None).roots == ("cryptolib",)
    assert required(proj, crypto, WINDOWS_310, None).roots == ("cryptolib", "winlib")
    assert scope(proj, dev) == ((), ("dev",))
    assert required(proj, dev, LINUX_311, None).roots == ()
    assert required(proj, dev, WINDOWS_310, None).roots == ("devtool",)


def test_a_root_the_lockfile_pins_only_under_markers_that_do_not_hold_is_not_required(project: Path) -> None:
    proj = load_project(project)
    parsed = parse("alpha==1.0 ; sys_platform == 'win32'\nboth==2.0\n")
    lock = Lock(
        path=Path("base.txt"), format="requirements", header=None, entries=tuple(parsed.entries), file_digest=""
    )
    needs = required(proj, proj.tier("base"), LINUX_311, lock)
    assert needs.roots == ("both",)
    assert [e.pin for e in needs.entries] == ["both==2.0"]
    assert needs.marked_away[0].startswith("alpha is not required here: base.txt pins it only under ")


def test_a_tier_whose_only_requirement_is_marked_away_is_present_with_0_packages(project_dir: Path) -> None:
    (project_dir / "pyproject.toml").write_text(
        '[project]\nname = "proj"\nversion = "0.1"\ndependencies = []\n'
        "[project.optional-dependencies]\nlegacy = [\"oldshim; python_version < '3.0'\"]\n"
        "[tool.tierlock.tiers.legacy]\n"
    )
    result = tierlock.probe("legacy", project=project_dir)
    assert result.state == "present"
    assert result.to_dict()["lockfile"] == str(project_dir / "lockfiles" / "legacy.txt")  # where it would be
    assert result.checked == ()
    assert result.notes[-1] == "nothing of tier legacy applies to this environment: present with 0 packages"
    assert result.notes[-2].startswith('oldshim is not required here: its marker `python_version < "3.0"`')
