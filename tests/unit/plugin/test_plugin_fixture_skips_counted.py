"""A test skipped by a fixture that skips on a flag: counted for the tier one per test on a laptop.

A conftest's fixture ``needs_brain`` skips with ``optional`` when ``HAS_BRAIN`` (a flag of a helper module:
``HAS_BRAIN = find_spec("brainpkg") is not None``) is false, requested by a test (``usefixtures``, a parameter, another
fixture) or ``autouse`` in a folder's conftest. The census found the test needing brain, but the plugin carried a
skip of it to the backstop only for a skip condition or mark of the test's own (a fixture's need was taken for an
import), and the failed lookup belongs to the helper module's top: a laptop printed ``brain absent; 1 selected test
file needs it`` and the skip ``optional`` with no remedy. Now a fixture that skips says so (``fixture needs_brain
(testing/conftest.py:8 skipped without brainpkg)``) and the skipped test counts: ``0 test files not collected and 1
test skipped because brain absent``. A fixture that imports the package (an error without it, never a skip) does not
make a test skipped for another reason the tier's.
"""

from __future__ import annotations

import pytest

from tests.support.plugin_project import inner_pyproject, laptop, write_files

PYPROJECT = inner_pyproject(cacheprovider=False, tests="testing/brain/**", strict_markers=False)
REMEDY = "tierlock lock brain && install-tier brain"  # no lockfile in this small project

HELPERS = "from importlib.util import find_spec\n\nHAS_BRAIN = find_spec('brainpkg') is not None\n"
CONFTEST = """\
import pytest

from testing.helpers import HAS_BRAIN


@pytest.fixture
def needs_brain():
    if not HAS_BRAIN:
        pytest.skip("optional")


@pytest.fixture
def model(needs_brain):
    return 1
"""
AUTOUSE = """\
import pytest

from testing.helpers import HAS_BRAIN


@pytest.fixture(autouse=True)
def _brain():
    if not HAS_BRAIN:
        pytest.skip("optional")
"""

#: Each shape: the files beside the helper and the conftest (two skipped tests and one that runs, in all).
SHAPES = {
    "usefixtures-and-a-parameter": {
        "testing/test_x.py": "import pytest\n\n\n@pytest.mark.usefixtures('needs_brain')\ndef test_a():\n    pass\n\n\n"
        "def test_b(needs_brain):\n    pass\n\n\ndef test_plain():\n    pass\n"
    },
    "through-another-fixture": {
        "testing/test_x.py": "def test_a(model):\n    pass\n\n\ndef test_b(model):\n    pass\n\n\n"
        "def test_plain():\n    pass\n"
    },
    "autouse": {
        "testing/sub/__init__.py": "",
        "testing/sub/conftest.py": AUTOUSE,
        "testing/sub/test_x.py": "def test_a():\n    pass\n\n\ndef test_b():\n    pass\n",
        "testing/test_y.py": "def test_plain():\n    pass\n",
    },
}


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    laptop(monkeypatch)
    pytester.makefile(".toml", pyproject=PYPROJECT)
    write_files(
        pytester.path, {"testing/__init__.py": "", "testing/helpers.py": HELPERS, "testing/conftest.py": CONFTEST}
    )
    return pytester


@pytest.mark.parametrize("shape", SHAPES)
def test_on_a_laptop_each_test_a_fixture_skipped_is_counted_for_the_tier(project: pytest.Pytester, shape: str) -> None:
    write_files(project.path, SHAPES[shape])
    result = project.runpytest("testing", "-rs")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1, skipped=2)
    said = "tier brain is absent; to run these tests"
    result.stdout.fnmatch_lines(
        [
            f"tierlock: 0 test files not collected and 2 tests skipped because brain absent; to run them: {REMEDY}",
            f"SKIPPED * optional; it needs brainpkg (read before collection) ({said}: {REMEDY})",
        ]
    )


def test_a_test_skipped_for_another_reason_whose_fixture_imports_the_package_is_not_counted(
    project: pytest.Pytester,
) -> None:
    write_files(
        project.path,
        {
            "testing/conftest.py": "import pytest\n\n\n@pytest.fixture\ndef model():\n    import brainpkg\n\n"
            "    return brainpkg\n",
            "testing/test_x.py": "import pytest\n\n\n@pytest.mark.skip(reason='windows only')\ndef test_a(model):\n"
            "    pass\n\n\ndef test_plain():\n    pass\n",
        },
    )
    result = project.runpytest("testing", "-rs")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["SKIPPED * windows only"])
    assert "skipped because brain absent" not in result.stdout.str()


def test_a_parameter_of_the_fixture_skipped_for_another_reason_is_not_counted(project: pytest.Pytester) -> None:
    """A skip mark on one of a fixture's ``params`` skips that parameter only: another parameter's own skip is not
    the tier's."""
    write_files(
        project.path,
        {
            "testing/conftest.py": "import pytest\n\nfrom testing.helpers import HAS_BRAIN\n\n\n@pytest.fixture(\n"
            "    params=[\n        'json',\n"
            "        pytest.param('brainpkg', marks=pytest.mark.skipif(not HAS_BRAIN, reason='optional')),\n"
            "        pytest.param('other', marks=pytest.mark.skip(reason='other backend gone')),\n    ]\n)\n"
            "def backend(request):\n    return request.param\n",
            "testing/test_x.py": "def test_a(backend):\n    pass\n",
        },
    )
    result = project.runpytest("testing", "-rs")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1, skipped=2)
    result.stdout.fnmatch_lines(
        [
            f"tierlock: 0 test files not collected and 1 test skipped because brain absent; to run them: {REMEDY}",
            "SKIPPED * other backend gone",
        ]
    )
