"""What a tierlock installed in a target needs there, read from the target's metadata without importing it, and the
refusal of a plan that would break it.

Its own requirements (markers evaluated for the target), those of an extra only when everything the extra names
is installed, and what those need in turn; a version outside any of them is what a plan must not install. The
refusal names every package, both versions and who requires what; its remedy relocks every layer with those
packages upgraded, or, when a tier declares a version tierlock cannot run with, removes tierlock from the target.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.support.env import make_venv, site_packages
from tierlock.environment import Target, resolve
from tierlock.errors import UsageError
from tierlock.installer.plan import Installed, Plan, Step
from tierlock.installer.selfguard import (
    Need,
    broken_needs_version,
    declared_exclusions,
    extras_in_use,
    holds_tierlock,
    installed,
    needs_in,
    refuse,
)
from tierlock.lockfiles.locks import LockEntry
from tierlock.tiers import Project, load_project


def _dist(site: Path, name: str, version: str, *requires: str, extras: tuple[str, ...] = ()) -> None:
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    lines += [f"Provides-Extra: {e}" for e in extras]
    lines += [f"Requires-Dist: {r}" for r in requires]
    (info / "METADATA").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _target(tmp_path: Path) -> tuple[Target, Path]:
    venv = tmp_path / "venv"
    make_venv(venv)
    return resolve(str(venv / "bin" / "python")), site_packages(venv)


def _tierlock(site: Path) -> None:
    _dist(
        site,
        "tierlock",
        "0.1.0",
        "packaging>=26.1",
        "rich>=13; extra == 'cli'",
        "tomlkit>=0.13; extra == 'cli'",
        "uv>=0.12.11; extra == 'uv'",
        "winonly>=1; sys_platform == 'win32'",
        extras=("cli", "uv"),
    )


def test_a_target_without_tierlock_needs_nothing(tmp_path: Path) -> None:
    target, site = _target(tmp_path)
    _dist(site, "packaging", "23.2")
    assert needs_in(target) == {}


def test_the_plugin_alone_needs_its_requirements_for_this_platform_and_no_extras(tmp_path: Path) -> None:
    target, site = _target(tmp_path)
    _tierlock(site)
    _dist(site, "packaging", "26.4")
    _dist(site, "rich", "15.0.0", "markdown-it-py>=2")  # installed, but tomlkit is not: the cli extra is not in use
    assert needs_in(target) == {"packaging": [Need("tierlock 0.1.0", ">=26.1")]}


def test_an_extra_whose_every_requirement_is_installed_counts_and_so_does_what_it_needs(tmp_path: Path) -> None:
    target, site = _target(tmp_path)
    _tierlock(site)
    _dist(site, "packaging", "26.4")
    _dist(site, "rich", "15.0.0", "markdown-it-py>=2.2", "extra-only>=1; extra == 'jupyter'")
    _dist(site, "tomlkit", "0.15.2")
    _dist(site, "markdown-it-py", "4.3.0", "mdurl~=0.1")
    needs = {str(name): found for name, found in needs_in(target).items()}
    assert needs["rich"] == [Need("tierlock 0.1.0", ">=13")]
    assert needs["tomlkit"] == [Need("tierlock 0.1.0", ">=0.13")]
    assert needs["markdown-it-py"] == [Need("rich 15.0.0", ">=2.2")]
    assert needs["mdurl"] == [Need("markdown-it-py 4.3.0", "~=0.1")]
    assert "uv" not in needs  # the uv extra: uv is not installed
    assert "extra-only" not in needs  # rich's own extra was not asked for
    assert "winonly" not in needs  # its marker does not hold here


def test_extras_in_use_are_those_whose_every_requirement_is_installed(tmp_path: Path) -> None:
    target, site = _target(tmp_path)
    _tierlock(site)
    _dist(site, "uv", "0.13.9")
    found = installed([str(site)])
    assert extras_in_use(found[canonicalize_name("tierlock")], found, dict(target.marker_env)) == ["uv"]


def test_a_version_outside_a_requirement_breaks_it_and_prereleases_count() -> None:
    needs = [Need("tierlock 0.1.0", ">=26.1"), Need("other 1", "")]
    assert broken_needs_version("23.2", needs) == [needs[0]]
    assert broken_needs_version("26.1", needs) == []
    assert broken_needs_version("27.0rc1", needs) == []


# -- the refusal and its remedy -------------------------------------------------------------------------


def _project(root: Path, brain: str) -> Project:
    root.mkdir()
    (root / "pyproject.toml").write_text(
        f'[project]\nname = "app"\nversion = "1"\ndependencies = ["basepkg"]\n\n'
        f'[project.optional-dependencies]\nbrain = ["{brain}"]\n\n[tool.tierlock.tiers.brain]\n',
        encoding="utf-8",
    )
    return load_project(root)


def _plan(*steps: tuple[str, str, str | None]) -> Plan:
    """Steps (name, locked version, installed version or None), each an install or a replace."""
    out = []
    for name, version, now in steps:
        key = canonicalize_name(name)
        entry = LockEntry(key, Version(version), None, ())
        found = Installed(key, Version(now), "present") if now else None
        out.append(Step(entry, "replace" if now else "install", "test", found))
    return Plan(tuple(out))


def test_a_plan_within_every_requirement_goes_ahead(tmp_path: Path) -> None:
    target, site = _target(tmp_path)
    _tierlock(site)
    _dist(site, "packaging", "26.4")
    project = _project(tmp_path / "app", "oldlib")
    refuse(
        _plan(("packaging", "26.1", "26.4"), ("oldlib", "1.0", None)),
        target,
        project=project,
        tiers=["brain"],
        command="install-tier brain",
    )


def test_a_target_without_tierlock_takes_any_version(tmp_path: Path) -> None:
    target, site = _target(tmp_path)
    _dist(site, "packaging", "26.4")
    project = _project(tmp_path / "app", "packaging==23.2")
    refuse(_plan(("packaging", "23.2", "26.4")), target, project=project, tiers=["brain"], command="install-tier brain")


def test_a_lock_too_old_for_tierlock_is_refused_with_the_relock_of_every_layer_and_package(tmp_path: Path) -> None:
    target, site = _target(tmp_path)
    _tierlock(site)
    _dist(site, "packaging", "26.4")
    _dist(site, "rich", "15.0.0")
    _dist(site, "tomlkit", "0.15.2")
    project = _project(tmp_path / "app", "oldlib")
    plan = _plan(("oldlib", "1.0", None), ("packaging", "23.2", "26.4"), ("rich", "12.0", "15.0.0"))
    with pytest.raises(UsageError) as caught:
        refuse(plan, target, project=project, tiers=["brain"], command="install-tier brain --python X")
    err = caught.value
    assert err.message == (
        f"refusing to replace packaging 26.4 with 23.2 in {target.prefix}: tierlock 0.1.0 is installed there and "
        "needs packaging>=26.1, or its pytest plugin would crash pytest there (2 package(s)); nothing was changed"
    )
    assert [p.render() for p in err.problems] == [
        "packaging: 26.4 -> 23.2, but tierlock 0.1.0 requires packaging>=26.1",
        "rich: 15.0.0 -> 12.0, but tierlock 0.1.0 requires rich>=13",
    ]
    assert err.package == "packaging"
    assert err.remedy == (
        "tierlock lock base brain --upgrade-package packaging --upgrade-package rich && install-tier brain --python X"
    )


def test_a_declared_version_tierlock_cannot_run_with_gets_the_uninstall_and_says_why(tmp_path: Path) -> None:
    target, site = _target(tmp_path)
    _tierlock(site)
    _dist(site, "packaging", "26.4")
    project = _project(tmp_path / "app", "packaging<24")
    with pytest.raises(UsageError) as caught:
        refuse(
            _plan(("packaging", "23.2", None)), target, project=project, tiers=["brain"], command="install-tier brain"
        )
    err = caught.value
    assert "packaging (not installed) with 23.2" in err.message
    first = err.problems[0].render()
    assert first == "packaging: (not installed) -> 23.2, but tierlock 0.1.0 requires packaging>=26.1"
    # nothing installed to tell: the lock is taken as what moved, so the relock is the fix
    assert err.remedy == "tierlock lock base brain --upgrade-package packaging && install-tier brain"

    with pytest.raises(UsageError) as again:
        refuse(
            _plan(("packaging", "23.2", "26.4")), target, project=project, tiers=["brain"], command="install-tier brain"
        )
    assert [p.render() for p in again.value.problems][1].startswith(
        "brain declares packaging<24: it and tierlock cannot share one environment (the fix below removes tierlock "
        "from it; to keep tierlock instead, relax that requirement and run tierlock lock base brain)"
    )
    python = target.python
    assert again.value.remedy == f"uv pip uninstall --python {python} tierlock && install-tier brain"  # no pip there
    _dist(site, "pip", "26.3")
    with pytest.raises(UsageError) as with_pip:
        refuse(
            _plan(("packaging", "23.2", "26.4")), target, project=project, tiers=["brain"], command="install-tier brain"
        )
    assert with_pip.value.remedy == f"{python} -m pip uninstall --yes tierlock && install-tier brain"


def test_declared_exclusions_name_the_tier_and_follow_markers(tmp_path: Path) -> None:
    target, _site = _target(tmp_path)
    project = _project(tmp_path / "app", "packaging<24; sys_platform == 'win32'")
    env = dict(target.marker_env)
    assert declared_exclusions(project, ["brain"], "packaging", "26.4", env) == []  # not on this platform
    assert declared_exclusions(project, ["brain"], "basepkg", "1.0", env) == []


def test_unreadable_lines_self_references_and_unmet_markers_hide_no_requirement_after_them(tmp_path: Path) -> None:
    target, site = _target(tmp_path)
    _dist(
        site,
        "tierlock",
        "0.1.0",
        "not a requirement ((",
        "tierlock[cli]",
        "winonly>=1; sys_platform == 'win32'",
        "packaging>=26.1",
    )
    _dist(site, "packaging", "26.4")
    assert needs_in(target) == {"packaging": [Need("tierlock 0.1.0", ">=26.1")]}


def test_an_installed_version_that_already_breaks_tierlock_tells_nothing_about_the_declarations(
    tmp_path: Path,
) -> None:
    target, site = _target(tmp_path)
    _tierlock(site)
    _dist(site, "packaging", "25.0")  # already too old for tierlock: no witness of what the tier allows
    project = _project(tmp_path / "app", "packaging>=26")
    with pytest.raises(UsageError) as caught:
        refuse(
            _plan(("packaging", "23.2", "25.0")), target, project=project, tiers=["brain"], command="install-tier brain"
        )
    assert len(caught.value.problems) == 1
    assert caught.value.remedy == "tierlock lock base brain --upgrade-package packaging && install-tier brain"


def test_in_the_environment_tierlock_runs_from_the_tool_install_comes_first(tmp_path: Path) -> None:
    from tierlock.selfinstall import tool_install_command

    target = resolve(None)  # the running interpreter: this checkout's tierlock with its extras
    project = _project(tmp_path / "app", "packaging==23.2")
    installed_now = __import__("packaging").__version__
    with pytest.raises(UsageError) as caught:
        refuse(
            _plan(("packaging", "23.2", installed_now)),
            target,
            project=project,
            tiers=["brain"],
            command="install-tier brain",
        )
    assert "that is the environment tierlock runs from" in caught.value.message
    remedy = caught.value.remedy or ""
    assert remedy.startswith(tool_install_command() + " && ")
    assert remedy.endswith(" -m pip uninstall --yes tierlock && install-tier brain")


def test_a_missing_requirement_hides_no_other_branch_and_the_headline_names_the_first_requirer(tmp_path: Path) -> None:
    target, site = _target(tmp_path)
    _dist(site, "tierlock", "0.1.0", "packaging>=26.1", "alpha", "gone>=1")
    _dist(site, "alpha", "1.0", "beta>=2", "packaging>=26.0")
    _dist(site, "beta", "2.0")
    _dist(site, "packaging", "26.4")
    needs = {str(name): found for name, found in needs_in(target).items()}
    assert needs["beta"] == [Need("alpha 1.0", ">=2")]  # "gone" is not installed: alpha's needs still count
    assert needs["packaging"] == [Need("tierlock 0.1.0", ">=26.1"), Need("alpha 1.0", ">=26.0")]
    project = _project(tmp_path / "app", "oldlib")
    with pytest.raises(UsageError) as caught:
        refuse(
            _plan(("packaging", "23.2", "26.4")), target, project=project, tiers=["brain"], command="install-tier brain"
        )
    assert "tierlock 0.1.0 is installed there and needs packaging>=26.1," in caught.value.message
    assert caught.value.problems[0].render() == (
        "packaging: 26.4 -> 23.2, but tierlock 0.1.0 requires packaging>=26.1, alpha 1.0 requires packaging>=26.0"
    )


def test_a_target_without_tierlock_is_judged_from_its_listing_without_reading_any_metadata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target, site = _target(tmp_path)
    _dist(site, "packaging", "23.2")
    _dist(site, "tierlock-extras", "1.0")  # another project whose name only starts with tierlock
    from importlib import metadata

    def refuse_to_read(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the installed distributions' metadata was read")

    monkeypatch.setattr(metadata, "distributions", refuse_to_read)
    assert needs_in(target) == {}


@pytest.mark.parametrize(
    "folder",
    ["tierlock-0.1.0.dist-info", "Tierlock-0.1.0.dist-info", "tierlock.egg-info", "tierlock-0.1-py3.11.egg-info"],
)
def test_every_spelling_of_an_installed_tierlock_folder_is_seen_in_the_listing(tmp_path: Path, folder: str) -> None:
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / folder).mkdir()
    assert holds_tierlock([str(tmp_path / "missing"), str(tmp_path / "site")])


@pytest.mark.parametrize(
    "folder",
    [
        "tierlock_extras-1.0.dist-info",
        "tierlockx-1.0.dist-info",
        "tierlock-0.1.0.data",
        "tierlock.plugins.egg-info",  # a develop install of a project named tierlock.plugins
    ],
)
def test_a_folder_of_another_project_is_no_installed_tierlock(tmp_path: Path, folder: str) -> None:
    (tmp_path / folder).mkdir()
    assert not holds_tierlock([str(tmp_path)])


def test_a_prerelease_the_declaration_allows_is_no_exclusion(tmp_path: Path) -> None:
    target, _site = _target(tmp_path)
    project = _project(tmp_path / "app", "packaging<27")
    env = dict(target.marker_env)
    assert declared_exclusions(project, ["brain"], "packaging", "26.5rc1", env) == []
    assert declared_exclusions(project, ["brain"], "packaging", "27.0rc1", env) == ["brain declares packaging<27"]
