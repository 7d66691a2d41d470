"""A test named inside a gated file while a folder above it is named too: one skipped test, never imported.

pytest folds ``pytest tests/brain tests/brain/test_b.py::test_brain`` (or ``pytest tests …``) into the folder
alone; the named test must still stand as one skipped test (as when it is named alone), the gated folder's other
files as files not collected, and no gated file is imported.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.plugin_project import inner_project

IMPORTS_BRAIN = """\
from pathlib import Path

Path(__file__).with_name("imported.flag").touch()
import brainpkg


def test_brain():
    assert brainpkg
"""

NAMED = "tests/brain/test_b.py::test_brain"
DEEP = "tests/brain/sub/test_d.py::test_brain"


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    files = {f"tests/brain/{name}": IMPORTS_BRAIN for name in ("test_b.py", "test_c.py", "sub/test_d.py")}
    files["tests/brain/.scratch/test_s.py"] = IMPORTS_BRAIN  # pytest never recurses into a dot folder: not counted
    files["tests/test_base.py"] = "def test_base():\n    assert True\n"
    return inner_project(pytester, monkeypatch, files)


@pytest.mark.parametrize(
    ("args", "passed", "skipped", "files"),
    [
        (("tests/brain", NAMED), 0, [NAMED], 2),
        (("tests", NAMED), 1, [NAMED], 2),
        (("tests", DEEP, NAMED), 1, [DEEP, NAMED], 1),
        ((NAMED,), 0, [NAMED], 0),
    ],
)
def test_a_test_named_inside_a_gated_folder_also_named_is_one_skipped_test(
    inner: pytest.Pytester, args: tuple[str, ...], passed: int, skipped: list[str], files: int
) -> None:
    result = inner.runpytest("-rs", "-p", "no:randomly", *args)
    result.assert_outcomes(passed=passed, skipped=len(skipped))
    named = f"{len(skipped)} named test{'s' if len(skipped) > 1 else ''} skipped"
    kept = f"{files} test file{'s' if files != 1 else ''} not collected"
    header = f"tierlock: brain absent — {kept + ' and ' if files else ''}{named}; to run them: *"
    summary = (
        f"tierlock: {kept} and {len(skipped)} test{'s' if len(skipped) > 1 else ''} skipped because brain absent; *"
    )
    result.stdout.fnmatch_lines([header, summary])
    for nodeid in skipped:
        path = nodeid.split("::")[0]
        result.stdout.fnmatch_lines(
            [f"SKIPPED [[]1[]] {path}:1: in a gated file, not imported: tier brain is absent; *"]
        )
    assert sorted(Path(inner.path).rglob("imported.flag")) == []


def test_a_test_named_outside_a_gated_folder_leaves_the_folder_and_its_conftest_alone(inner: pytest.Pytester) -> None:
    (inner.path / "tests" / "brain" / "conftest.py").write_text(IMPORTS_BRAIN.split("\n\n\n", maxsplit=1)[0] + "\n")
    result = inner.runpytest("-p", "no:randomly", "tests", "tests/test_base.py::test_base")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["tierlock: 3 test files not collected and 0 tests skipped because brain absent; *"])
    assert sorted(Path(inner.path).rglob("imported.flag")) == []
