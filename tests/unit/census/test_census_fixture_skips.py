"""What the census says of a fixture that skips on a flag, and of one whose ``params`` carry a skip mark.

A fixture that skips its tests without a root (``if not HAS_BRAIN: pytest.skip("optional")``) is reported as
``fixture needs_brain (tests/conftest.py:8 skipped without brainpkg)``: the pytest plugin counts each test it skips for
the tier (:mod:`tierlock.pytest_plugin.needs`). A skip mark on one of its ``params`` skips that parameter only: the
fixture ``needs`` the root (a test skipped on another parameter is not the tier's), and so does a fixture importing it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.censusfiles import write
from tierlock.census import CensusTier, census

BRAIN = CensusTier("brain", ("brainpkg",), ("tests/brain/**",))

CONFTEST = """\
import pytest

from tests.helpers import HAS_BRAIN


@pytest.fixture
def needs_brain():
    if not HAS_BRAIN:
        pytest.skip("optional")


@pytest.fixture
def model(needs_brain):
    return 1


@pytest.fixture(params=["json", pytest.param("brainpkg", marks=pytest.mark.skipif(not HAS_BRAIN, reason="x"))])
def backend(request):
    return request.param


@pytest.fixture
def loaded():
    import brainpkg

    return brainpkg
"""

TESTS = """\
def test_skipped(needs_brain):
    pass


def test_through(model):
    pass


def test_param(backend):
    pass


def test_import(loaded):
    pass
"""


def test_a_fixture_that_skips_says_so_and_one_whose_param_skips_or_that_imports_needs(tmp_path: Path) -> None:
    write(tmp_path, "tests/__init__.py", "")
    write(
        tmp_path,
        "tests/helpers.py",
        "from importlib.util import find_spec\n\nHAS_BRAIN = bool(find_spec('brainpkg'))\n",
    )
    write(tmp_path, "tests/conftest.py", CONFTEST)
    write(tmp_path, "tests/test_x.py", TESTS)
    said = {(u.test, u.how) for u in census(tmp_path, [BRAIN]).tier("brain").outside}
    assert said == {
        ("test_skipped", "fixture needs_brain (tests/conftest.py:8 skipped without brainpkg)"),
        ("test_through", "fixture model (tests/conftest.py:13 skipped without brainpkg)"),
        ("test_param", "fixture backend (tests/conftest.py:17 needs brainpkg)"),
        ("test_import", "fixture loaded (tests/conftest.py:24 needs brainpkg)"),
    }


@pytest.mark.parametrize("where", ["tests/conftest.py", "tests/sub/conftest.py"], ids=["outermost", "middle"])
def test_a_fixture_overriding_one_that_overrides_another_needs_what_the_next_ones_up_need(
    tmp_path: Path, where: str
) -> None:
    """``table(table)`` in a test file, in ``tests/sub/conftest.py``, then ``tests/conftest.py``'s ``table``; the root
    imported by the outermost or by the middle one: each override asks the next one up, never itself again nor one
    further up first."""
    outer = "import pytest\n\n\n@pytest.fixture\ndef table():\n    return 1\n"
    middle = "import pytest\n\n\n@pytest.fixture\ndef table(table):\n    return table\n"
    own = {"tests/conftest.py": outer, "tests/sub/conftest.py": middle}
    own[where] = own[where].replace("    return", "    import brainpkg\n\n    return")
    write(tmp_path, "tests/__init__.py", "")
    write(tmp_path, "tests/sub/__init__.py", "")
    for rel, text in own.items():
        write(tmp_path, rel, text)
    write(
        tmp_path,
        "tests/sub/test_x.py",
        "import pytest\n\n\n@pytest.fixture\ndef table(table):\n    return table\n\n\ndef test_a(table):\n    pass\n",
    )
    said = {(u.test, u.root) for u in census(tmp_path, [BRAIN]).tier("brain").outside}
    assert said == {("test_a", "brainpkg")}
