"""Test-path globs."""

from __future__ import annotations

import pytest

from tierlock.tiers.globs import matches


@pytest.mark.parametrize(
    ("path", "glob", "expected"),
    [
        ("tests/brain/test_a.py", "tests/brain/**", True),
        ("tests/brain/deep/test_a.py", "tests/brain/**", True),
        ("tests/brain/test_a.py", "tests/brain", True),
        ("tests/brain/test_a.py", "tests/brain/", True),
        ("tests/brainy/test_a.py", "tests/brain", False),
        ("tests/test_brain.py", "tests/*brain*.py", True),
        ("tests/sub/test_brain.py", "tests/*brain*.py", False),
        ("tests/sub/test_brain.py", "**/test_brain.py", True),
        ("test_brain.py", "**/test_brain.py", True),
        ("tests/test_a.py", "./tests/test_?.py", True),
        ("tests/test_ab.py", "tests/test_?.py", False),
        ("tests/test_b.py", "tests/test_[ab].py", True),
        ("tests/test_c.py", "tests/test_[!ab].py", True),
    ],
)
def test_glob_matching(path: str, glob: str, expected: bool) -> None:
    assert matches(path, [glob]) is expected
