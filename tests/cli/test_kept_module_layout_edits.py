"""A module created, deleted or renamed, or a package's ``__init__.py`` added, gives a run's full answer next time.

The census follows the project's modules once and forgets only the answers resting on a file it had not read
(:mod:`tierlock.census.firstparty`), and a kept answer of ``check`` or ``admit`` is replayed while the files
it rests on hold (:mod:`tierlock.keptrun`). Attacked here with the layout of the modules a test file imports: a
module created that an import of a test file failed to find, a package's ``__init__.py`` added to a namespace
package (it imports a tier's package), a namespace package's module deleted, a helper module renamed (the import
now fails, or finds the new name), a module created beside a test file that shadows nothing. Real console-script
runs on the 3-tier project of ``tests/cli/test_kept_runs.py``; each answer after the change is compared with a
run that keeps nothing (``TIERLOCK_CACHE_DIR`` empty), and with the answer before when the change matters.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.kept import World, backdate, put_back, twice

PLAIN = "tests/test_plain.py"
NEEDS_VIZ = "import vizpkg00\n\nVALUE = 1\n"


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def _create(files: dict[str, str]) -> Callable[[Path], None]:
    return lambda root: _write(root, files)


def _delete(rel: str) -> Callable[[Path], None]:
    return lambda root: (root / rel).unlink()


def _rename(rel: str, new: str) -> Callable[[Path], None]:
    def rename(root: Path) -> None:
        (root / rel).rename(root / new)

    return rename


#: (what is there before the answer is kept, the change made after).
CASES: dict[str, tuple[dict[str, str], Callable[[Path], None]]] = {
    "a module an import failed to find is created": (
        {PLAIN: "from helpers import VALUE\n\n\ndef test_plain():\n    assert VALUE\n"},
        _create({"tests/helpers.py": NEEDS_VIZ}),
    ),
    "a namespace package gains an __init__.py that imports a tier's package": (
        {
            "tests/shared/values.py": "VALUE = 1\n",
            PLAIN: "from shared.values import VALUE\n\n\ndef test_plain():\n    assert VALUE\n",
        },
        _create({"tests/shared/__init__.py": "import vizpkg00\n"}),
    ),
    "a namespace package's module that imports a tier's package is deleted": (
        {
            "tests/shared/values.py": NEEDS_VIZ,
            PLAIN: "from shared.values import VALUE\n\n\ndef test_plain():\n    assert VALUE\n",
        },
        _delete("tests/shared/values.py"),
    ),
    "a helper module that imports a tier's package is renamed away": (
        {
            "tests/helpers.py": NEEDS_VIZ,
            PLAIN: "from helpers import VALUE\n\n\ndef test_plain():\n    assert VALUE\n",
        },
        _rename("tests/helpers.py", "tests/helpers_old.py"),
    ),
    "a helper module is renamed to the name a test file imports": (
        {
            "tests/helpers_new.py": NEEDS_VIZ,
            PLAIN: "from helpers import VALUE\n\n\ndef test_plain():\n    assert VALUE\n",
        },
        _rename("tests/helpers_new.py", "tests/helpers.py"),
    ),
    "a package module of a tier's package's name is created beside the tests": (
        {PLAIN: "import vizpkg00\n\n\ndef test_plain():\n    assert vizpkg00\n"},
        _create({"tests/vizpkg00/__init__.py": "VALUE = 1\n"}),
    ),
    "a submodule an import names is created in a package": (
        {
            "tests/shared/__init__.py": "",
            PLAIN: "from shared import values\n\n\ndef test_plain():\n    assert values\n",
        },
        _create({"tests/shared/values.py": NEEDS_VIZ}),
    ),
}


#: The changes that change the answer (the others are compared with a run that keeps nothing all the same).
CHANGES_ANSWER = {
    "a module an import failed to find is created",
    "a namespace package gains an __init__.py that imports a tier's package",
    "a namespace package's module that imports a tier's package is deleted",
    "a helper module that imports a tier's package is renamed away",
    "a helper module is renamed to the name a test file imports",
    "a submodule an import names is created in a package",
}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return World(tmp_path_factory.mktemp("layout"))


@pytest.fixture
def kept(world: World) -> Iterator[World]:
    """The world with an empty cache folder; every file put back after."""
    added = ("tests/helpers.py", "tests/helpers_old.py", "tests/helpers_new.py", "tests/shared", "tests/vizpkg00")
    with put_back(world, (PLAIN,), added):
        yield world


@pytest.mark.parametrize("command", ["check", "admit"])
@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_a_module_created_deleted_or_renamed_gives_the_full_answer_on_the_next_run(
    kept: World, command: str, case: str
) -> None:
    files, change = CASES[case]
    _write(kept.project, files)
    backdate(kept.project, kept.venv)
    argv = kept.argv(command)
    before, _ = twice(kept, argv)
    change(kept.project)
    after, _ = kept.run(argv)
    full = kept.full(argv)
    assert (after.returncode, after.stdout, after.stderr) == (full.returncode, full.stdout, full.stderr)
    if case in CHANGES_ANSWER:
        assert (after.returncode, after.stdout) != (before.returncode, before.stdout)


@pytest.mark.parametrize("init", [True, False], ids=["package", "namespace-package"])
def test_a_module_of_a_namespace_package_a_test_imports_is_followed_as_a_packages_module(
    kept: World, init: bool
) -> None:
    """``from shared.values import VALUE`` with no ``tests/shared/__init__.py`` runs ``values.py`` as well."""
    files = {"tests/shared/values.py": NEEDS_VIZ, PLAIN: "from shared.values import VALUE\n\n\ndef test_plain():\n"}
    files[PLAIN] += "    assert VALUE\n"
    if init:
        files["tests/shared/__init__.py"] = ""
    _write(kept.project, files)
    full = kept.full(kept.argv("check"))
    assert full.returncode == 1, full.stdout
    assert "needs tier viz (from shared.values import (reaches vizpkg00 at tests/shared/values.py:1))" in full.stdout
