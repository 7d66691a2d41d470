"""A pyproject.toml whose tierlock settings have any shape loads into a project or one configuration error.

Any TOML value put in place of (or removing) any part of a valid project - its dependencies, an extra, a group
with an include, each key of ``[tool.tierlock]`` and of a tier's table - gives :func:`tierlock.tiers.load_project`
a project, or a :class:`~tierlock.errors.TierlockError` that names the file and what is wrong: never another
exception (which the CLI would print as a traceback).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.pyproject import document as toml_document
from tests.support.shapes import put
from tierlock.errors import TierlockError
from tierlock.tiers import load_project

VALID: dict[str, Any] = {
    "project": {
        "name": "app",
        "version": "0.1",
        "requires-python": ">=3.9",
        "dependencies": ["packaging>=20"],
        "optional-dependencies": {"brain": ["brainpkg>=1; python_version >= '3.9'"], "vision": ["visionpkg"]},
    },
    "dependency-groups": {"dev": ["pytest", {"include-group": "lint"}], "lint": ["ruff"]},
    "tool": {
        "tierlock": {
            "lock-dir": "lockfiles",
            "format": "requirements",
            "backend": "auto",
            "ci-require": ["brain"],
            "conflicts": [["brain", "vision"]],
            "venv": ".venv",
            "platforms": ["linux-x86_64"],
            "no-build": ["base"],
            "census": {"accept": {"brain": ["tests/odd/**"]}},
            "tiers": {
                "brain": {
                    "source": "extra:brain",
                    "layered-on": "base",
                    "probe": ["brainpkg"],
                    "import-roots": {"brainpkg": ["brainpkg"]},
                    "tests": ["tests/brain/**"],
                },
                "vision": {"tests": ["tests/vision/**"]},
                "dev": {"source": "group:dev"},
            },
        }
    },
}

_VALUES = st.recursive(
    st.booleans()
    | st.integers(-3, 10**6)
    | st.text(max_size=10)
    | st.sampled_from(["base", "brain", "extra:nope", "group:dev", "../x", "tests/**", "linux-x86_64", ">=3"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["a", "brain", "tests"]), inner),
    max_leaves=6,
)
_TIERLOCK = ("tool", "tierlock")
_PLACES = st.sampled_from(
    [
        ("project", "name"),
        ("project", "requires-python"),
        ("project", "dependencies"),
        ("project", "dependencies", 0),
        ("project", "optional-dependencies"),
        ("project", "optional-dependencies", "brain"),
        ("project", "optional-dependencies", "brain", 0),
        ("dependency-groups",),
        ("dependency-groups", "dev"),
        ("dependency-groups", "dev", 1),
        ("tool",),
        _TIERLOCK,
        *((*_TIERLOCK, key) for key in VALID["tool"]["tierlock"]),
        (*_TIERLOCK, "census", "accept", "brain"),
        (*_TIERLOCK, "tiers", "brain"),
        *((*_TIERLOCK, "tiers", "brain", key) for key in VALID["tool"]["tierlock"]["tiers"]["brain"]),
        (*_TIERLOCK, "tiers", "brain", "import-roots", "brainpkg"),
        (*_TIERLOCK, "tiers", "brain", "tests", 0),
        (*_TIERLOCK, "tiers", "dev", "source"),
        (*_TIERLOCK, "tiers", "vision", "python"),
    ]
)


@settings(max_examples=150, deadline=None)
@given(place=_PLACES, value=_VALUES, drop=st.booleans())
def test_any_value_anywhere_in_the_settings_loads_a_project_or_one_configuration_error(
    place: tuple[str | int, ...], value: object, drop: bool
) -> None:
    document = put(VALID, place, value, drop=drop)
    with tempfile.TemporaryDirectory() as tmp:
        pyproject = Path(tmp) / "pyproject.toml"
        pyproject.write_text(toml_document(document), encoding="utf-8")
        try:
            project = load_project(pyproject)
        except TierlockError as exc:
            said, tiers = str(exc), {"base"}
        else:
            said, tiers = "loaded", {str(name) for name in project.tiers}
    assert said, "a configuration error that says nothing"
    assert "base" in tiers


def test_the_valid_project_the_cases_start_from_loads(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(toml_document(VALID), encoding="utf-8")
    project = load_project(tmp_path / "pyproject.toml")
    assert {"base", "brain", "vision", "dev"} <= {str(name) for name in project.tiers}
