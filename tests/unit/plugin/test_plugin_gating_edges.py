"""Gating edges of the pytest plugin a plausible regression would slip through: a gated folder's own conftest.py,
and node ids that name a file of the same base name elsewhere, or another file beside a gated one.

Each test here was shown to fail on the regression it names (the mutant applied by hand) and to pass on the code.
The inner project's ``brain`` tier (root ``brainpkg``, never installed here) gates ``tests/brain/**``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.plugin_project import inner_pyproject, laptop

PYPROJECT = inner_pyproject(cacheprovider=False)

IMPORTS_BRAIN = """\
from pathlib import Path

Path(__file__).with_name("imported.flag").touch()
import brainpkg


def test_brain():
    assert brainpkg
"""


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    laptop(monkeypatch)
    pytester.makefile(".toml", pyproject=PYPROJECT)
    (pytester.path / "tests" / "brain").mkdir(parents=True)
    (pytester.path / "tests" / "test_base.py").write_text("def test_base():\n    assert True\n")
    return pytester


def flags(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("imported.flag"))


@pytest.mark.parametrize("depth", ["tests/brain", "tests/brain/deeper"])
def test_a_gated_folders_conftest_is_never_imported(inner: pytest.Pytester, depth: str) -> None:
    folder = inner.path / depth
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "conftest.py").write_text(IMPORTS_BRAIN.split("\n\n\n", maxsplit=1)[0] + "\n")
    (folder / "test_deep.py").write_text(IMPORTS_BRAIN)
    result = inner.runpytest("-rs")
    result.assert_outcomes(passed=1)
    assert result.ret == 0
    result.stdout.fnmatch_lines(["tierlock: brain absent — 1 test file not collected;*"])
    assert flags(inner.path) == []


def test_a_sibling_folder_whose_name_starts_like_the_gated_one_is_collected(inner: pytest.Pytester) -> None:
    (inner.path / "tests" / "brainy").mkdir()
    (inner.path / "tests" / "brainy" / "conftest.py").write_text("")
    (inner.path / "tests" / "brainy" / "test_brainy.py").write_text("def test_brainy():\n    assert True\n")
    (inner.path / "tests" / "brain" / "test_brain.py").write_text(IMPORTS_BRAIN)
    result = inner.runpytest("-rs")
    result.assert_outcomes(passed=2)
    assert flags(inner.path) == []


def outcomes(inner: pytest.Pytester, *args: str) -> tuple[list[str], list[str]]:
    """Node ids of the passed and the skipped tests of an in-process run."""
    passed, skipped, failed = inner.inline_run(*args).listoutcomes()
    assert not failed, [r.longreprtext for r in failed]
    return sorted(r.nodeid for r in passed), sorted(r.nodeid for r in skipped)


@pytest.mark.parametrize(
    "other",
    [
        "tests/other/test_b.py",  # the same base name in another folder
        "tests/brain/test_c.py",  # another file beside the gated one (gated too)
        "tests/test_b.py",  # another file with the same base name, one folder up
    ],
)
def test_a_node_id_inside_another_file_names_no_test_in_the_gated_file(inner: pytest.Pytester, other: str) -> None:
    (inner.path / "tests" / "brain" / "test_b.py").write_text(IMPORTS_BRAIN)
    path = inner.path / other
    path.parent.mkdir(parents=True, exist_ok=True)
    if other.startswith("tests/brain/"):
        path.write_text(IMPORTS_BRAIN.replace("def test_brain", "def test_other"))
    else:
        path.write_text("def test_other():\n    assert True\n")
    passed, skipped = outcomes(inner, "tests/brain/test_b.py", f"{other}::test_other")
    if other.startswith("tests/brain/"):
        assert passed == []
        assert skipped == sorted(["tests/brain/test_b.py::test_b.py", f"{other}::test_other"])
    else:
        assert passed == [f"{other}::test_other"]
        assert skipped == ["tests/brain/test_b.py::test_b.py"]
    assert flags(inner.path) == []


def test_a_node_id_in_a_gated_file_is_found_only_in_that_file(inner: pytest.Pytester) -> None:
    for name in ("test_a.py", "test_b.py"):
        (inner.path / "tests" / "brain" / name).write_text(IMPORTS_BRAIN)
    (inner.path / "tests" / "brain" / "sub").mkdir()
    (inner.path / "tests" / "brain" / "sub" / "test_b.py").write_text(IMPORTS_BRAIN)
    args = ("tests/brain/test_a.py", "tests/brain/sub/test_b.py", "tests/brain/test_b.py::test_brain")
    passed, skipped = outcomes(inner, *args)
    assert passed == []
    assert skipped == [
        "tests/brain/sub/test_b.py::test_b.py",
        "tests/brain/test_a.py::test_a.py",
        "tests/brain/test_b.py::test_brain",
    ]
    assert flags(inner.path) == []
