"""What the census reads in one test file: each form of import, importorskip, tier marker and fixture use.

Every test writes real files and runs :func:`tierlock.census.census`; the expected uses are listed in full
(file, line, how, module level), so a form read wrong, a wrong line or a use counted twice fails.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.censusfiles import uses, write
from tierlock.census import CensusTier, census

ARROW = CensusTier("arrow", ("pyarrow",), ("tests/arrow/**",))
GPU = CensusTier("gpu", ("cupy",), ("tests/gpu/**",))


def test_every_import_form_of_a_root_is_a_use_with_its_line_and_a_relative_or_tried_import_is_not(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        "tests/test_forms.py",
        """\
        import os, pyarrow
        from pyarrow.dataset import dataset
        from .pyarrow import helper
        from . import pyarrow as local
        import pyarrowish


        def test_inner():
            if True:
                try:
                    import pyarrow.compute as pc
                except ImportError:
                    pass
            with open(__file__):
                from pyarrow import fs
        """,
    )
    result = census(tmp_path, [ARROW])
    # `try: import pyarrow.compute except ImportError` is the test handling the absence itself: no need.
    assert uses(result, "arrow", "outside") == [
        ("tests/test_forms.py", 1, "import pyarrow", True),
        ("tests/test_forms.py", 2, "from pyarrow.dataset import", True),
        ("tests/test_forms.py", 15, "from pyarrow import", False),
    ]


def test_importorskip_is_a_use_with_a_positional_minversion_and_a_non_literal_name_is_none(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/test_skips.py",
        """\
        import pytest

        NAME = "pyarrow"
        pa = pytest.importorskip("pyarrow.parquet", "10.0")
        other = pytest.importorskip(NAME)
        third = pytest.importorskip(3)
        print("pyarrow")


        def test_inner():
            importorskip("pyarrow")
        """,
    )
    result = census(tmp_path, [ARROW])
    assert uses(result, "arrow", "outside") == [
        ("tests/test_skips.py", 4, "importorskip('pyarrow.parquet')", True),
        ("tests/test_skips.py", 11, "importorskip('pyarrow')", False),
    ]


def test_a_marked_test_covers_its_whole_body_and_only_its_own_body(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/test_marks.py",
        """\
        import pytest


        @pytest.mark.slow
        @pytest.mark.tier("arrow")
        def test_marked():
            import pyarrow
            assert pyarrow


        def test_unmarked():
            import pyarrow


        @pytest.mark.tier(name="arrow")
        def test_by_keyword(table):
            from pyarrow import fs
            return fs


        @pytest.mark.tier("gpu")
        def test_other_tier():
            import pyarrow
            assert pyarrow
        """,
    )
    write(tmp_path, "tests/conftest.py", "import pytest\n\n@pytest.fixture\ndef table():\n    import pyarrow\n")
    result = census(tmp_path, [ARROW, GPU])
    assert uses(result, "arrow", "inside") == [
        ("tests/test_marks.py", 5, "tier('arrow') marker", False),
        ("tests/test_marks.py", 7, "import pyarrow", False),
        ("tests/test_marks.py", 15, "tier('arrow') marker", False),
        ("tests/test_marks.py", 16, "fixture table (tests/conftest.py:5 needs pyarrow)", False),
        ("tests/test_marks.py", 17, "from pyarrow import", False),
    ]
    assert uses(result, "arrow", "outside") == [
        ("tests/test_marks.py", 12, "import pyarrow", False),
        ("tests/test_marks.py", 23, "import pyarrow", False),
    ]
    assert uses(result, "gpu", "inside") == [("tests/test_marks.py", 21, "tier('gpu') marker", False)]


def test_a_marked_class_covers_its_methods(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/test_class.py",
        """\
        import pytest


        @pytest.mark.tier("arrow")
        class TestArrow:
            def test_one(self):
                import pyarrow
                assert pyarrow

            def test_two(self):
                pass
        """,
    )
    result = census(tmp_path, [ARROW])
    assert uses(result, "arrow", "inside") == [
        ("tests/test_class.py", 4, "tier('arrow') marker", False),
        ("tests/test_class.py", 7, "import pyarrow", False),
    ]
    assert uses(result, "arrow", "outside") == []


def test_a_tier_marker_names_its_tier_by_its_first_literal_argument_only(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/test_odd_marks.py",
        """\
        import pytest

        LEVEL = 3
        TIER = "arrow"


        @pytest.mark.tier("arrow", 3)
        def test_extra_number():
            import pyarrow
            assert pyarrow


        @pytest.mark.tier("arrow", LEVEL)
        def test_extra_name():
            import pyarrow
            assert pyarrow


        @pytest.mark.tier(TIER)
        def test_not_a_literal():
            import pyarrow
            assert pyarrow


        @pytest.mark.tier()
        def test_no_name():
            import pyarrow
            assert pyarrow


        @pytest.mark.parametrize("arrow", [1])
        def test_parametrized(arrow):
            import pyarrow
            assert pyarrow


        @pytest.mark.tier("Arrow")
        def test_written_otherwise():
            import pyarrow
            assert pyarrow
        """,
    )
    result = census(tmp_path, [ARROW])
    inside = uses(result, "arrow", "inside")
    assert sorted(line for _, line, how, _ in inside if how == "import pyarrow") == [9, 15, 39]
    outside = uses(result, "arrow", "outside")
    assert sorted(line for _, line, _, _ in outside) == [21, 27, 33]


def test_conftest_fixture_forms_name_scope_autouse_and_usefixtures(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/conftest.py",
        """\
        import pytest
        import pytest_asyncio


        @pytest.fixture(scope="session")
        def table():
            import pyarrow
            return pyarrow.table({})


        @pytest.fixture(name="frame", scope="module")
        def _frame_impl():
            import pyarrow
            return pyarrow


        @pytest_asyncio.fixture(autouse=False, params=[1, 2])
        async def stream():
            import pyarrow
            return pyarrow


        @pytest.fixture
        def plain(tmp_path):
            import os
            return os
        """,
    )
    write(tmp_path, "tests/test_table.py", "def test_t(table):\n    pass\n")
    write(tmp_path, "tests/test_frame.py", "async def test_f(*, frame):\n    pass\n")
    write(tmp_path, "tests/test_stream.py", "def test_s(stream, /):\n    pass\n")
    write(tmp_path, "tests/test_impl_name.py", "def test_i(_frame_impl, session):\n    pass\n")
    write(
        tmp_path,
        "tests/test_use.py",
        """\
        import pytest
        FIXTURE = "table"


        @pytest.mark.usefixtures("plain", "table")
        def test_u():
            pass


        @pytest.mark.usefixtures(FIXTURE)
        def test_v():
            pass


        @pytest.mark.skip("frame")
        def test_w():
            pass
        """,
    )
    write(tmp_path, "tests/test_plain.py", "def test_p(plain, tmp_path):\n    pass\n")
    result = census(tmp_path, [ARROW])
    assert uses(result, "arrow", "outside") == [
        ("tests/test_frame.py", 1, "fixture frame (tests/conftest.py:13 needs pyarrow)", False),
        ("tests/test_stream.py", 1, "fixture stream (tests/conftest.py:19 needs pyarrow)", False),
        ("tests/test_table.py", 1, "fixture table (tests/conftest.py:7 needs pyarrow)", False),
        ("tests/test_use.py", 5, "fixture table (tests/conftest.py:7 needs pyarrow)", False),
    ]
    assert [(u.file, u.line, u.how, u.module_level) for u in result.tier("arrow").fixtures] == [
        ("tests/conftest.py", 7, "fixture table needs pyarrow", False),
        ("tests/conftest.py", 13, "fixture frame needs pyarrow", False),
        ("tests/conftest.py", 19, "fixture stream needs pyarrow", False),
    ]


def test_a_file_that_does_not_parse_or_holds_a_null_byte_has_no_use_and_the_rest_is_read(tmp_path: Path) -> None:
    write(tmp_path, "tests/test_broken.py", "import pyarrow\ndef broken(:\n")
    (tmp_path / "tests" / "test_null.py").write_bytes(b"import pyarrow\nx = '\x00'\n")
    write(tmp_path, "tests/test_fine.py", "import pyarrow\n")
    result = census(tmp_path, [ARROW])
    assert uses(result, "arrow", "outside") == [("tests/test_fine.py", 1, "import pyarrow", True)]
    assert (result.files_read, result.files_parsed) == (3, 3)


def test_a_test_file_naming_only_a_plain_name_a_helper_package_imports_is_not_parsed(tmp_path: Path) -> None:
    write(tmp_path, "tests/__init__.py", "")
    write(tmp_path, "tests/helpers/__init__.py", "import pyarrow\nfrom os import getcwd\n")  # needs the root
    write(tmp_path, "tests/test_other.py", "def test_other():\n    assert getcwd\n")
    write(tmp_path, "tests/test_uses.py", "from tests.helpers import getcwd\n\n\ndef test_uses():\n    assert getcwd\n")
    result = census(tmp_path, [CensusTier("arrow", ("pyarrow",), ())])
    assert "tests/test_uses.py" in result.tests  # names the helper package: read, and it reaches pyarrow
    assert "tests/test_other.py" not in result.tests  # names neither it nor a flag, alias or root: not read
    assert result.files_parsed == 1


def test_a_flag_re_exported_under_another_name_is_looked_for_through_a_star_import(tmp_path: Path) -> None:
    write(tmp_path, "tests/__init__.py", "")
    write(
        tmp_path,
        "tests/flags.py",
        "try:\n    import pyarrow\n    has_arrow = True\nexcept ImportError:\n    has_arrow = False\n",
    )
    write(tmp_path, "tests/helpers.py", "from tests.flags import has_arrow as arrow_ok\n")
    write(tmp_path, "tests/more.py", "from tests.helpers import *\n")
    skipped = "@pytest.mark.skipif(not arrow_ok, reason='')\ndef test_x():\n    pass\n"
    write(tmp_path, "tests/test_x.py", "import pytest\nfrom tests.more import *\n\n\n" + skipped)
    result = census(tmp_path, [CensusTier("arrow", ("pyarrow",), ())])
    assert "tests/test_x.py" in result.tests  # it names the re-exported flag: read
    assert [(u.file, u.test) for u in result.tier("arrow").outside] == [("tests/test_x.py", "test_x")]


def test_a_skip_condition_comparing_two_names_with_is_skips_on_nothing_and_is_read_without_error() -> None:
    from tierlock.census.filefacts import read_file

    facts = read_file('import pytest\n\n@pytest.mark.skipif(x is y, reason="r")\ndef test_a():\n    pass\n')
    assert facts.functions["test_a"].skips == []


def test_pytests_own_marks_in_a_params_marks_are_no_mark_aliases() -> None:
    from tierlock.census.filefacts import read_file

    source = "import pytest\n\n@pytest.mark.parametrize('a', [pytest.param(1, marks=[pytest.mark.xfail, needs_x])])\n"
    source += "def test_a(a):\n    pass\n"
    assert read_file(source).functions["test_a"].marks == [("needs_x", 3)]


def test_a_file_too_deep_to_parse_is_read_as_one_that_does_not_parse_and_the_others_still_are(
    tmp_path: Path,
) -> None:
    # (thousands of chained operators: ast raises RecursionError, as pytest's own import of the file does)
    chain = "x = " + " + ".join(['"a"'] * 5000)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_generated.py").write_text(f"import pyarrow\n{chain}\n", encoding="utf-8")
    write(tmp_path, "tests/test_plain.py", "import pyarrow\n\n\ndef test_a():\n    pass\n")
    result = census(tmp_path, [ARROW])
    assert uses(result, "arrow", "outside") == [("tests/test_plain.py", 1, "import pyarrow", True)]
