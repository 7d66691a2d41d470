"""A test named inside a gated file while its folder is named too: one skipped test, never imported.

pytest folds ``pytest tests/brain tests/brain/test_b.py::test_brain`` into the folder alone; the named test must
still stand as one skipped test (as when it is named alone), and the folder's other files as files not collected.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.plugin_project import inner_pyproject, laptop

IMPORTS_BRAIN = """\
from pathlib import Path

Path(__file__).with_name("imported.flag").touch()
import brainpkg


def test_brain():
    assert brainpkg
"""


def test_a_test_named_inside_a_gated_folder_also_named_is_one_skipped_test(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop(monkeypatch)
    pytester.makefile(".toml", pyproject=inner_pyproject(cacheprovider=False))
    (pytester.path / "tests" / "brain").mkdir(parents=True)
    for name in ("test_b.py", "test_c.py"):
        (pytester.path / "tests" / "brain" / name).write_text(IMPORTS_BRAIN)
    result = pytester.runpytest("-rs", "-p", "no:randomly", "tests/brain", "tests/brain/test_b.py::test_brain")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(
        [
            "tierlock: brain absent — 1 test file not collected and 1 named test skipped; to run them: *",
            "tierlock: 1 test file not collected and 1 test skipped because brain absent; to run them: *",
            "SKIPPED [[]1[]] tests/brain/test_b.py:1: in a gated file, not imported: tier brain is absent; *",
        ]
    )
    assert sorted(Path(pytester.path).rglob("imported.flag")) == []
