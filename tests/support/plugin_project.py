"""The inner project the pytest-plugin tests run with ``pytester``, and what they share.

Its ``brain`` tier has one root, ``brainpkg``; :func:`arm` installs it for
real (uv, offline) into a folder put on the path, so the tier is present.
:func:`inner_project` writes it on a laptop; :func:`strict_run` runs it as CI
does, and :func:`assert_stopped_before_collection` / :func:`assert_failed_closed`
read the two ways a strict run without the tier ends.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support.probe_env import uv_install
from tests.support.wheels import build_wheel
from tierlock.pytest_plugin import EXIT_TIER_MISSING

#: How a strict run's verdict on the absent ``brain`` tier begins.
REQUIRED_ABSENT = "tierlock: tier brain is required in CI (ci-require) but it is absent"

#: Every variable tierlock's CI detection reads (tierlock.ci.is_ci).
CI_VARS = ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "CIRCLECI", "TF_BUILD", "JENKINS_URL", "BUILD_ID")

_PYPROJECT = """\
[project]
name = "inner"
version = "0.1"
dependencies = ["packaging"]

[project.optional-dependencies]
brain = ["brainpkg"]

[tool.tierlock]
ci-require = ["brain"]

[tool.tierlock.tiers.brain]
tests = ["{tests}"]

[tool.pytest.ini_options]
addopts = [{addopts}]
"""


def inner_pyproject(*, cacheprovider: bool, tests: str = "tests/brain/**", strict_markers: bool = True) -> str:
    """The inner project's pyproject.toml, with pytest's cacheprovider on or off, the brain tier's tests glob."""
    addopts = ["--strict-markers"] if strict_markers else []
    addopts += ["-p", "no:hypothesispytest"]
    if not cacheprovider:
        addopts += ["-p", "no:cacheprovider"]
    return _PYPROJECT.format(addopts=", ".join(f'"{a}"' for a in addopts), tests=tests)


def laptop(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run as on a laptop: no CI variables, no TIERLOCK_STRICT or TIERLOCK_TIERS, nothing from an outer pytest or
    xdist, and this interpreter's environment active (``VIRTUAL_ENV``), so that it is the one ``install-tier``
    acts on by default and the plugin's remedies need no ``--python``."""
    for key in (*CI_VARS, "TIERLOCK_STRICT", "TIERLOCK_TIERS", "PYTEST_XDIST_AUTO_NUM_WORKERS", "PYTEST_ADDOPTS"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)


def build_brain_wheels(house: Path) -> Path:
    """A wheel of ``brainpkg`` 1.0 (with an extension-named file) in *house*."""
    build_wheel(house, "brainpkg", "1.0", extension=True)
    return house


def arm(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, wheels: Path) -> Path:
    """Install brainpkg for real into a folder on the path (in-process and for subprocess runs)."""
    target = pytester.path.parent / f"{pytester.path.name}-site"
    uv_install(None, wheels, "brainpkg", target=target)
    monkeypatch.syspath_prepend(str(target))
    monkeypatch.setenv("PYTHONPATH", str(target))
    return target


def write_files(root: Path, files: dict[str, str]) -> None:
    """Write each relative path of *files* below *root* (folders made as needed)."""
    import textwrap

    for rel, body in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(body), encoding="utf-8")


def inner_project(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    files: dict[str, str] | None = None,
    *,
    tests: str = "tests/brain/**",
    pyproject: str | None = None,
) -> pytest.Pytester:
    """The inner project in *pytester*, run as on a laptop (:func:`laptop`): its pyproject.toml (the cacheprovider
    off, the brain tier gating the glob *tests*; or *pyproject* as given) and *files* written below it."""
    laptop(monkeypatch)
    pytester.makefile(
        ".toml", pyproject=inner_pyproject(cacheprovider=False, tests=tests) if pyproject is None else pyproject
    )
    write_files(pytester.path, files or {})
    return pytester


def strict_run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, *args: str) -> pytest.RunResult:
    """pytest *args* in the inner project as in CI (``CI=true``): the run is strict from here on."""
    monkeypatch.setenv("CI", "true")
    return pytester.runpytest(*args)


def assert_stopped_before_collection(result: pytest.RunResult, files: int | None = 1) -> None:
    """A strict run stopped before collection: brain required and absent, and (unless *files* is None) the number of
    selected test files that need it."""
    assert result.ret == EXIT_TIER_MISSING, result.stdout.str() + result.stderr.str()
    said = [f"{REQUIRED_ABSENT}:"]
    if files is not None:
        said.append(f"  this run selects {files} test file(s)*")
    result.stderr.fnmatch_lines(said)


def assert_failed_closed(result: pytest.RunResult, *lines: str) -> None:
    """A strict run failed closed at its end: exit ``EXIT_TIER_MISSING`` and *lines* (glob patterns) on stdout, in
    order."""
    assert result.ret == EXIT_TIER_MISSING, result.stdout.str()
    if lines:
        result.stdout.fnmatch_lines(list(lines))
