"""A receipt whose recorded files no longer match the environment is rewritten by the next install.

Real wheels, a real venv, the real ``tierlock install`` with uv (offline). The receipt is what the
no-op fast path trusts: a receipt left stale would send every later run the slow way, or vouch for
files that are not there.

Each test here was shown to fail on the regression it names (the mutant applied by hand) and to pass on the code.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.env import bin_dir, clean_env, make_venv
from tests.support.tierproject import make_project
from tierlock.installer import receipts


@pytest.fixture(scope="module")
def uv_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("uv-cache")


class Env:
    def __init__(self, root: Path, venv: Path, wheelhouse: Path, cache: Path) -> None:
        self.root, self.venv, self.wheelhouse, self.cache = root, venv, wheelhouse, cache

    def install(self) -> dict[str, Any]:
        argv = [str(bin_dir() / "tierlock"), "install", "brain", "--json", "--project", str(self.root)]
        argv += ["--python", str(self.venv / "bin" / "python")]
        env = clean_env({"UV_NO_INDEX": "1", "UV_FIND_LINKS": str(self.wheelhouse), "UV_CACHE_DIR": str(self.cache)})
        proc = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stderr
        doc: dict[str, Any] = json.loads(proc.stdout)
        return doc

    def receipt(self) -> receipts.Receipt:
        found = receipts.load(receipts.receipt_path(self.venv, "brain"))
        assert found is not None
        return found


@pytest.fixture
def armed(tmp_path: Path, wheelhouse: dict[str, Path], uv_cache: Path) -> Env:
    root = make_project(tmp_path / "proj", wheelhouse)
    make_venv(tmp_path / "venv")
    env = Env(root, tmp_path / "venv", next(iter(wheelhouse.values())).parent, uv_cache)
    assert env.install()["result"] == "installed"
    return env


def recorded_vs_actual(env: Env) -> list[tuple[str, int, int]]:
    """(file, recorded size, size on disk) for every file the receipt records."""
    out = []
    for package in env.receipt().packages:
        site = env.venv / str(package["site"])
        for rel, size, *_written in package["files"]:
            out.append((rel, size, os.stat(site / rel).st_size))
    return out


@pytest.mark.parametrize(("package", "suffix"), [("corelib", ".so"), ("helper", "data.txt")])
def test_a_receipt_whose_recorded_sizes_changed_is_rewritten_with_the_sizes_on_disk(
    armed: Env, package: str, suffix: str
) -> None:
    path = receipts.receipt_path(armed.venv, "brain")
    doc = json.loads(path.read_text(encoding="utf-8"))
    (entry,) = [p for p in doc["packages"] if p["name"] == package]
    (row,) = [f for f in entry["files"] if f[0].endswith(suffix)]
    row[1] += 7  # same packages, same count, one recorded size off
    path.write_text(json.dumps(doc), encoding="utf-8")
    count = len(armed.receipt().packages)

    again = armed.install()  # the fast path refuses the receipt; the full path finds nothing to install

    assert again["result"] == "unchanged", again
    assert again["receipts"] == [str(path)]  # rewritten
    assert len(armed.receipt().packages) == count
    assert [(rel, rec) for rel, rec, real in recorded_vs_actual(armed) if rec != real] == []
    third = armed.install()  # the rewritten receipt proves a no-op again (the fast path)
    assert third["result"] == "unchanged"
    assert {p["reason"] for p in third["packages"]["satisfied"]} == {"receipt verified"}


def _tamper(doc: dict[str, Any], field: str) -> None:
    if field == "pyproject":
        doc["pyproject"]["digest"] = "0" * 64
    elif field == "lockfile":
        doc["lockfiles"]["brain"]["digest"] = "0" * 64
    elif field == "environment":
        doc["interpreter"]["environment"] = "/somewhere/else"
    elif field == "tierlock_version":
        doc["tierlock_version"] = "0.0.0"
    elif field == "undated":  # written by a tierlock that kept the shared objects' sizes only
        del doc["shared_objects_dated"]
        for package in doc["packages"]:
            package["files"] = [row[:2] for row in package["files"]]
    else:
        doc["stale"] = {"replaced_by": ["other"], "packages": ["corelib"]}


@pytest.mark.parametrize("field", ["pyproject", "lockfile", "environment", "tierlock_version", "stale", "undated"])
def test_a_receipt_that_no_longer_matches_in_any_one_field_is_rewritten_and_trusted_again(
    armed: Env, field: str
) -> None:
    path = receipts.receipt_path(armed.venv, "brain")
    doc = json.loads(path.read_text(encoding="utf-8"))
    _tamper(doc, field)  # the same packages and files: only this one field says "not this receipt"
    path.write_text(json.dumps(doc), encoding="utf-8")

    again = armed.install()  # the fast path refuses the receipt; the full path finds nothing to install

    assert again["result"] == "unchanged", again
    assert again["receipts"] == [str(path)]  # rewritten, with every field true again
    rewritten = json.loads(path.read_text(encoding="utf-8"))
    assert "stale" not in rewritten
    assert rewritten["tierlock_version"] != "0.0.0"
    assert "0" * 64 not in (rewritten["pyproject"]["digest"], rewritten["lockfiles"]["brain"]["digest"])
    assert rewritten["interpreter"]["environment"] == os.path.realpath(armed.venv)
    assert armed.install()["packages"]["satisfied"][0]["reason"] == "receipt verified"  # the no-op again
