"""A damaged ci-require tier fails a CI run closed whatever the run selects; a tier merely not armed does not.

Damage is an installed distribution of the tier's locked closure that is missing files or sits at another
version than the lock: never intended. A tier whose distributions are only not installed (another matrix job's
tier, sharing a package with this job's) keeps the selection rule: a run that selects none of its tests passes.
The inner project's ``brain`` tier is locked as ``brainpkg`` 1.0 (its root) and ``brainrt`` 1.0 (a compiled
runtime in its closure); the runs below select only ``tests/test_base.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.plugin_project import inner_project
from tests.support.probe_env import uv_install
from tests.support.wheels import EXT_SUFFIX, build_wheel
from tierlock.pytest_plugin import EXIT_TIER_MISSING

FAKE_HASH = "--hash=sha256:" + "0" * 64
LOCK = f"brainpkg==1.0 {FAKE_HASH}\nbrainrt==1.0 {FAKE_HASH}\n"


@pytest.fixture(scope="module")
def house(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("damage-wheels")
    build_wheel(folder, "brainpkg", "1.0")
    build_wheel(folder, "brainpkg", "2.0")
    build_wheel(folder, "brainrt", "1.0", extension=True)
    return folder


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    return inner_project(
        pytester,
        monkeypatch,
        {
            "lockfiles/brain.txt": LOCK,
            "tests/test_base.py": "def test_base():\n    pass\n",
            "tests/brain/test_brain.py": "import brainpkg\n\n\ndef test_brain():\n    pass\n",
        },
    )


def install(inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, house: Path, *requirements: str) -> Path:
    target = inner.path.parent / f"{inner.path.name}-site"
    uv_install(None, house, *requirements, target=target)
    monkeypatch.syspath_prepend(str(target))
    return target


def test_a_closure_package_missing_its_compiled_file_fails_an_unrelated_ci_run_closed(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, house: Path
) -> None:
    target = install(inner, monkeypatch, house, "brainrt==1.0")
    (target / "brainrt" / f"_core{EXT_SUFFIX}").unlink()
    monkeypatch.setenv("CI", "true")
    result = inner.runpytest("tests/test_base.py")
    assert result.ret == EXIT_TIER_MISSING
    result.stderr.fnmatch_lines(
        [
            "tierlock: tier brain is required in CI (ci-require) and it is damaged:",
            f"  - brainrt: partial — compiled artifact brainrt/_core{EXT_SUFFIX} is missing",
            "  damage is never intended, whatever this run selects",
            "  to fix: install-tier brain",
        ]
    )


def test_a_root_at_another_version_than_its_lock_fails_an_unrelated_ci_run_closed(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, house: Path
) -> None:
    install(inner, monkeypatch, house, "brainpkg==2.0", "brainrt==1.0")
    monkeypatch.setenv("CI", "true")
    result = inner.runpytest("tests/test_base.py")
    assert result.ret == EXIT_TIER_MISSING
    result.stderr.fnmatch_lines(
        ["tierlock: tier brain is required in CI (ci-require) and it is damaged:", "  - brainpkg: partial — *2.0*1.0*"]
    )


def test_a_tier_merely_not_armed_keeps_the_selection_rule(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, house: Path
) -> None:
    install(inner, monkeypatch, house, "brainrt==1.0")  # shared with another job's tier: intact
    monkeypatch.setenv("CI", "true")
    result = inner.runpytest("tests/test_base.py")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["tierlock: brain absent (none of its test files selected)"])


def test_on_a_laptop_damage_is_named_in_the_header_even_when_no_test_of_it_is_selected(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, house: Path
) -> None:
    target = install(inner, monkeypatch, house, "brainrt==1.0")
    (target / "brainrt" / f"_core{EXT_SUFFIX}").unlink()
    result = inner.runpytest("tests/test_base.py")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "tierlock: brain absent, damaged (none of its test files selected); to fix: install-tier brain",
            f"tierlock:   brain: brainrt: partial — compiled artifact brainrt/_core{EXT_SUFFIX} is missing",
        ]
    )


def test_in_another_matrix_jobs_environment_a_shared_package_at_that_jobs_pin_is_not_damage(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, house: Path
) -> None:
    install(inner, monkeypatch, house, "brainpkg==2.0", "brainrt==1.0")  # the other job's tier pins brainpkg 2.0
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("TIERLOCK_TIERS", "base")
    result = inner.runpytest("tests/test_base.py")
    assert result.ret == 0, result.stderr.str()
    assert "damaged" not in result.stdout.str() + result.stderr.str()


def test_in_another_matrix_jobs_environment_missing_files_are_still_damage(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, house: Path
) -> None:
    target = install(inner, monkeypatch, house, "brainrt==1.0")
    (target / "brainrt" / f"_core{EXT_SUFFIX}").unlink()
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("TIERLOCK_TIERS", "base")
    result = inner.runpytest("tests/test_base.py")
    assert result.ret == EXIT_TIER_MISSING
    result.stderr.fnmatch_lines(["tierlock: tier brain is required in CI (ci-require) and it is damaged:"])
