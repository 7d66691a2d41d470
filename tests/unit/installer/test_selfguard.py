"""What a tierlock installed in a target needs there, read from the target's metadata without importing it.

Its own requirements (markers evaluated for the target), those of an extra only when everything the extra names
is installed, and what those need in turn; a version outside any of them is what a plan must not install.
"""

from __future__ import annotations

from pathlib import Path

from packaging.utils import canonicalize_name

from tests.support.env import make_venv, site_packages
from tierlock.environment import Target, resolve
from tierlock.installer.selfguard import Need, broken_needs_version, extras_in_use, installed, needs_in


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
