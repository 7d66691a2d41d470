"""An edit that moves where a function ends and also changes what the census reads gives a run's full answer.

A kept answer of ``check`` or ``admit`` compares a changed file's facts without each function's last line
(:func:`tierlock.census.factdigest.facts_digest`): a line added inside a function is answered from that file
alone. Each edit here adds lines at the end of a function (so its end moves) and with them something the census
reads: an ``importorskip`` at the end of a fixture, an import in a fixture a test requests, a nested function or
a lambda in a helper, a method appended to a test class, an ``async def`` test's import, a decorator, an
availability flag read at the end of a test, a flag assigned at the end of a helper module's function. Real
console-script runs on the 3-tier project of ``tests/cli/test_kept_runs.py``; every answer after the edit is
compared with a run that keeps nothing (``TIERLOCK_CACHE_DIR`` empty).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.kept import World, backdate, put_back, twice

PLAIN = "tests/test_plain.py"
CONFTEST = "tests/conftest.py"
HELPER = "tests/helpers.py"
USES_HELPER = "from helpers import value\n\n\ndef test_plain():\n    assert value()\n"

#: (what is there before the answer is kept, (file, old, new): the edit, made after).
CASES = {
    "a conftest's autouse fixture gains an importorskip on its last line": (
        {CONFTEST: "import pytest\n\n\n@pytest.fixture(autouse=True)\ndef numbers():\n    return 1\n"},
        (CONFTEST, "    return 1\n", "    x = 1\n    pytest.importorskip('vizpkg00')\n    return x\n"),
    ),
    "a requested fixture gains a tier's import at its end": (
        {
            CONFTEST: "import pytest\n\n\n@pytest.fixture\ndef viz():\n    return 1\n",
            PLAIN: "def test_plain(viz):\n    assert viz\n",
        },
        (CONFTEST, "    return 1\n", "    import vizpkg00\n\n    return vizpkg00\n"),
    ),
    "a helper's function gains a nested function that imports a tier's package": (
        {HELPER: "def value():\n    return 1\n", PLAIN: USES_HELPER},
        (HELPER, "    return 1\n", "    def inner():\n        import vizpkg00\n\n    inner()\n    return 1\n"),
    ),
    "a helper's function gains a lambda that imports a tier's package": (
        {HELPER: "def value():\n    return 1\n", PLAIN: USES_HELPER},
        (HELPER, "    return 1\n", "    get = lambda: __import__('vizpkg00')\n    get()\n    return 1\n"),
    ),
    "a test class gains a method marked with a tier at its end": (
        {PLAIN: "import pytest\n\n\nclass TestPlain:\n    def test_a(self):\n        assert True\n"},
        (
            PLAIN,
            "        assert True\n",
            "        assert True\n\n    @pytest.mark.tier('viz')\n    def test_b(self):\n        assert True\n",
        ),
    ),
    "an async test gains a tier's import on its last line": (
        {PLAIN: "async def test_plain():\n    assert True\n"},
        (PLAIN, "    assert True\n", "    assert True\n    import vizpkg00\n"),
    ),
    "the last test gains a decorator and a line": (
        {PLAIN: "import pytest\n\n\ndef test_plain():\n    assert True\n"},
        (
            PLAIN,
            "def test_plain():\n    assert True\n",
            "@pytest.mark.tier('viz')\ndef test_plain():\n    x = 1\n    assert x\n",
        ),
    ),
    "the last test gains an importorskip after its assertion": (
        {PLAIN: "import pytest\n\n\ndef test_plain():\n    assert True\n"},
        (PLAIN, "    assert True\n", "    assert True\n    pytest.importorskip('vizpkg00')\n"),
    ),
    "the last test gains a skip on an availability flag": (
        {
            PLAIN: (
                "import pytest\n\ntry:\n    import vizpkg01\n\n    has_viz = True\nexcept ImportError:\n"
                "    has_viz = False\n\n\ndef test_plain():\n    assert True\n"
            )
        },
        (PLAIN, "    assert True\n", "    assert True\n    if not has_viz:\n        pytest.skip('no viz')\n"),
    ),
    "a helper's function gains a try-import flag at its end": (
        {HELPER: "def value():\n    return 1\n", PLAIN: USES_HELPER},
        (
            HELPER,
            "    return 1\n",
            "    try:\n        import vizpkg00\n    except ImportError:\n        pass\n    return 1\n",
        ),
    ),
}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return World(tmp_path_factory.mktemp("ends"))


@pytest.fixture
def kept(world: World) -> Iterator[World]:
    """The world with an empty cache folder; every file put back after."""
    with put_back(world, (PLAIN,), (CONFTEST, HELPER)):
        yield world


@pytest.mark.parametrize("command", ["check", "admit"])
@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_an_edit_that_moves_a_functions_end_and_changes_what_the_census_reads_gives_the_full_answer(
    kept: World, command: str, case: str
) -> None:
    files, (rel, old, new) = CASES[case]
    for name, text in files.items():
        (kept.project / name).write_text(text)
    backdate(kept.project, kept.venv)
    argv = kept.argv(command)
    before, _ = twice(kept, argv)
    was = (kept.project / rel).read_text()
    assert old in was, (rel, old)
    (kept.project / rel).write_text(was.replace(old, new, 1))  # written now: as an editor saves it
    after, _ = kept.run(argv)
    full = kept.full(argv)
    assert (after.returncode, after.stdout, after.stderr) == (full.returncode, full.stdout, full.stderr)
    before_full = (before.returncode, before.stdout)
    if (full.returncode, full.stdout) != before_full:  # the edit changed the answer: it must show at once
        assert (after.returncode, after.stdout) != before_full
