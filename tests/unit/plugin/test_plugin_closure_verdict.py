"""The pytest plugin's verdict covers every file of the tier's locked closure, as ``probe`` does.

The inner project's ``brain`` tier has a pure-Python root whose dependency
(locked in the tier's lockfile, installed for real with uv) loses a plain
``.py`` file: the plugin gates the tier's tests on a laptop and fails closed in
CI, naming the package and the file, with a cold and a warm pytest cache.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.plugin_project import laptop
from tests.support.probe_env import uv_install
from tests.support.wheels import build_wheel
from tierlock.pytest_plugin import EXIT_TIER_MISSING

PYPROJECT = """\
[project]
name = "inner"
version = "0.1"
dependencies = []

[project.optional-dependencies]
brain = ["brainpkg"]

[tool.tierlock]
ci-require = ["brain"]

[tool.tierlock.tiers.brain]
tests = ["tests/brain/**"]

[tool.pytest.ini_options]
addopts = ["-p", "no:hypothesispytest"]
"""
FAKE_HASH = "--hash=sha256:" + "0" * 64
LOST = "brainutil/parser.py"


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    house = tmp_path_factory.mktemp("closure-plugin-wheels")
    build_wheel(house, "brainpkg", "1.0", requires=["brainutil"], files={"brainpkg/__init__.py": "import brainutil\n"})
    files = {"brainutil/__init__.py": "from .parser import parse\n", LOST: "def parse(x):\n    return x\n"}
    build_wheel(house, "brainutil", "1.0", files=files)
    return house


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, wheels: Path) -> tuple[pytest.Pytester, Path]:
    laptop(monkeypatch)
    pytester.makefile(".toml", pyproject=PYPROJECT)
    (pytester.path / "lockfiles").mkdir()
    (pytester.path / "lockfiles" / "brain.txt").write_text(f"brainpkg==1.0 {FAKE_HASH}\nbrainutil==1.0 {FAKE_HASH}\n")
    (pytester.path / "tests" / "brain").mkdir(parents=True)
    (pytester.path / "tests" / "test_base.py").write_text("def test_base():\n    pass\n")
    (pytester.path / "tests" / "brain" / "test_brain.py").write_text(
        "import brainpkg\n\n\ndef test_brain():\n    pass\n"
    )
    site = pytester.path.parent / f"{pytester.path.name}-site"
    uv_install(None, wheels, "brainpkg", target=site)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PYTHONPATH", str(site))
    return pytester, site


@pytest.mark.parametrize("cache", ["cold", "warm"])
def test_a_file_lost_from_a_dependency_of_the_root_gates_the_tier_and_fails_closed_in_ci(
    inner: tuple[pytest.Pytester, Path], monkeypatch: pytest.MonkeyPatch, cache: str
) -> None:
    pytester, site = inner
    pytester.runpytest().assert_outcomes(passed=2)
    if cache == "cold":
        pytester.runpytest("--cache-clear").assert_outcomes(passed=2)
    (site / LOST).unlink()
    args = ("--cache-clear",) if cache == "cold" else ()
    local = pytester.runpytest(*args)
    local.assert_outcomes(passed=1)
    local.stdout.fnmatch_lines(
        [
            "tierlock: brain partial, damaged — 1 test file not collected*",
            f"tierlock:   brain: brainutil: partial — file listed in RECORD is missing: {LOST}",
        ]
    )
    monkeypatch.setenv("CI", "true")
    strict = pytester.runpytest(*args)
    assert strict.ret == EXIT_TIER_MISSING
    strict.stderr.fnmatch_lines(
        [
            "tierlock: tier brain is required in CI (ci-require) and it is damaged:",
            f"  - brainutil: partial — file listed in RECORD is missing: {LOST}",
        ]
    )
