"""Names: which extras and groups are tooling, and which import names a distribution provides.

A dependency group or an extra that only carries tooling (test runners,
linters, type checkers, docs builders, release tools) is no gating tier:
``tierlock init`` leaves it out unless it is named. An extra counts as
tooling when every one of its own requirements is a tooling package, or when
its name says tooling (``dev``, ``doc``, ``test-full``...) and it carries at
least one tooling package (``test = ["pytest", "numpy"]``).
"""

from __future__ import annotations

from collections.abc import Iterable

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

#: Words in a group or extra name that say tooling, not a part of the product.
TOOLING_WORDS = (
    "dev",
    "docs",
    "doc",
    "lint",
    "linting",
    "test",
    "tests",
    "testing",
    "typing",
    "types",
    "type",
    "mypy",
    "format",
    "style",
    "ci",
    "release",
    "build",
    "bench",
    "benchmark",
    "benchmarks",
    "coverage",
    "pre-commit",
    "tooling",
)

#: Tooling distributions (a name ending in ``*`` is a prefix).
TOOLING_PACKAGES = (
    "pytest",
    "pytest-*",
    "hypothesis",
    "coverage",
    "tox",
    "nox",
    "ruff",
    "black",
    "isort",
    "flake8",
    "flake8-*",
    "pylint",
    "mypy",
    "pyright",
    "types-*",
    "pre-commit",
    "codespell",
    "bandit",
    "sphinx",
    "sphinx-*",
    "sphinxcontrib-*",
    "numpydoc",
    "furo",
    "myst-parser",
    "myst-nb",
    "mkdocs",
    "mkdocs-*",
    "mkdocstrings",
    "mkdocstrings-*",
    "twine",
    "build",
    "asv",
)


def is_tooling(name: str) -> bool:
    """Whether a dependency group or extra called *name* looks like tooling (dev, docs, lint, tests, ...)."""
    words = canonicalize_name(name).split("-")
    return any(w in TOOLING_WORDS for w in words)


#: :data:`TOOLING_PACKAGES` as names and as the prefixes of the patterns ending in ``*`` (one set look-up and one
#: ``startswith`` per name: the census asks for every probe distribution of every tier).
_TOOLING_NAMES = frozenset(TOOLING_PACKAGES)
_TOOLING_PREFIXES = tuple(p[:-1] for p in TOOLING_PACKAGES if p.endswith("*"))


def is_tooling_package(name: str) -> bool:
    dist = canonicalize_name(name)
    return dist in _TOOLING_NAMES or dist.startswith(_TOOLING_PREFIXES)


def is_tooling_extra(name: str, requirements: Iterable[object], project: str = "") -> bool:
    """Whether the extra *name* only carries tooling (see the module docstring); self-references are not counted."""
    own = canonicalize_name(project) if project else None
    dists: list[str] = []
    for raw in requirements:
        try:
            req = Requirement(str(raw))
        except InvalidRequirement:
            continue
        if canonicalize_name(req.name) != own:
            dists.append(req.name)
    tools = [d for d in dists if is_tooling_package(d)]
    if not tools:
        return False
    return len(tools) == len(dists) or is_tooling(name)
