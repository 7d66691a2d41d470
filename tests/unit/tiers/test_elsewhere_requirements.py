"""Which requirements files name what an application installs (``tierlock.tiers.elsewhere.requirements``): a line
that is a requirement, another file's (``-r``) or an editable (``-e``) does; comments, blank lines and the other
option lines do not; pip-tools' input is named before its compiled output."""

from __future__ import annotations

from pathlib import Path

import pytest

from tierlock.tiers import elsewhere


@pytest.mark.parametrize(
    "text",
    [
        "requests\n",
        "# pinned\nrequests==2.31.0  # the client\n",
        "  numpy>=1.26\n",
        "-r base.txt\n",
        "--requirement=base.txt\n",
        "-e .\n",
        "--editable ./lib\n",
        "--index-url https://mirror.invalid/simple\nflask\n",
        "./wheels/a-1.0-py3-none-any.whl\n",
    ],
)
def test_a_requirements_file_naming_something_to_install_is_dependencies_tierlock_does_not_read(
    tmp_path: Path, text: str
) -> None:
    (tmp_path / "requirements.txt").write_text(text, encoding="utf-8")
    found = elsewhere.requirements(tmp_path, {"tool": {"ruff": {}}})
    assert found is not None
    assert found.where == "requirements.txt (pip's)"
    assert found.command
    assert found.step == elsewhere.MIGRATE
    assert elsewhere.requirements(tmp_path, None) == found  # no pyproject.toml at all


@pytest.mark.parametrize(
    "text",
    ["", "\n\n", "# nothing yet\n", "   # indented comment\n", "--index-url https://x.invalid\n-c constraints.txt\n"],
)
def test_a_requirements_file_naming_nothing_to_install_is_no_refusal(tmp_path: Path, text: str) -> None:
    (tmp_path / "requirements.txt").write_text(text, encoding="utf-8")
    assert elsewhere.requirements(tmp_path, {}) is None


def test_a_project_table_or_dependency_groups_are_read_whatever_requirements_file_is_beside_them(
    tmp_path: Path,
) -> None:
    (tmp_path / "requirements.txt").write_text("requests\n", encoding="utf-8")
    assert elsewhere.requirements(tmp_path, {"project": {"name": "p"}}) is None
    assert elsewhere.requirements(tmp_path, {"dependency-groups": {"dev": ["pytest"]}}) is None
    assert elsewhere.requirements(tmp_path / "elsewhere", {}) is None


def test_pip_tools_input_is_named_before_its_compiled_output(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("requests==2.31.0\n", encoding="utf-8")
    (tmp_path / "requirements.in").write_text("requests\n", encoding="utf-8")
    found = elsewhere.requirements(tmp_path, {})
    assert found is not None
    assert found.where == "requirements.in (pip-tools')"
    (tmp_path / "requirements.in").write_text("# emptied\n", encoding="utf-8")
    found = elsewhere.requirements(tmp_path, {})
    assert found is not None
    assert found.where == "requirements.txt (pip's)"


def test_the_message_says_whether_there_is_no_project_table_or_no_pyproject_at_all() -> None:
    found = elsewhere.Elsewhere("requirements.txt (pip's)", elsewhere.MIGRATE, command=True)
    assert elsewhere.message(found).startswith("this project has no [project] table and declares its dependencies in ")
    assert elsewhere.message(found, pyproject=False).startswith(
        "this folder has no pyproject.toml and declares its dependencies in requirements.txt (pip's), "
    )
