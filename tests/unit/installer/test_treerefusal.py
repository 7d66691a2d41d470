"""The project's own metadata a backend refuses: both extras named with their lines, and the command that still arms.

:func:`tierlock.installer.treerefusal.refused` reads uv's output (``duplicate normalized extra name `x` ``) and the
project's pyproject.toml; :func:`duplicates` finds the extras of one normalized name in its
``[project.optional-dependencies]`` table only.
"""

from __future__ import annotations

from pathlib import Path

from tierlock.installer.treerefusal import duplicates, refused

UV_SAYS = "  |          duplicate normalized extra name `mssql-pymssql`\n"

PYPROJECT = """\
mssql-pymssql = "a top-level key, before any table"
[project]
name = "sqlalchemy"

[project.optional-dependencies]
asyncio = ["greenlet>=1"]
mssql-pymssql = ["pymssql"]
"mssql.Pymssql" = ["pymssql"]

[dependency-groups]
mssql_pymssql = ["pymssql"]

[ project.optional-dependencies ]
mssql_pymssql = ["sqlalchemy[mssql-pymssql]"]
"""


def test_every_extra_of_the_normalized_name_is_found_with_its_line_in_the_extras_table_only(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    assert duplicates(tmp_path / "pyproject.toml", "mssql-pymssql") == [
        ("mssql-pymssql", "pyproject.toml:7"),
        ("mssql.Pymssql", "pyproject.toml:8"),
        ("mssql_pymssql", "pyproject.toml:14"),
    ]
    assert duplicates(tmp_path / "pyproject.toml", "asyncio") == [("asyncio", "pyproject.toml:6")]
    assert duplicates(tmp_path / "missing.toml", "asyncio") == []
    (tmp_path / "bad.toml").write_bytes(b"\xff\xfe[project")
    assert duplicates(tmp_path / "bad.toml", "asyncio") == []


def test_uvs_refusal_names_both_extras_and_the_remedy_leaves_the_project_out(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    found = refused(UV_SAYS, [tmp_path], "install-tier asyncio --python .venv/bin/python")
    assert found is not None
    said, remedy = found
    assert said.startswith(
        "the backend refuses the project's own metadata: the extras mssql-pymssql (pyproject.toml:7) and "
        "mssql.Pymssql (pyproject.toml:8) and mssql_pymssql (pyproject.toml:14) are one name once normalized (PEP 685)"
    )
    assert remedy == "install-tier asyncio --python .venv/bin/python --no-install-project"
    assert refused(UV_SAYS, [tmp_path], "install-tier asyncio --no-install-project") == (
        said,
        "install-tier asyncio --no-install-project",
    )


def test_another_failure_or_no_command_to_repeat_is_not_this_refusal(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    assert refused("error: Failed to build `sqlalchemy`\n  cause: no backend", [tmp_path], "install-tier a") is None
    assert refused(UV_SAYS, [tmp_path], None) is None
    said, _ = refused(UV_SAYS, [tmp_path / "elsewhere"], "install-tier a") or ("", "")
    assert "metadata: two of its extras spelled mssql-pymssql are one name once normalized" in said
