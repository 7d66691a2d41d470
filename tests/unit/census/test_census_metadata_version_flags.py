"""An availability flag set by looking the distribution up (``importlib.metadata.version("x")`` under ``except
PackageNotFoundError``), a spelling the census did not read as a flag.

Such a lookup never goes through the import system, so the run-time backstop sees no failed import either: a
``skipif(not HAS_DOTENV, reason="needs the env loader")`` on that flag, the tier required in CI and not armed, and
the strict run went green with the tests silently skipped. The flag stands for the distribution's import names
(``python-dotenv`` -> ``dotenv``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.censusfiles import write
from tests.support.plugin_project import inner_pyproject, laptop, write_files
from tierlock.census import CensusTier, census
from tierlock.pytest_plugin import EXIT_TIER_MISSING

DOTENV = CensusTier("dotenv", ("dotenv",), ("tests/dotenv/**",))

TEST = """\
import pytest

from proj.compat import HAS_DOTENV


@pytest.mark.skipif(not HAS_DOTENV, reason="needs the env loader")
def test_loads():
    pass


def test_plain():
    pass
"""

FLAGS = {
    "importlib.metadata": "import importlib.metadata\n\ntry:\n    importlib.metadata.version('python-dotenv')\n"
    "    HAS_DOTENV = True\nexcept importlib.metadata.PackageNotFoundError:\n    HAS_DOTENV = False\n",
    "from-import": "from importlib.metadata import PackageNotFoundError, version\n\ntry:\n"
    "    version('python-dotenv')\nexcept PackageNotFoundError:\n    HAS_DOTENV = False\nelse:\n"
    "    HAS_DOTENV = True\n",
    "distribution": "from importlib import metadata\n\ntry:\n    metadata.distribution('python_dotenv')\n"
    "    HAS_DOTENV = True\nexcept metadata.PackageNotFoundError:\n    HAS_DOTENV = None\n",
    "backport": "import importlib_metadata\n\ntry:\n    importlib_metadata.version('python-dotenv')\n"
    "    HAS_DOTENV = True\nexcept Exception:\n    HAS_DOTENV = False\n",
    "pkg_resources": "import pkg_resources\n\ntry:\n    pkg_resources.get_distribution('python-dotenv')\n"
    "    HAS_DOTENV = True\nexcept pkg_resources.DistributionNotFound:\n    HAS_DOTENV = False\n",
    "function": "from importlib.metadata import PackageNotFoundError, version\n\n\ndef _has():\n    try:\n"
    "        version('python-dotenv')\n    except PackageNotFoundError:\n        return False\n    return True\n\n\n"
    "HAS_DOTENV = _has\n",
}


@pytest.mark.parametrize("compat", list(FLAGS.values()), ids=list(FLAGS))
def test_a_flag_set_by_a_distribution_lookup_makes_the_skipped_test_need_the_tier(tmp_path: Path, compat: str) -> None:
    write(tmp_path, "src/proj/__init__.py", "")
    write(tmp_path, "src/proj/compat.py", compat)
    test = TEST
    if "def _has" in compat:
        test = TEST.replace("HAS_DOTENV\n", "_has\n", 1).replace("not HAS_DOTENV", "not _has()")
    write(tmp_path, "tests/test_env.py", test)
    uses = census(tmp_path, [DOTENV]).tier("dotenv").outside
    assert sorted((u.file, u.test) for u in uses) == [("tests/test_env.py", "test_loads")]


@pytest.mark.parametrize(
    "compat",
    [
        # another function called version: no lookup of a distribution
        "import mylib\n\ntry:\n    mylib.version('python-dotenv')\n    HAS_DOTENV = True\n"
        "except Exception:\n    HAS_DOTENV = False\n",
        # a name computed at run time: nothing static to read
        "from importlib.metadata import version\n\nNAME = 'python-' + 'dotenv'\ntry:\n    version(NAME)\n"
        "    HAS_DOTENV = True\nexcept Exception:\n    HAS_DOTENV = False\n",
        # another distribution's lookup
        "from importlib.metadata import version\n\ntry:\n    version('requests')\n    HAS_DOTENV = True\n"
        "except Exception:\n    HAS_DOTENV = False\n",
    ],
    ids=["other-version-function", "computed-name", "other-distribution"],
)
def test_a_lookup_of_nothing_of_the_tier_is_no_flag_of_it(tmp_path: Path, compat: str) -> None:
    write(tmp_path, "src/proj/__init__.py", "")
    write(tmp_path, "src/proj/compat.py", compat)
    write(tmp_path, "tests/test_env.py", TEST)
    assert census(tmp_path, [DOTENV]).tier("dotenv").outside == []


COMPAT = (
    "import importlib.metadata\n\ntry:\n    importlib.metadata.version('brainpkg')\n    HAS_BRAIN = True\n"
    "except importlib.metadata.PackageNotFoundError:\n    HAS_BRAIN = False\n"
)
SKIPPED = """\
import pytest

from inner.compat import HAS_BRAIN


@pytest.mark.skipif(not HAS_BRAIN, reason="backend unavailable")
def test_model():
    pass


def test_plain():
    pass
"""


def _project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    laptop(monkeypatch)
    pytester.makefile(".toml", pyproject=inner_pyproject(cacheprovider=False).replace("tests/brain/", "testing/brain/"))
    write_files(
        pytester.path,
        {"inner/__init__.py": "", "inner/compat.py": COMPAT, "testing/__init__.py": "", "testing/test_m.py": SKIPPED},
    )


def test_a_strict_run_whose_skip_comes_from_a_lookup_flag_fails_closed_before_collection(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(pytester, monkeypatch)
    monkeypatch.setenv("CI", "true")
    result = pytester.runpytest("testing")
    assert result.ret == EXIT_TIER_MISSING
    result.stderr.fnmatch_lines(
        [
            "tierlock: tier brain is required in CI (ci-require) but it is absent:",
            "  this run selects 1 test file(s) that need it",
            "  to fix: *install-tier brain*",
        ]
    )


def test_on_a_laptop_the_run_counts_the_skipped_test_that_needs_the_tier(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _project(pytester, monkeypatch)
    result = pytester.runpytest("testing")
    assert result.ret == 0
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(
        [
            "tierlock: 0 test files not collected and 1 test skipped because brain absent; "
            "to run them: *install-tier brain*"
        ]
    )
