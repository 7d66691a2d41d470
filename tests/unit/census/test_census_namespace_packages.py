"""An import of a namespace package's module (a folder of modules without ``__init__.py``) is first-party.

Python finds a namespace package only when no module or package of that name is on any import path folder; the
census's module index (:class:`tierlock.census.firstparty.ModuleIndex`) resolves it the same way.
"""

from __future__ import annotations

from tierlock.census.firstparty import ModuleIndex


def test_a_namespace_packages_module_is_resolved_to_its_file() -> None:
    index = ModuleIndex(["tests/test_a.py", "tests/shared/values.py", "tests/shared/deep/more.py"])
    assert index.resolve("shared.values", 0, (), "tests/test_a.py") == ["tests/shared/values.py"]
    assert index.resolve("shared", 0, [["values", "values"]], "tests/test_a.py") == ["tests/shared/values.py"]
    assert index.resolve("shared.deep.more", 0, (), "tests/test_a.py") == ["tests/shared/deep/more.py"]


def test_a_namespace_package_without_the_module_asked_for_is_not_first_party() -> None:
    index = ModuleIndex(["tests/test_a.py", "tests/shared/values.py"])
    assert index.resolve("shared.other", 0, (), "tests/test_a.py") == []
    assert index.resolve("shared", 0, (), "tests/test_a.py") == []


def test_a_regular_module_on_a_later_import_path_wins_over_a_namespace_folder_on_an_earlier_one() -> None:
    files = ["tests/test_a.py", "tests/shared/values.py", "src/shared/__init__.py", "src/shared/values.py"]
    index = ModuleIndex(files, ("", "src"))
    found = index.resolve("shared.values", 0, (), "tests/test_a.py")
    assert found == ["src/shared/__init__.py", "src/shared/values.py"]


def test_a_namespace_folder_on_a_later_import_path_is_found_when_the_first_has_no_such_module() -> None:
    index = ModuleIndex(["tests/test_a.py", "tests/shared/values.py", "src/shared/other.py"], ("", "src"))
    assert index.resolve("shared.other", 0, (), "tests/test_a.py") == ["src/shared/other.py"]
