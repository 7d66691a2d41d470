"""Extra names compared as PEP 685 says and dependency-group names as PEP 735 says, in every place they are read.

Two declarations of one normalised extra (SQLAlchemy's ``postgresql-psycopg2binary`` beside its legacy
``postgresql_psycopg2binary``) are one extra, as pip installs it from the metadata setuptools writes: the
union of both lists. Two dependency groups of one normalised name are refused with both lines named, as
``packaging``, pip and uv refuse them. A tier whose source declares requirements never ends up with nothing
to probe.
"""

from __future__ import annotations

import json
import textwrap
import tomllib
from pathlib import Path

import pytest

from tierlock import load_project
from tierlock.cli import main
from tierlock.errors import ConfigError, Problem

SQLALCHEMY_SHAPE = """\
[project]
name = "SQLAlchemy"
version = "2.1"
dependencies = ["typing-extensions>=4.6.0"]

[project.optional-dependencies]
asyncio = ["greenlet>=1"]
postgresql-asyncpg = [
    "sqlalchemy[asyncio]",
    "asyncpg",
]
postgresql-psycopg2binary = ["psycopg2-binary"]
mssql-pymssql = ["pymssql"]

# legacy pre-pep-685 names
postgresql_asyncpg = ["sqlalchemy[postgresql-asyncpg]"]
postgresql_psycopg2binary = ["sqlalchemy[postgresql-psycopg2binary]"]
mssql_pymssql = ["sqlalchemy[mssql-pymssql]"]
"""


def write(folder: Path, text: str) -> Path:
    path = folder / "pyproject.toml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def problems(folder: Path, text: str) -> list[Problem]:
    write(folder, text)
    with pytest.raises(ConfigError) as exc:
        load_project(folder)
    return list(exc.value.problems)


def test_an_extra_declared_again_under_its_legacy_spelling_keeps_the_requirements_of_both(
    project_dir: Path,
) -> None:
    write(project_dir, SQLALCHEMY_SHAPE + "[tool.tierlock.tiers.postgresql-psycopg2binary]\n")
    tier = load_project(project_dir).tier("postgresql_psycopg2binary")
    assert [str(r) for r in tier.requirements] == ["psycopg2-binary"]
    assert tier.probe == ("psycopg2-binary",)
    assert tier.source == "extra:postgresql-psycopg2binary"


def test_the_legacy_spelling_first_and_the_new_one_second_read_the_same(project_dir: Path) -> None:
    text = """\
    [project]
    name = "me"
    version = "1"
    [project.optional-dependencies]
    Pg_Binary = ["me[pg-binary]", "extra-one"]
    "pg.binary" = ["psycopg2-binary"]
    [tool.tierlock.tiers.pg-binary]
    """
    write(project_dir, text)
    tier = load_project(project_dir).tier("pg-binary")
    assert [str(r) for r in tier.requirements] == ["extra-one", "psycopg2-binary"]
    assert tier.probe == ("extra-one", "psycopg2-binary")


def test_a_source_naming_an_extra_in_any_spelling_finds_its_declarations(project_dir: Path) -> None:
    write(project_dir, SQLALCHEMY_SHAPE + '[tool.tierlock.tiers.pg]\nsource = "extra:PostgreSQL.Asyncpg"\n')
    tier = load_project(project_dir).tier("pg")
    assert tier.source == "extra:postgresql-asyncpg"
    assert [str(r) for r in tier.requirements] == ["greenlet>=1", "asyncpg"]


def test_a_self_reference_to_an_extra_in_another_spelling_brings_its_requirements(project_dir: Path) -> None:
    text = """\
    [project]
    name = "Me.App"
    version = "1"
    [project.optional-dependencies]
    "Fast_IO" = ["uvloop"]
    all = ["me_app[fast.io]"]
    [tool.tierlock.tiers.all]
    """
    write(project_dir, text)
    assert load_project(project_dir).tier("all").probe == ("uvloop",)


def test_two_dependency_groups_of_one_normalised_name_are_refused_naming_both_lines(project_dir: Path) -> None:
    text = """\
    [project]
    name = "me"
    version = "1"
    [dependency-groups]
    Dev = ["pytest"]
    docs = ["sphinx"]
    dev = ["ruff"]
    """
    (found,) = problems(project_dir, text)
    assert found.message == (
        "dependency groups 'dev' (line 7) and 'Dev' (line 5) are two spellings of one name ('dev'), "
        "which pip and uv refuse: merge them into one group"
    )
    assert found.line == 7
    assert found.where == "[dependency-groups].dev"


def test_a_group_included_under_another_spelling_is_recorded_by_its_normalised_name(project_dir: Path) -> None:
    text = """\
    [project]
    name = "me"
    version = "1"
    [dependency-groups]
    Test_Base = ["pytest"]
    ci = [{include-group = "test.base"}, "coverage"]
    [tool.tierlock.tiers.ci]
    """
    write(project_dir, text)
    tier = load_project(project_dir).tier("ci")
    assert tier.include_groups == ("test-base",)
    assert tier.probe == ("pytest", "coverage")


@pytest.mark.parametrize(
    ("extras", "declared"),
    [
        ('loop = ["me[loop]"]', "me[loop]"),
        ('loop = ["me"]', "me"),
        ('loop = ["me[Loop]", "Me[nothing]"]', "me[Loop], Me[nothing]"),
    ],
)
def test_an_extra_whose_requirements_name_only_the_project_itself_is_a_configuration_error(
    project_dir: Path, extras: str, declared: str
) -> None:
    text = f'[project]\nname = "me"\nversion = "1"\n[project.optional-dependencies]\n{extras}\n'
    (found,) = problems(project_dir, text + "[tool.tierlock.tiers.loop]\n")
    assert found.message == (
        f"extra:loop declares requirements ({declared}) but leaves the tier nothing to probe: "
        "they name only the project itself"
    )
    assert found.where == "[tool.tierlock.tiers.loop]"


def test_an_empty_probe_list_for_a_source_with_requirements_is_a_configuration_error(project_dir: Path) -> None:
    text = '[project]\nname = "me"\nversion = "1"\n[project.optional-dependencies]\ngpu = ["torch", "numpy"]\n'
    (found,) = problems(project_dir, text + "[tool.tierlock.tiers.gpu]\nprobe = []\n")
    assert found.message == (
        "is empty, but extra:gpu declares 2 requirement(s): name the distributions that must be consumable "
        "(or leave probe out to probe torch, numpy)"
    )
    assert found.where == "[tool.tierlock.tiers.gpu].probe"


def test_a_source_that_declares_nothing_may_have_nothing_to_probe(project_dir: Path) -> None:
    text = (
        '[project]\nname = "me"\nversion = "1"\n[dependency-groups]\nsqlite = []\nfile = [{include-group = "sqlite"}]\n'
    )
    write(project_dir, text + "[tool.tierlock.tiers.sqlite]\n[tool.tierlock.tiers.file]\n")
    project = load_project(project_dir)
    assert project.tier("sqlite").probe == ()
    assert project.tier("file").probe == ()


def test_init_proposes_one_tier_per_normalised_extra_and_no_copies(
    project_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(project_dir, SQLALCHEMY_SHAPE)
    assert main(["--project", str(project_dir), "--json", "init", "--dry-run", "--no-pytest-marker"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [(t["name"], t["source"]) for t in doc["tiers"]] == [
        ("asyncio", "extra:asyncio"),
        ("postgresql-asyncpg", "extra:postgresql-asyncpg"),
        ("postgresql-psycopg2binary", "extra:postgresql-psycopg2binary"),
        ("mssql-pymssql", "extra:mssql-pymssql"),
    ]
    assert not [t for t in doc["tiers"] if t["name"].endswith("-extra")]


def test_init_writes_tiers_that_each_probe_their_driver(project_dir: Path) -> None:
    path = write(project_dir, SQLALCHEMY_SHAPE)
    assert main(["--project", str(project_dir), "init", "-q", "--no-pytest-marker"]) == 0
    assert "-extra" not in tomllib.loads(path.read_text(encoding="utf-8"))["tool"]["tierlock"]["tiers"]
    project = load_project(project_dir)
    assert {str(t.name): t.probe for t in project.tiers.values() if not t.is_base} == {
        "asyncio": ("greenlet",),
        "postgresql-asyncpg": ("greenlet", "asyncpg"),
        "postgresql-psycopg2binary": ("psycopg2-binary",),
        "mssql-pymssql": ("pymssql",),
    }


def test_with_the_project_s_uv_lock_uv_conflicts_in_a_legacy_spelling_keep_the_normalised_tiers_apart(
    project_dir: Path,
) -> None:
    text = SQLALCHEMY_SHAPE + textwrap.dedent(
        """\
        [tool.uv]
        conflicts = [[{ extra = "postgresql_psycopg2binary" }, { extra = "MSSQL.pymssql" }]]

        [tool.tierlock]
        lock = "uv.lock"

        [tool.tierlock.tiers.postgresql-psycopg2binary]
        [tool.tierlock.tiers.mssql-pymssql]
        """
    )
    write(project_dir, text)
    project = load_project(project_dir)
    assert project.conflicts == (frozenset({"postgresql-psycopg2binary", "mssql-pymssql"}),)
    assert {t.lockfile for t in project.tiers.values()} == {project_dir / "uv.lock"}
    assert [str(r) for r in project.tier("postgresql_psycopg2binary").requirements] == ["psycopg2-binary"]
