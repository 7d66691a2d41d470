"""``tierlock matrix``: a test file needing two sibling tiers gets a job with both, and ``--check`` proves coverage.

The project is shaped like httpx: ``brotli`` and ``zstd`` are sibling extras, each ``ci-require`` with its own
test folder, and ``tests/test_decoders.py`` imports both ``brotli`` and ``zstandard`` at module level. In a job,
``TIERLOCK_TIERS`` names the job's tiers: the pytest plugin collects only their tests (counting the others) and is
strict about its own tiers.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import run_cli
from tests.support.lockproj import write_project
from tests.support.plugin_project import laptop, write_files
from tests.support.probe_env import uv_install
from tests.support.wheels import build_wheel
from tierlock.pytest_plugin import EXIT_TIER_MISSING

PYPROJECT = """\
[project]
name = "decoders"
version = "0.1"
requires-python = ">=3.11"
dependencies = []

[project.optional-dependencies]
brotli = ["brotli"]
zstd = ["zstandard"]

[tool.tierlock]
ci-require = ["brotli", "zstd"]
{conflicts}

[tool.tierlock.tiers.brotli]
tests = ["tests/brotli/**"]

[tool.tierlock.tiers.zstd]
tests = ["tests/zstd/**"]

[tool.pytest.ini_options]
addopts = ["-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:randomly"]
testpaths = ["tests"]
"""

FILES = {
    "tests/test_base.py": "def test_base():\n    pass\n",
    "tests/brotli/test_brotli.py": "import brotli\n\n\ndef test_brotli():\n    assert brotli\n",
    "tests/zstd/test_zstd.py": "import zstandard\n\n\ndef test_zstd():\n    assert zstandard\n",
    "tests/test_decoders.py": "import brotli\nimport zstandard as zstd\n\n\ndef test_decoders():\n    assert zstd\n",
}


def decoders(folder: Path, conflicts: str = "") -> Path:
    write_project(folder, PYPROJECT.format(conflicts=conflicts))
    write_files(folder, FILES)
    return folder


def test_a_file_needing_two_sibling_tiers_gets_a_job_with_both(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = decoders(tmp_path / "httpx")
    code, out, _ = run_cli(capsys, "--project", str(folder), "matrix")
    assert code == 0
    jobs = json.loads(out)["include"]
    assert [j["tiers"] for j in jobs] == ["base", "base brotli", "base zstd", "base brotli zstd"]
    assert jobs[-1] == {
        "name": "brotli+zstd",
        "tier": "brotli+zstd",
        "tiers": "base brotli zstd",
        "install": "install-tier brotli zstd",
        "admit": "tierlock admit --tier brotli --tier zstd",
    }


def test_check_proves_every_file_needing_a_required_tier_runs_in_a_job(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = decoders(tmp_path / "httpx")
    code, out, _ = run_cli(capsys, "--project", str(folder), "matrix", "--check")
    assert code == 0, out
    assert out == "every test file needing a ci-require tier runs in a job: 3 file(s), 4 job(s)\n"
    code, out, _ = run_cli(capsys, "--project", str(folder), "--json", "matrix", "--check")
    assert json.loads(out)["runs_in"] == {
        "tests/brotli/test_brotli.py": "brotli",
        "tests/test_decoders.py": "brotli+zstd",
        "tests/zstd/test_zstd.py": "zstd",
    }


def test_check_names_a_file_whose_tiers_are_declared_in_conflict_and_fails(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = decoders(tmp_path / "httpx", conflicts='conflicts = [["brotli", "zstd"]]')
    code, out, _ = run_cli(capsys, "--project", str(folder), "matrix")
    assert [j["name"] for j in json.loads(out)["include"]] == ["base", "brotli", "zstd"]
    code, out, _ = run_cli(capsys, "--project", str(folder), "matrix", "--check")
    assert code == 1
    assert out.splitlines()[0] == (
        "tests/test_decoders.py: runs in no job: needs brotli and zstd, declared in conflict (brotli, zstd)"
    )
    assert "1 of 3 test file(s) needing a ci-require tier run in no job of 3" in out


# -- in the jobs: TIERLOCK_TIERS ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def house(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("decoder-wheels")
    build_wheel(folder, "brotli", "1.0")
    build_wheel(folder, "zstandard", "1.0")
    return folder


@pytest.fixture
def job(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    laptop(monkeypatch)
    decoders(pytester.path)
    monkeypatch.setenv("CI", "true")
    return pytester


def arm(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, house: Path, *names: str) -> None:
    target = pytester.path.parent / f"{pytester.path.name}-site"
    uv_install(None, house, *names, target=target)
    monkeypatch.syspath_prepend(str(target))


def test_the_base_job_collects_no_test_of_another_jobs_tier_and_counts_them(
    job: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIERLOCK_TIERS", "base")
    result = job.runpytest()
    assert result.ret == 0
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "tierlock: strict (CI detected); matrix job TIERLOCK_TIERS=base: other tiers' tests are not collected",
            "tierlock: 2 test files not collected and 0 tests skipped because brotli runs in another matrix job*",
            "tierlock: 2 test files not collected and 0 tests skipped because zstd runs in another matrix job*",
        ]
    )


def test_a_one_tier_job_leaves_the_two_tier_file_to_the_job_that_has_both(
    job: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, house: Path
) -> None:
    arm(job, monkeypatch, house, "brotli")
    monkeypatch.setenv("TIERLOCK_TIERS", "base brotli")
    result = job.runpytest()
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=2)


def test_the_two_tier_job_runs_the_file_that_needs_both(
    job: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, house: Path
) -> None:
    arm(job, monkeypatch, house, "brotli", "zstandard")
    monkeypatch.setenv("TIERLOCK_TIERS", "base brotli zstd")
    result = job.runpytest()
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=4)


def test_a_job_whose_own_tier_is_missing_fails_closed(job: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIERLOCK_TIERS", "brotli")
    result = job.runpytest()
    assert result.ret == EXIT_TIER_MISSING
    result.stderr.fnmatch_lines(
        ["tierlock: tier brotli is required in this matrix job (TIERLOCK_TIERS) but it is absent:"]
    )


def test_an_unknown_tier_in_the_job_variable_is_a_usage_error(
    job: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIERLOCK_TIERS", "base brotly")
    result = job.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*TIERLOCK_TIERS='base brotly' names brotly, not a tier of this project*"])


def test_a_jobs_own_missing_tier_is_found_by_a_skip_in_a_helper_and_fails_the_job_closed(
    job: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    job.makepyfile(
        **{
            "decoder_needs": "import pytest\n\n\ndef zstd():\n    return pytest.importorskip('zstan' + 'dard')\n",
            "tests/test_via_helper": "import decoder_needs\n\n\ndef test_it():\n    decoder_needs.zstd()\n",
        }
    )
    monkeypatch.setenv("TIERLOCK_TIERS", "zstd")
    monkeypatch.syspath_prepend(str(job.path))
    result = job.runpytest("tests/test_via_helper.py")  # no file of zstd's globs: nothing stops the run early
    assert result.ret == EXIT_TIER_MISSING, result.stdout.str() + result.stderr.str()
