"""What a module put first on :data:`sys.path` would shadow, as a kept answer keeps it
(:func:`tierlock.keptsig.shadows`) and checks it again (:func:`tierlock.keptrun.shadows_hold`): the folders searched
for each top-level module the run loaded, by their modification time when it had settled, else by what they hold."""

from __future__ import annotations

import os
import time
import types
from importlib.machinery import FileFinder, ModuleSpec, SourceFileLoader
from pathlib import Path

import pytest

from tierlock import keptrun, keptsig

OLD = time.time_ns() - 60_000_000_000


def _module(name: str, origin: Path, *, package: bool = False) -> types.ModuleType:
    module = types.ModuleType(name)
    spec = ModuleSpec(name, SourceFileLoader(name, str(origin)), origin=str(origin), is_package=package)
    spec.has_location = True
    module.__spec__ = spec
    return module


@pytest.fixture
def folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """Two folders first on sys.path: ``first`` empty, ``second`` holding ``plainmod.py`` and ``plainpkg/``, both
    loaded (the only modules: sys.path and sys.modules as :mod:`tierlock.keptsig` sees them replaced)."""
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    (second / "plainpkg").mkdir(parents=True)
    (second / "plainmod.py").write_text("", encoding="utf-8")
    (second / "plainpkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "elsewhere").mkdir()
    modules = {
        "builtin_like": types.ModuleType("builtin_like"),
        "elsewhere": _module("elsewhere", tmp_path / "elsewhere" / "elsewhere.py"),  # (a finder of its own found it)
        "plainmod": _module("plainmod", second / "plainmod.py"),
        "plainpkg": _module("plainpkg", second / "plainpkg" / "__init__.py", package=True),
        "plainpkg.sub": _module("plainpkg.sub", second / "plainpkg" / "sub.py"),
    }
    view = types.SimpleNamespace(path=[str(first), str(second)], modules=modules, path_importer_cache={})
    monkeypatch.setattr(keptsig, "sys", view)
    for folder in (first, second):
        os.utime(folder, ns=(OLD, OLD))
    return first, second


def test_each_folder_searched_is_kept_with_the_names_it_could_shadow(folders: tuple[Path, Path]) -> None:
    first, second = folders
    table, portions = keptsig.shadows(time.time_ns() - keptrun.SETTLE_NS)
    assert table == {
        str(first): (OLD, {"plainmod": "", "plainpkg": ""}),
        str(second): (OLD, {"plainmod": "plainmod.py", "plainpkg": "plainpkg"}),
    }
    assert portions == set()
    assert keptrun.shadows_hold(table)


def test_a_folder_modified_just_now_is_kept_by_what_it_holds(folders: tuple[Path, Path]) -> None:
    first, _second = folders
    os.utime(first, ns=(OLD, time.time_ns()))
    table, _portions = keptsig.shadows(time.time_ns() - keptrun.SETTLE_NS)
    assert table[str(first)][0] is None
    assert keptrun.shadows_hold(table)
    (first / "unrelated.py").write_text("", encoding="utf-8")
    assert keptrun.shadows_hold(table)
    (first / "plainmod.py").write_text("", encoding="utf-8")
    os.utime(first, ns=(OLD, OLD))  # (its time as it was: what it holds decides)
    assert not keptrun.shadows_hold(table)


@pytest.mark.parametrize(
    "added",
    ["first/plainmod.py", "first/plainpkg", "first/plainmod.cpython-311-x86_64-linux-gnu.so", "second/plainpkg.so"],
)
def test_a_module_of_a_name_loaded_put_before_the_one_loaded_stops_the_answer_holding(
    folders: tuple[Path, Path], added: str
) -> None:
    first, _second = folders
    table, _portions = keptsig.shadows(time.time_ns() - keptrun.SETTLE_NS)
    path = first.parent / added
    if "." in path.name:
        path.write_text("", encoding="utf-8")
    else:
        path.mkdir()
    assert not keptrun.shadows_hold(table)


def test_a_folder_of_a_loaded_modules_name_already_there_is_kept_by_its_listing(folders: tuple[Path, Path]) -> None:
    first, _second = folders
    (first / "plainmod").mkdir()
    os.utime(first, ns=(OLD, OLD))
    _table, portions = keptsig.shadows(time.time_ns() - keptrun.SETTLE_NS)
    assert portions == {str(first / "plainmod")}


def test_a_folder_not_there_holds_nothing_and_one_that_is_not_a_folder_may(tmp_path: Path) -> None:
    assert keptrun.unshadowed(str(tmp_path / "missing"), {"plainmod": ""})
    (tmp_path / "file.zip").write_bytes(b"")
    assert not keptrun.unshadowed(str(tmp_path / "file.zip"), {"plainmod": ""})
    assert keptrun.unshadowed(str(tmp_path), {"plainmod": ""})


def test_the_current_folder_gone_is_no_error(folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    _first, second = folders

    def gone() -> str:
        raise FileNotFoundError(2, "gone")

    monkeypatch.setattr(keptsig.sys, "path", ["", str(second)])  # type: ignore[attr-defined]
    monkeypatch.setattr(os, "getcwd", gone)
    table, _portions = keptsig.shadows(time.time_ns() - keptrun.SETTLE_NS)
    assert table[""][1] == {"plainmod": "", "plainpkg": ""}
    assert str(second) in table


def test_a_folder_is_known_by_its_finders_listing_when_it_was_made_at_its_settled_time(
    folders: tuple[Path, Path],
) -> None:
    """The import system's finder of a folder lists it once; its listing, made when the folder had the modification
    time it has now (settled), is what the folder holds (it is not listed again); at another time it is listed."""
    first, _second = folders
    finder = FileFinder(str(first), (SourceFileLoader, [".py"]))
    finder.find_spec("plainmod")  # (lists the folder: nothing)
    keptsig.sys.path_importer_cache[str(first)] = finder  # type: ignore[attr-defined]
    (first / "plainmod").mkdir()  # (a namespace portion the finder's listing does not hold)
    os.utime(first, ns=(OLD, OLD))  # (its time put back: the finder's listing is taken)
    assert keptsig.shadows(time.time_ns() - keptrun.SETTLE_NS)[1] == set()
    os.utime(first, ns=(OLD, OLD + 1_000_000_000))  # (another time: the folder is listed again)
    assert keptsig.shadows(time.time_ns() - keptrun.SETTLE_NS)[1] == {str(first / "plainmod")}


def test_a_folder_not_there_is_kept_as_such_and_holds_without_being_listed(
    folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = folders
    view = keptsig.sys  # type: ignore[attr-defined]
    monkeypatch.setattr(view, "path", [str(first / "missing"), str(second)])
    table, _portions = keptsig.shadows(time.time_ns() - keptrun.SETTLE_NS)
    assert table[str(first / "missing")][0] == keptrun._mtime(str(first / "missing")) < 0

    def listed(path: str, names: dict[str, str]) -> bool:
        raise AssertionError(f"{path} listed")

    monkeypatch.setattr(keptrun, "unshadowed", listed)
    assert keptrun.shadows_hold(table)


def test_what_a_recorder_keeps_lists_the_folders_it_listed_and_the_portions_its_shadows_name(
    folders: tuple[Path, Path],
) -> None:
    """:func:`tierlock.keptsig.looked` (a read-only command's, a lock's entry): a portion's listing is kept beside
    the folders the run listed, and the shadows with them."""
    first, second = folders
    (first / "plainmod").mkdir()
    (first / "plainmod" / "part.py").write_text("", encoding="utf-8")
    os.utime(first, ns=(OLD, OLD))
    seen = keptsig.looked(set(), set(), time.time_ns() - keptrun.SETTLE_NS, listed={str(second)}, scanned=())
    assert seen["lists"] == {str(first / "plainmod"): ("part.py",), str(second): ("plainmod.py", "plainpkg")}
    assert seen["shadows"] == keptsig.shadows(time.time_ns() - keptrun.SETTLE_NS)[0]
    assert (seen["stats"], seen["lstats"], seen["scans"]) == ({}, {}, {})
