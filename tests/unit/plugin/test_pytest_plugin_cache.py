"""The pytest plugin's cached tier model (``.pytest_cache/v/tierlock/``).

The inner project runs with pytest's cacheprovider. The cache may only spare
the loader: every verdict still comes from a fresh probe of the files, and
anything the model was derived from (pyproject.toml, a lockfile) invalidates it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support.env import clean_env
from tests.support.plugin_project import arm, build_brain_wheels, inner_pyproject, laptop
from tests.support.probe_env import uv_install
from tests.support.wheels import EXT_SUFFIX, build_wheel
from tierlock.environment import current
from tierlock.probing import probe_tiers
from tierlock.probing.facts import ProjectFacts, facts_of, probe_facts
from tierlock.probing.site import site_folders
from tierlock.pytest_plugin import EXIT_TIER_MISSING
from tierlock.tiers import load_project

PYPROJECT = inner_pyproject(cacheprovider=True)

FAKE_HASH = "--hash=sha256:" + "0" * 64
ABSENT_HEADER = (
    "tierlock: brain absent — 1 test file not collected; to run them: tierlock lock brain && install-tier brain"
)


@pytest.fixture(scope="module")
def brain_wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_brain_wheels(tmp_path_factory.mktemp("brain-wheels"))


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """The inner project on a laptop (no CI variables), with the cacheprovider on."""
    laptop(monkeypatch)
    pytester.makefile(".toml", pyproject=PYPROJECT)
    (pytester.path / "tests" / "brain").mkdir(parents=True)
    (pytester.path / "tests" / "test_base.py").write_text("def test_base():\n    assert True\n")
    (pytester.path / "tests" / "brain" / "test_brain.py").write_text(
        "import brainpkg\n\n\ndef test_brain():\n    pass\n"
    )
    return pytester


def entry_file(pytester: pytest.Pytester) -> Path:
    """The one cache entry the plugin wrote for this project and interpreter."""
    found = sorted((pytester.path / ".pytest_cache" / "v" / "tierlock").glob("tiers-*"))
    assert len(found) == 1, found
    return found[0]


def tierlock_lines(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if line.startswith("tierlock:")]


def write_lock(pytester: pytest.Pytester, *pins: str) -> None:
    (pytester.path / "lockfiles").mkdir(exist_ok=True)
    (pytester.path / "lockfiles" / "brain.txt").write_text("".join(f"{pin} {FAKE_HASH}\n" for pin in pins))


def test_warm_cache_gives_the_same_header_and_gating_as_a_cold_run(inner: pytest.Pytester) -> None:
    cold = inner.runpytest()
    cold.assert_outcomes(passed=1)
    written = entry_file(inner).stat().st_mtime_ns
    warm = inner.runpytest()
    warm.assert_outcomes(passed=1)
    assert entry_file(inner).stat().st_mtime_ns == written  # a hit: the entry was read, not rewritten
    assert tierlock_lines(warm) == tierlock_lines(cold)
    assert tierlock_lines(warm)[0] == ABSENT_HEADER


def test_warm_cache_in_ci_still_fails_closed(inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    inner.runpytest().assert_outcomes(passed=1)
    monkeypatch.setenv("CI", "true")
    result = inner.runpytest()
    assert result.ret == EXIT_TIER_MISSING
    result.stderr.fnmatch_lines(["tierlock: tier brain is required in CI (ci-require) but it is absent:"])


def test_a_new_tier_in_pyproject_invalidates_the_cached_model(inner: pytest.Pytester) -> None:
    inner.runpytest().assert_outcomes(passed=1)
    (inner.path / "tests" / "vision").mkdir()
    (inner.path / "tests" / "vision" / "test_vision.py").write_text("import visionpkg\n")
    text = PYPROJECT.replace('brain = ["brainpkg"]', 'brain = ["brainpkg"]\nvision = ["visionpkg"]')
    text = text.replace("[tool.pytest", '[tool.tierlock.tiers.vision]\ntests = ["tests/vision/**"]\n\n[tool.pytest')
    (inner.path / "pyproject.toml").write_text(text)
    result = inner.runpytest()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["tierlock: brain absent · vision absent — 2 test files not collected*"])


def test_a_new_tests_glob_in_pyproject_invalidates_the_cached_model(inner: pytest.Pytester) -> None:
    (inner.path / "tests" / "test_needs_brain.py").write_text("import brainpkg\n")
    # Not gated yet: importing brainpkg fails at collection, and the backstop turns that into a skip of the file.
    first = inner.runpytest()
    first.assert_outcomes(passed=1, skipped=1)
    first.stdout.fnmatch_lines(["tierlock: brain absent — 1 test file not collected*"])
    text = PYPROJECT.replace('tests = ["tests/brain/**"]', 'tests = ["tests/brain/**", "tests/test_needs_brain.py"]')
    (inner.path / "pyproject.toml").write_text(text)
    result = inner.runpytest()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["tierlock: brain absent — 2 test files not collected*"])


def test_a_new_locked_version_invalidates_the_cache_and_makes_the_root_partial(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, brain_wheels: Path
) -> None:
    arm(inner, monkeypatch, brain_wheels)
    write_lock(inner, "brainpkg==1.0")
    inner.runpytest().assert_outcomes(passed=2)
    inner.runpytest().assert_outcomes(passed=2)  # warm
    write_lock(inner, "brainpkg==2.0")
    result = inner.runpytest()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "tierlock: brain partial, damaged — 1 test file not collected*",
            "tierlock:   brain: brainpkg: partial — installed version 1.0 differs from the locked 2.0",
        ]
    )


def test_a_lockfile_that_appears_invalidates_the_cached_model(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, brain_wheels: Path
) -> None:
    arm(inner, monkeypatch, brain_wheels)
    inner.runpytest().assert_outcomes(passed=2)  # no lockfile: versions not compared
    write_lock(inner, "brainpkg==3.0")
    result = inner.runpytest()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*brainpkg: partial — installed version 1.0 differs from the locked 3.0"])


def test_a_file_deleted_after_the_cache_was_written_still_flips_the_verdict(
    inner: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, brain_wheels: Path
) -> None:
    target = arm(inner, monkeypatch, brain_wheels)
    inner.runpytest().assert_outcomes(passed=2)
    written = entry_file(inner).stat().st_mtime_ns
    (target / "brainpkg" / f"_core{EXT_SUFFIX}").unlink()
    result = inner.runpytest()
    assert entry_file(inner).stat().st_mtime_ns == written  # the model came from the cache ...
    result.assert_outcomes(passed=1)  # ... and the probe still ran
    result.stdout.fnmatch_lines(
        [
            "tierlock: brain partial, damaged — 1 test file not collected*",
            f"tierlock:   brain: brainpkg: partial — compiled artifact brainpkg/_core{EXT_SUFFIX} is missing",
        ]
    )


def _not_json(entry: dict[str, object]) -> str:
    return '{"key": [1, '


def _not_an_entry(entry: dict[str, object]) -> str:
    return "[]"


def _facts_of_the_wrong_shape(entry: dict[str, object]) -> str:
    facts = entry["facts"]
    assert isinstance(facts, dict)
    facts["tiers"] = [{"name": "base"}]
    return json.dumps(entry)


def _lockfiles_not_matching_the_tiers(entry: dict[str, object]) -> str:
    entry["lockfiles"] = {}
    return json.dumps(entry)


@pytest.mark.parametrize(
    "corrupt", [_not_json, _not_an_entry, _facts_of_the_wrong_shape, _lockfiles_not_matching_the_tiers]
)
def test_a_corrupt_cache_entry_falls_back_to_the_full_load(inner: pytest.Pytester, corrupt: object) -> None:
    assert callable(corrupt)
    inner.runpytest().assert_outcomes(passed=1)
    path = entry_file(inner)
    path.write_text(corrupt(json.loads(path.read_text())))
    result = inner.runpytest()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([ABSENT_HEADER])
    ProjectFacts.from_json(json.loads(path.read_text())["facts"])  # rewritten whole


def test_without_the_cacheprovider_the_plugin_loads_the_project_each_run(inner: pytest.Pytester) -> None:
    for _ in range(2):
        result = inner.runpytest("-p", "no:cacheprovider")
        result.assert_outcomes(passed=1)
        result.stdout.fnmatch_lines([ABSENT_HEADER])
    assert not (inner.path / ".pytest_cache").exists()


def test_a_cache_hit_imports_neither_the_tier_loader_nor_heavy_modules(inner: pytest.Pytester) -> None:
    (inner.path / "tests" / "test_modules.py").write_text(
        textwrap.dedent(
            """\
            import json, sys
            from pathlib import Path

            WATCHED = ["tierlock.probing.facts", "tierlock.tiers.loader", "packaging.requirements",
                       "packaging.markers", "packaging.specifiers", "rich", "jsonschema", "pip", "uv"]


            def test_record_modules():
                loaded = [m for m in WATCHED if m in sys.modules]
                Path(__file__).with_name("modules.json").write_text(json.dumps(loaded))
            """
        )
    )
    argv = [sys.executable, "-m", "pytest", "-p", "no:xdist"]
    recorded = inner.path / "tests" / "modules.json"
    seen: list[list[str]] = []
    for _ in range(2):
        proc = subprocess.run(argv, cwd=inner.path, capture_output=True, text=True, check=False, env=clean_env())
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert ABSENT_HEADER in proc.stdout
        seen.append(json.loads(recorded.read_text()))
    cold, warm = seen
    assert "tierlock.tiers.loader" in cold  # the first run loaded the project in full
    assert warm == ["tierlock.probing.facts"]


def test_site_folders_are_the_ones_the_full_probe_uses() -> None:
    target = current()
    assert site_folders(str(target.stdlib)) == target.site_paths


def test_a_cache_that_cannot_be_written_neither_fails_nor_warns(inner: pytest.Pytester) -> None:
    (inner.path / ".pytest_cache" / "v").mkdir(parents=True)
    (inner.path / ".pytest_cache" / "v" / "tierlock").write_text("a file where the entry's folder would go")
    for _ in range(2):
        result = inner.runpytest("-W", "error")
        result.assert_outcomes(passed=1)
        result.stdout.fnmatch_lines([ABSENT_HEADER])
        result.stdout.no_fnmatch_line("*could not create cache path*")


MODEL_PYPROJECT = """\
[project]
name = "model"
version = "0.1"
dependencies = ["alpha"]

[project.optional-dependencies]
brain = ["beta", "gamma"]

[tool.tierlock.tiers.brain]
tests = ["tests/brain/**"]
"""


def test_the_cached_model_gives_exactly_the_verdicts_of_the_full_probe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    house = tmp_path / "wheels"
    build_wheel(house, "alpha", "1.0")
    build_wheel(house, "beta", "2.0", extension=True)
    build_wheel(house, "gamma", "1.0+cu121")
    folder = tmp_path / "model"
    (folder / "lockfiles").mkdir(parents=True)
    (folder / "pyproject.toml").write_text(MODEL_PYPROJECT)
    (folder / "lockfiles" / "brain.txt").write_text(f"beta==2.0 {FAKE_HASH}\ngamma==1.0+cu121 {FAKE_HASH}\n")
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    project = load_project(folder)
    # The model is taken once, with nothing installed, and read back as the plugin reads its cache entry.
    cached = ProjectFacts.from_json(json.loads(json.dumps(facts_of(project, probe_tiers(None, project)).to_json())))

    def verdicts_agree() -> list[str]:
        full = {r.tier: (r.state, [d.to_dict() for d in r.roots]) for r in probe_tiers(None, project)}
        from_model = {v.tier: (v.state, [d.to_dict() for d in v.roots]) for v in probe_facts(cached)}
        assert from_model == full
        return [state for state, _ in full.values()]

    assert verdicts_agree() == ["absent", "absent"]
    uv_install(None, house, "beta", target=site)
    assert verdicts_agree() == ["absent", "partial"]
    uv_install(None, house, "alpha", "gamma", target=site)
    assert verdicts_agree() == ["present", "present"]
    (site / "beta" / f"_core{EXT_SUFFIX}").unlink()
    (site / "gamma-1.0+cu121.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: gamma\nVersion: 1.0\n")
    assert verdicts_agree() == ["present", "partial"]
