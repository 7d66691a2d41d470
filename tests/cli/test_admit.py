"""``tierlock admit``: lockfiles checked offline, runtime config validated, required tiers probed.

The project is locked for real with uv from a local wheel folder and its tiers
installed for real into a virtual environment.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.support.env import make_venv, site_packages
from tests.support.lockproj import lock_offline
from tests.support.probe_env import uv_install
from tests.support.pyproject import pyproject
from tests.support.wheels import EXT_SUFFIX, build_wheel
from tierlock.cli import main

PYPROJECT = pyproject(
    name="gated",
    version="0.1",
    dependencies=["alpha"],
    extras={"brain": ["beta"]},
    tierlock={"ci-require": ["brain"]},
    tiers={"brain": {"tests": ["tests/brain/**"]}},
)

RUNTIME = {
    "schemaVersion": 1,
    "repositories": [{"id": "gated", "path": "."}],
    "setup": [{"key": "arm", "repositoryId": "gated", "command": "install-tier", "args": ["brain"]}],
    "verification": [{"key": "unit", "repositoryId": "gated", "command": "pytest", "args": ["-q"]}],
}


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    house = tmp_path_factory.mktemp("admit-wheels")
    build_wheel(house, "alpha", "1.0")
    build_wheel(house, "beta", "2.0", extension=True)
    return house


@pytest.fixture(scope="module")
def locked(tmp_path_factory: pytest.TempPathFactory, wheels: Path) -> Path:
    return lock_offline(tmp_path_factory.mktemp("admit-locked") / "gated", wheels, PYPROJECT)


@pytest.fixture
def project(tmp_path: Path, locked: Path) -> Path:
    root = Path(shutil.copytree(locked, tmp_path / "gated"))
    (root / "tests" / "brain").mkdir(parents=True)
    (root / "tests" / "brain" / "test_brain.py").write_text("import beta\n\n\ndef test_beta():\n    assert beta\n")
    return root


@pytest.fixture
def python(tmp_path: Path, wheels: Path) -> Path:
    python = make_venv(tmp_path / "venv")
    uv_install(python, wheels, "alpha", "beta")
    return python


def admit(capsys: pytest.CaptureFixture[str], project: Path, python: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    code = main(["--project", str(project), "admit", "--python", str(python), *extra])
    out = capsys.readouterr().out
    assert len(out.splitlines()) == 1, out  # one JSON line
    document: dict[str, Any] = json.loads(out)
    return code, document


def test_admit_passes_when_locks_config_and_tiers_are_in_order(
    capsys: pytest.CaptureFixture[str], project: Path, python: Path
) -> None:
    (project / "tierlock.runtime.json").write_text(json.dumps(RUNTIME))
    code, doc = admit(capsys, project, python)
    assert code == 0, doc
    assert doc["admitted"] is True
    assert doc["tiers"] == ["brain"]
    assert doc["lockfiles"]["verdict"] == "pass"
    assert doc["lockfiles"]["tiers"] == 2  # brain and the base it is layered on
    assert doc["lockfiles"]["packages"] >= 1
    assert doc["runtime"] == {"verdict": "pass", "configs": 1, "commands": 2, "problems": []}
    assert doc["probe"]["verdict"] == "pass"
    assert doc["probe"]["tiers"] == doc["probe"]["tiers_present"] == 1
    assert doc["probe"]["files_checked"] > 0


def test_admit_skips_the_runtime_part_without_a_runtime_config(
    capsys: pytest.CaptureFixture[str], project: Path, python: Path
) -> None:
    code, doc = admit(capsys, project, python)
    assert code == 0
    assert doc["runtime"] == {"verdict": "skipped", "configs": 0, "commands": 0, "problems": []}


def test_admit_fails_when_the_required_tier_turns_partial(
    capsys: pytest.CaptureFixture[str], project: Path, python: Path
) -> None:
    assert admit(capsys, project, python)[0] == 0
    (site_packages(python.parent.parent) / "beta" / f"_core{EXT_SUFFIX}").unlink()
    code, doc = admit(capsys, project, python)
    assert code == 1
    assert doc["admitted"] is False
    assert doc["probe"]["verdict"] == "fail"
    assert doc["probe"]["problems"] == [
        f"tier brain: beta partial: compiled artifact beta/_core{EXT_SUFFIX} is missing"
    ]
    assert doc["probe"]["remedy"] == f"install-tier --project {project} brain --python {python}"
    assert doc["lockfiles"]["verdict"] == "pass"


def test_admit_fails_on_lockfile_drift(capsys: pytest.CaptureFixture[str], project: Path, python: Path) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('brain = ["beta"]', 'brain = ["beta>=2"]'))
    code, doc = admit(capsys, project, python)
    assert code == 1
    assert doc["lockfiles"]["verdict"] == "fail"
    assert any("input-drift" in p for p in doc["lockfiles"]["problems"]), doc["lockfiles"]
    assert doc["probe"]["verdict"] == "pass"


def test_admit_fails_on_an_invalid_runtime_config(
    capsys: pytest.CaptureFixture[str], project: Path, python: Path
) -> None:
    broken = {**RUNTIME, "setup": [{"key": "arm", "repositoryId": "nowhere", "command": "install-tier"}]}
    (project / "tierlock.runtime.json").write_text(json.dumps(broken))
    code, doc = admit(capsys, project, python)
    assert code == 1
    assert doc["runtime"]["verdict"] == "fail"
    assert doc["runtime"]["problems"], doc["runtime"]
    assert f"then run: tierlock --project {project} validate" in doc["runtime"]["remedy"]


def test_admit_tier_option_replaces_ci_require(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path
) -> None:
    empty = make_venv(tmp_path / "empty")
    code, doc = admit(capsys, project, empty, "--tier", "base")
    assert code == 1
    assert doc["tiers"] == ["base"]
    assert doc["probe"]["problems"][0].startswith("tier base: alpha absent")


def test_admit_json_mode_prints_one_document(capsys: pytest.CaptureFixture[str], project: Path, python: Path) -> None:
    assert main(["--project", str(project), "admit", "--python", str(python), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) == {"ok", "admitted", "tiers", "lockfiles", "runtime", "probe", "census"}
    assert doc["ok"] is True


def test_admit_reports_an_untrusted_lockfile_as_a_failed_probe_in_its_json_line(
    capsys: pytest.CaptureFixture[str], project: Path, python: Path
) -> None:
    assert admit(capsys, project, python)[0] == 0
    (project / "lockfiles" / "brain.txt").write_text("beta==2.0\n")  # a hand edit: no header, no hashes
    code, doc = admit(capsys, project, python)
    assert code == 1
    assert doc["admitted"] is False
    assert doc["lockfiles"]["verdict"] == "fail"
    assert doc["probe"]["verdict"] == "fail"
    assert doc["probe"]["tiers"] == 1
    assert doc["probe"]["tiers_present"] == 0
    assert doc["probe"]["problems"][0].startswith("tier brain: not probed: ")
    assert "an entry without hashes" in doc["probe"]["problems"][0]


def test_admit_says_the_probe_was_skipped_when_no_tier_is_required(
    capsys: pytest.CaptureFixture[str], project: Path, python: Path
) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('ci-require = ["brain"]', "ci-require = []"))
    code, doc = admit(capsys, project, python)
    assert code == 0, doc
    assert doc["tiers"] == []
    assert doc["probe"] == {
        "verdict": "skipped",
        "tiers": 0,
        "tiers_present": 0,
        "packages": 0,
        "files_checked": 0,
        "problems": [],
    }
    assert doc["lockfiles"]["tiers"] == 2  # with nothing required, every lockfile is still checked


def test_admit_fails_on_a_census_finding_and_an_accept_entry_admits_it_on_purpose(
    capsys: pytest.CaptureFixture[str], project: Path, python: Path
) -> None:
    (project / "tests" / "test_leak.py").write_text("def test_leak():\n    import beta\n")
    code, doc = admit(capsys, project, python)
    assert code == 1
    assert doc["admitted"] is False
    assert doc["census"]["verdict"] == "fail"
    assert doc["census"]["findings"] == 1
    assert doc["census"]["problems"] == [
        "tests/test_leak.py:2: brain: census-importer: needs tier brain (import beta) outside its tests globs"
        '; to fix: add "tests/test_leak.py" to [tool.tierlock.tiers.brain].tests'
        ", or mark its tests: pytestmark = pytest.mark.tier('brain')"
    ]
    assert doc["census"]["remedy"] == f"tierlock --project {project} census --fix"
    assert main(["--project", str(project), "census"]) == 1  # check and census agree with the gate
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + '\n[tool.tierlock.census.accept]\nbrain = ["tests/test_leak.py"]\n')
    capsys.readouterr()
    code, doc = admit(capsys, project, python)
    assert code == 0, doc
    assert doc["census"] == {"verdict": "pass", "tiers": 2, "files": 2, "findings": 0, "accepted": 1, "problems": []}


TWO_TIERS = pyproject(
    name="gated",
    version="0.1",
    dependencies=["alpha"],
    extras={"brain": ["beta"], "vision": ["gamma"]},
    tierlock={"ci-require": ["brain", "vision"]},
    tiers={"brain": {"tests": ["tests/brain/**"]}, "vision": {"tests": ["tests/vision/**"]}},
)


@pytest.fixture(scope="module")
def two_tiers(tmp_path_factory: pytest.TempPathFactory, wheels: Path) -> Path:
    build_wheel(wheels, "gamma", "3.0", extension=True)
    return lock_offline(tmp_path_factory.mktemp("admit-two") / "gated", wheels, TWO_TIERS)


def test_admit_counts_every_denominator_exactly_with_one_required_tier_missing(
    capsys: pytest.CaptureFixture[str], two_tiers: Path, python: Path, tmp_path: Path
) -> None:
    root = Path(shutil.copytree(two_tiers, tmp_path / "two"))
    for tier, module in (("brain", "beta"), ("vision", "gamma")):
        (root / "tests" / tier).mkdir(parents=True)
        (root / "tests" / tier / f"test_{tier}.py").write_text(f"import {module}\n")
    (root / "tests" / "test_plain.py").write_text("def test_plain():\n    pass\n")
    (root / "tierlock.runtime.json").write_text(json.dumps(RUNTIME))
    code, doc = admit(capsys, root, python)  # alpha and beta installed, gamma (vision) is not
    assert code == 1
    assert doc["tiers"] == ["brain", "vision"]
    # Each count is the gate's denominator: a wrong one lies about what was checked.
    assert {k: v for k, v in doc["lockfiles"].items() if k not in ("problems",)} == {
        "verdict": "pass",
        "tiers": 3,  # base, brain, vision
        "lockfiles": 3,
        "packages": 3,  # alpha, beta, gamma
    }
    assert {k: doc["runtime"][k] for k in ("verdict", "configs", "commands")} == {
        "verdict": "pass",
        "configs": 1,
        "commands": 2,
    }
    probe = doc["probe"]
    assert (probe["verdict"], probe["tiers"], probe["tiers_present"]) == ("fail", 2, 1)
    assert probe["packages"] == 3  # alpha, beta, gamma: each once though alpha is in both closures
    site = site_packages(python.parent.parent)

    def paths(dist: str) -> list[str]:
        return [r.split(",")[0] for r in (site / f"{dist}.dist-info" / "RECORD").read_text().splitlines() if r]

    # The root beta and the closure's alpha alike, every file (one verdict over the closure); gamma absent: nothing.
    expected = [p for p in paths("beta-2.0") + paths("alpha-1.0") if not p.endswith(".pyc")]
    assert probe["files_checked"] == len(expected) > 0
    assert {k: v for k, v in doc["census"].items() if k != "problems"} == {
        "verdict": "pass",
        "tiers": 3,
        "files": 3,
        "findings": 0,
        "accepted": 0,
    }


def test_admit_with_no_environment_to_look_at_fails_its_probe_part_with_nothing_counted(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path
) -> None:
    code, doc = admit(capsys, project, tmp_path / "nowhere" / "bin" / "python")
    assert code == 1
    probe = doc["probe"]
    assert {k: probe[k] for k in ("verdict", "tiers", "tiers_present", "packages", "files_checked")} == {
        "verdict": "fail",
        "tiers": 1,
        "tiers_present": 0,
        "packages": 0,
        "files_checked": 0,
    }
    assert probe["remedy"], probe


def test_admit_counts_a_tier_probed_and_a_tier_not_probed_as_two(
    capsys: pytest.CaptureFixture[str], two_tiers: Path, python: Path, tmp_path: Path
) -> None:
    root = Path(shutil.copytree(two_tiers, tmp_path / "two"))
    (root / "lockfiles" / "vision.txt").write_text("gamma==3.0\n")  # a hand edit: no header, no hashes
    code, doc = admit(capsys, root, python)
    assert code == 1
    probe = doc["probe"]
    assert (probe["tiers"], probe["tiers_present"]) == (2, 1), probe
    assert probe["problems"][0].startswith("tier vision: not probed: "), probe


def test_admit_of_one_chosen_tier_takes_the_census_of_that_tier_and_the_base_only(
    capsys: pytest.CaptureFixture[str], two_tiers: Path, python: Path, tmp_path: Path
) -> None:
    root = Path(shutil.copytree(two_tiers, tmp_path / "two"))
    census = admit(capsys, root, python, "--tier", "brain")[1]["census"]
    assert census["tiers"] == 2, census  # base and brain, not vision
    assert admit(capsys, root, python)[1]["census"]["tiers"] == 3
