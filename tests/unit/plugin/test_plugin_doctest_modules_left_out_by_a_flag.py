"""Modules collected for their doctests that the project's conftest leaves out on a flag: counted, and a strict run
fails closed.

networkx's ``conftest.py`` tries ``import numpy`` (``has_numpy``), lists the modules whose doctests need it
(``needs_numpy = ["linalg/laplacianmatrix.py", ...]``) and writes ``if not has_numpy: collect_ignore += needs_numpy``;
those modules import numpy inside their functions, not at their top. A doctest-only job (``CI=true pytest
--doctest-modules networkx --ignore-glob='*/tests/*'``) with the ``default`` tier (numpy, scipy, ...) missing went green
with 46 modules silently left out (``default absent; none of its tests were selected``), and a laptop said ``every
tier this run needs is present``. Such a module is now a file of that tier not collected: a strict run fails at its
end naming it, a laptop counts it with the command that runs it. A conftest that leaves a module out for a package of
no tier, for no flag, or whose tier is present, changes nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.plugin_project import (
    arm,
    assert_failed_closed,
    build_brain_wheels,
    inner_project,
    strict_run,
)

REMEDY = "tierlock lock brain && install-tier brain"  # no lockfile in this small project

MODULE = '''\
def model():
    """
    >>> model()
    1
    """
    import brainpkg  # noqa: F401

    return 1
'''

PLAIN = '''\
def plain():
    """
    >>> plain()
    2
    """
    return 2
'''

#: Each conftest of the package: how it leaves ``mod.py`` out without brainpkg.
CONFTESTS: dict[str, str] = {
    "networkx": """\
try:
    import brainpkg

    has_brainpkg = True
except ImportError:
    has_brainpkg = False

collect_ignore = ["never.py"]
needs_brainpkg = ["mod.py"]
if not has_brainpkg:
    collect_ignore += needs_brainpkg
""",
    "extend": """\
from importlib.util import find_spec

HAS = find_spec("brainpkg") is not None
collect_ignore = []
if not HAS:
    collect_ignore.extend(["mod.py"])
""",
    "find-spec-glob": """\
import importlib.util

collect_ignore_glob = []
if importlib.util.find_spec("brainpkg") is None:
    collect_ignore_glob.append("mo*.py")
""",
    "except": """\
collect_ignore = []
try:
    import brainpkg
except ImportError:
    collect_ignore.append("mod.py")
""",
}

#: A conftest whose branch on the flag calls other things too before leaving the module out (a function, a method
#: of another object): the branch is read all the same.
BUSY = (
    CONFTESTS["networkx"]
    .replace(
        "if not has_brainpkg:\n",
        'if not has_brainpkg:\n    print("no brainpkg")\n    os.environ.setdefault("X", "1")\n',
    )
    .replace("try:", "import os\n\ntry:", 1)
)

#: A branch on the flag that only asks the list something (``count``): it leaves nothing out; the module is left out
#: for another reason.
ASKS = """\
import os

try:
    import brainpkg

    has_brainpkg = True
except ImportError:
    has_brainpkg = False

collect_ignore = []
if os.environ.get("INNER_NEVER_SET") is None:
    collect_ignore += ["mod.py"]
if not has_brainpkg:
    collect_ignore.count("mod.py")
"""

#: Conftests that leave ``mod.py`` out for something else: nothing counts, a strict run is green.
OTHER = {
    "asks-the-list-only": ASKS,
    "another-package": CONFTESTS["networkx"].replace("brainpkg", "lxml"),
    "unconditional": 'collect_ignore = ["mod.py"]\n',
    "version": 'import sys\n\ncollect_ignore = []\nif sys.version_info < (4,):\n    collect_ignore += ["mod.py"]\n',
}

CONFTESTS["busy-branch"] = BUSY

ARGS = ("--doctest-modules", "pkg", "--ignore-glob=*/tests/*")


def _project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, conftest: str) -> pytest.Pytester:
    files = {"pkg/__init__.py": "", "pkg/conftest.py": conftest, "pkg/mod.py": MODULE, "pkg/plain.py": PLAIN}
    files["pkg/tests/test_x.py"] = "def test_x():\n    pass\n"
    return inner_project(pytester, monkeypatch, files)


@pytest.mark.parametrize("shape", CONFTESTS)
def test_in_ci_a_doctest_module_left_out_on_a_missing_tiers_flag_fails_the_run_closed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    _project(pytester, monkeypatch, CONFTESTS[shape])
    result = strict_run(pytester, monkeypatch, *ARGS)
    assert_failed_closed(
        result,
        "tierlock: tier brain is required in CI (ci-require) but it is absent; 1 test of this run needed it:",
        "  - pkg/mod.py (a test file that needs it, ignored by the project's conftest after a failed import)",
        f"  to fix: {REMEDY}",
    )


@pytest.mark.parametrize("shape", CONFTESTS)
def test_on_a_laptop_the_module_left_out_is_counted_with_the_command_that_runs_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    _project(pytester, monkeypatch, CONFTESTS[shape])
    result = pytester.runpytest(*ARGS)
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [f"tierlock: 1 test file not collected and 0 tests skipped because brain absent; to run them: {REMEDY}"]
    )


@pytest.mark.parametrize("shape", OTHER)
def test_in_ci_a_module_left_out_for_something_else_fails_nothing(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    _project(pytester, monkeypatch, OTHER[shape])
    result = strict_run(pytester, monkeypatch, *ARGS)
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.assert_outcomes(passed=1)


def test_with_the_tier_armed_the_module_is_collected_and_its_doctest_runs(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    wheels = build_brain_wheels(Path(tmp_path_factory.mktemp("brain-wheels")))
    _project(pytester, monkeypatch, CONFTESTS["networkx"])
    arm(pytester, monkeypatch, wheels)
    result = strict_run(pytester, monkeypatch, *ARGS)
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.assert_outcomes(passed=2)


#: The inner project with a tier whose import root is not all lower case (black's ``IPython``).
CASED_PYPROJECT = """\
[project]
name = "inner"
version = "0.1"
dependencies = ["packaging"]

[project.optional-dependencies]
brain = ["brainpkg"]

[tool.tierlock]
ci-require = ["brain"]

[tool.tierlock.tiers.brain]
import-roots = { brainpkg = ["BrainPkg"] }

[tool.pytest.ini_options]
addopts = ["-p", "no:hypothesispytest", "-p", "no:cacheprovider"]
"""


def test_in_ci_a_module_left_out_on_the_flag_of_a_root_spelled_in_capitals_fails_the_run_closed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    conftest = CONFTESTS["networkx"].replace("import brainpkg", "import BrainPkg")
    files = {"pkg/__init__.py": "", "pkg/conftest.py": conftest, "pkg/mod.py": MODULE, "pkg/plain.py": PLAIN}
    inner_project(pytester, monkeypatch, files, pyproject=CASED_PYPROJECT)
    result = strict_run(pytester, monkeypatch, *ARGS)
    assert_failed_closed(result, "  - pkg/mod.py (a test file that needs it, ignored by the project's conftest*")
