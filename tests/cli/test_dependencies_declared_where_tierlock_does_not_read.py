"""A project without ``[project]`` whose dependencies Poetry's tables, setup.cfg or setup.py declare: every command
says so with the step that moves them, and ``init`` writes nothing. Before, its base tier read no dependency:
``tierlock lock`` wrote an empty lock and ``check`` said ok (CI admitted an environment without any of them)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import run_cli
from tests.support.env import bin_dir, clean_env
from tierlock.tiers import elsewhere

POETRY = """\
[tool.poetry]
name = "poet"
version = "0.1.0"
description = ""
authors = ["A <a@example.invalid>"]

[tool.poetry.dependencies]
python = "^3.10"
requests = "^2.31"
numpy = { version = "^1.26", optional = true }

[tool.poetry.extras]
brain = ["numpy"]

[build-system]
requires = ["poetry-core"]
build-backend = "poetry.core.masonry.api"
"""


MOVE_BY_HAND = (
    "move them into [project] (PEP 621: dependencies, optional-dependencies), then run: tierlock --project {root} init"
)


#: Poetry's dependencies without an extra: the base alone is read from Poetry's table.
POETRY_BASE_ONLY = POETRY.replace('[tool.poetry.extras]\nbrain = ["numpy"]\n\n', "").replace(", optional = true", "")


def _project(folder: Path, pyproject: str, files: dict[str, str] | None = None) -> Path:
    folder.mkdir(parents=True)
    (folder / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    for name, text in (files or {}).items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "tests").mkdir()
    (folder / "tests" / "test_np.py").write_text("import numpy\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    "command",
    [("check",), ("tiers",), ("lock", "--dry-run"), ("probe", "--python", sys.executable), ("admit",)],
    ids=lambda c: c[0],
)
def test_a_poetry_project_without_project_table_is_refused_by_every_command_with_the_step_that_moves_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: tuple[str, ...]
) -> None:
    root = _project(tmp_path / "poet", POETRY)
    code, out, err = run_cli(capsys, "--project", str(root), *command)
    said = out + err
    assert code == 2, said
    assert "declares its dependencies in [tool.poetry.dependencies] (Poetry's own tables)" in said
    assert f"{elsewhere.MIGRATE} {shlex.quote(os.path.relpath(root))} && tierlock --project {root} " in said
    assert not (root / "lockfiles").exists()


@pytest.mark.parametrize(
    ("case", "where", "fix"),
    [
        (
            (POETRY, {}),
            "[tool.poetry.dependencies]",
            f"{elsewhere.MIGRATE} {{here}} && tierlock --project {{root}} init",
        ),
        (
            (POETRY_BASE_ONLY, {}),
            "[tool.poetry.dependencies]",
            f"{elsewhere.MIGRATE} {{here}} && tierlock --project {{root}} init",
        ),
        (
            (
                '[build-system]\nrequires = ["setuptools"]\n\n[tool.ruff]\nline-length = 100\n',
                {"setup.cfg": "[metadata]\nname = legacy\n\n[options]\ninstall_requires =\n    requests\n"},
            ),
            "setup.cfg (install_requires)",
            MOVE_BY_HAND,
        ),
        (
            (
                '[build-system]\nrequires = ["setuptools"]\n',
                {"setup.py": "from setuptools import setup\nsetup(name='legacy', install_requires=['requests'])\n"},
            ),
            "setup.py (install_requires)",
            MOVE_BY_HAND,
        ),
        (
            ("[tool.ruff]\nline-length = 100\n", {"Pipfile": '[packages]\nrequests = "*"\n'}),
            "Pipfile (Pipenv's)",
            f"{elsewhere.MIGRATE} {{here}} && tierlock --project {{root}} init",
        ),
        (
            (
                "[tool.ruff]\nline-length = 100\n",
                {"requirements.txt": "# app\nrequests==2.31.0 \\\n    --hash=sha256:aa\n"},
            ),
            "requirements.txt (pip's)",
            f"{elsewhere.MIGRATE} {{here}} && tierlock --project {{root}} init",
        ),
        (
            (
                "[tool.black]\nline-length = 100\n",
                {"requirements.in": "-r base.in\n", "requirements.txt": "requests==2.31.0\n"},
            ),
            "requirements.in (pip-tools')",
            f"{elsewhere.MIGRATE} {{here}} && tierlock --project {{root}} init",
        ),
    ],
    ids=["poetry", "poetry-without-extras", "setup.cfg", "setup.py", "pipfile", "requirements.txt", "requirements.in"],
)
def test_init_refuses_a_project_whose_dependencies_it_would_not_read_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: tuple[str, dict[str, str]], where: str, fix: str
) -> None:
    root = _project(tmp_path / "legacy", *case)
    before = (root / "pyproject.toml").read_bytes()
    code, out, err = run_cli(capsys, "--project", str(root), "init")
    assert code == 2, out + err
    assert f"declares its dependencies in {where}" in err
    assert f"to fix: {fix.format(root=root, here=shlex.quote(os.path.relpath(root)))}" in err
    assert (root / "pyproject.toml").read_bytes() == before


@pytest.mark.parametrize(
    ("pyproject", "files"),
    [
        # an application: no [project], its dependencies are its groups (PEP 735)
        ('[dependency-groups]\nbrain = ["numpy"]\n\n[tool.poetry]\npackage-mode = false\n', {}),
        # Poetry 2 reads [project]: its own tables only enrich it
        (
            '[project]\nname = "p"\nversion = "1"\ndependencies = ["requests"]\n\n[tool.poetry]'
            + POETRY.split("[tool.poetry]", 1)[1],
            {},
        ),
        # Poetry's table naming only the Python it runs on
        ('[tool.poetry]\nname = "p"\n\n[tool.poetry.dependencies]\npython = "^3.10"\n', {}),
        # a setup.py that declares nothing to install
        ('[build-system]\nrequires = ["setuptools"]\n', {"setup.py": "from setuptools import setup\nsetup()\n"}),
        # an application whose tiers are its groups, with a requirements file kept for another tool
        ('[dependency-groups]\nbrain = ["numpy"]\n', {"requirements.txt": "mkdocs\n"}),
        # the project's own [project], and a requirements file beside it
        ('[project]\nname = "p"\nversion = "1"\n', {"requirements.txt": "requests\n"}),
        # a requirements file naming nothing to install: comments and options only
        ("[tool.ruff]\nline-length = 100\n", {"requirements.txt": "# none yet\n\n--index-url https://x.invalid\n"}),
    ],
    ids=[
        "groups-only",
        "poetry-2-with-project",
        "poetry-python-only",
        "setup-py-without-requires",
        "groups-and-requirements",
        "project-and-requirements",
        "requirements-naming-nothing",
    ],
)
def test_a_project_whose_dependencies_tierlock_reads_is_not_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], pyproject: str, files: dict[str, str]
) -> None:
    root = _project(tmp_path / "fine", pyproject, files)
    code, out, err = run_cli(capsys, "--project", str(root), "init", "--dry-run")
    assert code == 0, out + err
    assert "declares its dependencies" not in out + err


@pytest.mark.network
def test_the_poetry_step_run_as_printed_from_the_parent_folder_moves_the_dependencies_and_init_proposes_the_extra(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path / "poet", POETRY)
    env = clean_env()
    env["PATH"] = os.pathsep.join([str(bin_dir()), env.get("PATH", "")])
    env["UV_CACHE_DIR"] = str(tmp_path / "uv-cache")
    tierlock = str(bin_dir() / "tierlock")
    first = subprocess.run(
        [tierlock, "--project", "poet", "init"], cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    assert first.returncode == 2, first.stderr
    fix = next(x for x in first.stderr.splitlines() if x.strip().startswith("to fix:")).split("to fix:", 1)[1]
    assert shlex.split(fix)[:3] == ["uv", "tool", "run"]
    run = subprocess.run(fix.strip(), shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    tiers = subprocess.run(
        [tierlock, "--project", "poet", "tiers"], cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    assert tiers.returncode == 0, tiers.stderr
    assert "brain" in tiers.stdout
    assert "requests" in (root / "pyproject.toml").read_text(encoding="utf-8").split("[project]", 1)[1]


def test_from_a_working_folder_that_is_gone_the_step_names_the_project_by_its_whole_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    found = elsewhere.poetry({"tool": {"poetry": {"dependencies": {"requests": "^2"}}}})
    assert found is not None
    root = tmp_path / "poet"
    assert found.remedy("tierlock tiers", root) == f"{elsewhere.MIGRATE} {root} && tierlock tiers"


@pytest.mark.parametrize("name", ["requirements.txt", "requirements.in"])
def test_init_in_a_folder_without_pyproject_whose_requirements_file_names_packages_prints_the_step_that_writes_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    root = tmp_path / "app"
    root.mkdir()
    (root / name).write_text("requests==2.31.0\n", encoding="utf-8")
    code, out, err = run_cli(capsys, "--project", str(root), "init")
    assert code == 2, out + err
    assert "this folder has no pyproject.toml and declares its dependencies in " + name in err
    here = shlex.quote(os.path.relpath(root))
    assert f"to fix: {elsewhere.MIGRATE} {here} && tierlock --project {root} init" in err
    assert sorted(p.name for p in root.iterdir()) == [name]


def test_init_in_a_folder_without_pyproject_or_requirements_still_says_there_is_no_project(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "requirements.txt").write_text("# nothing yet\n", encoding="utf-8")
    code, _out, err = run_cli(capsys, "--project", str(tmp_path), "init")
    assert code == 2
    assert "no pyproject.toml in" in err
    assert "to fix: run tierlock inside a project, or pass --project DIR" in err


@pytest.mark.network
def test_the_requirements_step_run_as_printed_from_the_parent_folder_writes_the_project_and_init_reads_it(
    tmp_path: Path,
) -> None:
    root = tmp_path / "app"
    root.mkdir()
    (root / "requirements.txt").write_text("requests==2.31.0\n", encoding="utf-8")
    (root / "requirements-dev.txt").write_text("pytest\n", encoding="utf-8")
    env = clean_env()
    env["PATH"] = os.pathsep.join([str(bin_dir()), env.get("PATH", "")])
    env["UV_CACHE_DIR"] = str(tmp_path / "uv-cache")
    tierlock = str(bin_dir() / "tierlock")
    first = subprocess.run(
        [tierlock, "--project", "app", "init"], cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    assert first.returncode == 2, first.stderr
    fix = next(x for x in first.stderr.splitlines() if x.strip().startswith("to fix:")).split("to fix:", 1)[1]
    run = subprocess.run(fix.strip(), shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    tiers = subprocess.run(
        [tierlock, "--project", "app", "tiers"], cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    assert tiers.returncode == 0, tiers.stderr
    (base,) = [line.split() for line in tiers.stdout.splitlines() if line.startswith("base ")]
    assert base[1:3] == ["project.dependencies", "1"]  # its one root, read from [project] now
    assert "requests==2.31.0" in (root / "pyproject.toml").read_text(encoding="utf-8").split("[project]", 1)[1]
