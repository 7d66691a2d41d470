"""Conftest fixtures in the census: which conftest a test file sees, chains of fixtures, autouse, several roots.

Each test writes a real tree of conftests and test files and runs :func:`tierlock.census.census`; the
uses are compared in full (file, line, how, module level).
"""

from __future__ import annotations

from pathlib import Path

from tests.support.censusfiles import uses, write
from tierlock.census import CensusTier, census

ARROW = CensusTier("arrow", ("pyarrow",), ("gated/arrow/**",))
POLARS = CensusTier("polars", ("polars",), ("gated/polars/**",))


def fixture(name: str, root: str, head: str = "import pytest\n") -> str:
    """A conftest whose fixture *name* imports *root* on line 5."""
    return f"{head}\n@pytest.fixture\ndef {name}():\n    import {root}\n    return {root}\n"


def test_the_nearest_conftest_defining_a_fixture_wins_and_a_sibling_folders_conftest_is_not_seen(
    tmp_path: Path,
) -> None:
    write(tmp_path, "conftest.py", fixture("everywhere", "pyarrow"))
    write(tmp_path, "tests/conftest.py", fixture("table", "pyarrow"))
    # tests/aa/ sorts before tests/conftest.py, tests/zz/ after it: the nearest wins in both orders.
    write(tmp_path, "tests/aa/conftest.py", fixture("table", "polars"))
    write(tmp_path, "tests/zz/conftest.py", fixture("table", "polars"))
    write(tmp_path, "tests/io/conftest.py", fixture("frame", "pyarrow"))
    write(tmp_path, "tests/aa/test_a.py", "def test_a(table):\n    pass\n")
    write(tmp_path, "tests/zz/test_z.py", "def test_z(table):\n    pass\n")
    # frame is tests/io's: tests/other and tests/iox do not see it (the second is no sub-folder of tests/io).
    write(tmp_path, "tests/other/test_o.py", "def test_o(frame, table):\n    pass\n")
    write(tmp_path, "tests/iox/test_x.py", "def test_x(frame):\n    pass\n")
    write(tmp_path, "tests/io/test_io.py", "def test_io(frame, everywhere):\n    pass\n")
    result = census(tmp_path, [ARROW, POLARS])
    # A conftest's fixture is no use of the conftest: its users are (a glob on the conftest would gate nothing).
    assert uses(result, "arrow") == [
        ("tests/io/test_io.py", 1, "fixture everywhere (conftest.py:5 needs pyarrow)", False),
        ("tests/io/test_io.py", 1, "fixture frame (tests/io/conftest.py:5 needs pyarrow)", False),
        ("tests/other/test_o.py", 1, "fixture table (tests/conftest.py:5 needs pyarrow)", False),
    ]
    assert uses(result, "polars") == [
        ("tests/aa/test_a.py", 1, "fixture table (tests/aa/conftest.py:5 needs polars)", False),
        ("tests/zz/test_z.py", 1, "fixture table (tests/zz/conftest.py:5 needs polars)", False),
    ]


def test_a_chain_of_fixtures_defined_outermost_first_needs_the_root_across_conftests(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/conftest.py",
        """\
        import pytest


        @pytest.fixture
        def outer(middle):
            return middle


        @pytest.fixture
        def middle(inner):
            return inner


        @pytest.fixture
        def inner():
            import pyarrow
            return pyarrow
        """,
    )
    write(
        tmp_path,
        "tests/deep/conftest.py",
        "import pytest\n\n@pytest.fixture\ndef deeper(tmp_path, outer):\n    return outer\n",
    )
    write(tmp_path, "tests/deep/test_deep.py", "def test_d(deeper):\n    pass\n")
    write(tmp_path, "tests/test_outer.py", "def test_o(outer):\n    pass\n")
    write(tmp_path, "tests/test_deeper.py", "def test_x(deeper):\n    pass\n")
    result = census(tmp_path, [ARROW])
    assert uses(result, "arrow") == [
        ("tests/deep/test_deep.py", 1, "fixture deeper (tests/deep/conftest.py:4 needs pyarrow)", False),
        ("tests/test_outer.py", 1, "fixture outer (tests/conftest.py:5 needs pyarrow)", False),
    ]
    assert uses(result, "arrow", "fixtures") == [
        ("tests/conftest.py", 5, "fixture outer needs pyarrow", False),
        ("tests/conftest.py", 10, "fixture middle needs pyarrow", False),
        ("tests/conftest.py", 16, "fixture inner needs pyarrow", False),
        ("tests/deep/conftest.py", 4, "fixture deeper needs pyarrow", False),
    ]


def test_an_autouse_fixture_makes_each_file_below_its_conftest_an_importer_once_at_line_one(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/io/conftest.py",
        """\
        import pytest


        @pytest.fixture(autouse=True)
        def arm(table):
            return table


        @pytest.fixture(autouse=True)
        def harmless():
            import os
            return os
        """,
    )
    write(tmp_path, "tests/conftest.py", fixture("table", "pyarrow"))
    write(tmp_path, "tests/io/test_plain.py", "def test_a():\n    pass\n")
    write(tmp_path, "tests/io/test_asks.py", "def test_b(arm, table):\n    pass\n")
    write(tmp_path, "tests/io/sub/test_deep.py", "def test_c():\n    pass\n")
    write(tmp_path, "tests/test_outside.py", "def test_d():\n    pass\n")
    result = census(tmp_path, [ARROW])
    how = "autouse fixture arm (tests/io/conftest.py:5 needs pyarrow)"
    # Every test of a file below the conftest needs it: a glob or a module's pytestmark gates it (not only a glob).
    assert uses(result, "arrow") == [
        ("tests/io/sub/test_deep.py", 1, how, False),
        ("tests/io/test_asks.py", 1, how, False),
        ("tests/io/test_asks.py", 1, "fixture table (tests/conftest.py:5 needs pyarrow)", False),
        ("tests/io/test_plain.py", 1, how, False),
    ]
    assert {u.scope for u in result.tier("arrow").outside if u.how == how} == {"file"}
    # Only the two files naming a word of the census were parsed; the autouse ones were not.
    assert (result.files_read, result.files_parsed) == (6, 3)
    remedies = {f.file: f.remedy for f in result.findings() if f.file == "tests/io/test_plain.py"}
    assert remedies == {
        "tests/io/test_plain.py": 'add "tests/io/test_plain.py" to [tool.tierlock.tiers.arrow].tests, '
        "or mark its tests: pytestmark = pytest.mark.tier('arrow')"
    }


def test_a_conftest_importing_a_root_at_module_level_is_an_importer_itself(tmp_path: Path) -> None:
    write(tmp_path, "tests/conftest.py", "import pyarrow\nimport pytest\n\n@pytest.fixture\ndef table():\n    pass\n")
    write(tmp_path, "tests/test_t.py", "def test_t(table):\n    pass\n")
    result = census(tmp_path, [ARROW])
    assert uses(result, "arrow") == [("tests/conftest.py", 1, "import pyarrow", True)]
    assert uses(result, "arrow", "fixtures") == []
