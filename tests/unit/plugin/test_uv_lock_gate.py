"""The pytest plugin gates a uv project's tests on tiers read from its uv.lock, as on tierlock's own lockfiles.

The project is real and locked by real uv (offline); its ``brain`` tier
(``gamma`` and ``corelib`` from uv.lock) is absent from the environment pytest
runs in: on a laptop its tests are not collected and the run says so, in CI
the run fails closed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.plugin_project import laptop
from tests.support.uvproject import locked_project, uv_env

pytestmark = pytest.mark.slow

ADDOPTS = (
    "\n[tool.pytest.ini_options]\n"
    'addopts = ["-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:hypothesispytest"]\n'
)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory, uv_wheelhouse: Path) -> Path:
    wheels = uv_wheelhouse
    env = uv_env(wheels, tmp_path_factory.mktemp("cache"))
    return locked_project(tmp_path_factory.mktemp("lock") / "proj", env)


@pytest.fixture
def project(template: Path, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    laptop(monkeypatch)
    for name in ("pyproject.toml", "uv.lock"):
        shutil.copy(template / name, pytester.path / name)
    shutil.copytree(template / "packages", pytester.path / "packages")
    pyproject = pytester.path / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + ADDOPTS)
    (pytester.path / "tests" / "brain").mkdir(parents=True)
    (pytester.path / "tests" / "brain" / "test_brain.py").write_text(
        "import corelib\n\n\ndef test_brain():\n    pass\n"
    )
    (pytester.path / "tests" / "test_base.py").write_text("def test_base():\n    pass\n")
    return pytester


def test_a_laptop_run_leaves_the_absent_tiers_tests_out_and_says_so(project: pytest.Pytester) -> None:
    result = project.runpytest()
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["tierlock:*brain*absent*install-tier brain*"])


def test_a_ci_run_fails_closed_on_the_absent_tier(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    result = project.runpytest()
    assert result.ret == 6
    result.stderr.fnmatch_lines(
        ["tierlock: tier brain is required in CI (ci-require) but it is absent:", "*gamma*absent*"]
    )
