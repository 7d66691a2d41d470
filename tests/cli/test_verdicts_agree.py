"""One verdict everywhere: ``probe``, ``admit``, ``status``, ``install-tier`` and the pytest plugin agree.

A real project locked with uv from local wheels, armed with ``install-tier``
into a real venv, then asked through every entry point:

* requirements and lock entries whose environment markers do not hold on the
  *target* interpreter (``python_version``, ``python_full_version``,
  ``sys_platform``, ``platform_machine``, ``implementation_name``) are not
  required; a tier all of whose requirements are marked away is present;
  version forks under disjoint markers are compared with the entry that holds;
* every file of a dependency of the tier's root is checked by default: a
  compiled artifact that lives there (the root itself pure Python) is lost,
  and all of them report it with the same reason.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import run_cli
from tests.support.env import bin_dir, clean_env, make_venv, site_packages
from tests.support.lockproj import lock_offline
from tests.support.plugin_project import laptop
from tests.support.wheels import EXT_SUFFIX, build_wheel
from tierlock.errors import EXIT_TIER_MISSING

PYPROJECT = """\
[project]
name = "marked"
version = "0.1"
requires-python = ">=3.11"
dependencies = [
    "alpha",
    "oldshim; python_version < '3.11'",
    "earlyshim; python_full_version < '3.11.1'",
    "winshim; sys_platform == 'win32'",
    "machshim; platform_machine == 'sparc64'",
    "pypyshim; implementation_name == 'pypy'",
    "fork<2; python_version < '3.99'",
    "fork>=2; python_version >= '3.99'",
]

[project.optional-dependencies]
legacy = ["oldshim; python_version < '3.11'"]
frame = ["frame"]
patch = ["patchshim; python_full_version < '3.11.5'"]

[tool.tierlock]
ci-require = ["base", "legacy", "frame"]

[tool.tierlock.tiers.legacy]

[tool.tierlock.tiers.frame]
tests = ["tests/frame/**"]

[tool.tierlock.tiers.patch]

[tool.pytest.ini_options]
addopts = ["-p", "no:hypothesispytest"]
"""

RUNTIME_SO = f"frame_runtime/_core{EXT_SUFFIX}"
REASON = f"compiled artifact {RUNTIME_SO} is missing"


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    house = tmp_path_factory.mktemp("agree-wheels")
    for name in ("alpha", "oldshim", "earlyshim", "winshim", "machshim", "pypyshim", "patchshim"):
        build_wheel(house, name, "1.0")
    build_wheel(house, "fork", "1.0")
    build_wheel(house, "fork", "2.0")
    build_wheel(house, "frame", "1.0", requires=["frame-runtime==1.0"])  # pure Python
    build_wheel(house, "frame-runtime", "1.0", extension=True)  # where the compiled code lives
    return house


@pytest.fixture(scope="module")
def locked(tmp_path_factory: pytest.TempPathFactory, wheels: Path) -> Path:
    return lock_offline(tmp_path_factory.mktemp("agree-locked") / "marked", wheels, PYPROJECT)


@pytest.fixture
def project(tmp_path: Path, locked: Path) -> Path:
    return Path(shutil.copytree(locked, tmp_path / "marked"))


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch, wheels: Path, tmp_path: Path) -> None:
    """The user's uv/pip configuration pointing at the local wheels (install-tier respects it)."""
    for key, value in {
        "UV_NO_INDEX": "1",
        "UV_FIND_LINKS": str(wheels),
        "UV_CACHE_DIR": str(tmp_path / "uv-cache"),
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheels),
    }.items():
        monkeypatch.setenv(key, value)


def cli(capsys: pytest.CaptureFixture[str], project: Path, *argv: str) -> tuple[int, Any]:
    """``tierlock --project PROJECT ARGV``: (exit code, the JSON it printed; ``admit`` prints JSON in a pipe)."""
    code, out, _err = run_cli(capsys, "--project", str(project), *argv)
    return code, json.loads(out)


def install(capsys: pytest.CaptureFixture[str], project: Path, python: Path, *tiers: str) -> Any:
    code, doc = cli(capsys, project, "install", *tiers, "--python", str(python), "--json")
    assert code == 0, doc
    return doc


def verdicts(capsys: pytest.CaptureFixture[str], project: Path, python: Path, tier: str) -> dict[str, Any]:
    """The tier's state by ``probe``, ``status`` and ``admit``, with what each says is wrong."""
    code, probed = cli(capsys, project, "probe", tier, "--python", str(python), "--json")
    (probe,) = probed["tiers"]
    assert code == (0 if probe["state"] == "present" else 1)
    code, stat = cli(capsys, project, "status", tier, "--python", str(python), "--json")
    assert code == 0
    (status,) = stat["tiers"]
    code, admitted = cli(capsys, project, "admit", "--tier", tier, "--python", str(python))
    reasons = [r for d in (*probe["roots"], *probe["closure"]) for r in d["reasons"]]
    return {
        "probe": probe["state"],
        "status": status["state"],
        "admit": admitted["probe"]["verdict"],
        "admit_code": code,
        "reasons": reasons,
        "notes": probe["notes"],
        "status_problems": status["problems"],
        "admit_problems": admitted["probe"]["problems"],
        "probe_doc": probe,
        "admit_doc": admitted,
    }


def test_requirements_marked_away_on_the_target_are_not_required_anywhere(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path, offline: None
) -> None:
    python = make_venv(tmp_path / "venv")
    done = install(capsys, project, python, "base")
    assert done["package_count"] == 2  # alpha and the fork that holds here; nothing marked away
    base = verdicts(capsys, project, python, "base")
    assert (base["probe"], base["status"], base["admit"], base["admit_code"]) == ("present", "present", "pass", 0)
    roots = [d["name"] for d in base["probe_doc"]["roots"]]
    assert roots == ["alpha", "fork"]
    assert {d["name"]: d["locked_version"] for d in base["probe_doc"]["roots"]} == {"alpha": "1.0", "fork": "1.0"}
    lock = (project / "lockfiles" / "base.txt").read_text()
    assert "earlyshim==1.0 ; python_full_version < '3.11.1'" in lock  # locked, under a marker that fails here
    for name, marker in [
        ("oldshim", 'python_version < "3.11"'),
        ("earlyshim", 'python_full_version < "3.11.1"'),
        ("winshim", 'sys_platform == "win32"'),
        ("machshim", 'platform_machine == "sparc64"'),
        ("pypyshim", 'implementation_name == "pypy"'),
    ]:
        assert any(n.startswith(f"{name} is not required here: its marker `{marker}`") for n in base["notes"]), (
            name,
            base["notes"],
        )
    assert not any("is not in lockfiles" in n for n in base["notes"]), base["notes"]


def test_a_tier_whose_only_requirement_is_marked_away_is_present_with_nothing_to_install(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path, offline: None
) -> None:
    python = make_venv(tmp_path / "venv")
    install(capsys, project, python, "base")
    legacy = verdicts(capsys, project, python, "legacy")
    assert (legacy["probe"], legacy["status"], legacy["admit"]) == ("present", "present", "pass")
    assert legacy["probe_doc"]["roots"] == []
    assert (
        "tier legacy has no roots that apply to this environment: its verdict comes from its locked closure"
        in (legacy["notes"])
    )
    again = install(capsys, project, python, "legacy")
    assert again["result"] == "unchanged"


def test_a_version_fork_under_markers_is_compared_with_the_entry_that_holds(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path, offline: None, wheels: Path
) -> None:
    lock = (project / "lockfiles" / "base.txt").read_text()
    assert "fork==1.0 ; python_full_version < '3.99'" in lock
    assert "fork==2.0 ; python_full_version >= '3.99'" in lock
    python = make_venv(tmp_path / "venv")
    install(capsys, project, python, "base")
    # The other side of the fork installed by hand: every entry point says partial, naming the pin that holds.
    subprocess.run(
        [str(bin_dir() / "uv"), "pip", "install", "-q", "--python", str(python), "fork==2.0"],
        check=True,
        env=clean_env({"UV_NO_INDEX": "1", "UV_FIND_LINKS": str(wheels), "UV_NO_CACHE": "1"}),
    )
    base = verdicts(capsys, project, python, "base")
    assert (base["probe"], base["status"], base["admit"]) == ("partial", "partial", "fail")
    assert base["reasons"] == ["installed version 2.0 differs from the locked 1.0"]
    assert base["status_problems"] == ["fork 2.0: installed version 2.0 differs from the locked 1.0"]
    install(capsys, project, python, "base")
    assert verdicts(capsys, project, python, "base")["probe"] == "present"


def version_of(python: Path) -> tuple[int, ...]:
    code = "import platform; print(platform.python_version())"
    out = subprocess.run([str(python), "-c", code], check=True, capture_output=True, text=True).stdout
    return tuple(int(p) for p in out.strip().split("."))


def test_markers_are_evaluated_for_the_target_interpreter_not_tierlocks_own(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path, offline: None
) -> None:
    own = make_venv(tmp_path / "own")
    other = Path("/usr/bin/python3.11")
    if not other.exists():
        pytest.skip("needs a second CPython 3.11 at /usr/bin/python3.11")
    own_version, other_version = version_of(own), version_of(other)
    older = other_version < (3, 11, 5)
    if older == (own_version < (3, 11, 5)):
        pytest.skip(f"needs interpreters on both sides of 3.11.5 (have {own_version} and {other_version})")
    foreign = tmp_path / "foreign"
    subprocess.run([str(other), "-m", "venv", "--without-pip", str(foreign)], check=True)
    foreign_python = foreign / "bin" / "python"
    needs = foreign_python if older else own
    skips = own if older else foreign_python
    for python in (needs, skips):
        install(capsys, project, python, "base")
    assert verdicts(capsys, project, skips, "patch")["probe"] == "present"
    before = verdicts(capsys, project, needs, "patch")
    assert (before["probe"], before["status"], before["admit"]) == ("absent", "absent", "fail")
    done = install(capsys, project, needs, "patch")
    assert done["result"] == "installed"
    after = verdicts(capsys, project, needs, "patch")
    assert (after["probe"], after["status"], after["admit"]) == ("present", "present", "pass")


def test_a_compiled_artifact_deleted_from_a_dependency_is_partial_everywhere_with_one_reason(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path, offline: None
) -> None:
    python = make_venv(tmp_path / "venv")
    install(capsys, project, python, "frame")
    ok = verdicts(capsys, project, python, "frame")
    assert (ok["probe"], ok["status"], ok["admit"]) == ("present", "present", "pass")
    closure = {d["name"]: d for d in ok["probe_doc"]["closure"]}
    assert closure["frame-runtime"]["files_checked"] > 1  # every file of the closure, by default
    (site_packages(python.parent.parent) / RUNTIME_SO).unlink()
    broken = verdicts(capsys, project, python, "frame")
    assert (broken["probe"], broken["status"], broken["admit"], broken["admit_code"]) == (
        "partial",
        "partial",
        "fail",
        1,
    )
    assert broken["reasons"] == [REASON]
    assert broken["admit_problems"] == [f"tier frame: frame-runtime partial: {REASON}"]
    assert broken["status_problems"] == [f"frame-runtime 1.0: {REASON}"]
    repaired = install(capsys, project, python, "frame")
    assert repaired["result"] == "repaired"
    assert verdicts(capsys, project, python, "frame")["probe"] == "present"


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, project: Path) -> pytest.Pytester:
    """The locked project as pytester's project, with a test gated on the frame tier."""
    laptop(monkeypatch)
    shutil.copy(project / "pyproject.toml", pytester.path / "pyproject.toml")
    shutil.copytree(project / "lockfiles", pytester.path / "lockfiles")
    (pytester.path / "tests" / "frame").mkdir(parents=True)
    (pytester.path / "tests" / "test_base.py").write_text("def test_base():\n    assert True\n")
    (pytester.path / "tests" / "frame" / "test_frame.py").write_text(
        textwrap.dedent(
            """\
            import frame

            def test_frame():
                assert frame.__version__ == "1.0"
            """
        )
    )
    return pytester


def test_the_plugin_in_ci_agrees_on_markers_and_on_a_compiled_artifact_in_a_dependency(
    inner: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    offline: None,
) -> None:
    python = make_venv(tmp_path / "venv")
    install(capsys, inner.path, python, "base", "frame")
    monkeypatch.syspath_prepend(str(site_packages(python.parent.parent)))
    monkeypatch.setenv("CI", "true")
    for _ in range(2):  # a cold run builds the cached tier model; the warm run probes from it
        result = inner.runpytest()
        result.assert_outcomes(passed=2)
        # patch gates nothing in this run and CI does not require it: the header leaves it out.
        result.stdout.fnmatch_lines(["tierlock: base present · legacy present · frame present"])
        assert "patch" not in result.stdout.str()
    (site_packages(python.parent.parent) / RUNTIME_SO).unlink()
    for flags in ((), ("-p", "no:cacheprovider")):
        result = inner.runpytest(*flags)
        assert result.ret == EXIT_TIER_MISSING
        result.stderr.fnmatch_lines(
            [
                "tierlock: tier frame is required in CI (ci-require) and it is damaged:",
                f"  - frame-runtime: partial — {REASON}",
                "  to fix: install-tier frame",
            ]
        )


def test_deep_compares_the_hash_of_a_dependencys_compiled_artifact(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path, offline: None
) -> None:
    python = make_venv(tmp_path / "venv")
    install(capsys, project, python, "frame")
    so = site_packages(python.parent.parent) / RUNTIME_SO
    data = so.read_bytes()
    so.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))  # same size, same ELF header, other bytes
    assert cli(capsys, project, "probe", "frame", "--python", str(python), "--json")[0] == 0
    code, doc = cli(capsys, project, "probe", "frame", "--deep", "--python", str(python), "--json")
    assert code == 1
    (tier,) = doc["tiers"]
    assert [r for d in tier["closure"] for r in d["reasons"]] == [f"file does not match its RECORD hash: {RUNTIME_SO}"]


def test_without_python_probe_admit_and_status_judge_the_active_venv_as_install_tier_does(
    capsys: pytest.CaptureFixture[str],
    project: Path,
    tmp_path: Path,
    offline: None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    python = make_venv(tmp_path / "venv")
    install(capsys, project, python, "frame")
    (site_packages(python.parent.parent) / RUNTIME_SO).unlink()
    monkeypatch.setenv("VIRTUAL_ENV", str(python.parent.parent))  # tierlock itself runs from another environment
    code, probed = cli(capsys, project, "probe", "frame", "--json")
    assert code == 1
    assert probed["python"] == str(python)
    assert probed["tiers"][0]["state"] == "partial"
    assert cli(capsys, project, "status", "frame", "--json")[1]["tiers"][0]["state"] == "partial"
    code, admitted = cli(capsys, project, "admit", "--tier", "frame")
    assert code == 1
    assert admitted["probe"]["problems"] == [f"tier frame: frame-runtime partial: {REASON}"]
