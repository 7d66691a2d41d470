"""Why an install into a target whose Python ``requires-python`` excludes failed, and the fix that makes the venv
again with a Python that satisfies it (the command itself is run as printed in
tests/cli/test_target_below_requires_python.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support.targets import a_target
from tierlock.errors import BackendError, CheckFailed, UsageError
from tierlock.installer import creation, preflight
from tierlock.tiers import load_project


def _project(root: Path, spec: str | None) -> object:
    root.mkdir(parents=True, exist_ok=True)
    line = f'requires-python = "{spec}"\n' if spec is not None else ""
    (root / "pyproject.toml").write_text(
        f'[project]\nname = "app"\nversion = "0.1"\n{line}dependencies = []\n\n[tool.tierlock.tiers.base]\n',
        encoding="utf-8",
    )
    return load_project(root)


def _again(prefix: str | None) -> str:
    return f"install-tier base --python {prefix}"


@pytest.mark.parametrize("spec", [None, ">=3.9", "not a specifier", ">=3.9.18"])
def test_a_python_requires_python_admits_or_cannot_judge_needs_nothing(tmp_path: Path, spec: str | None) -> None:
    project = _project(tmp_path / "app", spec)
    target = a_target(tmp_path / "venv", version=(3, 9, 18))
    assert preflight.outside_python(target, project, again=_again) is None  # type: ignore[arg-type]


def test_a_venv_below_requires_python_is_made_again_with_the_python_chosen_for_the_project(tmp_path: Path) -> None:
    project = _project(tmp_path / "app", ">=3.9")
    venv = tmp_path / "venv"
    venv.mkdir()
    (venv / "pyvenv.cfg").write_text("home = /x\ninclude-system-site-packages = true\n", encoding="utf-8")
    target = a_target(venv, version=(3, 8, 18))
    found = preflight.outside_python(target, project, again=_again)  # type: ignore[arg-type]
    assert found is not None
    why, fix = found
    assert why == (
        f"the target {venv} runs Python 3.8.18, which the project's requires-python '>=3.9' excludes (its locks were "
        "resolved for other Pythons)"
    )
    chosen = creation.choose_interpreter(">=3.9")
    assert fix == (
        f"rm -f {venv}/bin/python {venv}/bin/python3 {venv}/bin/python3.8 && {chosen} -m venv "
        f"--system-site-packages {venv} && install-tier base --python {venv}"
    )


def test_a_python_that_is_no_venv_is_asked_for_another(tmp_path: Path) -> None:
    project = _project(tmp_path / "app", ">=3.99")
    target = a_target(Path(sys.base_prefix), version=(3, 8, 18))
    assert not target.is_venv
    found = preflight.outside_python(target, project, again=_again)  # type: ignore[arg-type]
    assert found is not None
    assert found[1] == "pass --python PATH to a Python that satisfies requires-python >=3.99"


@pytest.mark.parametrize("error", [UsageError("refused"), BackendError("failed")])
def test_a_usage_or_backend_error_says_why_and_carries_the_fix(error: UsageError | BackendError) -> None:
    before = error.message
    with pytest.raises(type(error)) as caught, preflight.explained(("why", "fix")):
        raise error
    assert (caught.value.message, str(caught.value), caught.value.remedy) == (f"{before}; why", f"{before}; why", "fix")


def test_other_errors_and_a_target_inside_requires_python_are_left_as_they_are() -> None:
    with pytest.raises(UsageError) as caught, preflight.explained(None):
        raise UsageError("refused", remedy="theirs")
    assert (caught.value.message, caught.value.remedy) == ("refused", "theirs")
    with pytest.raises(CheckFailed) as failed, preflight.explained(("why", "fix")):
        raise CheckFailed("needs the project", remedy="theirs")
    assert (failed.value.message, failed.value.remedy) == ("needs the project", "theirs")
