"""The census reads unittest's skips and test classes nested in test classes.

Met re-running the gate's backstop on real suites (SQLAlchemy's ``TestBase`` classes, fsspec, hand-made shapes):
``@unittest.skipUnless(HAS, ...)``, ``@skipIf(not HAS, ...)`` (on a method or a ``TestCase`` class of any name),
``if not helpers.HAS: self.skipTest(...)`` / ``raise unittest.SkipTest(...)``, and a ``skipif`` on a test class
nested in a test class were not read: a strict run went green with the test silently skipped.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.censusfiles import write
from tierlock.census import CensusTier, census

BRAIN = CensusTier("brain", ("brainpkg",), ("tests/brain/**",))

FLAG = "try:\n    import brainpkg\nexcept ImportError:\n    HAS = False\nelse:\n    HAS = True\n"


def _needing(tmp_path: Path, body: str) -> list[tuple[str, str | None]]:
    write(tmp_path, "tests/helpers.py", FLAG)
    write(tmp_path, "tests/test_it.py", body)
    uses = census(tmp_path, [BRAIN]).tier("brain").outside
    return sorted({(u.file, u.test) for u in uses if u.file == "tests/test_it.py"}, key=str)


@pytest.mark.parametrize(
    ("body", "test"),
    [
        (
            "import unittest\nfrom helpers import HAS\n\n\nclass Checks(unittest.TestCase):\n"
            '    @unittest.skipUnless(HAS, "backend unavailable")\n    def test_backend(self):\n        pass\n\n'
            "    def test_plain(self):\n        pass\n",
            "Checks.test_backend",
        ),
        (
            "from unittest import TestCase, skipIf\nfrom helpers import HAS\n\n\n"
            '@skipIf(not HAS, "backend unavailable")\nclass Backend(TestCase):\n    def test_backend(self):\n'
            "        pass\n",
            "Backend.test_backend",
        ),
        (
            "import unittest\nimport helpers\n\n\nclass Checks(unittest.TestCase):\n    def test_backend(self):\n"
            '        if not helpers.HAS:\n            self.skipTest("backend unavailable")\n\n'
            "    def test_plain(self):\n        pass\n",
            "Checks.test_backend",
        ),
        (
            "import unittest\nfrom helpers import HAS\n\n\nclass Checks(unittest.IsolatedAsyncioTestCase):\n"
            '    async def test_backend(self):\n        if not HAS:\n            raise unittest.SkipTest("no")\n',
            "Checks.test_backend",
        ),
        (
            "from unittest import SkipTest, TestCase\nfrom helpers import HAS\n\n\nclass Checks(TestCase):\n"
            '    def test_backend(self):\n        if not HAS:\n            raise SkipTest("no")\n        pass\n',
            "Checks.test_backend",
        ),
    ],
    ids=["skipUnless-method", "skipIf-class", "skipTest-in-if", "raise-unittest-SkipTest", "raise-SkipTest"],
)
def test_a_unittest_skip_on_a_missing_roots_flag_makes_that_test_need_it(tmp_path: Path, body: str, test: str) -> None:
    assert _needing(tmp_path, body) == [("tests/test_it.py", test)]


def test_a_skipif_on_the_opposite_flag_needs_nothing(tmp_path: Path) -> None:
    body = (
        "import unittest\nfrom helpers import HAS\n\n\nclass Checks(unittest.TestCase):\n"
        '    @unittest.skipIf(HAS, "only without it")\n    def test_fallback(self):\n        pass\n\n'
        '    @unittest.skipUnless(not HAS, "only without it")\n    def test_fallback_again(self):\n        pass\n'
    )
    assert _needing(tmp_path, body) == []


def test_a_skip_of_another_kind_in_the_branch_is_no_skip(tmp_path: Path) -> None:
    body = (
        "import unittest\nfrom helpers import HAS\n\n\nclass Checks(unittest.TestCase):\n    def test_backend(self):\n"
        '        if not HAS:\n            self.fail("no")\n            raise ValueError("no")\n'
        "        pytest.skip  # named, not called\n"
    )
    assert _needing(tmp_path, body) == []


def test_a_plain_class_not_named_test_holds_no_tests(tmp_path: Path) -> None:
    body = (
        "import pytest\nfrom helpers import HAS\n\n\nclass Checks:\n"
        '    @pytest.mark.skipif(not HAS, reason="x")\n    def test_backend(self):\n        pass\n'
    )
    assert _needing(tmp_path, body) == []


@pytest.mark.parametrize(
    ("body", "test"),
    [
        (
            "import pytest\nfrom helpers import HAS\n\n\nclass TestOuter:\n    def test_plain(self):\n        pass\n\n"
            '    @pytest.mark.skipif(not HAS, reason="x")\n    class TestInner:\n        def test_backend(self):\n'
            "            pass\n",
            "TestOuter.TestInner.test_backend",
        ),
        (
            "import pytest\nfrom helpers import HAS\n\n\n"
            '@pytest.mark.skipif(not HAS, reason="x")\nclass TestOuter:\n    class TestInner:\n'
            "        def test_backend(self):\n            pass\n",
            "TestOuter.TestInner.test_backend",
        ),
        (
            "import pytest\nfrom helpers import HAS\n\n\nclass TestOuter:\n    class TestInner:\n"
            '        @pytest.mark.skipif(not HAS, reason="x")\n        def test_backend(self):\n            pass\n',
            "TestOuter.TestInner.test_backend",
        ),
    ],
    ids=["inner-class-mark", "outer-class-mark", "method-mark"],
)
def test_a_skipif_on_a_nested_test_class_makes_its_tests_need_the_root(tmp_path: Path, body: str, test: str) -> None:
    assert _needing(tmp_path, body) == [("tests/test_it.py", test)]


def test_a_helper_class_nested_in_a_test_class_is_read_as_before(tmp_path: Path) -> None:
    body = (
        "import pytest\nfrom helpers import HAS\n\n\nclass TestOuter:\n    class Helper:\n"
        '        @pytest.mark.skipif(not HAS, reason="x")\n        def test_backend(self):\n            pass\n'
    )
    assert _needing(tmp_path, body) == [("tests/test_it.py", "test_backend")]


def test_a_branch_that_leaves_after_other_statements_still_guards_what_follows(tmp_path: Path) -> None:
    """``if "brain" not in str(constructor): note(); return`` picks a backend by name: left to run time."""
    body = (
        "def test_backend(constructor):\n    if 'brainpkg' not in str(constructor):\n        note = 1\n"
        "        return\n    import brainpkg\n"
    )
    assert _needing(tmp_path, body) == []


def test_a_branch_that_does_not_leave_guards_nothing(tmp_path: Path) -> None:
    body = (
        "def test_backend(constructor):\n    if 'brainpkg' not in str(constructor):\n        note = 1\n"
        "    import brainpkg\n"
    )
    assert _needing(tmp_path, body) == [("tests/test_it.py", "test_backend")]


def test_a_branch_that_leaves_with_skiptest_guards_what_follows(tmp_path: Path) -> None:
    body = (
        "import unittest\n\n\nclass Checks(unittest.TestCase):\n    backend = 'json'\n\n    def test_backend(self):\n"
        "        if 'brainpkg' not in self.backend:\n            self.skipTest('another backend')\n"
        "        import brainpkg\n"
    )
    assert _needing(tmp_path, body) == []


def test_a_helper_method_of_the_test_class_that_imports_the_root_makes_its_caller_need_it(tmp_path: Path) -> None:
    body = (
        "class TestModel:\n    def _make(self):\n        import brainpkg\n        return brainpkg\n\n"
        "    def test_fit(self):\n        assert self._make()\n\n    def test_plain(self):\n        pass\n"
    )
    assert _needing(tmp_path, body) == [("tests/test_it.py", "TestModel.test_fit")]


def test_a_flag_function_whose_except_returns_bare_is_false_without_its_root(tmp_path: Path) -> None:
    """``def has_brain(): try: import brainpkg ... except ImportError: return`` answers None (false) without it."""
    write(
        tmp_path,
        "tests/flags.py",
        "def has_brain():\n    try:\n        import brainpkg\n    except ImportError:\n"
        "        return\n    return True\n",
    )
    body = (
        "import pytest\nfrom flags import has_brain\n\n\n"
        "@pytest.mark.skipif(not has_brain(), reason='x')\ndef test_backend():\n    pass\n"
    )
    assert _needing(tmp_path, body) == [("tests/test_it.py", "test_backend")]
