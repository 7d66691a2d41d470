"""The fast path answers "nothing to do" only for what the receipt proves: a receipt of an arming without the
project itself (``--no-install-project``) proves nothing to a plain request, and a tier whose last install failed
goes the full way (which records the success and forgets the failure). Files only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.venvshape import armed, project
from tierlock.installer import failures, fastpath, receipts
from tierlock.installer.location import environment_key


@pytest.fixture
def venv(tmp_path: Path) -> Path:
    armed(tmp_path / "venv", project(tmp_path / "proj"))
    return tmp_path / "venv"


def check(venv: Path, *, install_project: bool = True) -> tuple[fastpath.NoOp | None, str]:
    pyproject = venv.parent / "proj" / "pyproject.toml"
    return fastpath.check(["brain"], venv, environment_key(venv), pyproject, install_project=install_project)


def without_project(venv: Path, value: object = True) -> None:
    path = receipts.receipt_path(venv, "brain")
    document = json.loads(path.read_text(encoding="utf-8"))
    document["without_project"] = value
    path.write_text(json.dumps(document), encoding="utf-8")


def test_a_receipt_armed_without_the_project_proves_nothing_to_a_plain_request(venv: Path) -> None:
    without_project(venv)
    assert check(venv) == (None, "brain was armed without the project itself (--no-install-project)")


def test_a_receipt_armed_without_the_project_proves_a_request_without_it(venv: Path) -> None:
    without_project(venv)
    noop, why = check(venv, install_project=False)
    assert noop is not None, why
    assert noop.tiers == ["brain"]


@pytest.mark.parametrize("install_project", [True, False])
def test_a_receipt_armed_with_the_project_proves_either_request(venv: Path, install_project: bool) -> None:
    without_project(venv, False)
    noop, why = check(venv, install_project=install_project)
    assert noop is not None, why


def test_the_default_request_is_a_plain_one(venv: Path) -> None:
    without_project(venv)
    pyproject = venv.parent / "proj" / "pyproject.toml"
    assert fastpath.check(["brain"], venv, environment_key(venv), pyproject)[0] is None
    noop, why = fastpath.try_noop(["brain"], project_arg=str(pyproject), python=str(venv), system=False)
    assert (noop, why) == (None, "brain was armed without the project itself (--no-install-project)")
    noop, why = fastpath.try_noop(
        ["brain"], project_arg=str(pyproject), python=str(venv), system=False, install_project=False
    )
    assert noop is not None, why


@pytest.mark.parametrize("install_project", [True, False])
def test_a_tier_whose_last_install_failed_goes_the_full_way(venv: Path, install_project: bool) -> None:
    failures.write(venv, ["brain"], {"kind": "backend", "message": "failed"}, step=failures.PROJECT_STEP)
    assert check(venv, install_project=install_project) == (None, "the last install-tier of brain failed")
    failures.clear(venv, ["brain"])
    assert check(venv, install_project=install_project)[0] is not None


def test_a_failure_of_another_tier_changes_nothing(venv: Path) -> None:
    failures.write(venv, ["gpu"], {"kind": "backend", "message": "failed"})
    assert check(venv)[0] is not None


def test_the_fast_path_looks_where_failures_are_recorded(venv: Path) -> None:
    failures.write(venv, ["brain"], {"kind": "backend"})
    assert failures.failure_path(venv, "brain") == venv.joinpath(*fastpath.FAILURES_DIR, "brain.json")
