"""The plugin on a project shaped like a real one: counts per selection, strictness per selection, speaking first.

The inner project keeps its tests inside the package folder, has a conftest
fixture that needs the tier's root (through ``importorskip``), a file mixing
tier and non-tier tests, a module-level ``importorskip``, two tiers that gate
nothing (``dev``, ``docs``), and is run whole, on subsets and under xdist.
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from tests.support.binaries import loadable_stub
from tests.support.plugin_project import CI_VARS, laptop
from tests.support.probe_env import uv_install
from tests.support.wheels import EXT_SUFFIX, build_wheel
from tierlock.cli import main
from tierlock.pytest_plugin import EXIT_TIER_MISSING

PYPROJECT = """\
[project]
name = "inner"
version = "0.1"
dependencies = ["packaging"]

[project.optional-dependencies]
brain = ["brainpkg"]
dev = ["devtool-not-installed"]
docs = ["docstool-not-installed"]

[tool.tierlock]
ci-require = ["brain"]

[tool.tierlock.tiers.dev]

[tool.tierlock.tiers.docs]

[tool.tierlock.tiers.brain]
tests = ["inner/tests/brain/**"{extra_glob}]

[tool.pytest.ini_options]
addopts = ["--strict-markers", "-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:randomly"]
testpaths = ["inner"]
{filterwarnings}
"""

FILES = {
    "inner/__init__.py": "",
    "inner/tests/conftest.py": """\
        import pytest


        @pytest.fixture
        def brain_model():
            brainpkg = pytest.importorskip("brainpkg")
            return brainpkg
        """,
    "inner/tests/brain/test_core.py": """\
        import brainpkg


        def test_core():
            assert brainpkg


        def test_more():
            assert brainpkg
        """,
    "inner/tests/test_mixed.py": """\
        import pytest


        def test_plain():
            assert True


        def test_with_model(brain_model):
            assert brain_model


        @pytest.mark.tier("brain")
        def test_marked():
            import brainpkg
        """,
    "inner/tests/test_skip.py": """\
        import pytest

        brainpkg = pytest.importorskip("brainpkg")


        def test_uses_brain():
            assert brainpkg
        """,
    "inner/tests/test_other.py": "def test_other():\n    assert True\n",
}


def write_project(pytester: pytest.Pytester, *, extra_glob: str = "", filterwarnings: str = "") -> None:
    text = PYPROJECT.format(extra_glob=extra_glob, filterwarnings=filterwarnings)
    (pytester.path / "pyproject.toml").write_text(text, encoding="utf-8")
    for rel, body in FILES.items():
        path = pytester.path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(body), encoding="utf-8")


@pytest.fixture
def shop(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    laptop(monkeypatch)
    write_project(pytester)
    return pytester


REMEDY = "tierlock lock brain && install-tier brain"  # brain has no lockfile in these projects
SUMMARY = f"tierlock: 1 test file not collected and 3 tests skipped because brain absent; to run them: {REMEDY}"


def test_a_full_run_counts_gated_files_markers_and_importorskip_of_the_tier(shop: pytest.Pytester) -> None:
    result = shop.runpytest("-rs")
    result.assert_outcomes(passed=2, skipped=3)
    result.stdout.fnmatch_lines(
        [
            f"tierlock: brain absent — 1 test file not collected; to run them: {REMEDY}",
            "*",
            SUMMARY,
        ]
    )


def test_tiers_that_gate_nothing_in_the_run_are_not_named(shop: pytest.Pytester) -> None:
    output = shop.runpytest().stdout.str()
    assert "dev" not in output.replace("devtool", "")
    assert "docs" not in output.replace("docstool", "")


def test_xdist_gives_the_same_counts(shop: pytest.Pytester) -> None:
    result = shop.runpytest_subprocess("-n", "2", "-p", "xdist", "-rs")
    result.assert_outcomes(passed=2, skipped=3)
    result.stdout.fnmatch_lines([SUMMARY])


def test_a_subset_run_counts_only_what_it_selected(shop: pytest.Pytester) -> None:
    result = shop.runpytest("inner/tests/test_other.py")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["tierlock: no tier gates a test of this run (4 tiers checked)"])
    assert "not collected" not in result.stdout.str()


def test_a_subset_run_of_the_mixed_file_counts_its_skips_and_no_file(shop: pytest.Pytester) -> None:
    result = shop.runpytest("inner/tests/test_mixed.py")
    result.assert_outcomes(passed=1, skipped=2)
    result.stdout.fnmatch_lines(
        [
            "tierlock: 0 test files not collected and 2 tests skipped because brain absent; "
            "to run them: tierlock lock brain && install-tier brain"
        ]
    )


def test_ci_run_of_an_unrelated_file_passes_and_says_the_tier_is_absent(
    shop: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    result = shop.runpytest("inner/tests/test_other.py")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "tierlock: brain absent (none of its test files selected)",
            "tierlock: strict (CI detected)",
            "*",
            "tierlock: brain absent; none of its tests were selected",
        ]
    )


@pytest.mark.parametrize(
    "selected",
    [
        "inner/tests/test_mixed.py",
        "inner/tests/test_skip.py",
        "inner/tests/brain",
        "inner/tests/test_mixed.py::test_with_model",
    ],
)
def test_ci_run_selecting_a_test_that_needs_the_tier_fails_closed_once(
    shop: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, selected: str
) -> None:
    monkeypatch.setenv("CI", "true")
    result = shop.runpytest(selected)
    assert result.ret == EXIT_TIER_MISSING
    err = result.stderr.str()
    assert err.count("tierlock: tier brain is required in CI (ci-require) but it is absent:") == 1
    assert "this run selects 1 test file(s) that need it" in err
    assert "Exit:" not in result.stdout.str() + err
    assert "!!!" not in result.stdout.str() + err
    assert "collected" not in result.stdout.str()


@pytest.mark.parametrize("narrowing", [["inner/tests/test_mixed.py::test_plain"], ["-k", "plain or other"]])
def test_ci_run_keeping_only_tests_that_need_no_tier_in_a_file_that_has_some_passes(
    shop: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, narrowing: list[str]
) -> None:
    monkeypatch.setenv("CI", "true")
    result = shop.runpytest(*narrowing)
    assert result.ret == 0, result.stderr.str()
    assert result.parseoutcomes()["passed"] >= 1
    result.stdout.fnmatch_lines(["tierlock: brain absent; none of its tests were selected"])


def test_the_census_names_the_fixture_and_the_importorskip_importers(
    shop: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    write_project(shop, extra_glob=', "inner/tests/brian/**"')
    assert main(["--project", str(shop.path), "--json", "census", "brain"]) == 1  # findings: exit 1
    brain = json.loads(capsys.readouterr().out)["tiers"][0]
    outside = {(u["file"], u["line"]) for u in brain["importers_outside"]}
    assert outside == {  # the conftest's fixture is no use of the conftest: its user is
        ("inner/tests/test_mixed.py", 8),
        ("inner/tests/test_skip.py", 3),
    }
    assert [g["files"] for g in brain["globs"]] == [1, 0]  # the typo'd glob matches nothing


# -- the gate speaks first ---------------------------------------------------------------
@pytest.fixture(scope="module")
def warning_wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """brainpkg whose package imports its compiled module, with a warning class the project filters."""
    house = tmp_path_factory.mktemp("warning-wheels")
    build_wheel(
        house,
        "brainpkg",
        "1.0",
        extension=True,
        files={
            "brainpkg/__init__.py": "from brainpkg import _core\n",
            "brainpkg/warnings.py": "class BrainWarning(UserWarning):\n    pass\n",
            f"brainpkg/_core{EXT_SUFFIX}": loadable_stub(68),
        },
    )
    return house


def broken_brain(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, wheels: Path) -> None:
    target = pytester.path.parent / f"{pytester.path.name}-site"
    uv_install(None, wheels, "brainpkg", target=target)
    (target / "brainpkg" / f"_core{EXT_SUFFIX}").unlink()
    monkeypatch.setenv("PYTHONPATH", str(target))


def test_a_filterwarnings_naming_the_broken_tiers_package_gets_tierlocks_diagnosis_first(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, warning_wheels: Path
) -> None:
    laptop(monkeypatch)
    write_project(pytester, filterwarnings='filterwarnings = ["ignore::brainpkg.warnings.BrainWarning"]')
    broken_brain(pytester, monkeypatch, warning_wheels)
    monkeypatch.setenv("CI", "true")
    result = pytester.runpytest_subprocess()
    assert result.ret == EXIT_TIER_MISSING
    first = next(line for line in result.stderr.lines if line.strip())
    assert first == "tierlock: tier brain is required in CI (ci-require) and it is damaged:"
    result.stderr.fnmatch_lines([f"  - brainpkg: partial — compiled artifact brainpkg/_core{EXT_SUFFIX} is missing"])
    assert "Traceback" not in result.stderr.str()


def test_a_failure_after_the_gate_failed_closed_ends_with_the_gates_exit_code(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, warning_wheels: Path
) -> None:
    # pytest 8 parses `filterwarnings = ["error", "ignore::pkg.Warning"]` inside pytest_load_initial_conftests,
    # after the gate: importing the broken tier's package there raises. A plugin doing the same stands in for it.
    laptop(monkeypatch)
    write_project(pytester)
    pytester.makepyfile(
        importsbrain="def pytest_load_initial_conftests(early_config, parser, args):\n    import brainpkg\n"
    )
    broken_brain(pytester, monkeypatch, warning_wheels)
    monkeypatch.setenv("PYTHONPATH", f"{os.environ['PYTHONPATH']}{os.pathsep}{pytester.path}")
    monkeypatch.setenv("CI", "true")
    result = pytester.runpytest_subprocess("-p", "importsbrain")
    assert result.ret == EXIT_TIER_MISSING
    result.stderr.fnmatch_lines(["tierlock: tier brain is required in CI (ci-require) and it is damaged:"])
    assert "Traceback" not in result.stderr.str()


def test_a_conftest_importing_a_missing_tier_is_preceded_by_the_remedy(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, warning_wheels: Path
) -> None:
    laptop(monkeypatch)
    write_project(pytester)
    (pytester.path / "inner" / "tests" / "conftest.py").write_text("import brainpkg\n", encoding="utf-8")
    broken_brain(pytester, monkeypatch, warning_wheels)
    result = pytester.runpytest_subprocess()
    assert result.ret == pytest.ExitCode.USAGE_ERROR  # pytest's own verdict on a conftest that does not import
    first = next(line for line in result.stderr.lines if line.strip())
    assert first == "tierlock: brain partial, damaged; to fix: tierlock lock brain && install-tier brain"


def test_a_test_marked_for_two_missing_tiers_gets_one_shortest_remedy(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop(monkeypatch)
    for key in CI_VARS:
        monkeypatch.delenv(key, raising=False)
    text = PYPROJECT.format(extra_glob="", filterwarnings="").replace(
        "[tool.tierlock.tiers.docs]\n", '[tool.tierlock.tiers.docs]\nlayered-on = "dev"\n'
    )
    (pytester.path / "pyproject.toml").write_text(text, encoding="utf-8")
    test = pytester.path / "inner" / "tests" / "test_two.py"
    test.parent.mkdir(parents=True)
    test.write_text(
        "import pytest\n\n\n@pytest.mark.tier('dev')\n@pytest.mark.tier('docs')\ndef test_two():\n    pass\n"
    )
    result = pytester.runpytest("-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(
        ["*tier docs is absent, dev is absent; to run these tests: tierlock lock docs dev && install-tier docs"]
    )
