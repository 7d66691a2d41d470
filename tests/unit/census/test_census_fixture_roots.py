"""A conftest fixture that needs several import roots needs each of them (its users need every such tier).

Before, only the first root a fixture imported, or the first root-needing fixture it requested, was kept:
a test using ``both(table, frame)`` was an importer of the ``arrow`` tier and not of the ``polars`` one.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.censusfiles import uses, write
from tierlock.census import CensusTier, census

ARROW = CensusTier("arrow", ("pyarrow",), ("gated/arrow/**",))
POLARS = CensusTier("polars", ("polars",), ("gated/polars/**",))


def test_a_fixture_requesting_two_root_needing_fixtures_needs_both_roots(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/conftest.py",
        """\
        import pytest


        @pytest.fixture
        def table():
            import pyarrow
            return pyarrow


        @pytest.fixture
        def frame():
            import polars
            return polars


        @pytest.fixture
        def both(table, frame):
            return table, frame


        @pytest.fixture
        def direct():
            import os
            import pyarrow
            import polars
            return os, pyarrow, polars
        """,
    )
    write(tmp_path, "tests/test_both.py", "def test_b(both):\n    pass\n")
    write(tmp_path, "tests/test_direct.py", "def test_d(direct):\n    pass\n")
    result = census(tmp_path, [ARROW, POLARS])
    assert uses(result, "arrow") == [
        ("tests/test_both.py", 1, "fixture both (tests/conftest.py:17 needs pyarrow)", False),
        ("tests/test_direct.py", 1, "fixture direct (tests/conftest.py:24 needs pyarrow)", False),
    ]
    assert uses(result, "polars") == [
        ("tests/test_both.py", 1, "fixture both (tests/conftest.py:17 needs polars)", False),
        ("tests/test_direct.py", 1, "fixture direct (tests/conftest.py:25 needs polars)", False),
    ]
    assert uses(result, "arrow", "fixtures") == [
        ("tests/conftest.py", 6, "fixture table needs pyarrow", False),
        ("tests/conftest.py", 17, "fixture both needs pyarrow", False),
        ("tests/conftest.py", 24, "fixture direct needs pyarrow", False),
    ]
    assert uses(result, "polars", "fixtures") == [
        ("tests/conftest.py", 12, "fixture frame needs polars", False),
        ("tests/conftest.py", 17, "fixture both needs polars", False),
        ("tests/conftest.py", 25, "fixture direct needs polars", False),
    ]
