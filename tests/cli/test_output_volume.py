"""Output that respects the reader: each package shows its first reasons, each tier its first packages.

A compiled package that lost ten of its files, a tier of eight absent packages: ``probe``, ``status``,
``admit`` and the pytest plugin's fail-closed block show the first few and one line counting the rest;
``-v`` (pytest's own ``-v`` for the plugin) shows every line, and ``--json`` always carries everything.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.support.binaries import loadable_stub
from tests.support.cli import run_cli
from tests.support.env import make_venv, site_packages
from tests.support.lockproj import lock_offline
from tests.support.plugin_project import laptop
from tests.support.wheels import EXT_SUFFIX, build_wheel
from tierlock import volume
from tierlock.errors import EXIT_TIER_MISSING

WIDE = [f"wide{n:02d}" for n in range(1, 9)]
COMPILED = [f"bulky/_part{n:02d}{EXT_SUFFIX}" for n in range(12)]

PYPROJECT = f"""\
[project]
name = "loud"
version = "0.1"
requires-python = ">=3.11"

[project.optional-dependencies]
bulky = ["bulky"]
wide = [{", ".join(f'"{name}"' for name in WIDE)}]

[tool.tierlock]
ci-require = ["wide"]

[tool.tierlock.tiers.bulky]

[tool.tierlock.tiers.wide]
tests = ["tests/wide/**"]
"""


@pytest.fixture(scope="module")
def locked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    house = tmp_path_factory.mktemp("volume-wheels")
    for name in WIDE:
        build_wheel(house, name, "1.0")
    files: dict[str, bytes | str] = {"bulky/__init__.py": ""}
    files.update(dict.fromkeys(COMPILED, loadable_stub(68)))
    build_wheel(house, "bulky", "1.0", files=files)
    return lock_offline(tmp_path_factory.mktemp("volume-locked") / "loud", house, PYPROJECT)


@pytest.fixture
def project(tmp_path: Path, locked: Path) -> Path:
    return Path(shutil.copytree(locked, tmp_path / "loud"))


@pytest.fixture
def husk(tmp_path: Path, locked: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A venv where bulky is installed and ten of its twelve compiled files are gone."""
    house = next(iter(locked.parent.parent.glob("volume-wheels*")))
    for key, value in {"UV_NO_INDEX": "1", "UV_FIND_LINKS": str(house), "PIP_NO_INDEX": "1"}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("PIP_FIND_LINKS", str(house))
    monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path / "uv-cache"))
    project = Path(shutil.copytree(locked, tmp_path / "loud"))
    python = make_venv(tmp_path / "venv")
    from tierlock.cli import main

    assert main(["--project", str(project), "-q", "install", "bulky", "--python", str(python)]) == 0
    for rel in COMPILED[:10]:
        (site_packages(tmp_path / "venv") / rel).unlink()
    return project, python


def test_a_package_that_lost_ten_files_shows_three_reasons_and_a_count_and_every_one_with_v(
    capsys: pytest.CaptureFixture[str], husk: tuple[Path, Path]
) -> None:
    project, python = husk
    code, out, _ = run_cli(capsys, "--project", str(project), "probe", "bulky", "--python", str(python))
    assert code == 1
    lines = [line for line in out.splitlines() if "bulky: bulky partial" in line]
    assert len(lines) == volume.REASONS + 1, out
    assert lines[-1].endswith(f"and 7 more reasons ({volume.CLI_HINT})"), lines
    code, out, _ = run_cli(capsys, "--project", str(project), "probe", "bulky", "--python", str(python), "-v")
    missing = [line for line in out.splitlines() if "bulky: bulky partial" in line and "is missing" in line]
    assert len(missing) == 10, out
    code, out, _ = run_cli(capsys, "--project", str(project), "--json", "probe", "bulky", "--python", str(python))
    (tier,) = json.loads(out)["tiers"]
    reasons = [r for d in (*tier["roots"], *tier["closure"]) for r in d["reasons"]]
    assert len([r for r in reasons if "is missing" in r]) == 10


def test_admit_prints_a_package_s_first_reasons_and_its_json_keeps_them_all(
    capsys: pytest.CaptureFixture[str], husk: tuple[Path, Path]
) -> None:
    project, python = husk
    code, out, err = run_cli(capsys, "--project", str(project), "admit", "--tier", "bulky", "--python", str(python))
    assert code == 1
    problem = next(line for line in (out + err).splitlines() if line.startswith("admit: probe: tier bulky: bulky"))
    assert problem.count("is missing") == volume.REASONS
    assert problem.endswith("and 7 more reasons")
    code, out, _ = run_cli(
        capsys, "--project", str(project), "--json", "admit", "--tier", "bulky", "--python", str(python)
    )
    (whole,) = json.loads(out)["probe"]["problems"]
    assert whole.count("is missing") == 10


def test_probe_of_a_tier_of_eight_absent_packages_names_five_and_counts_the_rest(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path
) -> None:
    python = make_venv(tmp_path / "venv")
    code, out, _ = run_cli(capsys, "--project", str(project), "probe", "wide", "--python", str(python))
    assert code == 1
    named = [name for name in WIDE if f"wide: {name} absent" in out]
    assert len(named) == volume.PACKAGES, out
    assert f"wide: and 3 more packages ({volume.CLI_HINT})" in out
    code, out, _ = run_cli(capsys, "--project", str(project), "probe", "wide", "--python", str(python), "-v")
    assert all(f"wide: {name} absent" in out for name in WIDE), out
    assert "more packages" not in out
    code, out, _ = run_cli(capsys, "--project", str(project), "status", "wide", "--python", str(python))
    assert out.count("wide: ") <= volume.PACKAGES + 1, out


def _inner(pytester: pytest.Pytester, project: Path) -> pytest.Pytester:
    for path in project.iterdir():
        target = pytester.path / path.name
        if path.is_dir():
            shutil.copytree(path, target)
        else:
            shutil.copyfile(path, target)
    wide = pytester.path / "tests" / "wide"
    wide.mkdir(parents=True)
    (wide / "test_wide.py").write_text("import wide01\n\n\ndef test_wide():\n    assert wide01\n", encoding="utf-8")
    return pytester


def test_a_strict_run_names_five_missing_packages_and_pytest_v_names_them_all(
    pytester: pytest.Pytester, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop(monkeypatch)
    inner = _inner(pytester, project)
    monkeypatch.setenv("CI", "true")
    run = inner.runpytest_subprocess("-p", "no:cacheprovider")
    assert run.ret == EXIT_TIER_MISSING
    listed = [line for line in run.errlines if line.startswith("  - wide")]
    assert len(listed) == volume.PACKAGES, run.errlines
    assert "  - and 3 more packages (pytest -v lists them all)" in run.errlines
    loud = inner.runpytest_subprocess("-p", "no:cacheprovider", "-v")
    assert loud.ret == EXIT_TIER_MISSING
    assert len([line for line in loud.errlines if line.startswith("  - wide")]) == len(WIDE), loud.errlines
