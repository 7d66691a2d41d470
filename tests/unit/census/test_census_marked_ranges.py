"""A test marked ``tier(...)`` covers every line from its first decorator to its last line, both included."""

from __future__ import annotations

from pathlib import Path

from tests.support.censusfiles import write
from tierlock.census import CensusTier, census

ARROW = CensusTier("arrow", ("pyarrow",), ("tests/arrow/**",))


def test_a_fixture_requested_by_the_first_decorator_of_a_marked_test_is_covered_by_its_marker(tmp_path: Path) -> None:
    write(tmp_path, "tests/conftest.py", "import pytest\n\n@pytest.fixture\ndef table():\n    import pyarrow\n")
    write(
        tmp_path,
        "tests/test_io.py",
        """\
        import pytest


        @pytest.mark.usefixtures("table")
        @pytest.mark.tier("arrow")
        def test_marked():
            pass


        @pytest.mark.usefixtures("table")
        def test_unmarked():
            pass
        """,
    )
    report = census(tmp_path, [ARROW]).tier("arrow")
    assert [(u.file, u.line, u.how) for u in report.inside] == [
        ("tests/test_io.py", 4, "fixture table (tests/conftest.py:5 needs pyarrow)"),
        ("tests/test_io.py", 5, "tier('arrow') marker"),
    ]
    assert [(u.file, u.line, u.test) for u in report.outside] == [("tests/test_io.py", 10, "test_unmarked")]
