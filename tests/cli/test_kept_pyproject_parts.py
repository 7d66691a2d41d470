"""A kept answer survives an edit of pyproject.toml that changes nothing it rests on, and only such an edit.

A pre-commit hook runs ``check`` / ``admit`` / ``probe`` / ``status`` after every save of pyproject.toml, and
most saves touch a linter's table, the description or a classifier. Real console-script runs on the 3-tier
project of ``tests/cli/test_kept_runs.py``: each command is run until its answer is kept, pyproject.toml is
edited just before the next run (as an editor saves it), and that run's output and exit code are compared
with a run that keeps nothing (``TIERLOCK_CACHE_DIR`` empty). An edit of a part no answer rests on (a
``[tool.*]`` table tierlock, pytest and uv never read, the prose of ``[project]``) is answered from the kept
entry, without the tier model or the lockfile model; an edit of a part the answer rests on (a dependency,
``[tool.tierlock]``, ``[tool.pytest.ini_options]``, ``[tool.uv]``, ``[dependency-groups]``, ``[build-system]``,
``requires-python``, the name, the order of the tiers), TOML that no longer parses, a duplicate key, a deleted
file or a symlink in its place runs in full. A file another reader opened (a runtime config in
``[tool.tierlock.runtime]`` that ``admit`` validates from the text) is kept by its bytes, as before.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.kept import HEAVY, World, backdate, full_answer, same_answer, twice

PYPROJECT = "pyproject.toml"
COMMANDS = ["check", "admit", "probe", "status"]
#: What a kept answer that read pyproject.toml's parts again loads besides the kept path.
PARTS = "tierlock.projectparts"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return World(tmp_path_factory.mktemp("parts"))


@pytest.fixture
def kept(world: World) -> Iterator[World]:
    """The world with files dated back and an empty cache folder; pyproject.toml put back after."""
    path = world.project / PYPROJECT
    saved = path.read_bytes()
    shutil.rmtree(world.cache, ignore_errors=True)
    backdate(world.project, world.venv)
    yield world
    if path.is_symlink() or not path.exists():
        path.unlink(missing_ok=True)
    path.write_bytes(saved)
    (world.root / "elsewhere.toml").unlink(missing_ok=True)
    shutil.rmtree(world.cache, ignore_errors=True)


def _edit(world: World, change: Callable[[str], str | bytes]) -> None:
    path = world.project / PYPROJECT
    new = change(path.read_text(encoding="utf-8"))
    path.write_bytes(new.encode("utf-8") if isinstance(new, str) else new)  # written now: as an editor saves it


def _sub(old: str, new: str) -> Callable[[str], str]:
    def change(text: str) -> str:
        assert old in text, old
        return text.replace(old, new, 1)

    return change


def _append(more: str) -> Callable[[str], str]:
    return lambda text: text + more


def _dotted(text: str) -> str:
    """``[project.optional-dependencies]`` written as dotted keys of ``[project]`` (the same document)."""
    head, rest = text.split("[project.optional-dependencies]\n", 1)
    extras, tail = rest.split("\n\n", 1)
    dotted = "".join(f"optional-dependencies.{line}\n" for line in extras.splitlines())
    return head.rstrip("\n") + "\n" + dotted + "\n" + tail


#: Edits of parts no answer rests on: answered from the kept entry.
INERT: dict[str, Callable[[str], str | bytes]] = {
    "a [tool.ruff] table added": _append('\n[tool.ruff]\nline-length = 100\n\n[tool.ruff.lint]\nselect = ["E"]\n'),
    "a [tool.coverage] table added": _append('\n[tool.coverage.run]\nbranch = true\nsource = ["app"]\n'),
    "the description added": _sub('version = "0.1.0"\n', 'version = "0.1.0"\ndescription = "An app."\n'),
    "a classifier added": _sub(
        'version = "0.1.0"\n', 'version = "0.1.0"\nclassifiers = ["Programming Language :: Python :: 3"]\n'
    ),
    "a comment and blank lines": _sub("[tool.tierlock]\n", "# the tiers\n\n[tool.tierlock]  # ours\n"),
    "a byte-order mark": lambda text: "\ufeff" + text,
    "CRLF line ends": lambda text: text.replace("\n", "\r\n"),
}

#: Edits of parts an answer rests on (or of what makes the file a file): each runs in full.
RELEVANT: dict[str, Callable[[str], str | bytes]] = {
    "a dependency's specifier widened": _sub('"brainpkg01>=1"', '"brainpkg01>=0.5"'),
    "a dependency's specifier narrowed": _sub('"brainpkg01>=1"', '"brainpkg01>=2"'),
    "a base dependency added": _sub('"basepkg02>=1"]', '"basepkg02>=1", "vizpkg05"]'),
    "[tool.tierlock] ci-require": _sub('ci-require = ["brain", "viz"]', 'ci-require = ["brain"]'),
    "[tool.tierlock] a tier's tests glob": _sub('tests = ["tests/viz/**"]', 'tests = ["tests/vis/**"]'),
    "[tool.tierlock] a census accept table": _append('\n[tool.tierlock.census.accept]\nviz = ["tests/x.py"]\n'),
    "[tool.pytest.ini_options] testpaths": _append('\n[tool.pytest.ini_options]\ntestpaths = ["tests/brain"]\n'),
    "[tool.pytest.ini_options] python_files": _append('\n[tool.pytest.ini_options]\npython_files = ["check_*.py"]\n'),
    "[tool.pytest.ini_options] markers": _append('\n[tool.pytest.ini_options]\nmarkers = ["slow: slow"]\n'),
    "[tool.pytest.ini_options] addopts": _append('\n[tool.pytest.ini_options]\naddopts = "-q"\n'),
    "[dependency-groups] added": _append('\n[dependency-groups]\ndev = ["vizpkg00"]\n'),
    "an extra added": _sub("viz = [", 'docs = ["vizpkg01"]\nviz = ['),
    "[build-system] added": _append('\n[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n'),
    "[tool.uv] index settings": _append('\n[tool.uv]\nindex-url = "https://example.invalid/simple"\n'),
    "requires-python": _sub('requires-python = ">=3.11"', 'requires-python = ">=3.12"'),
    "the project's name": _sub('name = "app"', 'name = "app2"'),
    "the version": _sub('version = "0.1.0"', 'version = "0.2.0"'),
    "the tiers in another order": lambda text: (
        text.replace("[tool.tierlock.tiers.brain]", "[tool.tierlock.tiers.x]")
        .replace("[tool.tierlock.tiers.viz]", "[tool.tierlock.tiers.brain]")
        .replace("[tool.tierlock.tiers.x]", "[tool.tierlock.tiers.viz]")
        .replace('source = "extra:brain"', 'source = "extra:X"')
        .replace('source = "extra:viz"', 'source = "extra:brain"')
        .replace('source = "extra:X"', 'source = "extra:viz"')
        .replace('tests = ["tests/brain/**"]', 'tests = ["tests/X/**"]')
        .replace('tests = ["tests/viz/**"]', 'tests = ["tests/brain/**"]')
        .replace('tests = ["tests/X/**"]', 'tests = ["tests/viz/**"]')
    ),
    "TOML that no longer parses": _append("\n[tool.ruff\n"),
    "a duplicate key": _sub('version = "0.1.0"\n', 'version = "0.1.0"\nversion = "0.1.0"\n'),
    "bytes that are not UTF-8": lambda text: text.encode() + b"\n# \xff\xfe\n",
    "a byte-order mark in the middle": _sub("[tool.tierlock]\n", "\ufeff[tool.tierlock]\n"),
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("edit", list(INERT), ids=list(INERT))
def test_an_edit_of_a_part_no_answer_rests_on_gives_the_kept_answer(kept: World, command: str, edit: str) -> None:
    argv = kept.argv(command)
    before, _ = twice(kept, argv)
    _edit(kept, INERT[edit])
    after, modules = kept.run(argv)
    full = full_answer(kept, argv)
    same_answer(after, full)
    assert (after.returncode, after.stdout) == (before.returncode, before.stdout)
    assert modules.isdisjoint(HEAVY), sorted(modules & HEAVY)
    assert PARTS in modules  # the parts were read again


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("edit", list(RELEVANT), ids=list(RELEVANT))
def test_an_edit_of_a_part_an_answer_rests_on_gives_the_full_answer(kept: World, command: str, edit: str) -> None:
    argv = kept.argv(command)
    twice(kept, argv)
    _edit(kept, RELEVANT[edit])
    after, modules = kept.run(argv)
    full = full_answer(kept, argv)
    same_answer(after, full)
    assert "tierlock.tiers.loader" in modules  # worked out again, never the kept answer


@pytest.mark.parametrize("command", ["check", "admit"])
def test_a_table_written_as_dotted_keys_gives_the_full_answer_either_way(kept: World, command: str) -> None:
    argv = kept.argv(command)
    twice(kept, argv)
    _edit(kept, _dotted)
    after, _ = kept.run(argv)
    same_answer(after, full_answer(kept, argv))


@pytest.mark.parametrize("command", ["check", "probe"])
@pytest.mark.parametrize("how", ["deleted", "a symlink to the same bytes", "a symlink to an edited copy"])
def test_pyproject_deleted_or_replaced_by_a_symlink_gives_the_answer_of_a_run_that_keeps_nothing(
    kept: World, command: str, how: str
) -> None:
    argv = kept.argv(command)
    twice(kept, argv)
    path = kept.project / PYPROJECT
    text = path.read_text()
    path.unlink()
    if how != "deleted":
        other = kept.root / "elsewhere.toml"
        other.write_text(text if how.endswith("same bytes") else text + "\n[tool.ruff]\nline-length = 1\n")
        path.symlink_to(other)
    after, modules = kept.run(argv)
    same_answer(after, full_answer(kept, argv))
    if how == "deleted":
        assert "tierlock.tiers.loader" in modules
    else:  # the project is where the link is (never its target's folder): the same bytes or parts, the same answer
        assert modules.isdisjoint(HEAVY)


def test_after_a_settled_inert_edit_the_next_run_is_fully_kept_again(kept: World) -> None:
    argv = kept.argv("check")
    before, _ = twice(kept, argv)
    _edit(kept, INERT["a [tool.ruff] table added"])
    backdate(kept.project)
    settled, modules = kept.run(argv)  # the parts read again, and the entry kept with the new identity
    assert PARTS in modules
    again, modules = kept.run(argv)
    assert [p.stdout for p in (settled, again)] == [before.stdout] * 2
    assert PARTS not in modules
    assert "tomllib" not in modules  # the kept path parses nothing
    assert modules.isdisjoint(HEAVY)


def test_two_inert_edits_in_a_row_each_keep_the_answer_and_a_relevant_one_after_them_does_not(kept: World) -> None:
    argv = kept.argv("check")
    before, _ = twice(kept, argv)
    for more in ("\n[tool.ruff]\nline-length = 90\n", "\n[tool.black]\nline-length = 90\n"):
        _edit(kept, _append(more))
        backdate(kept.project)
        after, modules = kept.run(argv)
        assert (after.stdout, PARTS in modules) == (before.stdout, True)
    _edit(kept, RELEVANT["[tool.tierlock] a tier's tests glob"])
    after, modules = kept.run(argv)
    same_answer(after, full_answer(kept, argv))
    assert "tierlock.tiers.loader" in modules


OTHER_PYTHON = "/root/.pyenv/versions/3.12.1/bin/python"


@pytest.mark.skipif(not os.path.exists(OTHER_PYTHON), reason="needs the pyenv Python 3.12")
@pytest.mark.parametrize("command", ["probe", "status"])
@pytest.mark.parametrize("edit", ["a [tool.ruff] table added", "requires-python"])
def test_against_another_python_an_edit_gives_the_answer_of_a_run_that_keeps_nothing(
    kept: World, command: str, edit: str
) -> None:
    """Another interpreter (nothing armed in it: the tiers are missing, exit 1, a kept answer all the same)."""
    argv = ["--project", str(kept.project), command, "--python", OTHER_PYTHON]
    before, _ = twice(kept, argv)
    _edit(kept, (INERT | RELEVANT)[edit])
    after, modules = kept.run(argv)
    same_answer(after, full_answer(kept, argv))
    assert modules.isdisjoint(HEAVY) is (edit in INERT)
    if edit in INERT:
        assert (after.returncode, after.stdout) == (before.returncode, before.stdout)


RUNTIME = '\n[tool.tierlock.runtime]\nsetup = ["pip install -e ."]\n'


def test_a_pyproject_another_reader_opened_is_kept_by_its_bytes(kept: World) -> None:
    """``admit`` validates a runtime config in ``[tool.tierlock.runtime]`` from the text (positions of its
    errors): the file is then kept by its bytes, and any edit runs in full. ``check`` reads only its parts."""
    _edit(kept, _append(RUNTIME))
    backdate(kept.project)
    admit, check = kept.argv("admit"), kept.argv("check")
    twice(kept, admit)
    twice(kept, check)
    _edit(kept, INERT["a [tool.ruff] table added"])
    after, modules = kept.run(admit)
    same_answer(after, full_answer(kept, admit))
    assert "tierlock.tiers.loader" in modules
    after, modules = kept.run(check)
    same_answer(after, full_answer(kept, check))
    assert modules.isdisjoint(HEAVY)


#: Pieces an arbitrary edit is made of: inert and relevant TOML, and bytes of any kind.
PIECES = st.one_of(
    st.sampled_from(
        [
            "\n[tool.ruff]\nline-length = 1\n",
            "\n# a comment\n",
            '\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
            '\n[tool.tierlock.census.accept]\nviz = ["x"]\n',
            "\n[tool.uv]\nconflicts = []\n",
            "\n[dependency-groups]\ndev = []\n",
            '\nkeywords = ["x"]\n',
            "\r\n",
            "\ufeff",
            "]",
            '"',
            "=",
        ]
    ),
    st.text(max_size=8),
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_edit_of_pyproject_gives_the_answer_of_a_run_that_keeps_nothing(kept: World, data: st.DataObject) -> None:
    path = kept.project / PYPROJECT
    original = path.read_bytes()
    argv = kept.argv(data.draw(st.sampled_from(["check", "admit"])))
    try:
        twice(kept, argv)
        edited = original
        for _ in range(data.draw(st.integers(1, 3))):
            where = data.draw(st.integers(0, len(edited)))
            cut = data.draw(st.integers(0, 4))
            piece = data.draw(PIECES).encode("utf-8", "surrogatepass")
            edited = edited[:where] + piece + edited[where + cut :]
        path.write_bytes(edited)
        after, _ = kept.run(argv)
        same_answer(after, full_answer(kept, argv))
    finally:
        path.write_bytes(original)
        backdate(kept.project)
        shutil.rmtree(kept.cache, ignore_errors=True)


def test_the_dotted_form_the_tests_write_is_the_same_document() -> None:
    import tomllib

    sample = '[project]\nname = "a"\n\n[project.optional-dependencies]\nx = ["p"]\ny = ["q"]\n\n[tool.a]\nb = 1\n'
    assert tomllib.loads(_dotted(sample)) == tomllib.loads(sample)
    assert "[project.optional-dependencies]" not in _dotted(sample)
