"""A ``pylock.toml`` of any shape is read into problems with their lines, never an exception.

A pylock lockfile is a committed file anyone edits, merges and resolves conflicts in. Any TOML value put in place
of any part of a valid one (a table, a package, a wheel, a hash, a marker, the ``[tool.tierlock]`` header) is read
by tierlock's own pylock lockfiles' parser and by the reader of a pylock another tool wrote into a result: a parse
or its problems, each naming what is wrong.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.pyproject import document as toml_document
from tests.support.shapes import put
from tierlock.lockfiles import foreignpylock, pylock

SHA = "a" * 64
VALID: dict[str, Any] = {
    "lock-version": "1.0",
    "created-by": "tierlock",
    "requires-python": ">=3.9",
    "environments": ['sys_platform == "linux"'],
    "extras": ["brain"],
    "dependency-groups": ["dev"],
    "default-groups": ["dev"],
    "packages": [
        {
            "name": "pkg",
            "version": "1.0",
            "marker": 'python_version >= "3.9"',
            "requires-python": ">=3.8",
            "wheels": [
                {
                    "name": "pkg-1.0-py3-none-any.whl",
                    "url": "https://example.invalid/pkg-1.0-py3-none-any.whl",
                    "hashes": {"sha256": SHA},
                }
            ],
        },
        {
            "name": "other",
            "version": "2.0",
            "sdist": {"name": "other-2.0.tar.gz", "url": "https://example.invalid/o.tar.gz", "hashes": {"sha256": SHA}},
        },
    ],
    "tool": {"tierlock": {"tier": "brain", "inputs-digest": "sha256:" + SHA, "backend": "uv"}},
}

_VALUES = st.recursive(
    st.booleans() | st.integers(-3, 10**6) | st.text(max_size=10) | st.sampled_from(["1.0", ">=3", 'os_name == "x"']),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)
_PLACES = st.sampled_from(
    [
        ("lock-version",),
        ("requires-python",),
        ("environments",),
        ("environments", 0),
        ("extras",),
        ("packages",),
        ("packages", 0),
        ("packages", 0, "name"),
        ("packages", 0, "version"),
        ("packages", 0, "marker"),
        ("packages", 0, "requires-python"),
        ("packages", 0, "wheels"),
        ("packages", 0, "wheels", 0),
        ("packages", 0, "wheels", 0, "name"),
        ("packages", 0, "wheels", 0, "hashes"),
        ("packages", 0, "wheels", 0, "hashes", "sha256"),
        ("packages", 1, "sdist"),
        ("packages", 1, "sdist", "hashes"),
        ("tool",),
        ("tool", "tierlock"),
        ("tool", "tierlock", "tier"),
        ("tool", "tierlock", "inputs-digest"),
    ]
)


def _put(place: tuple[str | int, ...], value: object, *, drop: bool = False) -> str:
    """The valid pylock with *value* at *place* (or, with *drop*, without it), as one TOML line per key."""
    return toml_document(put(VALID, place, value, drop=drop))


@settings(max_examples=150, deadline=None)
@given(place=_PLACES, value=_VALUES, drop=st.booleans())
def test_any_value_anywhere_in_a_pylock_reads_into_a_parse_or_problems(
    place: tuple[str | int, ...], value: object, drop: bool
) -> None:
    text = _put(place, value, drop=drop)
    parsed = pylock.parse(text)
    assert parsed.pylock is not None or parsed.problems
    for problem in parsed.problems:
        assert problem.detail
        assert problem.line is None or 1 <= problem.line <= text.count("\n") + 1
    result = foreignpylock.read(Path("pylock.toml"), text, SHA, root="/p", extras=("brain",), groups=("dev",))
    for problem in result.problems:
        assert problem.detail


def test_the_valid_pylock_the_cases_start_from_reads_whole() -> None:
    parsed = pylock.parse(_put(("created-by",), "tierlock"))
    assert parsed.pylock is not None
    assert [p.detail for p in parsed.problems if "invalid" in p.detail] == []
