"""A uv.lock resolved for some environments only (``[tool.uv] environments``) in the no-build proof (pure).

A declared platform (at a Python version) that none of the lock's environments holds is outside the lock: no entry
is judged there, the tier is not proven, and a no-build tier gets one ``outside-environments`` problem per such
platform with the environment to add (the widest that overlaps none of the lock's) and the lock's command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.artifactlocks import GLIBC, LINUX, NAT, PYTHONS, WIN, lock, record
from tests.support.artifactlocks import project as made
from tierlock.lockfiles.coverage import TierCoverage, gaps_of, tier_coverage
from tierlock.lockfiles.lockplatform import environment_for, inside
from tierlock.lockfiles.locks import Lock
from tierlock.lockfiles.nobuild import outside, problems


def project(platforms: list[str], requires: str = ">=3.11,<3.13") -> Any:
    return made(platforms, requires)


def _uv_lock(*environments: str) -> Lock:
    found = lock(NAT, GLIBC)
    return Lock(Path("uv.lock"), "uv", None, found.entries, "", "sha256:body", environments=environments)


def _coverage(app: Any, *environments: str, no_build: bool = True) -> TierCoverage:
    found = _uv_lock(*environments)
    platforms = app.platforms
    return tier_coverage("base", found, record(NAT, GLIBC), platforms, PYTHONS, no_build=no_build, lockfile="uv.lock")


def test_a_platform_the_lock_holds_no_environment_of_is_outside_and_judges_no_entry() -> None:
    linux_only = _uv_lock("sys_platform == 'linux'")
    cells, gaps = gaps_of(
        linux_only.entries, record(NAT, GLIBC), [LINUX, WIN], PYTHONS, lambda e: inside(linux_only, e)
    )
    assert [(c.platform, c.python, c.outside, c.packages) for c in cells] == [
        ("linux-x86_64", "3.11", False, 2),
        ("linux-x86_64", "3.12", False, 2),
        ("windows-x86_64", "3.11", True, 0),
        ("windows-x86_64", "3.12", True, 0),
    ]
    assert {g.platform.name for g in gaps} == {"linux-x86_64"}  # glibconly's 3.12 gap; none judged on Windows
    everywhere = gaps_of(linux_only.entries, record(NAT, GLIBC), [WIN], PYTHONS)[1]
    assert {g.name for g in everywhere} == {"glibconly"}  # without the lock's environments: judged there


def test_a_tier_with_a_platform_outside_its_lock_is_not_proven_and_says_its_environments() -> None:
    app = project(["linux-x86_64", "windows-x86_64"])
    coverage = _coverage(app, "sys_platform == 'win32'", "sys_platform == 'linux' and python_version >= '3.12'")
    assert not coverage.proven
    shown = coverage.to_dict()
    assert shown["environments"] == ["sys_platform == 'win32'", "sys_platform == 'linux' and python_version >= '3.12'"]
    assert [(c["platform"], c["python"]) for c in shown["cells"] if c["outside"]] == [("linux-x86_64", "3.11")]
    inside_all = _coverage(project(["windows-x86_64"], requires=">=3.12,<3.13"), "sys_platform == 'win32'")
    assert inside_all.outside == []


def test_each_platform_outside_the_lock_is_one_problem_with_the_widest_environment_to_add() -> None:
    app = project(["linux-x86_64", "windows-x86_64", "macos-arm64"])
    found = problems(app, [_coverage(app, "sys_platform == 'linux'")])
    kinds = [(p.kind, p.file, p.line) for p in found if p.kind == "outside-environments"]
    assert kinds == [("outside-environments", "uv.lock", None)] * 2
    windows = next(p for p in found if "windows-x86_64" in p.detail)
    assert windows.detail == (
        "uv.lock was resolved only for the environments [tool.uv] environments names (`sys_platform == 'linux'`): "
        "windows-x86_64 (win_amd64) on Python 3.11, 3.12 is in none of them, so nothing installs there "
        "(uv sync refuses it); tier base installs from wheels only (no-build)"
    )
    assert windows.remedy == (
        "add \"sys_platform == 'win32'\" to [tool.uv] environments in pyproject.toml, or take windows-x86_64 out of "
        "[tool.tierlock].platforms; then run: tierlock lock base"
    )
    assert "\"sys_platform == 'darwin'\"" in next(p for p in found if "macos-arm64" in p.detail).remedy


def test_one_python_outside_on_a_platform_the_lock_holds_adds_that_python_alone() -> None:
    app = project(["linux-x86_64"])
    coverage = _coverage(app, "python_version >= '3.12'")
    (problem,) = outside(app, coverage)
    assert "linux-x86_64 (manylinux_2_28_x86_64) on Python 3.11 is in none of them" in problem.detail
    added = "sys_platform == 'linux' and platform_machine == 'x86_64' and python_version == '3.11'"
    assert problem.remedy.startswith(f'add "{added}" to [tool.uv] environments')
    assert outside(app, _coverage(app, "python_version >= '3.11'")) == []


def test_a_tier_that_may_build_gets_no_problem_outside_its_lock() -> None:
    app = project(["linux-x86_64", "windows-x86_64"])
    coverage = _coverage(app, "sys_platform == 'linux'", no_build=False)
    assert [p for p in problems(app, [coverage]) if p.kind == "outside-environments"] == []


def test_a_lock_of_every_environment_or_a_marker_packaging_cannot_judge_holds_every_platform() -> None:
    env = LINUX.marker_environment((3, 11))
    assert inside(_uv_lock(), env)
    assert inside(_uv_lock("sys_platform === "), env)  # (uv refuses it, never tierlock on a guess)
    assert not inside(_uv_lock("sys_platform == 'win32'"), env)
    assert inside(_uv_lock("sys_platform == 'win32'", "sys_platform == 'linux'"), env)
    assert environment_for(("sys_platform == 'win32'",), env) == "sys_platform == 'linux'"
    overlapping = ("sys_platform == 'linux' and platform_machine == 'aarch64'", "python_version >= '3.12'")
    assert environment_for(overlapping, env) == (
        "sys_platform == 'linux' and platform_machine == 'x86_64' and python_version == '3.11'"
    )


def test_a_pylocks_own_environments_are_said_as_its_own_with_the_tool_that_wrote_it() -> None:
    app = project(["linux-x86_64", "windows-x86_64"])
    found = _uv_lock("sys_platform == 'linux'")
    platforms = app.platforms
    coverage = tier_coverage(
        "base", found, record(NAT, GLIBC), platforms, PYTHONS, no_build=True, lockfile="pylock.toml"
    )
    (problem,) = outside(app, coverage)
    assert problem.detail.startswith(
        "pylock.toml was resolved only for the environments its `environments` names (`sys_platform == 'linux'`)"
    )
    assert "(its installer refuses it)" in problem.detail
    assert problem.remedy == (
        "tierlock lock base for \"sys_platform == 'win32'\" too, or take windows-x86_64 out of "
        "[tool.tierlock].platforms"
    )


def test_a_project_that_reads_its_uv_lock_names_the_pyproject_beside_the_lock_and_uv_lock() -> None:
    import tomllib

    from tierlock.tiers.loader import parse_project

    text = (
        '[project]\nname = "app"\nrequires-python = ">=3.11,<3.13"\ndependencies = []\n'
        '[tool.tierlock]\nlock = "uv.lock"\nplatforms = ["linux-x86_64", "windows-x86_64"]\n'
    )
    app = parse_project(tomllib.loads(text), pyproject=Path("/app/pyproject.toml"), text=text)
    found = _uv_lock("sys_platform == 'linux'")
    coverage = tier_coverage(
        "base", found, record(NAT, GLIBC), app.platforms, PYTHONS, no_build=True, lockfile="uv.lock"
    )
    (problem,) = outside(app, coverage)
    assert problem.remedy == (
        "add \"sys_platform == 'win32'\" to [tool.uv] environments in pyproject.toml, or take windows-x86_64 out "
        "of [tool.tierlock].platforms; then run: uv lock"
    )
