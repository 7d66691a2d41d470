"""An availability flag set in the ``else:`` of its ``try`` (``try: import h2 except ImportError: has_h2 = False
else: has_h2 = True``), a common spelling the census did not read as a flag.

Met re-running the gate's review on an httpx-like project: a flag in the project's own package, a
``skipif(not has_h2, reason="HTTP/2 unavailable")`` whose reason names no root (so the run-time backstop has no
evidence), the tier required in CI and not armed: the strict run went green with the test silently skipped.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.censusfiles import write
from tests.support.plugin_project import inner_pyproject, laptop, write_files
from tierlock.census import CensusTier, census
from tierlock.pytest_plugin import EXIT_TIER_MISSING

ARROW = CensusTier("arrow", ("pyarrow",), ("tests/arrow/**",))

TEST = """\
import pytest

from proj.compat import has_arrow

needs_arrow = pytest.mark.skipif(not has_arrow, reason="columnar support unavailable")


@needs_arrow
def test_columns():
    pass


def test_rows():
    pass
"""


@pytest.mark.parametrize(
    "compat",
    [
        "try:\n    import pyarrow\nexcept ImportError:\n    has_arrow = False\nelse:\n    has_arrow = True\n",
        "try:\n    import pyarrow.parquet\nexcept ImportError:\n    has_arrow = False\nelse:\n    has_arrow = True\n",
        "try:\n    import pyarrow\nexcept ImportError:\n    has_arrow = None\nelse:\n"
        "    from pyarrow import parquet as has_arrow\n",
    ],
    ids=["plain", "submodule", "bound-by-import-in-else"],
)
def test_a_flag_set_in_the_else_of_its_try_makes_the_skipped_test_need_the_root(tmp_path: Path, compat: str) -> None:
    write(tmp_path, "src/proj/__init__.py", "")
    write(tmp_path, "src/proj/compat.py", compat)
    write(tmp_path, "tests/test_columns.py", TEST)
    uses = census(tmp_path, [ARROW]).tier("arrow").outside
    assert sorted((u.file, u.test) for u in uses) == [("tests/test_columns.py", "test_columns")]


def test_a_name_set_true_only_in_the_else_of_a_try_that_imports_nothing_is_no_flag(tmp_path: Path) -> None:
    write(tmp_path, "src/proj/__init__.py", "")
    write(
        tmp_path,
        "src/proj/compat.py",
        "try:\n    value = int('1')\nexcept ImportError:\n    has_arrow = False\nelse:\n    has_arrow = True\n",
    )
    write(tmp_path, "tests/test_columns.py", TEST)
    assert census(tmp_path, [ARROW]).tier("arrow").outside == []


COMPAT = "try:\n    import brainpkg\nexcept ImportError:\n    has_brain = False\nelse:\n    has_brain = True\n"
SKIPPED = """\
import pytest

from inner.compat import has_brain


@pytest.mark.skipif(not has_brain, reason="HTTP/2 unavailable")
def test_http2():
    pass


def test_http1():
    pass
"""


def test_a_strict_run_whose_skip_comes_from_such_a_flag_fails_closed_before_collection(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop(monkeypatch)
    monkeypatch.setenv("CI", "true")
    pytester.makefile(".toml", pyproject=inner_pyproject(cacheprovider=False).replace("tests/brain/", "testing/brain/"))
    write_files(
        pytester.path,
        {"inner/__init__.py": "", "inner/compat.py": COMPAT, "testing/__init__.py": "", "testing/test_h2.py": SKIPPED},
    )
    result = pytester.runpytest("testing")
    assert result.ret == EXIT_TIER_MISSING
    result.stderr.fnmatch_lines(
        [
            "tierlock: tier brain is required in CI (ci-require) but it is absent:",
            "  this run selects 1 test file(s) that need it",
        ]
    )
