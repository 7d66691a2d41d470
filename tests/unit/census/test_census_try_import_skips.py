"""An import whose failure skips - ``try: from trio.testing import MockClock`` / ``except ImportError:
pytest.skip(...)`` in a test (anyio's ``TestTrioOptions.test_clock``), or at module level with
``allow_module_level=True`` - is needed, not guarded: the test (the file) is skipped without it.

Before, the census read any import under ``except ImportError`` as guarded, so such a test needed nothing:
``tierlock init`` on anyio wrote ``ci-require = []`` (its only trio-specific test skipped silently in CI with trio
missing), ``tierlock check`` said nothing, and a strict run went green with the test skipped.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.censusfiles import write
from tests.support.cli import cli_json
from tests.support.plugin_project import inner_pyproject, laptop, write_files
from tierlock.census import CensusTier, census
from tierlock.pytest_plugin import EXIT_TIER_MISSING

TRIO = CensusTier("trio", ("trio",), ("tests/trio/**",))

#: Handlers that skip the test when the import fails.
SKIPPING = {
    "pytest.skip": "    except ImportError:\n        pytest.skip(reason='trio not installed')\n",
    "module-not-found": "    except ModuleNotFoundError:\n        pytest.skip('no trio')\n",
    "tuple": "    except (ImportError, AttributeError):\n        pytest.skip('no trio')\n",
    "skip-test": "    except ImportError:\n        raise unittest.SkipTest('no trio')\n",
    "bare-skip": "    except ImportError:\n        skip('no trio')\n",
    "xfail": "    except ImportError:\n        pytest.xfail('no trio')\n",
}

TEST = """\
import unittest

import pytest
from pytest import skip


def test_plain():
    pass


def test_clock():
    try:
        from trio.testing import MockClock
{handler}
    assert MockClock
"""


@pytest.mark.parametrize("handler", list(SKIPPING.values()), ids=list(SKIPPING))
def test_a_test_whose_import_failure_skips_it_needs_the_tier(tmp_path: Path, handler: str) -> None:
    write(tmp_path, "tests/test_options.py", TEST.format(handler=handler.rstrip("\n")))
    uses = census(tmp_path, [TRIO]).tier("trio").outside
    assert sorted((u.file, u.test) for u in uses) == [("tests/test_options.py", "test_clock")]


def test_a_module_whose_import_failure_skips_it_needs_the_tier_at_import(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/test_mod.py",
        "import pytest\n\ntry:\n    import trio\nexcept ImportError:\n"
        "    pytest.skip('no trio', allow_module_level=True)\n\n\ndef test_a():\n    assert trio\n",
    )
    (use,) = census(tmp_path, [TRIO]).tier("trio").outside
    assert (use.file, use.module_level) == ("tests/test_mod.py", True)


def test_a_fixture_whose_import_failure_skips_makes_its_tests_need_the_tier(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/test_fix.py",
        "import pytest\n\n\n@pytest.fixture\ndef clock():\n    try:\n        from trio.testing import MockClock\n"
        "    except ImportError:\n        pytest.skip('no trio')\n    return MockClock()\n\n\n"
        "def test_uses(clock):\n    pass\n\n\ndef test_plain():\n    pass\n",
    )
    uses = census(tmp_path, [TRIO]).tier("trio").outside
    assert sorted((u.file, u.test) for u in uses) == [("tests/test_fix.py", "test_uses")]


@pytest.mark.parametrize(
    "handler",
    [
        "    except ImportError:\n        MockClock = None",  # a fallback: the test runs either way
        "    except ImportError:\n        return",  # returns: passes without it (not the census's to call a skip)
        "    except KeyError:\n        pytest.skip('no key')",  # the import is not what is caught
    ],
    ids=["fallback", "return", "other-exception"],
)
def test_a_guarded_import_whose_failure_does_not_skip_needs_nothing(tmp_path: Path, handler: str) -> None:
    write(tmp_path, "tests/test_options.py", TEST.format(handler=handler))
    uses = census(tmp_path, [TRIO]).tier("trio").outside
    expected = [("tests/test_options.py", "test_clock")] if "KeyError" in handler else []
    assert sorted((u.file, u.test) for u in uses) == expected


PYPROJECT = """\
[project]
name = "anyx"
version = "1.0"
dependencies = []

[project.optional-dependencies]
trio = ["trio>=0.26"]
"""


def test_init_on_an_anyio_shaped_project_requires_the_tier_in_ci_and_the_census_fix_marks_the_test(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, "pyproject.toml", PYPROJECT)
    write(tmp_path, "anyx/__init__.py", "")
    write(tmp_path, "tests/test_options.py", TEST.format(handler=SKIPPING["pytest.skip"].rstrip("\n")))
    code, done = cli_json(capsys, "--project", str(tmp_path), "init", "--no-groups", "--no-pytest-marker")
    assert code == 0, done
    text = (tmp_path / "pyproject.toml").read_text(encoding="utf-8")
    assert 'ci-require = ["trio"]' in text, text
    code, checked = cli_json(capsys, "--project", str(tmp_path), "census", "trio", "--fix")
    assert code == 0, checked
    fixed = (tmp_path / "tests" / "test_options.py").read_text(encoding="utf-8")
    assert "@pytest.mark.tier('trio')\ndef test_clock" in fixed.replace('"', "'"), fixed


def test_a_strict_run_with_the_tier_missing_fails_closed_instead_of_skipping(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop(monkeypatch)
    pytester.makefile(".toml", pyproject=inner_pyproject(cacheprovider=False))
    test = TEST.format(handler=SKIPPING["pytest.skip"].rstrip("\n")).replace("from trio.testing", "from brainpkg")
    write_files(pytester.path, {"testing/__init__.py": "", "testing/test_options.py": test})
    monkeypatch.setenv("CI", "true")
    result = pytester.runpytest("testing")
    assert result.ret == EXIT_TIER_MISSING, result.stdout.str() + result.stderr.str()
    result.stderr.fnmatch_lines(["tierlock: tier brain is required in CI (ci-require) but it is absent:"])


def test_a_skip_on_a_flag_that_is_the_first_of_several_statements_of_its_if_is_read(tmp_path: Path) -> None:
    """The skip's words are looked for from the branch's first statement (a skip before a ``return`` counts)."""
    write(
        tmp_path,
        "tests/test_flag.py",
        "import pytest\n\ntry:\n    import trio\nexcept ImportError:\n    has_trio = False\nelse:\n"
        "    has_trio = True\n\n\ndef test_clock():\n    if not has_trio:\n        pytest.skip('no trio')\n"
        "        return\n    assert trio\n\n\ndef test_plain():\n    pass\n",
    )
    uses = census(tmp_path, [TRIO]).tier("trio").outside
    assert sorted((u.file, u.test) for u in uses) == [("tests/test_flag.py", "test_clock")]
