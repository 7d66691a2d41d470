"""No false findings: what never runs, or runs without the tier, is no need.

Each case is one that made ``tierlock check`` cry wolf on a real project: an
import under ``if TYPE_CHECKING:``, imports inside conftest helpers no test
reaches (narwhals' constructors), a module whose own fixture shadows the
conftest's one that needs the tier (fsspec's ``test_dirfs.py`` and its ``fs``),
a plain helper whose argument is named like a fixture (``def _inner_pass(fs,
q, fn)``), and an import the test guards itself.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.censusfiles import write
from tierlock.census import CensusTier, census

ARROW = CensusTier("arrow", ("pyarrow",), ("tests/arrow/**",))


def outside(root: Path) -> list[tuple[str, int, str]]:
    return [(u.file, u.line, u.how) for u in census(root, [ARROW]).tier("arrow").outside]


def test_an_import_under_type_checking_is_no_need_at_module_level_nor_in_a_function(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/test_typed.py",
        """\
        import typing
        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            import pyarrow
        else:
            import os

        if typing.TYPE_CHECKING:
            from pyarrow import Table


        def test_typed() -> None:
            if TYPE_CHECKING:
                import pyarrow.compute
        """,
    )
    assert outside(tmp_path) == []


def test_a_conftest_helper_no_fixture_reaches_is_no_need_and_one_a_fixture_calls_is_its_users(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/conftest.py",
        """\
        import pytest


        def pyarrow_constructor(data):
            import pyarrow
            return pyarrow.table(data)


        def table_of(data):
            import pyarrow
            return pyarrow.table(data)


        CONSTRUCTORS = {"pyarrow": pyarrow_constructor}


        @pytest.fixture
        def table():
            return table_of({})


        def pytest_generate_tests(metafunc):
            if "constructor" in metafunc.fixturenames:
                metafunc.parametrize("constructor", list(CONSTRUCTORS.values()))
        """,
    )
    write(tmp_path, "tests/test_constructor.py", "def test_c(constructor):\n    constructor({})\n")
    write(tmp_path, "tests/test_table.py", "def test_t(table):\n    pass\n")
    # The constructor is looked up by name at run time: out of static reach, left to the plugin's backstop.
    assert outside(tmp_path) == [
        ("tests/test_table.py", 1, "fixture table (tests/conftest.py:10 needs pyarrow)"),
    ]


def test_a_modules_own_fixture_shadows_the_conftest_fixture_that_needs_the_tier(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/conftest.py",
        "import pytest\n\n@pytest.fixture\ndef fs():\n    return pytest.importorskip('pyarrow.fs')\n",
    )
    write(
        tmp_path,
        "tests/test_dirfs.py",
        """\
        import pytest


        @pytest.fixture
        def fs(tmp_path):
            return tmp_path


        def test_dirfs(fs):
            pass


        class TestOther:
            def test_method(self, fs):
                pass
        """,
    )
    write(
        tmp_path,
        "tests/test_class_shadow.py",
        """\
        import pytest


        class TestLocal:
            @pytest.fixture
            def fs(self):
                return None

            def test_shadowed(self, fs):
                pass


        def test_not_shadowed(fs):
            pass
        """,
    )
    write(
        tmp_path,
        "tests/test_wraps.py",
        """\
        import pytest


        @pytest.fixture
        def fs(fs):
            return fs


        def test_wrapped(fs):
            pass
        """,
    )
    assert outside(tmp_path) == [
        ("tests/test_class_shadow.py", 13, "fixture fs (tests/conftest.py:5 needs pyarrow)"),
        # A fixture requesting its own name gets the conftest's: it still needs the tier.
        ("tests/test_wraps.py", 9, "fixture fs (tests/test_wraps.py:5 needs pyarrow)"),
    ]


def test_a_plain_helper_whose_argument_is_named_like_a_fixture_requests_nothing(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/conftest.py",
        "import pytest\n\n@pytest.fixture\ndef fs():\n    import pyarrow\n    return pyarrow\n",
    )
    write(
        tmp_path,
        "tests/test_http.py",
        """\
        import multiprocessing


        def _inner_pass(fs, q, fn):
            q.put(fs)


        class Helper:
            def run(self, fs):
                return fs


        def test_processes(tmp_path):
            def inner(fs):
                return fs

            multiprocessing.Process(target=_inner_pass, args=(None, None, None))
        """,
    )
    assert outside(tmp_path) == []


def test_an_import_the_test_guards_itself_is_no_need(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/test_guarded.py",
        """\
        try:
            import pyarrow
        except ImportError:
            pyarrow = None


        def test_either_way():
            try:
                import pyarrow.compute
            except ModuleNotFoundError:
                return


        def test_flagged():
            if pyarrow is not None:
                from pyarrow import fs
        """,
    )
    assert outside(tmp_path) == []


def test_a_helper_of_a_test_file_is_a_need_of_the_tests_that_call_it_and_of_no_other(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/test_helpers.py",
        """\
        import pytest


        def make_table():
            import pyarrow
            return pyarrow.table({})


        def unused():
            import pyarrow


        class Frames:
            def build(self):
                return make_table()


        def test_calls():
            make_table()


        def test_through_a_class():
            Frames().build()


        def test_plain():
            pass
        """,
    )
    result = census(tmp_path, [ARROW]).tier("arrow")
    assert sorted({(u.test, u.line) for u in result.outside}) == [("test_calls", 5), ("test_through_a_class", 5)]
    assert {u.how for u in result.outside} == {
        "make_table(): import pyarrow",
        "Frames.build(): make_table(): import pyarrow",
    }
