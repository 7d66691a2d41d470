"""Availability flags written as functions (Flask's ``dotenv_not_available()``): the census reads their polarity.

A module-level function whose ``try`` imports a root and whose ``except ImportError`` returns a constant is a
flag: ``skipif(x_not_available(), ...)`` (it returns true without the root) and ``skipif(not has_x(), ...)``
(false without it) skip the test when the root is absent, so the test needs the root; the opposite conditions
(``skipif(has_x())``: runs only without it) need nothing. The function may live in a helper module.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.censusfiles import write
from tierlock.census import CensusTier, census

ARROW = CensusTier("arrow", ("pyarrow",), ("tests/arrow/**",))

FLAGS = """\
def arrow_not_available():
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return True

    return False


def has_arrow():
    try:
        import pyarrow.parquet  # noqa: F401
    except ModuleNotFoundError:
        return False
    return True
"""


def needing(root: Path) -> list[str]:
    return sorted(str(u.test) for u in census(root, [ARROW]).tier("arrow").outside)


def test_a_flag_function_in_a_mark_alias_and_in_skip_conditions_needs_its_root_by_polarity(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/test_cli.py",
        FLAGS
        + """\

import pytest

need_arrow = pytest.mark.skipif(arrow_not_available(), reason="pyarrow is not installed")


@need_arrow
def test_alias():
    pass


@pytest.mark.skipif(not has_arrow(), reason="no arrow")
def test_not_has():
    pass


@pytest.mark.skipif(has_arrow(), reason="runs only without arrow")
def test_without():
    pass


@pytest.mark.skipif(not arrow_not_available(), reason="runs only without arrow")
def test_without_too():
    pass


def test_inline():
    if not has_arrow():
        pytest.skip("no arrow")


def test_plain():
    pass
""",
    )
    assert needing(tmp_path) == ["test_alias", "test_inline", "test_not_has"]


def test_a_flag_function_imported_from_a_helper_module_is_read_there(tmp_path: Path) -> None:
    write(tmp_path, "tests/__init__.py", "")
    write(tmp_path, "tests/helpers.py", FLAGS)
    write(
        tmp_path,
        "tests/test_use.py",
        """\
        import pytest

        from tests.helpers import arrow_not_available, has_arrow


        @pytest.mark.skipif(arrow_not_available(), reason="pyarrow is not installed")
        def test_a():
            pass


        @pytest.mark.skipif(not has_arrow(), reason="no arrow")
        def test_b():
            pass


        @pytest.mark.skipif(has_arrow(), reason="only without")
        def test_c():
            pass
        """,
    )
    assert needing(tmp_path) == ["test_a", "test_b"]


def test_a_function_that_returns_something_else_on_import_error_or_takes_arguments_is_no_flag(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/test_other.py",
        """\
        import pytest


        def which():
            try:
                import pyarrow  # noqa: F401
            except ImportError:
                return "none"
            return "arrow"


        def loaded(name):
            try:
                import pyarrow  # noqa: F401
            except ImportError:
                return False
            return True


        @pytest.mark.skipif(not which(), reason="never")
        def test_which():
            pass


        @pytest.mark.skipif(not loaded("x"), reason="an argument")
        def test_loaded():
            pass
        """,
    )
    assert needing(tmp_path) == []


def test_a_name_flag_compared_the_other_way_or_a_find_spec_with_a_package_is_read_by_its_polarity(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        "tests/test_forms.py",
        """\
        from importlib.util import find_spec

        import pytest

        try:
            import pyarrow
        except ImportError:
            pyarrow = None


        @pytest.mark.skipif(pyarrow is not None, reason="runs only without arrow")
        def test_only_without():
            pass


        @pytest.mark.skipif(pyarrow is None, reason="no arrow")
        def test_with():
            pass


        @pytest.mark.skipif(find_spec("pyarrow", None) is None, reason="no arrow")
        def test_spec_with_package():
            pass
        """,
    )
    assert needing(tmp_path) == ["test_spec_with_package", "test_with"]


def test_a_function_whose_except_returns_a_name_or_an_attribute_is_no_flag_and_is_read_without_error() -> None:
    from tierlock.census.filefacts import read_file

    source = "def has_x():\n    try:\n        import x\n    except ImportError:\n        return MISSING\n"
    source += "    return True\n\n\n"
    source += "def has_y():\n    try:\n        import y\n    except ImportError:\n        return flags.MISSING\n"
    assert read_file(source).flags == {}


IMPORTED_BY_CALLS = """\
import importlib
import importlib.util
from importlib import import_module
from importlib.util import find_spec

try:
    importlib.import_module("pyarrow")
    HAS_BY_MODULE = True
except ImportError:
    HAS_BY_MODULE = False

try:
    __import__("pyarrow.parquet")
except ImportError:
    HAS_BY_DUNDER = False
else:
    HAS_BY_DUNDER = True

try:
    arrow = import_module("pyarrow")
except ModuleNotFoundError:
    arrow = None

try:
    from pyarrow import parquet
except ImportError:
    parquet = None

try:
    import_module(".sibling", "tests")
    HAS_RELATIVE = True
except ImportError:
    HAS_RELATIVE = False


def has_arrow_spec():
    "Whether pyarrow is there."
    return importlib.util.find_spec("pyarrow") is not None


def arrow_spec_missing():
    return find_spec("pyarrow") is None


def has_arrow_bool():
    return bool(find_spec("pyarrow"))


def two_steps():
    spec = find_spec("pyarrow")
    return spec is not None


def compared_to_something():
    return find_spec("pyarrow") is 1
"""


def test_flags_set_by_an_import_call_and_functions_returning_a_spec_need_their_root_by_polarity(
    tmp_path: Path,
) -> None:
    """``importlib.import_module("x")`` and ``__import__("x")`` in the ``try`` (their result bound, or a flag set
    true), and a function that only returns ``find_spec("x") is not None`` (``is None``: true without x): the tests
    they skip need x. ``skipif(not HAS, reason="x")`` names nothing the run-time backstop could read, so a census
    that missed them let ``CI=true pytest`` of those tests go green with the tier missing."""
    write(tmp_path, "tests/__init__.py", "")
    write(tmp_path, "tests/flags.py", IMPORTED_BY_CALLS)
    conditions = {
        "by_module": "not HAS_BY_MODULE",
        "by_dunder": "not HAS_BY_DUNDER",
        "from_import": "parquet is None",
        "bound": "arrow is None",
        "spec": "not has_arrow_spec()",
        "spec_missing": "arrow_spec_missing()",
        "spec_bool": "not has_arrow_bool()",
        "runs_without": "has_arrow_spec()",
        "runs_without_too": "not arrow_spec_missing()",
        "relative": "not HAS_RELATIVE",
        "two_steps": "not two_steps()",
        "other_compare": "not compared_to_something()",
    }
    body = "import pytest\nfrom tests.flags import *\n"
    for name, condition in conditions.items():
        body += f"\n\n@pytest.mark.skipif({condition}, reason='x')\ndef test_{name}():\n    pass\n"
    write(tmp_path, "tests/test_calls.py", body)
    assert needing(tmp_path) == [
        "test_bound",
        "test_by_dunder",
        "test_by_module",
        "test_from_import",
        "test_spec",
        "test_spec_bool",
        "test_spec_missing",
    ]
