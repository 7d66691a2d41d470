"""Test files a project's own conftest keeps out of the run when a tier's package is missing: never silent.

A conftest that computes ``collect_ignore`` from an import (``if find_spec("brainpkg") is None:
collect_ignore.append(...)``, or a whole folder after a failed ``import brainpkg``) hides the files that need the tier:
pytest ignores them before tierlock's own hook is asked, and a strict run went green with them absent. Such a file,
selected as the run reads before collection and needing a tier whose import failed in this run, is counted as a test
file not collected; a strict run that requires the tier fails at its end naming it. What the run itself asked to
leave out (``--ignore``) and a file ignored for another reason (a Python version) stay uncounted.
"""

from __future__ import annotations

import pytest

from tests.support.plugin_project import (
    REQUIRED_ABSENT,
    assert_failed_closed,
    assert_stopped_before_collection,
    inner_project,
    strict_run,
    write_files,
)

REMEDY = "tierlock lock brain && install-tier brain"  # no lockfile in this small project

FIND_SPEC_CONFTEST = """\
import importlib.util

collect_ignore = []
if importlib.util.find_spec("brainpkg") is None:
    collect_ignore.append("test_models.py")
"""

FOLDER_CONFTEST = """\
collect_ignore = []
try:
    import brainpkg  # noqa: F401
except ImportError:
    collect_ignore.append("brain")
"""

VERSION_CONFTEST = """\
import sys

collect_ignore = []
if sys.version_info < (4,):
    collect_ignore.append("test_models.py")
"""

HOOK_CONFTEST = """\
try:
    import brainpkg  # noqa: F401
    HAS = True
except ImportError:
    HAS = False


def pytest_ignore_collect(collection_path, config):
    if not HAS and collection_path.name.startswith("test_model"):
        return True
"""

MODELS = """\
import brainpkg


def test_model():
    assert brainpkg
"""

PLAIN = """\
def test_plain():
    pass
"""


#: The tests of most cases: one that needs the tier (hidden or not by the conftest), one that needs nothing.
MODELS_AND_PLAIN = {"tests/test_models.py": MODELS, "tests/test_plain.py": PLAIN}

#: The verdict's first line when one test of the run needed the tier.
ONE_NEEDED = f"{REQUIRED_ABSENT}; 1 test of this run needed it:"


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    return inner_project(pytester, monkeypatch)


def test_a_strict_run_whose_conftest_computes_collect_ignore_from_find_spec_fails_closed_naming_the_file(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_files(inner.path, {"tests/conftest.py": FIND_SPEC_CONFTEST, **MODELS_AND_PLAIN})
    result = strict_run(inner, monkeypatch, "tests")
    assert_failed_closed(
        result,
        ONE_NEEDED,
        "  - tests/test_models.py (a test file that needs it, ignored by the project's conftest after a failed*",
        f"  to fix: {REMEDY}*",
    )
    result.assert_outcomes(passed=1)


def test_a_strict_run_whose_conftest_ignores_a_gated_folder_after_a_failed_import_fails_closed(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {"tests/conftest.py": FOLDER_CONFTEST, "tests/brain/test_x.py": PLAIN, "tests/test_p.py": PLAIN}
    files["tests/brain/a_helpers.py"] = "import brainpkg\n"  # no test file: not counted
    write_files(inner.path, files)
    result = strict_run(inner, monkeypatch, "tests")
    assert_failed_closed(result, ONE_NEEDED, "  - tests/brain/test_x.py (a test file of its globs)")


def test_on_a_laptop_the_files_the_project_hid_are_counted_with_the_remedy(inner: pytest.Pytester) -> None:
    write_files(inner.path, {"tests/conftest.py": FIND_SPEC_CONFTEST, **MODELS_AND_PLAIN})
    result = inner.runpytest("tests")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [f"tierlock: 1 test file not collected and 0 tests skipped because brain absent; to run them: {REMEDY}*"]
    )


def test_a_conftest_hook_that_ignores_the_files_of_a_missing_backend_fails_a_strict_run_read_at_collection(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    computed = 'collect_ignore = [name for name in ("setup.py",)]\n'  # the selection is read at collection
    write_files(inner.path, {"tests/conftest.py": computed + HOOK_CONFTEST, **MODELS_AND_PLAIN})
    result = strict_run(inner, monkeypatch, "tests")
    assert_failed_closed(result, "  - tests/test_models.py (a test file that needs it, *")


def test_a_file_a_conftest_ignores_for_another_reason_is_not_counted(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_files(inner.path, {"tests/conftest.py": VERSION_CONFTEST, **MODELS_AND_PLAIN})
    result = strict_run(inner, monkeypatch, "tests")
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1)
    assert "test_models.py" not in result.stdout.str()


COMPUTED_UNRELATED = """\
import sys

collect_ignore = [name for name in ("setup.py",) if sys.version_info > (3,)]
try:
    import brainpkg  # noqa: F401
except ImportError:
    pass
"""

SKIPS_ITSELF = """\
import pytest


def test_model():
    pytest.importorskip("brainpkg")
"""


def test_a_file_that_needs_the_tier_and_is_collected_is_not_counted_as_not_collected(inner: pytest.Pytester) -> None:
    # the selection is read at collection (a computed collect_ignore) and the import of brainpkg failed: a file
    # pytest collects is still a collected file, its skip a skipped test
    write_files(
        inner.path,
        {"tests/conftest.py": COMPUTED_UNRELATED, "tests/test_models.py": SKIPS_ITSELF, "tests/test_plain.py": PLAIN},
    )
    result = inner.runpytest("tests")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["tierlock: 0 test files not collected and 1 test skipped because brain absent*"])


@pytest.mark.parametrize(
    ("files", "ignored"),
    [
        ({"tests/conftest.py": FIND_SPEC_CONFTEST, **MODELS_AND_PLAIN}, "tests/test_models.py"),
        (
            {"tests/conftest.py": COMPUTED_UNRELATED, "tests/brain/test_x.py": PLAIN, "tests/test_plain.py": PLAIN},
            "tests/brain/test_x.py",
        ),
    ],
    ids=["a-file-the-project-would-hide", "a-gated-file-after-a-failed-import"],
)
def test_a_file_the_run_ignores_on_purpose_is_not_counted_and_a_strict_run_passes(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, files: dict[str, str], ignored: str
) -> None:
    write_files(inner.path, files)
    result = strict_run(inner, monkeypatch, "tests", "--ignore", ignored)
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1)


def test_every_file_of_a_folder_the_project_hid_is_weighed_one_by_one(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # in the hidden folder, a file that needs nothing and one ignored on purpose sort before the one that needs brain
    conftest = FOLDER_CONFTEST.replace('"brain"', '"models"')
    write_files(
        inner.path,
        {
            "tests/conftest.py": conftest,
            "tests/models/test_a_plain.py": PLAIN,
            "tests/models/test_b_ignored.py": MODELS,
            "tests/models/test_c_models.py": MODELS,
            "tests/test_p.py": PLAIN,
        },
    )
    result = strict_run(inner, monkeypatch, "tests", "--ignore", "tests/models/test_b_ignored.py")
    assert_failed_closed(result, ONE_NEEDED, "  - tests/models/test_c_models.py (a test file that needs it, *")


def test_under_xdist_the_files_the_project_hid_fail_a_strict_run_the_same(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_files(inner.path, {"tests/conftest.py": FIND_SPEC_CONFTEST, **MODELS_AND_PLAIN})
    monkeypatch.setenv("CI", "true")
    result = inner.runpytest_subprocess("tests", "-n", "2")
    assert_failed_closed(result, "  - tests/test_models.py (a test file that needs it, *")


def test_a_root_written_with_capitals_whose_import_failed_counts_the_file_it_hid(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pyproject = inner.path / "pyproject.toml"
    text = pyproject.read_text().replace(
        "[tool.tierlock.tiers.brain]\n", '[tool.tierlock.tiers.brain]\nimport-roots = { brainpkg = ["BrainPkg"] }\n'
    )
    pyproject.write_text(text)
    write_files(
        inner.path,
        {
            "tests/conftest.py": FIND_SPEC_CONFTEST.replace('"brainpkg"', '"BrainPkg"'),
            "tests/test_models.py": MODELS.replace("brainpkg", "BrainPkg"),
            "tests/test_plain.py": PLAIN,
        },
    )
    result = strict_run(inner, monkeypatch, "tests")
    assert_failed_closed(result, "  - tests/test_models.py (a test file that needs it, *")


DOCTESTED = """\
import brainpkg


def double(x):
    '''
    >>> double(2)
    4
    '''
    return brainpkg.twice(x)
"""

LAZY = """\
def double(x):
    '''
    >>> 1 + 1
    2
    '''
    import brainpkg

    return brainpkg.twice(x)
"""

DOCTEST_CONFTEST = """\
import importlib.util

collect_ignore = []
if importlib.util.find_spec("brainpkg") is None:
    collect_ignore.append("src/inner/{module}.py")
"""


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["one-process", "xdist"])
def test_a_module_collected_for_its_doctests_that_the_conftest_hides_fails_a_strict_run_at_its_end(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, workers: list[str]
) -> None:
    # before: "brain absent (none of its test files selected)" and exit 0: the census reads test files, not the
    # modules --doctest-modules collects, and the conftest left this one out before tierlock was asked
    write_files(
        inner.path,
        {
            "conftest.py": DOCTEST_CONFTEST.format(module="brainy"),
            "src/inner/__init__.py": "",
            "src/inner/brainy.py": DOCTESTED,
            "tests/test_plain.py": PLAIN,
        },
    )
    result = strict_run(inner, monkeypatch, "--doctest-modules", "src", "tests", *workers)
    assert_failed_closed(
        result,
        "tierlock: brain absent (none of its test files known before collection)",
        ONE_NEEDED,
        "  - src/inner/brainy.py (a test file that needs it, ignored by the project's conftest after a failed*",
    )
    result.assert_outcomes(passed=1)


#: Modules whose import imports brainpkg (counted when hidden), each a shape of the code that runs at import.
RUN_AT_IMPORT = {
    "in-a-class-body": "class Backend:\n    import brainpkg\n",
    "after-a-try": "try:\n    import json\nexcept ImportError:\n    pass\nfrom brainpkg.sub import twice\n",
    "in-an-except": "try:\n    import fastjson\nexcept ImportError:\n    import brainpkg\n",
    "in-an-if-else": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    pass\nelse:\n    import brainpkg\n",
    "after-5-kb": "# " + "x" * 6000 + "\nimport brainpkg\n",
    "under-a-flag": "FAST = True\nif FAST:\n    import brainpkg\n",
}
#: Modules whose import imports nothing of the tier (not counted: the conftest hid them for another reason).
NOT_AT_IMPORT = {
    "only-when-called": LAZY,
    "for-type-checkers": "import typing\nif typing.TYPE_CHECKING:\n    import brainpkg\n",
    "relative": "from .brainpkg import twice\n",
    "no-python": "import brainpkg\ndef (:\n",  # (unreadable as Python: nothing said of it)
    "null-bytes": "import brainpkg\n\x00\n",
}


#: A conftest that tries brainpkg (the import fails in the run) and hides the module for another reason: whether the
#: module counts is then up to its own import. (Hidden on brainpkg's own flag, as :data:`DOCTEST_CONFTEST` does, it
#: counts whatever it imports: ``test_plugin_doctest_modules_left_out_by_a_flag.py``.)
OTHER_REASON_CONFTEST = """\
import importlib.util
import os

HAS = importlib.util.find_spec("brainpkg") is not None
collect_ignore = []
if os.environ.get("INNER_NEVER_SET") is None:
    collect_ignore.append("src/inner/{module}.py")
"""


@pytest.mark.parametrize("shape", sorted(RUN_AT_IMPORT) + sorted(NOT_AT_IMPORT))
def test_a_hidden_doctested_module_counts_only_when_its_import_imports_the_tier(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    write_files(
        inner.path,
        {
            "conftest.py": OTHER_REASON_CONFTEST.format(module="mod"),
            "src/inner/__init__.py": "",
            "tests/test_plain.py": PLAIN,
        },
    )
    (inner.path / "src/inner/mod.py").write_bytes((RUN_AT_IMPORT.get(shape) or NOT_AT_IMPORT[shape]).encode())
    result = strict_run(inner, monkeypatch, "--doctest-modules", "src", "tests")
    if shape in RUN_AT_IMPORT:
        assert_failed_closed(result, ONE_NEEDED, "  - src/inner/mod.py (a test file that needs it, *")
    else:
        assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1)


def test_a_hidden_module_that_cannot_be_read_is_not_counted(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_files(
        inner.path,
        {
            "conftest.py": DOCTEST_CONFTEST.format(module="mod"),
            "src/inner/__init__.py": "",
            "tests/test_plain.py": PLAIN,
        },
    )
    (inner.path / "src/inner/mod.py").symlink_to(inner.path / "gone.py")  # (a link to nothing)
    result = strict_run(inner, monkeypatch, "--doctest-modules", "src", "tests")
    assert result.ret == 0, result.stdout.str()


#: cattrs' tests/conftest.py, reduced: ``collect_ignore_glob`` computed at run time from literal names only, none of
#: which can cover a file that needs the tier.
LITERAL_BRANCHES_CONFTEST = """\
import platform
import sys

collect_ignore_glob = []
if sys.version_info < (3, 14):
    collect_ignore_glob.append("test_gen_dict_649.py")
    collect_ignore_glob.append("**/test_msgspec_314_cpython.py")
if platform.python_implementation() == "PyPy":
    collect_ignore_glob += ["*_cpython.py"]
"""


def test_a_conftest_whose_computed_collect_ignore_cannot_cover_a_file_that_needs_the_tier_stops_before_collection(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_files(inner.path, {"tests/conftest.py": LITERAL_BRANCHES_CONFTEST, **MODELS_AND_PLAIN})
    result = strict_run(inner, monkeypatch, "tests")
    assert_stopped_before_collection(result)
    assert "passed" not in result.stdout.str()  # before, every test ran and the run failed only at its end


@pytest.mark.parametrize(
    "conftest",
    [
        # a literal name of one branch that covers the file that needs the tier
        LITERAL_BRANCHES_CONFTEST + 'if sys.platform == "win32":\n    collect_ignore_glob.append("*_models.py")\n',
        # a name that is not literal: any file may be left out
        LITERAL_BRANCHES_CONFTEST + 'collect_ignore_glob.append("test_%s.py" % platform.machine())\n',
        # the list read another way
        LITERAL_BRANCHES_CONFTEST + "IGNORED = collect_ignore_glob\n",
    ],
    ids=["a-branch-covers-it", "a-name-not-literal", "the-list-read-elsewhere"],
)
def test_a_conftest_that_may_leave_out_a_file_that_needs_the_tier_is_still_weighed_at_collection(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, conftest: str
) -> None:
    write_files(inner.path, {"tests/conftest.py": conftest, **MODELS_AND_PLAIN})
    result = strict_run(inner, monkeypatch, "tests")
    assert_failed_closed(result, ONE_NEEDED)
    assert "stopping before collection" not in result.stdout.str() + result.stderr.str()
