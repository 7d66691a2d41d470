"""A PEP 751 pylock.toml another tool wrote serves as the tiers' lock: extras and groups pick each tier's part.

Read with ``packaging.pylock``. A lock for several selections (extras and
dependency groups declared, packages marked ``'x' in extras``) gives each tier
its part; a lock made for one selection (``pip lock``, ``uv export``, both run
here for real) serves the base tier whole and names the tiers it cannot serve.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.env import clean_env
from tests.support.uvproject import build_wheelhouse, installed, locked_project, tool, uv, uv_env
from tierlock.lockfiles.foreignpylock import read

pytestmark = pytest.mark.slow

MULTI = (
    """\
lock-version = "1.0"
created-by = "a-tool"
requires-python = ">=3.11"
extras = ["brain"]
dependency-groups = ["test"]
default-groups = []

[[packages]]
name = "alpha"
version = "1.1"
index = "https://pypi.org/simple"
wheels = [
    { url = "https://files.example/alpha-1.1-py3-none-any.whl", hashes = { sha256 = "HASH_A" } },
]

[[packages]]
name = "corelib"
version = "2.0"
marker = "'brain' in extras"
wheels = [
    { url = "https://files.example/corelib-2.0-py3-none-any.whl", hashes = { sha256 = "HASH_B" } },
]

[[packages]]
name = "testkit"
version = "1.0"
marker = "'test' in dependency_groups and sys_platform == 'linux'"
wheels = [
    { url = "https://files.example/testkit-1.0-py3-none-any.whl", hashes = { sha256 = "HASH_C" } },
]

[[packages]]
name = "proj"
directory = { path = ".", editable = true }

[[packages]]
name = "fromgit"
version = "0.1"
marker = "'brain' in extras"
vcs = { type = "git", url = "https://example.org/fromgit.git", commit-id = "0123abcd" }
""".replace("HASH_A", "a" * 64)
    .replace("HASH_B", "b" * 64)
    .replace("HASH_C", "c" * 64)
)


def _names(result: object) -> list[str]:
    return sorted(str(e.name) for e in result.lock.entries)  # type: ignore[attr-defined]


def test_each_tier_takes_the_packages_its_extras_and_groups_select(tmp_path: Path) -> None:
    path = tmp_path / "pylock.toml"
    base = read(path, MULTI, "0" * 64, root="proj", extras=(), groups=())
    assert _names(base) == ["alpha"]
    assert base.problems == ()
    brain = read(path, MULTI, "0" * 64, root="proj", extras=("brain",), groups=())
    assert _names(brain) == ["alpha", "corelib"]
    (vcs,) = brain.problems
    assert vcs.line == 36
    assert "fromgit comes from a VCS checkout" in vcs.detail
    test = read(path, MULTI, "0" * 64, root="proj", extras=(), groups=("test",))
    (testkit,) = [e for e in test.lock.entries if e.name == "testkit"]
    assert str(testkit.marker) == 'sys_platform == "linux"'  # the group decided, the environment kept
    assert [(p.name, p.editable, p.path) for p in base.lock.local] == [("proj", True, tmp_path)]


def test_an_extra_the_lock_does_not_declare_is_a_problem_naming_what_it_declares(tmp_path: Path) -> None:
    (problem,) = read(tmp_path / "pylock.toml", MULTI, "0" * 64, root="proj", extras=("gpu",), groups=()).problems
    assert problem.detail == "pylock.toml has no extra 'gpu' (it declares brain)"


def test_an_invalid_document_is_one_problem_with_its_line(tmp_path: Path) -> None:
    broken = MULTI.replace('version = "1.1"', "version = 11")
    (problem,) = read(tmp_path / "pylock.toml", broken, "0" * 64, root="proj", extras=(), groups=()).problems
    assert problem.line == 10
    assert problem.detail.startswith("invalid pylock")


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheelhouse(tmp_path_factory.mktemp("wheels"))


def _pip_lock(wheels: Path, dest: Path) -> Path:
    """``pip lock`` (real pip, offline) of alpha and gamma[fast]: a lock for one selection."""
    subprocess.run(
        [sys.executable, "-m", "pip", "lock", "--no-index", "-f", str(wheels), "alpha", "gamma[fast]", "-o", str(dest)],
        check=True,
        env=clean_env(),
        capture_output=True,
    )
    return dest


def test_a_lock_pip_wrote_serves_the_base_tier_whole_and_names_the_tiers_it_cannot(
    wheels: Path, tmp_path: Path
) -> None:
    path = _pip_lock(wheels, tmp_path / "pylock.toml")
    text = path.read_text()
    base = read(path, text, "0" * 64, root="proj", extras=(), groups=())
    assert _names(base) == ["alpha", "beta", "delta", "gamma"]
    assert base.problems == ()
    assert {e.index for e in base.lock.entries} == {str(wheels.resolve())}
    (problem,) = read(path, text, "0" * 64, root="proj", extras=("brain",), groups=()).problems
    assert "it declares no extras or dependency groups: it was locked for one selection" in problem.detail


def test_install_tier_from_a_pylock_uv_exported_gives_what_uv_pip_sync_gives(wheels: Path, tmp_path: Path) -> None:
    env = uv_env(wheels, tmp_path / "cache")
    root = locked_project(tmp_path / "proj", env)
    uv(
        ["export", "--frozen", "--format", "pylock.toml", "--no-default-groups", "-o", "pylock.toml", "--quiet"],
        root,
        env,
    )
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('lock = "uv.lock"', 'lock = "pylock.toml"'))
    for extra in ("[tool.tierlock.tiers.old]\n", "[tool.tierlock.tiers.test]\n", "[tool.tierlock.tiers.tools]\n"):
        pyproject.write_text(pyproject.read_text().replace(extra, ""))
    pyproject.write_text(pyproject.read_text().replace('[tool.tierlock.tiers.brain]\ntests = ["tests/brain/**"]\n', ""))
    before = hashlib.sha256((root / "pylock.toml").read_bytes()).hexdigest()
    synced = tmp_path / "synced"
    uv(["venv", str(synced)], root, env)
    uv(["pip", "sync", "--python", str(synced), "pylock.toml"], root, env)
    result = tool("install-tier", ["base"], root, env)
    assert result.returncode == 0, result.stderr
    assert installed(root / ".venv") == installed(synced)
    check = tool("tierlock", ["check"], root, env)
    assert check.returncode == 0, check.stdout
    assert hashlib.sha256((root / "pylock.toml").read_bytes()).hexdigest() == before
