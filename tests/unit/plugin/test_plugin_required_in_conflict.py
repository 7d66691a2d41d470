"""Two required tiers declared in conflict: the plugin never prints an install that undoes the other tier.

``brain`` and ``fast`` pin ``corelib`` differently and ``conflicts`` keeps them apart, so one environment
holds at most one of them. pytest runs in a real venv of its own (a ``.pth`` lends it this checkout's pytest
and tierlock) where ``brain`` is armed by the real ``install-tier``. A strict run without a matrix job
(``TIERLOCK_TIERS``) cannot pass there: it fails closed, says which tier the missing one conflicts with, and
its fix is ``tierlock matrix`` (run as printed, it lists one job per tier; the job of the armed tier passes),
not ``install-tier fast`` (which would unarm ``brain``, the other required tier, and loop). A laptop run
(lenient) skips ``fast``'s tests with an install that replaces the armed tier on purpose, and that install,
run as printed, makes ``fast``'s tests run.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.support.lockproj import lock_offline
from tests.support.plugin_project import laptop, write_files
from tests.support.plugin_venv import locked_pyproject, offline, own_venv, remedy_of, run_printed, run_pytest
from tests.support.wheels import build_wheel
from tierlock.pytest_plugin import EXIT_TIER_MISSING

PYPROJECT = locked_pyproject(
    {"brain": ["corelib==1.0", "brainpkg"], "fast": ["corelib==2.0"]},
    ["brain", "fast"],
    tests={"brain": "tests/brain/**", "fast": "tests/fast/**"},
    conflicts=[("brain", "fast")],
)

TESTS = {
    "tests/brain/test_brain.py": "import brainpkg\n\n\ndef test_brain():\n    assert brainpkg\n",
    "tests/fast/test_fast.py": "import corelib\n\n\ndef test_fast():\n    assert corelib\n",
    "tests/test_plain.py": "def test_plain():\n    assert True\n",
}


@pytest.fixture(scope="module")
def house(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("conflict-wheels")
    build_wheel(folder, "corelib", "1.0")
    build_wheel(folder, "corelib", "2.0")
    build_wheel(folder, "brainpkg", "1.0")
    return folder


@pytest.fixture
def armed(tmp_path: Path, house: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, dict[str, str]]:
    """The project, the venv pytest runs in (``brain`` armed there) and the user's offline configuration."""
    laptop(monkeypatch)
    folder = lock_offline(tmp_path / "inner", house, PYPROJECT)
    write_files(folder, TESTS)
    python = own_venv(tmp_path)
    config = offline(house)
    assert run_printed(["install-tier", "brain", "--python", str(python)], folder, config).returncode == 0
    return folder, python, config


def _pytest(python: Path, folder: Path, extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return run_pytest(python, folder, "-rs", extra=extra)


def _remedy(output: str, marker: str) -> str:
    return remedy_of(output, marker).rstrip(")")


def test_a_strict_run_fails_closed_naming_the_conflict_and_its_fix_lists_one_job_per_tier_that_passes(
    armed: tuple[Path, Path, dict[str, str]],
) -> None:
    folder, python, config = armed
    strict = _pytest(python, folder, {"CI": "true"})
    said = strict.stdout + strict.stderr
    assert strict.returncode == EXIT_TIER_MISSING, said
    assert "declared in conflict with brain, present here" in said
    assert "damaged" not in said  # brain's pin of corelib is intended, not damage
    assert "install-tier" not in said
    printed = _remedy(said, "to fix: ")
    assert printed == "tierlock matrix"
    matrix = run_printed([*shlex.split(printed), "--json"], folder, config)
    assert matrix.returncode == 0, matrix.stderr
    jobs = {job["tier"]: job["tiers"] for job in json.loads(matrix.stdout)["jobs"]}
    assert set(jobs) >= {"brain", "fast"}
    job = _pytest(python, folder, {"CI": "true", "TIERLOCK_TIERS": jobs["brain"]})
    assert job.returncode == 0, job.stdout + job.stderr


def test_a_laptop_run_skips_the_other_tier_with_an_install_that_replaces_the_armed_one_and_it_works(
    armed: tuple[Path, Path, dict[str, str]],
) -> None:
    folder, python, config = armed
    lenient = _pytest(python, folder, {})
    assert lenient.returncode == 0, lenient.stdout + lenient.stderr
    printed = _remedy(lenient.stdout, "to run them: ")
    assert printed == shlex.join(["install-tier", "fast", "--python", str(python), "--replace-armed"])
    assert run_printed(shlex.split(printed), folder, config).returncode == 0
    after = _pytest(python, folder, {})
    assert after.returncode == 0, after.stdout
    assert "tests/fast/test_fast.py ." in after.stdout, after.stdout
