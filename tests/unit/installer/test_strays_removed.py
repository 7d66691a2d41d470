"""Metadata folders beyond one of a package the install writes again (:mod:`tierlock.installer.strays`)."""

from __future__ import annotations

from pathlib import Path

from tierlock.installer.strays import removed


def _site(tmp_path: Path, *folders: str) -> Path:
    site = tmp_path / "site"
    for folder in folders:
        (site / folder).mkdir(parents=True)
        (site / folder / "METADATA").write_text("x")
    (site / "corelib").mkdir(exist_ok=True)
    return site


def _left(site: Path) -> list[str]:
    return sorted(p.name for p in site.iterdir())


def test_the_folder_at_the_locked_version_is_kept_and_the_others_removed(tmp_path: Path) -> None:
    site = _site(tmp_path, "corelib-2.0.dist-info", "corelib-1.0.dist-info", "CoreLib-0.9-py3.11.egg-info")
    gone = removed([site], [("corelib", "1.0")])
    assert sorted(Path(p).name for p in gone) == ["CoreLib-0.9-py3.11.egg-info", "corelib-2.0.dist-info"]
    assert _left(site) == ["corelib", "corelib-1.0.dist-info"]


def test_without_one_at_the_locked_version_one_is_kept_for_the_backend_to_replace(tmp_path: Path) -> None:
    site = _site(tmp_path, "corelib-3.0.dist-info", "corelib-2.0.dist-info")
    assert [Path(p).name for p in removed([site], [("corelib", "1.0")])] == ["corelib-3.0.dist-info"]
    assert _left(site) == ["corelib", "corelib-2.0.dist-info"]


def test_one_folder_other_names_and_links_are_left_alone(tmp_path: Path) -> None:
    site = _site(tmp_path, "corelib-2.0.dist-info", "helper-1.0.dist-info", "helper-2.0.dist-info")
    assert removed([site], [("corelib", "1.0")]) == []  # one folder: the backend's uninstall replaces it
    assert removed([site], []) == []
    (site / "helper-3.0.dist-info").symlink_to(site / "helper-2.0.dist-info")
    gone = removed([site, tmp_path / "missing"], [("helper", "1.0")])
    assert [Path(p).name for p in gone] == ["helper-2.0.dist-info"]
    assert (site / "helper-3.0.dist-info").is_symlink()  # a link is never followed into
    assert (site / "corelib-2.0.dist-info").is_dir()


def test_folders_on_two_site_paths_count_together(tmp_path: Path) -> None:
    one, two = _site(tmp_path / "a", "corelib-1.0.dist-info"), _site(tmp_path / "b", "corelib-2.0.dist-info")
    assert removed([one, two], [("corelib", "1.0")]) == [str(two / "corelib-2.0.dist-info")]


def test_a_package_with_one_folder_does_not_stop_the_look_at_the_next(tmp_path: Path) -> None:
    site = _site(tmp_path, "alpha-1.0.dist-info", "corelib-1.0.dist-info", "corelib-2.0.dist-info")
    gone = removed([site], [("alpha", "1.0"), ("corelib", "1.0")])
    assert [Path(p).name for p in gone] == ["corelib-2.0.dist-info"]
