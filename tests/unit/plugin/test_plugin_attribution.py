"""Which missing tier a skip reason or an exception points to (the backstop's evidence), read without pytest runs.

``owners`` maps an import root of a tier that is not present to that tier; ``words`` maps its distribution names.
A root must stand as a whole word; an ``ImportError`` is found anywhere in the exception's chain, by its module
name, its message or the module that raised it; a literal ``collect_ignore`` is read from a conftest, a computed one
is not.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from tierlock.pytest_plugin.attribution import all_from_skip_reason, from_exception, from_skip_reason
from tierlock.pytest_plugin.selection import possible_collect_ignore, read_collect_ignore
from tierlock.pytest_plugin.static_items import keep, read_items

OWNERS = {"brainpkg": "brain", "yaml": "yaml-tier"}
WORDS = {"brainpkg": "brain", "pyyaml": "yaml-tier", "scikit-learn": "ml"}


@pytest.mark.parametrize(
    ("reason", "expected"),
    [
        ("could not import 'brainpkg.fs': No module named 'brainpkg'", ("brain", "brainpkg")),
        ("could not import 'yaml': No module named 'yaml'", ("yaml-tier", "yaml")),
        ("Requires brainpkg library installed", ("brain", "brainpkg")),
        ("Requires Brainpkg installed", ("brain", "Brainpkg")),
        ("needs PyYAML", ("yaml-tier", "PyYAML")),
        ("needs scikit-learn >= 1.4", ("ml", "scikit-learn")),
        ("brainpkg.fs is not there", ("brain", "brainpkg")),
        # a module (of the project's, or a package) whose own import failed on the root: it runs once the root is there
        ("could not import 'testing.helpers': No module named 'brainpkg'", ("brain", "brainpkg")),
        ("could not import 'other': No module named 'brainpkg.fs'", ("brain", "brainpkg")),
        ("could not import 'other': cannot import name 'x' from 'brainpkg' (unknown location)", ("brain", "brainpkg")),
    ],
)
def test_a_skip_reason_naming_a_missing_root_is_attributed_to_its_tier(reason: str, expected: tuple[str, str]) -> None:
    assert from_skip_reason(reason, OWNERS, WORDS) == expected


@pytest.mark.parametrize(
    "reason",
    [
        "needs network access",
        "needs mybrainpkg",
        "needs brainpkg2 or brainpkg_extra",
        "could not import 'notbrainpkg': No module named 'notbrainpkg'",
        "could not import 'other': No module named 'notbrainpkg'",
        "could not import 'other': cannot import name 'x' from 'notbrainpkg'",
        "",
    ],
)
def test_a_skip_reason_naming_no_missing_root_is_not_attributed(reason: str) -> None:
    assert from_skip_reason(reason, OWNERS, WORDS) is None


@pytest.mark.parametrize(
    ("reason", "expected"),
    [
        ("requires PyYAML and brainpkg", [("yaml-tier", "PyYAML"), ("brain", "brainpkg")]),
        ("requires brainpkg (brainpkg.fs) and yaml", [("brain", "brainpkg"), ("yaml-tier", "yaml")]),
        ("could not import 'brainpkg': needed beside yaml", [("brain", "brainpkg")]),  # (importorskip: its one)
        ("needs brainpkg2 or yaml", [("yaml-tier", "yaml")]),
        ("needs network access", []),
    ],
)
def test_a_skip_reason_naming_roots_of_several_missing_tiers_is_attributed_to_each_once(
    reason: str, expected: list[tuple[str, str]]
) -> None:
    assert all_from_skip_reason(reason, OWNERS, WORDS) == expected
    assert from_skip_reason(reason, OWNERS, WORDS) == (expected[0] if expected else None)


def raised(error: BaseException) -> BaseException:
    try:
        raise error
    except BaseException as exc:
        return exc


def test_a_module_not_found_is_attributed_by_its_module_name() -> None:
    assert from_exception(raised(ModuleNotFoundError("x", name="brainpkg.sub")), OWNERS) == ("brain", "brainpkg")


def test_an_import_error_deep_in_the_chain_is_found() -> None:
    def fixture() -> None:
        try:
            raise ModuleNotFoundError("No module named 'brainpkg'")
        except ModuleNotFoundError as inner:
            raise RuntimeError("the fixture broke") from inner

    with pytest.raises(RuntimeError) as info:
        fixture()
    assert from_exception(info.value, OWNERS) == ("brain", "brainpkg")


def test_an_import_error_wrapped_by_pytests_conftest_failure_is_found() -> None:
    wrapper = RuntimeError("conftest failed")
    wrapper.cause = ImportError("cannot import name 'fit' from 'brainpkg.model'")  # type: ignore[attr-defined]
    assert from_exception(wrapper, OWNERS) == ("brain", "brainpkg")


def test_an_import_error_raised_inside_the_roots_own_module_is_attributed_to_it(tmp_path: Path) -> None:
    package = tmp_path / "brainpkg"
    package.mkdir()
    (package / "__init__.py").write_text("raise ImportError('Brain binary is missing!')\n")
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(ImportError) as info:
            importlib.import_module("brainpkg")
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("brainpkg", None)
    assert from_exception(info.value, OWNERS) == ("brain", "brainpkg")


def test_an_import_error_a_helper_raised_for_the_roots_module_is_attributed_by_the_frame_it_went_through(
    tmp_path: Path,
) -> None:
    # (the root's frame is neither the innermost nor the outermost: every frame the error went through is read)
    package = tmp_path / "brainpkg"
    package.mkdir()
    (package / "__init__.py").write_text("import loader_helper\n\n\ndef load():\n    loader_helper.need()\n")
    (tmp_path / "loader_helper.py").write_text("def need():\n    raise ImportError('the binary is missing')\n")
    sys.path.insert(0, str(tmp_path))
    try:
        module = importlib.import_module("brainpkg")
        with pytest.raises(ImportError) as info:
            module.load()
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("brainpkg", None)
        sys.modules.pop("loader_helper", None)
    assert from_exception(info.value, OWNERS) == ("brain", "brainpkg")


def test_an_import_error_a_doctest_example_raised_is_found_alone_and_among_several_failures() -> None:
    import doctest

    example = doctest.Example("import brainpkg", "")
    test = doctest.DocTest([example], {}, "mod", "mod.py", 1, "")
    missing = raised(ModuleNotFoundError("No module named 'brainpkg'", name="brainpkg"))
    assert missing.__traceback__ is not None
    info = (type(missing), missing, missing.__traceback__)
    unexpected = doctest.UnexpectedException(test, example, info)
    assert from_exception(unexpected, OWNERS) == ("brain", "brainpkg")
    failure = doctest.DocTestFailure(test, example, "other output")
    several = RuntimeError("several")
    several.failures = [failure, unexpected]  # type: ignore[attr-defined]  # (pytest's MultipleDoctestFailures)
    assert from_exception(several, OWNERS) == ("brain", "brainpkg")
    odd = RuntimeError("odd")
    odd.exc_info = (missing,)  # type: ignore[attr-defined]  # (not a (type, value, traceback) triple: not read)
    assert from_exception(odd, OWNERS) is None


@pytest.mark.parametrize(
    "error",
    [ValueError("brainpkg is wrong"), ModuleNotFoundError("No module named 'numpy'", name="numpy"), None],
)
def test_other_errors_are_not_attributed(error: BaseException | None) -> None:
    assert from_exception(raised(error) if error is not None else None, OWNERS) is None


def test_a_cycle_in_the_chain_ends_the_walk() -> None:
    first, second = RuntimeError("a"), RuntimeError("b")
    first.__context__, second.__context__ = second, first
    assert from_exception(first, OWNERS) is None


# -- what the selection reads statically ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("source", "plain", "globs"),
    [
        ('collect_ignore = ["brain", "x.py"]\n', ["brain", "x.py"], []),
        ('collect_ignore = []\ncollect_ignore.append("brain")\n', ["brain"], []),
        ('collect_ignore = ["a"]\ncollect_ignore += ["b"]\ncollect_ignore.extend(["c"])\n', ["a", "b", "c"], []),
        ('collect_ignore_glob = ["brain/*"]\n', [], ["brain/*"]),
        ("import os\n", [], []),
    ],
)
def test_a_literal_collect_ignore_is_read_from_a_conftest(
    tmp_path: Path, source: str, plain: list[str], globs: list[str]
) -> None:
    (tmp_path / "conftest.py").write_text(source)
    assert read_collect_ignore(tmp_path / "conftest.py") == (
        [str(tmp_path / p) for p in plain],
        [str(tmp_path / g) for g in globs],
    )


@pytest.mark.parametrize(
    "source",
    [
        "import sys\ncollect_ignore = []\nif sys.platform == 'x':\n    collect_ignore.append('brain')\n",
        "collect_ignore = [name for name in ('a',)]\n",
        "def pytest_configure(config):\n    collect_ignore.append('x')\ncollect_ignore = []\n",
        "collect_ignore = [\n",
    ],
)
def test_a_computed_collect_ignore_is_not_read(tmp_path: Path, source: str) -> None:
    (tmp_path / "conftest.py").write_text(source)
    assert read_collect_ignore(tmp_path / "conftest.py") is None


def test_the_tests_of_a_file_are_read_with_their_marks_and_lines() -> None:
    source = (
        "import pytest\n\npytestmark = pytest.mark.slow\n\n\n@pytest.mark.gpu\ndef test_a():\n    pass\n\n\n"
        "class TestB:\n    def test_c(self):\n        pass\n\n    def helper(self):\n        pass\n\n\n"
        "def helper():\n    pass\n"
    )
    items = read_items(source, ["test"], ["Test"])
    assert items is not None
    assert [(i.chain, i.first, i.last, sorted(i.marks)) for i in items] == [
        (("test_a",), 6, 8, ["gpu", "slow"]),
        (("TestB", "test_c"), 12, 13, ["slow"]),
    ]
    assert keep(items[0], ["tests", "test_x.py"], "test_x", "")
    assert not keep(items[0], ["tests", "test_x.py"], "not slow", "")
    assert keep(items[1], ["tests", "test_x.py"], "TestB and c", "slow")
    assert not keep(items[1], ["tests", "test_x.py"], "", "gpu")
    assert read_items("def broken(:\n", ["test"], ["Test"]) is None


def test_other_names_beside_collect_ignore_are_not_read_as_ignores(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text('other = ["a"]\ncollect_ignore = ["b"]\n')
    assert read_collect_ignore(tmp_path / "conftest.py") == ([str(tmp_path / "b")], [])


def test_the_chain_walk_stops_after_sixteen_exceptions() -> None:
    def chain(depth: int) -> BaseException:
        error: BaseException = ModuleNotFoundError("No module named 'brainpkg'", name="brainpkg")
        for _ in range(depth - 1):
            wrapper = RuntimeError("wrapped")
            wrapper.__cause__ = error
            error = wrapper
        return error

    assert from_exception(chain(16), OWNERS) == ("brain", "brainpkg")
    assert from_exception(chain(17), OWNERS) is None


def test_a_file_too_deep_to_parse_is_read_as_one_that_does_not_parse(tmp_path: Path) -> None:
    # (thousands of chained operators: ast raises RecursionError, which pytest's own import of the file hits too)
    chain = "x = " + " + ".join(['"a"'] * 5000) + "\n"
    assert read_items("import pytest\n" + chain + "def test_a():\n    pass\n", ["test"], ["Test"]) is None
    (tmp_path / "conftest.py").write_text('collect_ignore = ["brain"]\n' + chain)
    assert read_collect_ignore(tmp_path / "conftest.py") is None


@pytest.mark.parametrize(
    ("source", "plain", "globs"),
    [
        (
            "import sys\ncollect_ignore = []\nif sys.platform == 'x':\n    collect_ignore.append('brain')\n",
            ["brain"],
            [],
        ),
        (
            "collect_ignore_glob = ['a*']\ntry:\n    import x\nexcept ImportError:\n    collect_ignore_glob += ['b*']\n"
            "else:\n    collect_ignore_glob.extend(['c*', 'd*'])\n",
            [],
            ["a*", "b*", "c*", "d*"],
        ),
        ("def pytest_configure(config):\n    collect_ignore.append('x')\ncollect_ignore = []\n", ["x"], []),
        ("collect_ignore = ['one']\n", ["one"], []),
        ("import os\n", [], []),
    ],
)
def test_every_literal_name_of_any_branch_is_what_a_computed_collect_ignore_may_hold(
    tmp_path: Path, source: str, plain: list[str], globs: list[str]
) -> None:
    (tmp_path / "conftest.py").write_text(source)
    found = possible_collect_ignore(tmp_path / "conftest.py")
    assert found is not None
    assert (sorted(found[0]), sorted(found[1])) == (
        [str(tmp_path / p) for p in plain],
        [str(tmp_path / g) for g in globs],
    )


@pytest.mark.parametrize(
    "source",
    [
        "collect_ignore = [name for name in ('a',)]\n",
        "collect_ignore = []\ncollect_ignore.append(NAME)\n",
        "collect_ignore = []\nkept = collect_ignore\n",
        "collect_ignore = []\ncollect_ignore.insert(0, 'x')\n",
        "collect_ignore = [\n",
        "collect_ignore_glob: list = []\n",
    ],
)
def test_a_collect_ignore_with_a_name_that_is_not_literal_may_hold_anything(tmp_path: Path, source: str) -> None:
    (tmp_path / "conftest.py").write_text(source)
    assert possible_collect_ignore(tmp_path / "conftest.py") is None


def test_a_conftest_that_cannot_be_read_may_hold_anything(tmp_path: Path) -> None:
    assert possible_collect_ignore(tmp_path / "conftest.py") is None
    (tmp_path / "conftest.py").write_bytes(b"\xff\xfe")
    assert possible_collect_ignore(tmp_path / "conftest.py") is None
