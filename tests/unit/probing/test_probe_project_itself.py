"""The project itself in a tier's closure, decided from files: who requires it, whether it is there and new enough.

Site folders laid out by hand (a ``.dist-info`` with METADATA, INSTALLER and
RECORD per distribution); the requiring packages' ``Requires-Dist`` lines are
read from their METADATA with their markers evaluated for a given environment.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tierlock.probing import SiteIndex, probe_distribution
from tierlock.probing.project import install_command, installed_origin, needs_of, own_install, project_probe

LINUX = {"python_version": "3.12", "sys_platform": "linux", "python_full_version": "3.12.1"}


def _dist(site: Path, name: str, version: str, requires: tuple[str, ...] = (), *, editable: Path | None = None) -> None:
    info = site / f"{name}-{version}.dist-info"
    (site / name).mkdir(parents=True, exist_ok=True)
    info.mkdir(parents=True)
    (site / name / "__init__.py").write_text("X = 1\n")
    headers = [f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"]
    headers += [f"Requires-Dist: {line}\n" for line in requires]
    (info / "METADATA").write_text("".join(headers) + "\nA long description: Requires-Dist: app>=9 is no header.\n")
    (info / "INSTALLER").write_text("uv\n")
    rows = [f"{name}/__init__.py,,6", f"{info.name}/METADATA,,", f"{info.name}/INSTALLER,,3"]
    if editable is not None:
        url = editable.as_uri()
        (info / "direct_url.json").write_text(f'{{"url": "{url}", "dir_info": {{"editable": true}}}}')
        rows.append(f"{info.name}/direct_url.json,,")
    (info / "RECORD").write_text("\n".join([*rows, f"{info.name}/RECORD,,"]) + "\n")


def _probed(site: Path, *names: str) -> list:  # type: ignore[type-arg]
    index = SiteIndex.scan([site])
    return [probe_distribution(n, index=index) for n in names]


def test_the_requirements_on_the_project_are_read_with_their_markers_for_the_target(tmp_path: Path) -> None:
    site = tmp_path / "site"
    _dist(site, "gcsfs", "2026.10.1", ("fsspec==2026.10.1", "aiohttp>=3"))
    _dist(site, "winonly", "1.0", ("fsspec>=1; sys_platform == 'win32'",))
    _dist(site, "extras", "1.0", ("fsspec[http] (>=2026.9) ; extra == 'x'", "FSSpec >=2026.1"))
    _dist(site, "broken", "1.0", ("fsspec >>= 1",))
    _dist(site, "fsspec", "2026.7.0")
    found = _probed(site, "gcsfs", "winonly", "extras", "broken", "fsspec", "absent-one")
    assert needs_of("fsspec", found, LINUX) == [
        ("gcsfs", "2026.10.1", "fsspec==2026.10.1"),
        ("extras", "1.0", "FSSpec>=2026.1"),
    ]
    assert needs_of("aiohttp", found, LINUX) == [("gcsfs", "2026.10.1", "aiohttp>=3")]
    assert needs_of("fsspec", found, {**LINUX, "sys_platform": "win32"})[1] == ("winonly", "1.0", "fsspec>=1")


def test_a_project_that_is_not_installed_is_absent_naming_who_needs_it_and_its_source(tmp_path: Path) -> None:
    site = tmp_path / "site"
    _dist(site, "gcsfs", "1.0")
    needs = [("gcsfs", "1.0", "app>=0.2"), ("other", "2.0", "app<1")]
    found = project_probe("app", tmp_path / "src", SiteIndex.scan([site]), needs)
    assert (found.name, found.state, found.present) == ("app", "absent", False)
    assert found.reasons == [
        "the project app is not installed in this environment "
        f"(gcsfs 1.0 requires app>=0.2; other 2.0 requires app<1; its source is {tmp_path / 'src'})"
    ]


@pytest.mark.parametrize(
    ("installed", "spec", "present"),
    [
        ("0.2.0", "app>=0.2", True),
        ("0.1.9", "app>=0.2", False),
        ("0.2.0.dev3", "app>=0.2.0.dev1", True),  # pre-releases and dev versions count
        ("0.3", "app==0.3.0", True),
        ("0.3+local", "app>=0.3", True),
    ],
)
def test_an_installed_project_is_present_only_when_its_version_satisfies_every_requirement(
    tmp_path: Path, installed: str, spec: str, present: bool
) -> None:
    site = tmp_path / "site"
    _dist(site, "app", installed)
    found = project_probe("app", tmp_path, SiteIndex.scan([site]), [("gcsfs", "1.0", spec), ("x", "1", "app")])
    assert found.present is present, found.reasons
    if not present:
        assert found.state == "partial"
        assert found.reasons == [
            f"the project app is installed at {installed}, which does not satisfy {spec} (required by gcsfs 1.0)"
        ]
        assert found.version_text == installed
        assert found.files_checked == 4


def test_an_older_editable_install_of_this_very_source_says_the_lock_may_be_newer_than_the_checkout(
    tmp_path: Path,
) -> None:
    site = tmp_path / "site"
    source = tmp_path / "src"
    source.mkdir()
    _dist(site, "app", "0.1.0", editable=source)
    found = project_probe("app", source, SiteIndex.scan([site]), [("gcsfs", "1.0", "app>=0.2")])
    assert found.state == "partial"
    assert found.editable_source == source
    assert found.reasons[-1].endswith(
        "(an editable install of this source: installing it again reads its version anew; if that is still "
        "0.1.0, the lock chose packages for a newer app than this checkout)"
    )
    elsewhere = project_probe("app", tmp_path / "other", SiteIndex.scan([site]), [("gcsfs", "1.0", "app>=0.2")])
    assert "editable install of this source" not in elsewhere.reasons[-1]


def test_the_command_that_installs_the_project_follows_the_backend_and_runs_as_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    uv = tmp_path / "bin" / "uv"
    uv.parent.mkdir()
    uv.write_text("#!/bin/sh\n")
    uv.chmod(0o755)
    monkeypatch.setenv("TIERLOCK_UV", str(uv))
    monkeypatch.setenv("PATH", "/nonexistent")
    python = tmp_path / "venv" / "bin" / "python"
    root = tmp_path / "my project"
    assert install_command(python, root, "auto", [], (3, 11, 7)) == (
        f"{uv} pip install --python {python} --no-deps -e '{root}'"
    )
    monkeypatch.setenv("PATH", str(uv.parent))
    assert install_command(python, root, "uv", [], (3, 11, 7)).startswith("uv pip install ")
    site = tmp_path / "venv" / "lib" / "site-packages"
    (site / "pip").mkdir(parents=True)
    (site / "pip" / "__init__.py").write_text("")
    assert install_command(python, root, "pip", [site], (3, 11, 7)) == f"{python} -m pip install --no-deps -e '{root}'"


def test_a_requiring_package_whose_metadata_went_away_requires_nothing(tmp_path: Path) -> None:
    site = tmp_path / "site"
    _dist(site, "gcsfs", "1.0", ("app>=0.2",))
    found = _probed(site, "gcsfs")
    (site / "gcsfs-1.0.dist-info" / "METADATA").unlink()
    assert needs_of("app", found, LINUX) == []


def test_the_projects_own_install_from_its_folder_is_judged_only_when_it_is_not_whole(tmp_path: Path) -> None:
    # Before, the project's own install was judged only when a package of the closure required it.
    source = tmp_path / "src-tree"
    source.mkdir()
    site = tmp_path / "site"
    _dist(site, "app", "0.1.0", editable=source)
    assert own_install("app", source, SiteIndex.scan([site])) is None  # whole: the tier's verdict says nothing more
    (site / "app" / "__init__.py").unlink()
    found = own_install("app", source, SiteIndex.scan([site]))
    assert found is not None
    assert (found.name, found.state) == ("app", "partial")
    assert own_install("app", tmp_path / "another-checkout", SiteIndex.scan([site])) is None  # not this project's
    assert own_install("other", source, SiteIndex.scan([site])) is None  # not installed


@pytest.mark.parametrize(
    ("written", "origin"),
    [
        ('{"url": "URL", "dir_info": {"editable": true}}', ("URL", True)),
        ('{"url": "URL", "dir_info": {}}', ("URL", False)),
        ('{"url": "URL", "archive_info": {}}', None),  # a wheel or an sdist, not a folder
        ('{"url": "https://example.invalid/x", "dir_info": {}}', None),
        ('{"url": 3, "dir_info": {}}', None),
        ("[]", None),
        ("{", None),
    ],
)
def test_where_an_install_came_from_is_read_from_direct_url_json(
    tmp_path: Path, written: str, origin: tuple[str, bool] | None
) -> None:
    url = tmp_path.as_uri()
    (tmp_path / "direct_url.json").write_text(written.replace("URL", url))
    assert installed_origin(str(tmp_path)) == (None if origin is None else (url, origin[1]))
    assert installed_origin(str(tmp_path / "none")) is None
