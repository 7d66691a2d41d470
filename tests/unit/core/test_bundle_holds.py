"""Which folders a top-level module is looked for in, as the bundle of byte code reads :data:`sys.path`."""

from __future__ import annotations

import sys
import zipfile
from importlib.machinery import FileFinder, SourceFileLoader
from pathlib import Path
from zipimport import zipimporter

import pytest

from tierlock import bundleholds


def _file_finder(folder: Path) -> FileFinder:
    return FileFinder(str(folder), (SourceFileLoader, [".py"]))


def test_the_folders_searched_are_sys_paths_own_when_each_has_the_import_systems_folder_finder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    monkeypatch.setattr(sys, "path", ["", str(other)])
    monkeypatch.setitem(sys.path_importer_cache, str(tmp_path), _file_finder(tmp_path))
    monkeypatch.setitem(sys.path_importer_cache, str(other), _file_finder(other))
    assert bundleholds.searched() == ("", str(other))


def test_a_folder_is_judged_by_its_own_finder_not_the_current_folders(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    monkeypatch.setitem(sys.path_importer_cache, str(here), object())  # (the current folder's: not the folder's)
    monkeypatch.setitem(sys.path_importer_cache, str(tmp_path), _file_finder(tmp_path))
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    assert bundleholds.searched() == (str(tmp_path),)


@pytest.mark.parametrize("kind", ["zip file", "relative path", "not a string"])
def test_a_search_path_entry_the_path_finder_reads_otherwise_refuses_the_bundles_top_level_modules(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, kind: str
) -> None:
    if kind == "zip file":
        archive = tmp_path / "modules.zip"
        with zipfile.ZipFile(archive, "w") as handle:
            handle.writestr("json.py", "")
        entry: object = str(archive)
        monkeypatch.setitem(sys.path_importer_cache, str(archive), zipimporter(str(archive)))
    elif kind == "relative path":
        entry = "lib"
    else:
        entry = tmp_path.as_posix().encode()
    monkeypatch.setattr(sys, "path", [str(tmp_path), entry])
    monkeypatch.setitem(sys.path_importer_cache, str(tmp_path), _file_finder(tmp_path))
    assert bundleholds.searched() is None
