"""A conftest hook that skips the tests of a mark named after nothing the project declares, on a flag of a root.

``@pytest.mark.gpu`` for a tier named ``brain``: the conftest keeps ``HAS_BRAIN`` from ``try: import brainpkg`` and
its ``pytest_collection_modifyitems`` adds ``skip("no gpu here")`` to every ``gpu`` test while the flag is false (or
its ``pytest_runtest_setup`` calls ``pytest.skip``, or it returns early ``if HAS_BRAIN``). The mark names nothing,
the reason names nothing, and the skip's phase imports nothing: a strict run went green. The flag read in the same
branch ties the mark to ``brainpkg``, so the census reads those tests as needing ``brain`` and a strict run stops
before collection. A branch that reads no flag (``--runslow``, a GPU probe of a present package) ties nothing.
"""

from __future__ import annotations

import pytest

from tests.support.plugin_project import assert_stopped_before_collection, inner_project, strict_run

HEAD = """\
import pytest

try:
    import brainpkg  # noqa: F401
    HAS_BRAIN = True
except ImportError:
    HAS_BRAIN = False


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true")


def pytest_configure(config):
    for name in ("gpu", "slow", "cuda"):
        config.addinivalue_line("markers", f"{name}: a project's own mark")
"""

MODIFYITEMS = """\

def pytest_collection_modifyitems(config, items):
    skip_gpu = pytest.mark.skip(reason="no gpu here")
    for item in items:
        if "gpu" in item.keywords and not HAS_BRAIN:
            item.add_marker(skip_gpu)
        if "slow" in item.keywords and not config.getoption("--runslow"):
            item.add_marker(pytest.mark.skip(reason="need --runslow"))
        if item.get_closest_marker("cuda") and not CUDA:
            item.add_marker(pytest.mark.skip(reason="no cuda"))


CUDA = sum([]) > 0
"""

EARLY_RETURN = """\

def pytest_collection_modifyitems(config, items):
    if HAS_BRAIN:
        return
    for item in items:
        if item.get_closest_marker("gpu"):
            item.add_marker(pytest.mark.skip(reason="no gpu here"))
"""

RUNTEST_SETUP = """\

def pytest_runtest_setup(item):
    if not HAS_BRAIN:
        if "gpu" in item.keywords:
            pytest.skip("no gpu here")
"""

TESTS = """\
import pytest


@pytest.mark.gpu
def test_gpu():
    pass


@pytest.mark.slow
def test_slow():
    pass


@pytest.mark.cuda
def test_cuda():
    pass


def test_plain():
    pass
"""


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """The inner project with the conftest whose hook skips the tests of ``gpu``, ``slow`` and ``cuda``."""
    files = {"testing/conftest.py": HEAD + MODIFYITEMS, "testing/test_marks.py": TESTS}
    return inner_project(pytester, monkeypatch, files, tests="testing/brain/**")


@pytest.mark.parametrize("hook", [MODIFYITEMS, EARLY_RETURN, RUNTEST_SETUP], ids=["modifyitems", "early", "setup"])
def test_a_strict_run_whose_hook_skips_a_mark_named_after_nothing_on_a_missing_roots_flag_fails_closed(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, hook: str
) -> None:
    (inner.path / "testing" / "conftest.py").write_text(HEAD + hook, encoding="utf-8")
    assert_stopped_before_collection(strict_run(inner, monkeypatch, "testing"))


def test_a_strict_run_of_the_tests_of_marks_no_flag_skips_passes(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = strict_run(inner, monkeypatch, "testing", "-k", "not gpu")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.assert_outcomes(passed=1, skipped=2)


def test_the_census_names_the_hook_and_the_flag_that_tie_the_mark_to_the_root(inner: pytest.Pytester) -> None:
    from tierlock.census import CensusTier, census

    found = census(inner.path, [CensusTier("brain", ("brainpkg",), ())]).tier("brain").outside
    assert [(u.file, u.test) for u in found] == [("testing/test_marks.py", "test_gpu")]
    assert found[0].how.startswith("@pytest.mark.gpu (skipped by the hook at testing/conftest.py:")
    assert "without brainpkg: testing/conftest.py:4 tries brainpkg" in found[0].how


def _hook_marks(body: str) -> dict[str, list[str]]:
    import ast
    import textwrap

    from tierlock.census.hookmarks import hook_skips

    tree = ast.parse(textwrap.dedent(body))
    node = tree.body[0]
    assert isinstance(node, ast.FunctionDef)
    return hook_skips(node)


@pytest.mark.parametrize(
    ("body", "found"),
    [
        (
            """\
            def pytest_collection_modifyitems(config, items):
                for item in items:
                    if item.get_closest_marker("gpu") and not HAS and bool(item):
                        item.add_marker(pytest.mark.skip(reason="no gpu"), False)
            """,
            {"gpu": ["HAS"]},
        ),
        (
            """\
            def pytest_collection_modifyitems(config, items):
                if not HAS:
                    for item in items:
                        if "gpu" in item.keywords:
                            item.add_marker(pytest.mark.slow)
            """,
            {},
        ),
        (
            """\
            def pytest_runtest_setup(item):
                if HAS:
                    print("the model is there")
                elif item.get_closest_marker(name="cuda"):
                    pytest.skip("no cuda")
            """,
            {"cuda": ["HAS"]},
        ),
    ],
    ids=["bare-call-and-positional-append", "a-marker-that-is-no-skip", "else-branch-after-the-flag"],
)
def test_a_hooks_branch_ties_a_mark_to_a_flag_only_when_it_adds_a_skip(body: str, found: dict[str, list[str]]) -> None:
    assert _hook_marks(body) == found


def test_on_a_laptop_the_summary_counts_the_skipped_test_that_needs_the_tier_and_the_remedy(
    inner: pytest.Pytester,
) -> None:
    # the skip's reason names nothing: the test the census read as needing the tier before collection is counted
    # (one test, not its file; the tests of ``slow`` and ``cuda`` skip for other reasons), never "none of its tests
    # were selected"
    result = inner.runpytest("testing", "-rs")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "tierlock: 0 test files not collected and 1 test skipped because brain absent; to run them: "
            "tierlock lock brain*",
            "SKIPPED * no gpu here; it needs brainpkg (read before collection) (tier brain is absent; to run these*",
        ]
    )
    assert "none of its tests were selected" not in result.stdout.str()


def test_a_hook_written_as_a_method_of_a_class_makes_no_mark_alias() -> None:
    from tierlock.census.filefacts import read_file

    source = "class Plugin:\n    def pytest_collection_modifyitems(self, config, items):\n        for item in items:\n"
    source += '            if "gpu" in item.keywords and not HAS_BRAIN:\n'
    source += '                item.add_marker(pytest.mark.skip(reason="no gpu"))\n'
    assert read_file(source).aliases == {}
    module_level = "def pytest_collection_modifyitems(config, items):\n    for item in items:\n"
    module_level += '        if "gpu" in item.keywords and not HAS_BRAIN:\n'
    module_level += '            item.add_marker(pytest.mark.skip(reason="no gpu"))\n'
    assert list(read_file(module_level).aliases) == ["@gpu"]
