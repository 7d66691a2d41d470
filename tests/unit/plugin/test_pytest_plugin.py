"""The pytest plugin, driven with ``pytester`` against a real install of the tier's root.

The inner project's ``brain`` tier has one root, ``brainpkg``, installed by uv
into a folder that is put on the path only when the tier should be present.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support.env import clean_env
from tests.support.importtime import loaded
from tests.support.plugin_project import arm, build_brain_wheels, inner_pyproject, laptop
from tests.support.wheels import EXT_SUFFIX
from tierlock.pytest_plugin import EXIT_TIER_MISSING, parse_strict_env, strictness

PYPROJECT = inner_pyproject(cacheprovider=False)


@pytest.fixture(scope="module")
def brain_wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_brain_wheels(tmp_path_factory.mktemp("brain-wheels"))


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """The inner project, run as on a laptop (no CI variables, no TIERLOCK_STRICT)."""
    laptop(monkeypatch)
    pytester.makefile(".toml", pyproject=PYPROJECT)
    (pytester.path / "tests" / "brain").mkdir(parents=True)
    (pytester.path / "tests" / "test_base.py").write_text("def test_base():\n    assert True\n")
    (pytester.path / "tests" / "brain" / "test_brain.py").write_text(
        textwrap.dedent(
            """\
            from pathlib import Path

            Path(__file__).with_name("imported.flag").touch()
            import brainpkg


            def test_brain():
                assert brainpkg.__version__ == "1.0"
            """
        )
    )
    (pytester.path / "tests" / "test_marked.py").write_text(
        "import pytest\n\n\n@pytest.mark.tier('brain')\ndef test_marked():\n    assert True\n"
    )
    return pytester


def test_absent_tier_locally_is_not_collected_and_named_in_the_header(inner: pytest.Pytester) -> None:
    result = inner.runpytest("-rs")
    result.assert_outcomes(passed=1, skipped=1)
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            (
                "tierlock: brain absent — 1 test file not collected; "
                "to run them: tierlock lock brain && install-tier brain"
            ),
            "tierlock: lenient (not CI)",
            "tierlock: 1 test file not collected and 1 test skipped because brain absent"
            "; to run them: tierlock lock brain && install-tier*",
            "*SKIPPED*test_marked.py*tier brain is absent"
            "; to run these tests: tierlock lock brain && install-tier brain",
        ]
    )
    assert not (inner.path / "tests" / "brain" / "imported.flag").exists()


def test_present_tier_runs_its_tests(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, brain_wheels: Path
) -> None:
    arm(inner, monkeypatch, brain_wheels)
    result = inner.runpytest()
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        ["tierlock: brain present", "tierlock: every tier this run needs is present (2 tiers checked)"]
    )


def test_absent_tier_in_ci_fails_closed_before_collection(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    result = inner.runpytest()
    assert result.ret == EXIT_TIER_MISSING
    result.stderr.fnmatch_lines(
        [
            "tierlock: tier brain is required in CI (ci-require) but it is absent:",
            "  - brainpkg: absent — no .dist-info for brainpkg on the path*",
            "  to fix: tierlock lock brain && install-tier brain",
            "*(CI detected), because a skipped tier on a green run is silent coverage loss.*",
        ]
    )
    assert "collected" not in result.stdout.str()


def test_partial_tier_in_ci_fails_closed_naming_the_broken_root(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, brain_wheels: Path
) -> None:
    target = arm(inner, monkeypatch, brain_wheels)
    monkeypatch.setenv("CI", "woodpecker")
    inner.runpytest().assert_outcomes(passed=3)
    (target / "brainpkg" / f"_core{EXT_SUFFIX}").unlink()
    result = inner.runpytest()
    assert result.ret == EXIT_TIER_MISSING
    result.stderr.fnmatch_lines(
        [
            "tierlock: tier brain is required in CI (ci-require) and it is damaged:",
            f"  - brainpkg: partial — compiled artifact brainpkg/_core{EXT_SUFFIX} is missing",
            "  to fix: tierlock lock brain && install-tier brain",
            "*silent coverage loss*",
        ]
    )


def test_partial_tier_locally_is_gated_and_its_reason_is_shown(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, brain_wheels: Path
) -> None:
    target = arm(inner, monkeypatch, brain_wheels)
    (target / "brainpkg" / f"_core{EXT_SUFFIX}").unlink()
    result = inner.runpytest()
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(
        [
            (
                "tierlock: brain partial, damaged — 1 test file not collected; "
                "to run them: tierlock lock brain && install-tier brain"
            ),
            f"tierlock:   brain: brainpkg: partial — compiled artifact brainpkg/_core{EXT_SUFFIX} is missing",
        ]
    )


def test_explicitly_named_file_of_an_absent_tier_is_never_imported(inner: pytest.Pytester) -> None:
    result = inner.runpytest("tests/brain/test_brain.py", "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*SKIPPED*tests/brain/test_brain.py*not imported: tier brain is absent*"])
    assert not (inner.path / "tests" / "brain" / "imported.flag").exists()


@pytest.mark.parametrize(
    "nodeid",
    [
        "tests/brain/test_brain.py::test_brain",
        "tests/brain/test_brain.py::test_brain[1]",
        "tests/brain/test_brain.py::TestBrain::test_it",
    ],
)
def test_test_named_inside_an_absent_tiers_file_is_skipped_not_reported_missing(
    inner: pytest.Pytester, nodeid: str
) -> None:
    result = inner.runpytest(nodeid, "-v", "-rs")  # what an IDE runs
    result.assert_outcomes(skipped=1)
    assert result.ret == 0
    assert any(line.startswith(f"{nodeid} SKIPPED ") for line in result.outlines), result.outlines
    reason = (
        "in a gated file, not imported: tier brain is absent; "
        "to run these tests: tierlock lock brain && install-tier brain"
    )
    assert f"SKIPPED [1] tests/brain/test_brain.py:1: {reason}" in result.outlines
    # One named test is one skipped test (not a file), in the header and in the summary.
    result.stdout.fnmatch_lines(
        ["tierlock: brain absent — 1 named test skipped; to run them: tierlock lock brain && install-tier brain"]
    )
    result.stdout.fnmatch_lines(["tierlock: 0 test files not collected and 1 test skipped because brain absent*"])
    assert not (inner.path / "tests" / "brain" / "imported.flag").exists()


def test_gating_keeps_ignore_working(inner: pytest.Pytester) -> None:
    result = inner.runpytest("--ignore=tests/test_base.py")
    result.assert_outcomes(skipped=1)  # only the marked test is left; --ignore still applies


def test_without_the_plugin_the_gated_file_breaks_collection(inner: pytest.Pytester) -> None:
    result = inner.runpytest("-p", "no:tierlock")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*ModuleNotFoundError: No module named 'brainpkg'*"])


def test_lenient_flag_runs_a_base_only_ci_job_on_purpose(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    result = inner.runpytest("--tierlock-lenient")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["tierlock: lenient (--tierlock-lenient)"])


def test_tierlock_strict_0_runs_a_base_only_ci_job_on_purpose(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("TIERLOCK_STRICT", "0")
    result = inner.runpytest()
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(["tierlock: lenient (TIERLOCK_STRICT=0)"])


def test_strict_flag_fails_closed_on_a_laptop(inner: pytest.Pytester) -> None:
    result = inner.runpytest("--tierlock-strict")
    assert result.ret == EXIT_TIER_MISSING
    result.stderr.fnmatch_lines(
        ["*(--tierlock-strict), because a skipped tier on a green run is silent coverage loss*"]
    )


def test_tierlock_strict_1_fails_closed_on_a_laptop(inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIERLOCK_STRICT", "1")
    result = inner.runpytest()
    assert result.ret == EXIT_TIER_MISSING
    result.stderr.fnmatch_lines(["tierlock: tier brain is required in CI (ci-require) but it is absent:"])


def test_ci_false_is_not_ci(inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "false")
    monkeypatch.setenv("GITLAB_CI", "true")
    result = inner.runpytest()
    assert result.ret == 0
    result.stdout.fnmatch_lines(["tierlock: lenient (not CI)"])


def test_an_empty_ci_does_not_hide_a_vendor_ci_variable(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    result = inner.runpytest()
    assert result.ret == EXIT_TIER_MISSING
    result.stderr.fnmatch_lines(["tierlock: tier brain is required in CI (ci-require) but it is absent:"])


def test_both_overrides_at_once_are_a_usage_error(inner: pytest.Pytester) -> None:
    result = inner.runpytest("--tierlock-strict", "--tierlock-lenient")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--tierlock-strict and --tierlock-lenient contradict each other*"])


def test_unknown_tier_in_a_marker_is_a_usage_error(inner: pytest.Pytester) -> None:
    (inner.path / "tests" / "test_marked.py").write_text(
        "import pytest\n\n\n@pytest.mark.tier('brian')\ndef test_marked():\n    pass\n"
    )
    result = inner.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unknown tier 'brian' in its tier marker; declared: base, brain*"])


def test_project_without_a_tier_table_is_left_alone(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    pytester.makefile(".toml", pyproject='[project]\nname = "plain"\nversion = "0"\n[tool.pytest.ini_options]\n')
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    assert "tierlock:" not in result.stdout.str()


def test_project_without_a_tier_table_is_left_alone_even_when_its_project_table_is_invalid(
    pytester: pytest.Pytester,
) -> None:
    pytester.makefile(
        ".toml",
        pyproject='# tierlock is used elsewhere\n[project]\nname = "plain"\nversion = "0"\n'
        'dependencies = ["foo >>> 1"]\n[tool.pytest.ini_options]\n',
    )
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)
    assert "tierlock:" not in result.stdout.str() + result.stderr.str()


def test_xdist_controller_decides_once_and_workers_agree(inner: pytest.Pytester) -> None:
    (inner.path / "tests" / "test_worker.py").write_text(
        textwrap.dedent(
            """\
            def test_worker_got_the_controllers_decision(request):
                decision = request.config.workerinput["tierlock"]
                assert decision["states"] == {"base": "present", "brain": "absent"}
                assert decision["gated"] == {"brain": ["tests/brain/**"]}
            """
        )
    )
    result = inner.runpytest_subprocess("-n", "2", "-p", "xdist")
    result.assert_outcomes(passed=2, skipped=1)
    result.stdout.fnmatch_lines(
        [
            (
                "tierlock: brain absent — 1 test file not collected; "
                "to run them: tierlock lock brain && install-tier brain"
            ),
            "tierlock: 1 test file not collected and 1 test skipped because brain absent*",
        ]
    )
    assert not (inner.path / "tests" / "brain" / "imported.flag").exists()


def test_xdist_run_in_ci_fails_closed_before_starting_workers(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "1")
    result = inner.runpytest_subprocess("-n", "2", "-p", "xdist")
    assert result.ret == EXIT_TIER_MISSING
    result.stderr.fnmatch_lines(["tierlock: tier brain is required in CI (ci-require) but it is absent:"])
    assert "created: 2/2 workers" not in result.stdout.str()


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, None), ("", None), ("1", True), ("TRUE", True), ("yes", True), ("0", False), ("false", False)],
)
def test_tierlock_strict_values(value: str | None, expected: bool | None) -> None:
    assert parse_strict_env(value) is expected


def test_tierlock_strict_rejects_other_values() -> None:
    with pytest.raises(pytest.UsageError, match="TIERLOCK_STRICT='maybe' is not understood"):
        parse_strict_env("maybe")


@pytest.mark.parametrize(
    ("strict", "lenient", "environ", "expected"),
    [
        (False, False, {}, (False, "not CI")),
        (False, False, {"CI": "true"}, (True, "CI detected")),
        (False, False, {"JENKINS_URL": "x", "BUILD_ID": "7"}, (True, "CI detected")),
        (False, False, {"CI": "true", "TIERLOCK_STRICT": "0"}, (False, "TIERLOCK_STRICT=0")),
        (False, True, {"TIERLOCK_STRICT": "1"}, (False, "--tierlock-lenient")),
        (True, False, {"CI": "0"}, (True, "--tierlock-strict")),
    ],
)
def test_strictness_precedence_flags_then_env_then_ci(
    strict: bool, lenient: bool, environ: dict[str, str], expected: tuple[bool, str]
) -> None:
    assert strictness(strict, lenient, environ) == expected


def test_plugin_path_imports_none_of_rich_jsonschema_pip_uv(inner: pytest.Pytester) -> None:
    argv = [sys.executable, "-X", "importtime", "-m", "pytest", "-s", "-p", "no:xdist"]
    proc = subprocess.run(argv, cwd=inner.path, capture_output=True, text=True, check=False, env=clean_env())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tierlock: brain absent" in proc.stdout
    modules = loaded(proc.stderr)
    assert {"tierlock.ci", "tierlock.tiers.loader", "tierlock.probing.distribution"} <= modules  # the plugin ran
    assert {m for m in modules if m.split(".")[0] in {"rich", "jsonschema", "pip", "uv"}} == set()


def test_markers_listing_in_ci_lists_the_tier_marker_instead_of_failing(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    result = inner.runpytest("--markers")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["@pytest.mark.tier(name): the test needs tier NAME*"])
