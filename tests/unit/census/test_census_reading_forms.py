"""Forms the census reads in a test file: literal fixture look-ups, skip conditions on ``find_spec``, what a
``try`` that catches no import error means, class helpers, and how many tests a remedy names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.censusfiles import write
from tierlock.census import CensusTier, census
from tierlock.cli import main

ARROW = CensusTier("arrow", ("pyarrow",), ("tests/arrow/**",))


def needing(root: Path) -> list[tuple[str | None, str]]:
    return sorted((u.test, u.how) for u in census(root, [ARROW]).tier("arrow").outside)


def test_a_fixture_looked_up_by_a_literal_name_is_requested_and_another_call_naming_it_is_not(tmp_path: Path) -> None:
    write(tmp_path, "tests/conftest.py", "import pytest\n\n@pytest.fixture\ndef table():\n    import pyarrow\n")
    write(
        tmp_path,
        "tests/test_lookup.py",
        """\
        def test_literal(request):
            request.getfixturevalue("table")


        def test_computed(request):
            name = "tab" + "le"
            request.getfixturevalue(name)


        def test_printing():
            print("table")
        """,
    )
    assert needing(tmp_path) == [("test_literal", "fixture table (tests/conftest.py:5 needs pyarrow)")]


def test_a_find_spec_of_a_submodule_in_a_skip_condition_needs_its_top_level_name(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/test_spec.py",
        """\
        import importlib.util

        import pytest


        @pytest.mark.skipif(importlib.util.find_spec("pyarrow.parquet") is None, reason="no parquet")
        def test_parquet():
            pass
        """,
    )
    assert needing(tmp_path) == [("test_parquet", "skipped without pyarrow (find_spec('pyarrow'))")]


def test_a_try_that_catches_no_import_error_sets_no_flag(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/test_value.py",
        """\
        import pytest

        try:
            import json
        except ValueError:
            HAS = False


        @pytest.mark.skipif(not HAS, reason="never")
        def test_flagged():
            pass


        def test_helper_try():
            try:
                import pyarrow
            except ValueError:
                pyarrow = None
        """,
    )
    assert needing(tmp_path) == [("test_helper_try", "import pyarrow")]


def test_a_class_helper_called_through_self_is_a_need_of_the_test_calling_it(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/test_class_helper.py",
        """\
        class TestFrames:
            def _table(self):
                import pyarrow
                return pyarrow

            def test_uses(self):
                self._table()

            def test_plain(self):
                pass


        def _table():
            return None


        def test_module_level():
            _table()
        """,
    )
    assert needing(tmp_path) == [("TestFrames.test_uses", "TestFrames._table(): import pyarrow")]


def test_a_remedy_names_five_tests_and_counts_the_others(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "p"\nversion = "0"\n[project.optional-dependencies]\narrow = ["pyarrow"]\n'
        '[tool.tierlock.tiers.arrow]\ntests = ["tests/arrow/**"]\n',
        encoding="utf-8",
    )
    write(tmp_path, "tests/arrow/test_a.py")
    body = "".join(f"def test_{i}():\n    import pyarrow\n\n\n" for i in range(7)) + "def test_plain():\n    pass\n"
    write(tmp_path, "tests/test_many.py", body)
    assert main(["--project", str(tmp_path), "--json", "census"]) == 1
    doc = json.loads(capsys.readouterr().out)
    finding = doc["findings"][0]
    assert finding["remedy"].startswith(
        "mark the 7 tests @pytest.mark.tier('arrow'): test_0 (line 1), test_1 (line 5), test_2 (line 9), "
        "test_3 (line 13), test_4 (line 17), and 2 more; "
    )
    assert finding["remedy"].endswith("which also gates its 1 other test(s)")
    assert [m["line"] for m in finding["fix"]["mark"]] == [1, 5, 9, 13, 17, 21, 25]
    arrow = next(t for t in doc["tiers"] if t["tier"] == "arrow")
    assert arrow["importers_outside"][0] == {
        "file": "tests/test_many.py",
        "line": 2,
        "how": "import pyarrow",
        "module_level": False,
        "scope": "test",
        "root": "pyarrow",
        "test": "test_0",
    }
    assert arrow["markers"] == 0


def test_tier_markers_are_counted_once_each(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/test_marked.py",
        """\
        import pytest

        pytestmark = pytest.mark.tier("arrow")


        @pytest.mark.tier("arrow")
        class TestA:
            def test_one(self):
                pass

            def test_two(self):
                pass
        """,
    )
    assert census(tmp_path, [ARROW]).tier("arrow").markers == 2


def test_with_many_roots_a_file_is_read_for_a_whole_name_or_a_marker_and_not_for_a_longer_name(
    tmp_path: Path,
) -> None:
    tiers = [ARROW, *(CensusTier(f"t{i}", (f"root{i}",), ()) for i in range(40))]  # 41 roots: names are matched whole
    write(tmp_path, "tests/test_longer.py", "import pyarrowish\n")
    write(tmp_path, "tests/test_marked.py", "import pytest\n\n\n@pytest.mark.tier('arrow')\ndef test_m():\n    pass\n")
    write(tmp_path, "tests/test_whole.py", "import pyarrow\n")
    result = census(tmp_path, tiers)
    assert result.files_parsed == 2
    assert [(u.file, u.how) for u in result.tier("arrow").inside] == [("tests/test_marked.py", "tier('arrow') marker")]
    assert [u.file for u in result.tier("arrow").outside] == ["tests/test_whole.py"]


def test_a_root_a_condition_picks_by_name_is_left_to_run_time_and_listed(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/test_backends.py",
        """\
        import pytest


        def _namespace(name):
            if "pyarrow" in name:
                pytest.importorskip("pyarrow")
            elif name == "other":
                import pyarrow
            return None


        def test_each_backend(constructor):
            _namespace(str(constructor))


        def test_early_return(constructor):
            if "pyarrow" not in str(constructor):
                return
            pytest.importorskip("pyarrow.compute")


        def test_always():
            if True:
                pytest.importorskip("pyarrow")
        """,
    )
    report = census(tmp_path, [ARROW]).tier("arrow")
    assert [(u.test, u.how) for u in report.outside] == [
        ("test_each_backend", "_namespace(): import pyarrow"),  # `name == "other"` names no root: a need
        ("test_always", "importorskip('pyarrow')"),
    ]
    assert [(u.test, u.line) for u in report.run_time] == [("_namespace", 6), ("test_early_return", 19)]
    assert report.run_time[0].how == "importorskip('pyarrow') (picked by name at run time)"
    other = census(tmp_path, [ARROW, CensusTier("frames", ("pandas",), ())]).tier("frames")
    assert other.run_time == []  # another tier's roots left to run time are not this tier's


def test_a_flag_is_only_a_name_the_try_binds_and_an_attribute_set_in_the_handler_is_none(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/test_flags.py",
        """\
        import types

        import pytest

        state = types.SimpleNamespace()

        try:
            import pyarrow
        except ImportError:
            unrelated = None
            state.arrow = None


        @pytest.mark.skipif(not unrelated, reason="not a flag of pyarrow")
        def test_unrelated():
            pass
        """,
    )
    assert needing(tmp_path) == []


def test_a_name_imported_from_the_tests_package_and_an_import_after_a_guarded_one_are_followed(
    tmp_path: Path,
) -> None:
    write(tmp_path, "proj/__init__.py", "")
    write(tmp_path, "proj/arrowio.py", "import pyarrow\n")
    write(tmp_path, "proj/lazy.py", "try:\n    import pyarrow\nexcept ImportError:\n    pyarrow = None\n")
    write(
        tmp_path,
        "tests/__init__.py",
        "import pytest\nfrom proj.lazy import pyarrow\n\n"
        "needs_arrow = pytest.mark.skipif(pyarrow is None, reason='x')\n",
    )
    write(
        tmp_path,
        "tests/test_package_alias.py",
        "from . import needs_arrow\n\n\n@needs_arrow\ndef test_a():\n    pass\n",
    )
    write(
        tmp_path,
        "tests/test_after_guarded.py",
        """\
        def test_b():
            try:
                import proj.lazy
            except ImportError:
                pass
            import proj.arrowio
        """,
    )
    result = census(tmp_path, [ARROW]).tier("arrow")
    assert sorted((u.file, u.test) for u in result.outside) == [
        ("tests/test_after_guarded.py", "test_b"),
        ("tests/test_package_alias.py", "test_a"),
    ]


def test_a_modules_own_fixture_without_autouse_overrides_a_conftest_autouse_one(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/conftest.py",
        "import pytest\n\n@pytest.fixture(autouse=True)\ndef arm():\n    import pyarrow\n",
    )
    write(
        tmp_path,
        "tests/test_own.py",
        "import pytest\n\n\n@pytest.fixture\ndef arm():\n    return None\n\n\ndef test_c():\n    pass\n",
    )
    write(tmp_path, "tests/test_other.py", "def test_d():\n    pass\n")
    assert [u.file for u in census(tmp_path, [ARROW]).tier("arrow").outside] == ["tests/test_other.py"]


def test_the_fix_keeps_the_line_endings_of_a_test_module() -> None:
    from tierlock.census.fixing import add_marks

    text = "import pytest\r\n\r\n\r\ndef test_a():\r\n    pass\r\n"
    assert add_marks(text, [(4, "arrow")]) == (
        "import pytest\r\n\r\n\r\n@pytest.mark.tier('arrow')\r\ndef test_a():\r\n    pass\r\n"
    )
    source = '"""Doc."""\nfrom __future__ import annotations\n\ndef test_b():\n    pass\n'
    assert add_marks(source, [(4, "x")]) == (
        '"""Doc."""\nfrom __future__ import annotations\nimport pytest\n\n'
        "@pytest.mark.tier('x')\ndef test_b():\n    pass\n"
    )


def test_a_flag_alone_in_a_module_and_an_alias_of_a_helper_submodule_reach_the_tests_naming_them(
    tmp_path: Path,
) -> None:
    write(tmp_path, "proj/__init__.py", "")
    write(
        tmp_path, "proj/compat.py", "import importlib.util\n\nHAS_ARROW = bool(importlib.util.find_spec('pyarrow'))\n"
    )
    write(tmp_path, "tests/__init__.py", "")
    write(
        tmp_path,
        "tests/helpers.py",
        "import pytest\nfrom proj.compat import HAS_ARROW\n\n"
        "needs_arrow = pytest.mark.skipif(not HAS_ARROW, reason='x')\n",
    )
    write(
        tmp_path,
        "tests/test_flag_only.py",
        "import pytest\nfrom proj.compat import HAS_ARROW\n\n\n@pytest.mark.skipif(not HAS_ARROW, reason='x')\n"
        "def test_flag():\n    pass\n",
    )
    write(
        tmp_path,
        "tests/test_submodule_alias.py",
        "from tests import helpers\n\n\n@helpers.needs_arrow\ndef test_alias():\n    pass\n",
    )
    result = census(tmp_path, [ARROW]).tier("arrow")
    assert sorted((u.file, u.test) for u in result.outside) == [
        ("tests/test_flag_only.py", "test_flag"),
        ("tests/test_submodule_alias.py", "test_alias"),
    ]


def test_a_class_pytestmark_marks_its_methods_and_a_helper_called_at_module_level_is_every_tests(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        "tests/test_class_mark.py",
        """\
        import pytest


        class TestArrow:
            other = 1
            pytestmark = pytest.mark.tier("arrow")

            def test_one(self):
                import pyarrow
        """,
    )
    write(
        tmp_path,
        "tests/test_module_helper.py",
        """\
        def make():
            import pyarrow
            return pyarrow


        CASES = [make]


        def test_uses_cases():
            assert CASES
        """,
    )
    result = census(tmp_path, [ARROW]).tier("arrow")
    assert [(u.file, u.how) for u in result.inside] == [
        ("tests/test_class_mark.py", "tier('arrow') marker"),
        ("tests/test_class_mark.py", "import pyarrow"),
    ]
    assert [(u.file, u.scope, u.how) for u in result.outside] == [
        ("tests/test_module_helper.py", "file", "make(): import pyarrow")
    ]


def test_a_remedy_for_fewer_tests_names_them_all_without_a_count(tmp_path: Path) -> None:
    body = "def test_a():\n    import pyarrow\n\n\ndef test_b():\n    import pyarrow\n\n\ndef test_c():\n    pass\n"
    write(tmp_path, "tests/test_few.py", body)
    (finding,) = [f for f in census(tmp_path, [ARROW]).findings() if f.kind == "census-importer"]
    assert finding.remedy == (
        "mark the 2 tests @pytest.mark.tier('arrow'): test_a (line 1), test_b (line 5); "
        'or add "tests/test_few.py" to [tool.tierlock.tiers.arrow].tests, which also gates its 1 other test(s)'
    )


def test_a_mark_assigned_in_a_class_body_is_no_alias_of_the_module(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/test_class_alias.py",
        """\
        import pytest

        try:
            import pyarrow
            HAS = True
        except ImportError:
            HAS = False


        class Marks:
            needs = pytest.mark.skipif(not HAS, reason="x")


        needs = pytest.mark.slow


        @needs
        def test_slow():
            pass
        """,
    )
    assert needing(tmp_path) == []
