"""The first run after an edit gives exactly the answer of a run that keeps nothing, and pays only for the edit.

A hook or an editor runs ``check`` and ``admit`` right after the user saved a file. Real console-script
runs on the 3-tier project of ``tests/cli/test_kept_runs.py`` (armed by ``install-tier``, files dated a
minute back): each command is run until its answer is kept, then one file is edited just before the next
run, as an editor saves it, and that run's output and exit code are compared with a run that keeps nothing
(``TIERLOCK_CACHE_DIR`` empty). An edit that leaves what the census takes from the test file unchanged
is answered without the tier model, the lockfile model or the census (the file alone is read again); one
that changes only where a function ends (a line added to the body of the last test, of a conftest's fixture, of a
helper module's function: no part of the census's result rests on it) is answered by the edited file alone, as
one that leaves its facts; one of a conftest or a helper module that changes its facts only where no reader of them
reads (a function added, a fixture nothing requests, an import of the standard library, a line above everything
when the result names no line of the file) by that file alone too;
one that changes the file's facts but not the census's result (a helper added to a test file) by the census
worked out again from the kept facts (the changed test file's part of the result alone, when no other file
imports it); an edit that changes the result - an ``importorskip`` gained or lost, a marker, an availability
flag, an import swapped for another of the same length (its modification time put back too), a line above an
import, a test added, a file added or removed, a conftest's fixture, a helper module gaining an
``importorskip``, a mark alias gained by a test file another one imports - and an edit of pyproject.toml or a
lockfile run in full. A kept entry whose bytes were cut short is no entry.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest

from tests.support.kept import HEAVY, World, backdate, put_back, twice

BRAIN = "tests/brain/test_brain.py"
PLAIN = "tests/test_plain.py"
GUARDED = "tests/test_guarded.py"
#: A test file that gates itself on a tier's package (present in the armed environment).
SKIPPING = 'import pytest\n\nbrainpkg01 = pytest.importorskip("brainpkg01")\n\n\ndef test_it():\n    assert True\n'
FLAGGED = (
    "import pytest\n\ntry:\n    import vizpkg01\n\n    has_viz = True\nexcept ImportError:\n    has_viz = False\n\n\n"
    '@pytest.mark.skipif(not has_viz, reason="no viz")\ndef test_it():\n    assert vizpkg01.VALUE == 1\n'
)
#: The full path's modules; a kept answer re-reading a test file loads the census package, but only its file reader.
MODEL = (HEAVY - {"tierlock.census"}) | {"tierlock.census.engine"}
#: What only the full path loads (the census worked out again from the kept facts loads the census).
FULL = HEAVY - {"tierlock.census"}
MARKED = 'import pytest\n\n\n@pytest.mark.tier("viz")\ndef test_plain():\n    assert True\n'
#: What the census worked out again whole loads, and one test file's part worked out alone does not.
WHOLE = "tierlock.tiers.globs"
CONFTEST = "tests/conftest.py"
HELPER = "tests/helpers.py"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return World(tmp_path_factory.mktemp("edits"))


@pytest.fixture
def kept(world: World) -> Iterator[World]:
    """The world with an extra test file that gates itself (so one can lose its gate), files dated back,
    an empty cache folder; every file put back after."""
    saved = (BRAIN, PLAIN, "pyproject.toml", "lockfiles/viz.txt")
    with put_back(world, saved, (GUARDED, "tests/test_new.py", CONFTEST, HELPER)):
        (world.project / GUARDED).write_text(SKIPPING)
        backdate(world.project, world.venv)
        yield world


def _replace(world: World, rel: str, old: str, new: str) -> None:
    path = world.project / rel
    text = path.read_text()
    assert old in text, (rel, old)
    path.write_text(text.replace(old, new, 1))  # written now: as an editor saves it


#: Edits that leave what the census takes from the file as it was: answered from the kept entry.
SAME_FACTS = {
    "the asserted value": (BRAIN, "VALUE == 0", "VALUE in (0, 1)"),
    "same size": (BRAIN, "VALUE == 0", "VALUE <= 0"),
    "a comment on a line": (PLAIN, "assert True", "assert True  # edited"),
    "the gated file's test body": (GUARDED, "assert True", "assert brainpkg01.VALUE == 1"),
}


@pytest.mark.parametrize("command", ["check", "admit"])
@pytest.mark.parametrize("edit", list(SAME_FACTS), ids=list(SAME_FACTS))
def test_an_edit_that_leaves_the_census_facts_gives_the_full_answer_without_the_model(
    kept: World, command: str, edit: str
) -> None:
    argv = kept.argv(command)
    before, _ = twice(kept, argv)
    _replace(kept, *SAME_FACTS[edit])
    after, modules = kept.run(argv)
    full = kept.full(argv)
    assert (after.returncode, after.stdout, after.stderr) == (full.returncode, full.stdout, full.stderr)
    assert (after.returncode, after.stdout) == (before.returncode, before.stdout)
    assert modules.isdisjoint(MODEL), sorted(modules & MODEL)
    assert "tierlock.census.summary" in modules  # the edited file was read again


def _gain_skip(world: World) -> None:
    _replace(world, PLAIN, "def test_plain():\n    assert True", "def test_plain():\n    import vizpkg00")


def _lose_skip(world: World) -> None:
    _replace(world, GUARDED, 'pytest.importorskip("brainpkg01")', "__import__('brainpkg01')")


def _marker(world: World) -> None:
    (world.project / PLAIN).write_text(MARKED)


def _flag(world: World) -> None:
    (world.project / PLAIN).write_text(FLAGGED)


def _swap_import_same_size(world: World) -> None:
    _replace(world, BRAIN, "import brainpkg00", "import brainpkg01")


def _line_above_the_import(world: World) -> None:
    _replace(world, BRAIN, "import brainpkg00\n", "\nimport brainpkg00\n")


def _gate_moved(world: World) -> None:
    _replace(world, GUARDED, "import pytest\n", "import pytest\n\n")


def _test_added(world: World) -> None:
    _replace(world, BRAIN, "VALUE == 0\n", "VALUE == 0\n\n\ndef test_more():\n    assert 1\n")


def _new_file(world: World) -> None:
    (world.project / "tests" / "test_new.py").write_text("import vizpkg03\n\n\ndef test_new():\n    assert True\n")


def _deleted_file(world: World) -> None:
    (world.project / BRAIN).unlink()


def _dependency(world: World) -> None:
    _replace(world, "pyproject.toml", '"brainpkg01>=1"', '"brainpkg01>=2"')


def _lockfile_same_size(world: World) -> None:
    _replace(world, "lockfiles/viz.txt", "vizpkg02==1.0", "vizpkg02==1.1")


def _same_size_and_time(world: World) -> None:
    path = world.project / BRAIN
    st = path.stat()
    _replace(world, BRAIN, "import brainpkg00\n", "import vizpkg00  \n")  # another tier's package
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # size and modification time as they were


CHANGED = {
    "gains a tier's import": _gain_skip,
    "loses its importorskip": _lose_skip,
    "gains a marker": _marker,
    "gains an availability flag": _flag,
    "an import swapped, same size": _swap_import_same_size,
    "a line above the import": _line_above_the_import,
    "the gate moved down": _gate_moved,
    "a test added": _test_added,
    "a new test file": _new_file,
    "a deleted test file": _deleted_file,
    "a dependency in pyproject": _dependency,
    "a lockfile, same size": _lockfile_same_size,
    "an import swapped, same size and modification time": _same_size_and_time,
}


@pytest.mark.parametrize("command", ["check", "admit"])
@pytest.mark.parametrize("edit", list(CHANGED), ids=list(CHANGED))
def test_an_edit_that_changes_what_a_command_rests_on_gives_the_full_answer(
    kept: World, command: str, edit: str
) -> None:
    argv = kept.argv(command)
    twice(kept, argv)
    CHANGED[edit](kept)
    after, _ = kept.run(argv)
    full = kept.full(argv)
    assert (after.returncode, after.stdout, after.stderr) == (full.returncode, full.stdout, full.stderr)


#: Edits that move lines (so the file's facts differ) but leave the census's result as it was: answered by the
#: census worked out again from the kept facts, without the tier model, the lockfile model or packaging.
MOVED = {
    "a helper added after the last test": (BRAIN, "VALUE == 0\n", "VALUE == 0\n\n\ndef helper():\n    return 1\n"),
    "a helper added to the gated file": (GUARDED, "assert True\n", "assert True\n\n\ndef helper():\n    return 1\n"),
    "an import of another module in a test": (BRAIN, "VALUE == 0\n", "VALUE == 0\n    import json\n"),
}


@pytest.mark.parametrize("command", ["check", "admit"])
@pytest.mark.parametrize("edit", list(MOVED), ids=list(MOVED))
def test_an_edit_that_moves_lines_but_not_the_census_result_is_answered_without_the_model(
    kept: World, command: str, edit: str
) -> None:
    argv = kept.argv(command)
    twice(kept, argv)
    _replace(kept, *MOVED[edit])
    after, modules = kept.run(argv)
    full = kept.full(argv)
    assert (after.returncode, after.stdout, after.stderr) == (full.returncode, full.stdout, full.stderr)
    assert modules.isdisjoint(FULL), sorted(modules & FULL)
    assert "tierlock.census.rerun" in modules
    assert WHOLE not in modules  # the edited file's part of the result worked out alone


@pytest.mark.parametrize("command", ["check", "admit"])
@pytest.mark.parametrize("edit", ["the gated file's test body", "a helper added to the gated file"])
def test_a_test_file_a_tier_glob_names_by_itself_is_kept_by_its_facts(kept: World, command: str, edit: str) -> None:
    """A glob naming the file itself makes the census look the file up (its kind): that is the census's own."""
    _replace(kept, "pyproject.toml", 'tests = ["tests/brain/**"]', f'tests = ["tests/brain/**", "{GUARDED}"]')
    backdate(kept.project)
    argv = kept.argv(command)
    before, _ = twice(kept, argv)
    _replace(kept, *(SAME_FACTS | MOVED)[edit])
    after, modules = kept.run(argv)
    full = kept.full(argv)
    assert (after.returncode, after.stdout, after.stderr) == (full.returncode, full.stdout, full.stderr)
    assert (after.returncode, after.stdout) == (before.returncode, before.stdout)
    assert modules.isdisjoint(FULL), sorted(modules & FULL)


AUTOUSE = "import pytest\n\n\n@pytest.fixture(autouse=True)\ndef numbers():\n    return 1\n"
#: A conftest fixture that needs a tier's package (the tests do not request it).
NEEDING = "import pytest\n\n\n@pytest.fixture\ndef viz():\n    import vizpkg00\n\n    return vizpkg00\n"
#: A helper module's function (it names a tier's package: the census reads the module).
HELPING = "def value():\n    import vizpkg00\n\n    return 1\n"
#: A test file that takes a mark alias from the gated test file (so that file is imported by another).
ALIASED = (
    "import pytest\nfrom test_guarded import needs_viz\n\npytest.importorskip('json')\n\n\n"
    "@needs_viz\ndef test_plain():\n    assert True\n"
)
#: A flag function's body: true with the viz tier's package, false without it.
FLAG_BODY = "    try:\n        import vizpkg00\n    except ImportError:\n        return False\n    return True\n"
#: A test file whose test a helper's flag function skips (``skipif(not has_viz())``).
FLAG_CALLED = (
    "import pytest\nfrom helpers import has_viz\n\n\n"
    "@pytest.mark.skipif(not has_viz(), reason='no viz')\ndef test_plain():\n    assert True\n"
)
#: (what is there before the answer is kept, the edit after): each compared with a run that keeps nothing.
SHARED = {
    "a conftest.py: a line above its fixture that needs a tier's package (its line is in the answer)": (
        {CONFTEST: NEEDING},
        (CONFTEST, "import pytest\n", "import pytest\n\n"),
    ),
    "a conftest.py: its autouse fixture imports a tier's package": (
        {CONFTEST: AUTOUSE},
        (CONFTEST, "    return 1", "    import vizpkg00\n\n    return 1"),
    ),
    "a helper module the tests import gains an importorskip": (
        {HELPER: "VALUE = 1\n", PLAIN: "from helpers import VALUE\n\n\ndef test_plain():\n    assert VALUE\n"},
        (HELPER, "VALUE = 1\n", "import pytest\n\npytest.importorskip('vizpkg00')\nVALUE = 1\n"),
    ),
    "a test file another imports gains a mark alias at its end": (
        {PLAIN: ALIASED},
        (GUARDED, "assert True\n", "assert True\n\n\nneeds_viz = pytest.mark.tier('viz')\n"),
    ),
    "a conftest.py: its fixture that needs a tier's package made autouse": (
        {CONFTEST: NEEDING},
        (CONFTEST, "@pytest.fixture\n", "@pytest.fixture(autouse=True)\n"),
    ),
    "a helper module: a line added to its function that gains a flag": (
        {HELPER: HELPING, PLAIN: "from helpers import value\n\n\ndef test_plain():\n    assert value()\n"},
        (
            HELPER,
            "    return 1\n",
            "    return 1\n\n\ntry:\n    import vizpkg00\n    has_viz = True\nexcept ImportError:\n"
            "    has_viz = False\n",
        ),
    ),
    "a conftest.py: its fixture's import swapped, same size and modification time": (
        {CONFTEST: NEEDING},
        (CONFTEST, "import vizpkg00", "import abcpkg00"),
    ),
    "a conftest.py deleted": ({CONFTEST: NEEDING}, None),
    "a helper module: its function becomes a flag function a test's skipif calls": (
        {HELPER: "def has_viz():\n    return True\n", PLAIN: FLAG_CALLED},
        (
            HELPER,
            "    return True\n",
            FLAG_BODY,
        ),
    ),
    "a helper module a test star-imports: a flag function added": (
        {HELPER: "VALUE = 1\n", PLAIN: FLAG_CALLED.replace("import has_viz", "import *")},
        (
            HELPER,
            "VALUE = 1\n",
            "VALUE = 1\n\n\ndef has_viz():\n" + FLAG_BODY,
        ),
    ),
    "a test file another imports: a line added to its test": (
        {PLAIN: ALIASED},
        (GUARDED, "assert True\n", "assert True\n    assert 1\n"),
    ),
}


def _kept_across(kept: World, command: str, files: dict[str, str], edit: tuple[str, str, str]) -> set[str]:
    """Write *files*, keep the answer, make *edit*: the answer after it is a run keeping nothing's, and the one kept
    before it. Returns the modules the run after the edit loaded."""
    for rel, text in files.items():
        (kept.project / rel).write_text(text)
    backdate(kept.project)
    argv = kept.argv(command)
    before, _ = twice(kept, argv)
    _replace(kept, *edit)
    after, modules = kept.run(argv)
    full = kept.full(argv)
    assert (after.returncode, after.stdout, after.stderr) == (full.returncode, full.stdout, full.stderr)
    assert (after.returncode, after.stdout) == (before.returncode, before.stdout)
    return modules


#: (what is there before the answer is kept, the edit after): a line added inside a function of a file other files
#: rest on, so that only where the function ends moves: answered from that file alone, without the census.
ENDS = {
    "the last test": ({}, (BRAIN, "VALUE == 0\n", "VALUE == 0\n    assert True\n")),
    "a conftest's autouse fixture": ({CONFTEST: AUTOUSE}, (CONFTEST, "    return 1\n", "    x = 1\n    return x\n")),
    "a conftest's fixture that needs a tier's package": (
        {CONFTEST: NEEDING},
        (CONFTEST, "    return vizpkg00\n", "    assert vizpkg00\n    return vizpkg00\n"),
    ),
    "a helper module's function": (
        {HELPER: HELPING, PLAIN: "from helpers import value\n\n\ndef test_plain():\n    assert value()\n"},
        (HELPER, "    return 1\n", "    x = 1\n    return x\n"),
    ),
}


@pytest.mark.parametrize("command", ["check", "admit"])
@pytest.mark.parametrize("case", list(ENDS), ids=list(ENDS))
def test_a_line_added_inside_a_function_is_answered_from_the_edited_file_alone(
    kept: World, command: str, case: str
) -> None:
    modules = _kept_across(kept, command, *ENDS[case])
    assert modules.isdisjoint(MODEL), sorted(modules & MODEL)
    assert "tierlock.census.summary" in modules  # the edited file was read again
    assert "tierlock.census.rerun" not in modules  # and nothing else: no census worked out


#: (what is there before the answer is kept, the edit after): an edit of a file other files rest on that changes its
#: facts only where no reader of them reads (a function added, a fixture nothing requests, an import of the standard
#: library): answered from that file alone, the census not worked out.
UNREAD = {
    "a conftest.py: a helper added": (
        {CONFTEST: NEEDING},
        (CONFTEST, "    return vizpkg00\n", "    return vizpkg00\n\n\ndef helper():\n    return 2\n"),
    ),
    "a conftest.py: a fixture nothing requests added": (
        {CONFTEST: NEEDING},
        (CONFTEST, "    return vizpkg00\n", "    return vizpkg00\n\n\n@pytest.fixture\ndef spare():\n    return 2\n"),
    ),
    "a conftest.py: an import of the standard library added": (
        {CONFTEST: NEEDING},
        (CONFTEST, "    return vizpkg00\n", "    return vizpkg00\n\n\nimport colorsys\n"),
    ),
    "a conftest.py: a line above its autouse fixture that needs nothing (no line of it in the result)": (
        {CONFTEST: AUTOUSE},
        (CONFTEST, "import pytest\n", "import pytest\n\n"),
    ),
    "a helper module: an import of the standard library above everything (no line of it in the result)": (
        {HELPER: HELPING, PLAIN: "from helpers import value\n\n\ndef test_plain():\n    assert value()\n"},
        (HELPER, "def value():", "import colorsys\n\n\ndef value():"),
    ),
    "a helper module: a function calling importorskip of a tier added": (
        {HELPER: HELPING, PLAIN: "from helpers import value\n\n\ndef test_plain():\n    assert value()\n"},
        (
            HELPER,
            "    return 1\n",
            "    return 1\n\n\ndef skipper():\n    import pytest\n\n    pytest.importorskip('vizpkg00')\n",
        ),
    ),
}


@pytest.mark.parametrize("command", ["check", "admit"])
@pytest.mark.parametrize("case", list(UNREAD), ids=list(UNREAD))
def test_an_edit_no_reader_of_a_shared_files_facts_reads_is_answered_from_that_file_alone(
    kept: World, command: str, case: str
) -> None:
    modules = _kept_across(kept, command, *UNREAD[case])
    assert modules.isdisjoint(FULL), sorted(modules & FULL)
    assert "tierlock.census.rerun" in modules  # its facts changed
    assert WHOLE not in modules  # the census not worked out


@pytest.mark.parametrize("command", ["check", "admit"])
@pytest.mark.parametrize("case", list(SHARED), ids=list(SHARED))
def test_an_edit_of_a_file_other_files_rest_on_gives_the_full_answer(kept: World, command: str, case: str) -> None:
    """A conftest, a helper module and a test file another one imports are not worked out alone: their edit
    can change what the census finds in every other file."""
    files, edit = SHARED[case]
    for rel, text in files.items():
        (kept.project / rel).write_text(text)
    backdate(kept.project)
    argv = kept.argv(command)
    twice(kept, argv)
    if edit is None:
        (kept.project / CONFTEST).unlink()
    else:
        was = (kept.project / edit[0]).stat()
        _replace(kept, *edit)
        if "same size and modification time" in case:
            os.utime(kept.project / edit[0], ns=(was.st_atime_ns, was.st_mtime_ns))
    after, modules = kept.run(argv)
    full = kept.full(argv)
    assert (after.returncode, after.stdout, after.stderr) == (full.returncode, full.stdout, full.stderr)
    if "tierlock.census.rerun" in modules:
        assert WHOLE in modules  # worked out whole, never the edited file alone


@pytest.mark.parametrize("command", ["check", "admit"])
@pytest.mark.parametrize("cut", ["the entry", "the facts kept apart"])
def test_a_kept_entry_cut_short_is_no_entry(kept: World, command: str, cut: str) -> None:
    """As a run stopped while writing would leave it (or a full disk): the answer is worked out in full."""
    argv = kept.argv(command)
    twice(kept, argv)
    _replace(kept, *MOVED["a helper added after the last test"])
    suffix = ".marshal" if cut == "the entry" else ".marshal.rerun"
    for path in kept.cache.glob(f"runs-*{suffix}"):
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    after, modules = kept.run(argv)
    full = kept.full(argv)
    assert (after.returncode, after.stdout, after.stderr) == (full.returncode, full.stdout, full.stderr)
    assert "tierlock.lockfiles.check" in modules


def test_a_test_file_edited_twice_is_answered_from_the_kept_entry_each_time_and_once_settled(kept: World) -> None:
    argv = kept.argv("check")
    before, _ = twice(kept, argv)
    original = (kept.project / BRAIN).read_text()
    for value in ("1", "2"):
        (kept.project / BRAIN).write_text(original.replace("VALUE ==", f"VALUE + {value} - {value} =="))
        after, modules = kept.run(argv)
        assert (after.returncode, after.stdout) == (before.returncode, before.stdout)
        assert modules.isdisjoint(MODEL)
        assert "tierlock.census.summary" in modules
    backdate(kept.project)
    settled, modules = kept.run(argv)  # the file read again once more, and the entry kept with it
    assert (settled.returncode, settled.stdout) == (before.returncode, before.stdout)
    assert "tierlock.census.summary" in modules
    again, modules = kept.run(argv)
    assert (again.returncode, again.stdout) == (before.returncode, before.stdout)
    assert "tierlock.census.summary" not in modules
    assert modules.isdisjoint(MODEL)


def test_after_the_census_was_worked_out_again_a_settled_edit_is_worked_out_in_full_once(kept: World) -> None:
    argv = kept.argv("check")
    before, _ = twice(kept, argv)
    _replace(kept, *MOVED["a helper added after the last test"])
    after, modules = kept.run(argv)
    assert "tierlock.census.rerun" in modules
    backdate(kept.project)
    settled, modules = kept.run(argv)
    assert "tierlock.lockfiles.check" in modules  # in full, and kept again
    again, modules = kept.run(argv)
    assert modules.isdisjoint(MODEL)
    assert "tierlock.census.summary" not in modules
    assert [p.stdout for p in (after, settled, again)] == [before.stdout] * 3


@pytest.mark.parametrize("command", ["check", "admit"])
@pytest.mark.parametrize("edit", ["same size", "a comment on a line"])
def test_with_the_census_cache_and_json_output_an_edit_gives_the_full_answer(
    kept: World, command: str, edit: str
) -> None:
    """With pytest's ``.pytest_cache`` the census keeps its facts there (a full run after the edit parses one
    file and takes the rest from it, the kept answer none): the JSON document is the same all the same."""
    cache = kept.project / ".pytest_cache"
    cache.mkdir()
    try:
        argv = kept.argv(command, "--json") if command == "check" else [*kept.argv(command), "--json"]
        kept.run(argv)  # writes the census's cache: not kept
        backdate(kept.project)
        twice(kept, argv)
        _replace(kept, *SAME_FACTS[edit])
        after, modules = kept.run(argv)
        assert modules.isdisjoint(MODEL), sorted(modules & MODEL)
        full = kept.full(argv)  # parses the edited file, takes the others from the census's cache
        assert (after.returncode, after.stdout, after.stderr) == (full.returncode, full.stdout, full.stderr)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
