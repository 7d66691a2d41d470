"""A file the receipts name that cannot be read sends the fast path the full way; it never raises.

Missing, replaced by a folder, or under a path that is no folder: each is an ``OSError`` the fast path
turns into its reason for stepping aside (the full path then reports it properly). Files only.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.venvshape import armed, project
from tierlock.installer import fastpath, receipts
from tierlock.installer.location import environment_key


@pytest.fixture
def env(tmp_path: Path) -> tuple[Path, Path]:
    root = project(tmp_path / "proj")
    armed(tmp_path / "venv", root)
    noop, why = fastpath.check(
        ["brain"], tmp_path / "venv", environment_key(tmp_path / "venv"), root / "pyproject.toml"
    )
    assert noop is not None, why
    return tmp_path / "venv", root


def check(env: tuple[Path, Path]) -> tuple[fastpath.NoOp | None, str]:
    venv, root = env
    return fastpath.check(["brain"], venv, environment_key(venv), root / "pyproject.toml")


def _as_folder(path: Path) -> None:
    path.unlink()
    path.mkdir()


@pytest.mark.parametrize("spoil", [Path.unlink, _as_folder], ids=["missing", "a-folder"])
def test_a_pyproject_that_cannot_be_read_is_the_reason_given(env: tuple[Path, Path], spoil: object) -> None:
    pyproject = env[1] / "pyproject.toml"
    spoil(pyproject)  # type: ignore[operator]
    assert check(env) == (None, f"cannot read {pyproject}")


@pytest.mark.parametrize("spoil", [Path.unlink, _as_folder], ids=["missing", "a-folder"])
def test_a_lockfile_that_cannot_be_read_is_the_reason_given(env: tuple[Path, Path], spoil: object) -> None:
    lockfile = env[1] / "lockfiles" / "brain.txt"
    spoil(lockfile)  # type: ignore[operator]
    assert check(env) == (None, f"cannot read {lockfile}")


def test_a_receipt_that_is_a_folder_or_no_json_counts_as_none(env: tuple[Path, Path]) -> None:
    path = receipts.receipt_path(env[0], "brain")
    path.write_text("{ not json", encoding="utf-8")
    assert check(env) == (None, f"no receipt for brain in {env[0]}")
    _as_folder(path)
    assert check(env) == (None, f"no receipt for brain in {env[0]}")


def test_a_recorded_file_under_a_path_that_is_no_folder_counts_as_missing(env: tuple[Path, Path]) -> None:
    path = receipts.receipt_path(env[0], "brain")
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["packages"][0]["files"].append(["pkg/__init__.py/inside-a-file", 1])
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert check(env) == (None, "pkg: pkg/__init__.py/inside-a-file is missing")
