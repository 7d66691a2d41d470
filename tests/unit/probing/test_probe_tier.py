"""Tier verdicts, the lockfile comparison, ``--closure``, and ``tierlock probe`` on the command line."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import tierlock
from tests.support.env import clean_env, make_venv, site_packages
from tests.support.importtime import loaded
from tests.support.probe_env import editable_project, uv_install
from tests.support.pyproject import pyproject
from tests.support.wheels import EXT_SUFFIX, build_wheel
from tierlock.cli import main
from tierlock.errors import UsageError
from tierlock.probing import probe as probe_function

FAKE_HASH = "--hash=sha256:" + "0" * 64

PYPROJECT = pyproject(
    version="0.1",
    requires_python=None,
    dependencies=["alpha"],
    extras={"brain": ["beta", "gamma"]},
    tiers={"brain": {"tests": ["tests/brain/**"]}},
)


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    house = tmp_path_factory.mktemp("tier-wheels")
    build_wheel(house, "alpha", "1.0")
    build_wheel(house, "beta", "2.0", extension=True)
    build_wheel(house, "gamma", "1.0+cu121")
    build_wheel(house, "delta", "3.0")
    return house


@pytest.fixture
def project(project_dir: Path) -> Path:
    (project_dir / "pyproject.toml").write_text(PYPROJECT)
    return project_dir


@pytest.fixture
def python(tmp_path: Path) -> Path:
    return make_venv(tmp_path / "venv")


def write_lock(project: Path, *pins: str) -> None:
    (project / "lockfiles").mkdir(exist_ok=True)
    (project / "lockfiles" / "brain.txt").write_text("".join(f"{pin} {FAKE_HASH}\n" for pin in pins))


def test_tier_goes_absent_partial_present_as_its_roots_arrive(project: Path, python: Path, wheelhouse: Path) -> None:
    assert tierlock.probe("brain", project=project, python=python).state == "absent"
    uv_install(python, wheelhouse, "beta")
    partial = tierlock.probe("brain", project=project, python=python)
    assert partial.state == "partial"
    assert [(r.name, r.state) for r in partial.roots] == [("beta", "present"), ("gamma", "absent")]
    uv_install(python, wheelhouse, "gamma")
    present = tierlock.probe("brain", project=project, python=python)
    assert present.state == "present"
    assert present.present
    assert present.files_checked == sum(r.files_checked for r in present.roots) > 0
    (site_packages(python.parent.parent) / "beta" / f"_core{EXT_SUFFIX}").unlink()
    assert tierlock.probe("brain", project=project, python=python).state == "partial"


def test_tier_probe_compares_installed_versions_with_the_lockfile(
    project: Path, python: Path, wheelhouse: Path
) -> None:
    uv_install(python, wheelhouse, "beta", "gamma")
    write_lock(project, "beta==2.0", "gamma==1.0+cu121")
    assert tierlock.probe("brain", project=project, python=python).state == "present"
    write_lock(project, "beta==2.0", "gamma==1.0")
    result = tierlock.probe("brain", project=project, python=python)
    assert result.lock_used
    assert result.state == "partial"
    gamma = result.roots[1]
    assert gamma.reasons == [
        "installed version 1.0+cu121 differs from the locked 1.0 (the local version labels differ)"
    ]


def test_tier_probe_without_a_lockfile_says_versions_were_not_compared(
    project: Path, python: Path, wheelhouse: Path
) -> None:
    uv_install(python, wheelhouse, "beta", "gamma")
    result = tierlock.probe("brain", project=project, python=python)
    assert result.state == "present"
    assert not result.lock_used
    assert any("installed versions were not compared" in n for n in result.notes)


def test_every_locked_package_beyond_the_roots_is_probed_by_default(
    project: Path, python: Path, wheelhouse: Path
) -> None:
    uv_install(python, wheelhouse, "beta", "gamma")
    write_lock(project, "beta==2.0", "delta==3.0", "gamma==1.0+cu121")
    for closure in (False, True):
        result = tierlock.probe("brain", project=project, python=python, closure=closure)
        assert result.state == "partial"
        assert [(d.name, d.state) for d in result.closure] == [("delta", "absent")]
    uv_install(python, wheelhouse, "delta")
    assert tierlock.probe("brain", project=project, python=python).state == "present"
    assert tierlock.probe("brain", project=project, python=python, closure=True).state == "present"


def test_the_plain_files_of_dependencies_are_stat_ed_with_or_without_the_closure_flag(
    project: Path, python: Path, wheelhouse: Path
) -> None:
    uv_install(python, wheelhouse, "beta", "gamma", "delta")
    write_lock(project, "beta==2.0", "delta==3.0", "gamma==1.0+cu121")
    (site_packages(python.parent.parent) / "delta" / "__init__.py").unlink()
    for closure in (False, True):
        result = tierlock.probe("brain", project=project, python=python, closure=closure)
        assert result.state == "partial"
        assert result.closure[0].reasons[0] == "file listed in RECORD is missing: delta/__init__.py"


def test_closure_without_a_lockfile_is_a_usage_error(project: Path) -> None:
    with pytest.raises(UsageError, match="--closure needs the lockfile of tier brain"):
        tierlock.probe("brain", project=project, closure=True)


def test_probe_is_exported_lazily_from_the_package() -> None:
    assert tierlock.probe is probe_function
    with pytest.raises(AttributeError):
        _ = tierlock.no_such_name


def test_probe_command_exits_1_until_the_tier_is_present_and_reports_json(
    project: Path, python: Path, wheelhouse: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--project", str(project), "probe", "brain", "--python", str(python), "--json"]
    assert main(argv) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is False
    assert doc["tiers"][0]["state"] == "absent"
    assert doc["tiers"][0]["roots"][0]["reasons"][0].startswith("no .dist-info for beta")
    uv_install(python, wheelhouse, "beta", "gamma")
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is True
    assert doc["tiers_checked"] == 1
    assert doc["packages_checked"] == 2
    assert doc["files_checked"] == doc["tiers"][0]["files_checked"] > 0


def test_probe_command_names_each_broken_root_and_the_fix(
    project: Path, python: Path, wheelhouse: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    uv_install(python, wheelhouse, "beta", "gamma")
    (site_packages(python.parent.parent) / "beta" / f"_core{EXT_SUFFIX}").unlink()
    assert main(["--project", str(project), "probe", "brain", "--python", str(python)]) == 1
    out = capsys.readouterr().out
    assert "brain  partial  1/2" in out
    assert f"brain: beta partial 2.0 — compiled artifact beta/_core{EXT_SUFFIX} is missing" in out
    # The fix names the interpreter probed, and locks first: this project has no lockfile yet.
    fix = f"tierlock --project {project} lock brain && install-tier --project {project} brain --python {python}"
    assert f"brain is partial; to fix: {fix}" in out  # (each command names the project it was given)


def imported_modules(code: str, cwd: Path) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        check=False,
        capture_output=True,
        text=True,
        env=clean_env(),
        cwd=cwd,
    )
    assert proc.returncode in (0, 1), proc.stderr
    return loaded(proc.stderr)


@pytest.mark.parametrize(
    "code",
    [
        "import tierlock; tierlock.probe('brain', closure=True)",
        "import sys; from tierlock.cli import main; sys.exit(main(['probe', '--json', '--python', sys.executable]))",
        "import sys; from tierlock.cli import main; sys.exit(main(['probe', '--python', sys.executable]))",
    ],
    ids=["library", "cli-json", "cli-text"],
)
def test_probe_path_imports_none_of_rich_jsonschema_pip_uv(project: Path, code: str) -> None:
    write_lock(project, "beta==2.0", "gamma==1.0")
    modules = imported_modules(code, project)
    assert {"tierlock.probing.distribution", "tierlock.probing.verdict", "tierlock.probing.required"} <= modules
    heavy = {m for m in modules if m.split(".")[0] in {"rich", "jsonschema", "pip", "uv"}}
    assert heavy == set()


def test_probe_of_an_unknown_tier_is_a_usage_error(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--project", str(project), "probe", "brian"]) == 2
    assert "did you mean 'brain'?" in capsys.readouterr().err


def test_probe_reads_the_lockfile_strictly(project: Path) -> None:
    (project / "lockfiles").mkdir()
    (project / "lockfiles" / "brain.txt").write_text("beta==2.0\n")
    with pytest.raises(tierlock.TierlockError, match="an entry without hashes"):
        tierlock.probe("brain", project=project)


def test_project_argument_accepts_a_pyproject_path(project: Path) -> None:
    result = tierlock.probe("brain", project=project / "pyproject.toml")
    assert result.tier == "brain"
    assert result.install_command == "tierlock lock brain && install-tier brain"  # no lockfile yet: lock first


def test_probe_command_says_an_editable_roots_sources_were_not_record_checked(
    project_dir: Path, python: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project_dir / "pyproject.toml").write_text(
        PYPROJECT.replace('brain = ["beta", "gamma"]', 'brain = ["edpkg"]')
        + '[tool.tierlock.tiers.brain.import-roots]\nedpkg = ["edpkg"]\n'
    )
    source = editable_project(tmp_path / "edpkg")
    uv_install(python, tmp_path, editable=source)
    argv = ["--project", str(project_dir), "probe", "brain", "--python", str(python)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "brain  present  1/1" in out
    assert f"brain: edpkg present-editable 0.3 — note: editable install from {source}: its sources are not" in out
    assert main([*argv, "--json"]) == 0
    root = json.loads(capsys.readouterr().out)["tiers"][0]["roots"][0]
    assert root["state"] == "present-editable"
    assert root["editable_source"] == str(source)
    shutil.rmtree(source / "src" / "edpkg")
    assert main(argv) == 1
    assert "import root 'edpkg' (declared) is missing" in capsys.readouterr().out


def test_the_packages_a_tier_probes_are_worked_out_once_and_again_for_another_environment_or_lock(
    project: Path,
) -> None:
    from packaging.markers import default_environment

    from tierlock.probing import tier as tier_module
    from tierlock.tiers import load_project

    write_lock(project, "alpha==1.0", "beta==2.0", "gamma==1.0+cu121", 'delta==3.0 ; python_version < "3"')
    loaded = load_project(project)
    brain = loaded.tier("brain")
    here = {k: str(v) for k, v in default_environment().items()}
    lock = tier_module.tier_lock(loaded, brain)
    first = tier_module._members(loaded, brain, here, lock)
    assert [name for name, _locked in first[1]] == ["alpha"]  # beta and gamma are the roots; delta is marked away
    assert tier_module._members(loaded, brain, dict(here), lock) is first
    old = tier_module._members(loaded, brain, {**here, "python_version": "2.7"}, lock)
    assert [name for name, _locked in old[1]] == ["alpha", "delta"]
    write_lock(project, "alpha==1.1", "beta==2.0", "gamma==1.0+cu121")
    relocked = tier_module._members(loaded, brain, here, tier_module.tier_lock(loaded, brain))
    assert relocked[1] == [("alpha", "1.1")]
