"""``[tool.tierlock].lock`` names the lock the project commits; every tier then reads its closure from it.

A bad value is a configuration error naming the key, its line and what is
allowed; with ``uv.lock``, uv's declared conflicts between the project's own
extras and groups become conflicts between their tiers. Whether the project
is a package (installed from its tree) follows uv's rule.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tierlock.errors import ConfigError
from tierlock.tiers import load_project

BASE = """\
[project]
name = "proj"
version = "1.2"
dependencies = []

[project.optional-dependencies]
brain = ["numpy"]
old = ["numpy<2"]

[dependency-groups]
test = ["pytest"]

[tool.tierlock]
{table}
[tool.tierlock.tiers.brain]
[tool.tierlock.tiers.old]
[tool.tierlock.tiers.test]
{tail}"""


def _project(tmp_path: Path, table: str, tail: str = "") -> Path:
    path = tmp_path / "pyproject.toml"
    path.write_text(BASE.format(table=table, tail=tail), encoding="utf-8")
    return path


@pytest.mark.parametrize("name", ["uv.lock", "pylock.toml", "pylock.dev.toml", "sub/uv.lock"])
def test_every_tier_reads_the_lock_the_key_names(tmp_path: Path, name: str) -> None:
    project = load_project(_project(tmp_path, f'lock = "{name}"'))
    assert project.lock == tmp_path / name
    assert {t.lockfile for t in project.tiers.values()} == {tmp_path / name}


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ('"poetry.lock"', "must name uv.lock or a PEP 751 lock (pylock.toml, pylock.NAME.toml), not 'poetry.lock'"),
        ('"/abs/uv.lock"', "must be a path inside the project, relative to its root, not '/abs/uv.lock'"),
        (
            '"../uv.lock"',
            "must be a path inside the project, relative to its root, or the uv.lock of the uv workspace the project "
            "is a member of, not '../uv.lock'",
        ),
        ("true", 'must be a path such as "uv.lock" or "pylock.toml" (relative to the project root)'),
    ],
)
def test_a_bad_lock_is_a_config_error_at_its_line(tmp_path: Path, value: str, says: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_project(_project(tmp_path, f"lock = {value}"))
    (problem,) = caught.value.problems
    assert problem.message == says
    assert problem.where == "[tool.tierlock].lock"
    assert problem.line == 14


def test_lock_dir_and_format_with_a_lock_are_named_as_meaningless(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_project(_project(tmp_path, 'lock = "uv.lock"\nlock-dir = "locks"\nformat = "pylock"'))
    assert [(p.where, p.hint) for p in caught.value.problems] == [
        ("[tool.tierlock].lock-dir", "remove lock-dir"),
        ("[tool.tierlock].format", "remove format"),
    ]


def test_uvs_conflicts_between_the_projects_extras_are_conflicts_between_their_tiers(tmp_path: Path) -> None:
    tail = (
        '\n[tool.uv]\nconflicts = [[{ extra = "brain" }, { extra = "old" }], '
        '[{ package = "other", extra = "x" }, { group = "test" }]]\n'
    )
    project = load_project(_project(tmp_path, 'lock = "uv.lock"', tail))
    assert project.conflicts == (frozenset({"brain", "old"}),)
    assert project.exclusive("brain", "old")
    assert not project.exclusive("brain", "test")
    own = load_project(_project(tmp_path, "", tail))  # tierlock's own lockfiles: [tool.tierlock].conflicts only
    assert own.conflicts == ()


@pytest.mark.parametrize(
    ("tail", "package"),
    [
        ("", False),
        ('\n[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n', True),
        ('\n[build-system]\nrequires = ["hatchling"]\n\n[tool.uv]\npackage = false\n', False),
        ("\n[tool.uv]\npackage = true\n", True),
    ],
    ids=["no build system", "a build system", "uv says no", "uv says yes"],
)
def test_the_project_is_a_package_by_uvs_rule(tmp_path: Path, tail: str, package: bool) -> None:
    project = load_project(_project(tmp_path, "", tail))
    assert project.package is package
    assert project.version == "1.2"


def test_only_the_projects_own_extras_and_groups_in_uvs_conflicts_become_tier_conflicts(tmp_path: Path) -> None:
    tail = (
        "\n[tool.uv]\nconflicts = [\n"
        '  [{ package = "other", extra = "brain" }, { group = "test" }],\n'
        '  ["not a table", { package = "Proj", extra = "brain" }, { extra = "old" }, { group = "test" }],\n'
        '  [{ package = "other", extra = "x" }, { extra = "old" }, { group = "test" }],\n'
        "]\n"
    )
    project = load_project(_project(tmp_path, 'lock = "uv.lock"', tail))
    assert project.conflicts == (frozenset({"brain", "old", "test"}), frozenset({"old", "test"}))


def test_a_lock_path_with_a_leading_backslash_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_project(_project(tmp_path, 'lock = "\\\\\\\\share\\\\uv.lock"'))
    assert "must be a path inside the project" in caught.value.problems[0].message
