# ruff: noqa: F811  (pytest fixtures imported from test_install_cli are parameters here)
"""The environment install-tier acts on, and what it refuses to do there (real uv, real pip, real venvs).

* no ``--python`` and no active venv: the project's environment, created when missing;
* every spelling of one environment is one target for the receipts' fast path (a link elsewhere to its
  interpreter is not one of them: it runs as the base interpreter, tests/cli/test_target_identity.py);
* tierlock never replaces what it itself imports, in the environment it runs from;
* arming a tier never silently breaks another armed tier (``--replace-armed`` marks it stale);
* a backend failure says why; an unwritable site-packages is refused before the backend runs.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_install_cli import (  # noqa: F401 - the shared session fixtures
    World,
    armed_venv,
    empty_venv,
    index_env,
    kit,
    refreeze,
    use_armed,
    uv_cache,
    wheel_dir,
    wheels,
    world,
)
from tests.support.env import bin_dir, clean_env, make_venv, site_packages
from tests.support.tierproject import make_project, write_lock
from tests.support.wheels import build_wheel
from tierlock._version import __version__
from tierlock.installer import receipts
from tierlock.installer.location import PROJECT_ENV_VAR, environment_key


def _install_tier(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(bin_dir() / "install-tier"), *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )


def _remedy(err: str) -> list[str]:
    """The command of the ``to fix:`` line, as printed (up to the first explanation in parentheses)."""
    line = next(x for x in err.splitlines() if x.strip().startswith("to fix:"))
    command = line.split("to fix:", 1)[1].split(" (", 1)[0].strip()
    return shlex.split(command)


# -- 1. the project's environment by default -----------------------------------------------


@pytest.mark.parametrize("backend", ["uv", "pip"])
def test_a_tool_installed_tierlock_creates_and_arms_the_projects_venv_with_no_flag(
    tmp_path: Path, wheels: dict[str, Path], wheel_dir: Path, uv_cache: Path, backend: str
) -> None:
    # tierlock runs from its own (tool) environment; the project is elsewhere, no venv active, no --python.
    root = make_project(tmp_path / "proj", wheels)
    tool_site = site_packages(Path(sys.prefix))
    tool_before = sorted(p.name for p in tool_site.iterdir())
    env = clean_env(index_env(wheel_dir, uv_cache))
    run = _install_tier("brain", "--backend", backend, cwd=root, env=env)
    assert run.returncode == 0, run.stderr
    how = "uv venv" if backend == "uv" else "python -m venv"
    assert f"created the project environment .venv with {how}" in run.stderr
    assert len([x for x in run.stderr.splitlines() if "created the project environment" in x]) == 1
    venv = root / ".venv"
    assert (venv / "pyvenv.cfg").is_file()
    assert (site_packages(venv) / "corelib-1.0.dist-info").is_dir()
    receipt = receipts.load(receipts.receipt_path(venv, "brain"))
    assert receipt is not None
    assert receipt.data["interpreter"]["environment"] == environment_key(venv)
    assert sorted(p.name for p in tool_site.iterdir()) == tool_before  # tierlock's own environment untouched

    again = _install_tier("brain", cwd=root, env=env)
    assert again.returncode == 0, again.stderr
    assert "brain: already present" in again.stdout
    assert "created" not in again.stderr


def test_the_project_environment_can_be_configured_or_named_by_a_variable(
    tmp_path: Path, wheels: dict[str, Path], wheel_dir: Path, uv_cache: Path
) -> None:
    root = make_project(tmp_path / "proj", wheels)
    pyproject = root / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text(encoding="utf-8").replace("[tool.tierlock]\n", '[tool.tierlock]\nvenv = "envs/dev"\n'),
        encoding="utf-8",
    )
    env = clean_env(index_env(wheel_dir, uv_cache))
    run = _install_tier("base", cwd=root, env=env)
    assert run.returncode == 0, run.stderr
    assert "created the project environment envs/dev" in run.stderr
    assert (site_packages(root / "envs" / "dev") / "basepkg-1.0.dist-info").is_dir()
    assert not (root / ".venv").exists()

    elsewhere = tmp_path / "elsewhere-env"
    moved = _install_tier("base", cwd=root, env={**env, PROJECT_ENV_VAR: str(elsewhere)})
    assert moved.returncode == 0, moved.stderr
    assert (site_packages(elsewhere) / "basepkg-1.0.dist-info").is_dir()


def test_status_and_remove_never_fall_back_to_tierlocks_own_interpreter(world: World) -> None:
    for command in (("status",), ("remove", "brain")):
        run = world.cli(*command, target=False)
        assert run.code == 2, run.err
        assert "the project environment .venv does not exist" in run.err
        assert f"to fix: install-tier --project {world.root} b" in run.err  # runs as printed: base, or brain with it


# -- 4. one environment, many spellings ------------------------------------------------------


def test_every_spelling_of_one_environment_takes_the_fast_path(world: World, armed_venv: Path) -> None:
    use_armed(world, armed_venv)
    first = world.cli("install", "--python", str(world.venv), "brain", target=False)
    assert first.code == 0, first.err
    link_dir = world.root.parent / "link-to-venv"
    link_dir.symlink_to(world.venv)
    spellings = [
        world.venv / "bin" / "python",
        world.venv / "bin" / "python3",
        world.venv,
        link_dir,
        link_dir / "bin" / "python",
        Path(os.path.relpath(world.venv, Path.cwd())),
    ]
    for spelling in spellings:
        run = world.cli("install", "--python", str(spelling), "--json", "brain", target=False)
        assert run.code == 0, (spelling, run.err)
        assert run.json["result"] == "unchanged", spelling
        assert run.argv == [], f"{spelling} was not the same target: {run.argv}"
    receipt = world.receipt()
    assert receipt is not None
    assert receipt.data["interpreter"]["environment"] == environment_key(world.venv)


def test_the_venvs_own_console_script_and_an_outside_python_flag_share_one_receipt(
    world: World, armed_venv: Path
) -> None:
    use_armed(world, armed_venv)
    assert world.install("brain").code == 0  # the copied receipts named the venv they were armed in
    script = world.venv / "bin" / "install-tier"
    script.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    script.chmod(0o755)
    run = world.cli("install", "--python", str(script), "--json", "brain", target=False)
    assert run.code == 0, run.err
    assert run.json["result"] == "unchanged"
    assert run.argv == []

    # The full path (-v steps aside from the fast path) writes no new receipt for another spelling either.
    before = world.receipt()
    assert before is not None
    full = world.cli("install", "--python", str(world.venv / "bin" / "python3"), "-v", "brain", target=False)
    assert full.code == 0, full.err
    after = world.receipt()
    assert after is not None
    assert after.data == before.data


# -- 2. never break itself ---------------------------------------------------------------


@pytest.fixture
def self_env(tmp_path: Path) -> Path:
    """An environment tierlock runs from: tierlock (its source on a .pth) and copies of its runtime closure.

    If tierlock ever broke it, only this throwaway environment would suffer.
    """
    from importlib import metadata

    from packaging.utils import canonicalize_name

    import tierlock
    from tests.support.repack import closure as installed_closure

    venv = tmp_path / "selfenv"
    make_venv(venv)
    site = site_packages(venv)
    closure = {canonicalize_name(n) for n in installed_closure(["tierlock"], extras=["cli"])}
    for dist in metadata.distributions():
        name = canonicalize_name(dist.metadata["Name"])
        if name == "tierlock":
            info = Path(str(dist._path))  # type: ignore[attr-defined]  # its .dist-info folder
            shutil.copytree(info, site / info.name)
        elif name in closure:
            for file in dist.files or ():
                source = Path(str(file.locate()))
                if source.is_file():
                    (site / file).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(source, site / file)
    (site / "tierlock-dev.pth").write_text(f"{Path(tierlock.__file__).parent.parent}\n", encoding="utf-8")
    return venv


def _self_project(root: Path, links: Path, version: str) -> None:
    wheel = build_wheel(links, "packaging", version)
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        f'[project]\nname = "user-app"\nversion = "1"\nrequires-python = ">=3.11"\n'
        f'dependencies = ["packaging=={version}"]\n\n[tool.tierlock]\nlock-dir = "lockfiles"\n',
        encoding="utf-8",
    )
    write_lock(root, "base", [("packaging", version, wheel)])


def test_a_plan_that_would_break_tierlocks_own_environment_is_refused_before_anything_changes(
    tmp_path: Path, self_env: Path, uv_cache: Path
) -> None:
    from importlib import metadata

    installed = metadata.version("packaging")
    links = tmp_path / "links"
    root = tmp_path / "proj"
    _self_project(root, links, "20.0")
    env = clean_env({**index_env(links, uv_cache), "VIRTUAL_ENV": str(self_env), "TIERLOCK_UV": str(bin_dir() / "uv")})
    site = site_packages(self_env)
    before = sorted(p.name for p in site.iterdir())
    run = subprocess.run(
        [str(self_env / "bin" / "python"), "-m", "tierlock", "install", "base", "--project", str(root)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 2, run.stderr
    assert f"refusing to replace packaging {installed} with 20.0" in run.stderr
    assert "the environment tierlock runs from" in run.stderr
    assert f"tierlock {__version__} requires packaging>=" in run.stderr, run.stderr
    assert "base declares packaging==20.0: it and tierlock cannot share one environment" in run.stderr
    assert "uv tool install 'tierlock[uv]" in run.stderr
    assert sorted(p.name for p in site.iterdir()) == before
    assert not (site.parent.parent.parent / "tierlock" / "receipts").exists()


def test_a_compatible_replacement_in_tierlocks_own_environment_goes_ahead(
    tmp_path: Path, self_env: Path, uv_cache: Path
) -> None:
    links = tmp_path / "links"
    root = tmp_path / "proj"
    _self_project(root, links, "99.0")  # satisfies tierlock's packaging>=...; a fake, in a throwaway env
    env = clean_env({**index_env(links, uv_cache), "VIRTUAL_ENV": str(self_env), "TIERLOCK_UV": str(bin_dir() / "uv")})
    run = subprocess.run(
        [str(self_env / "bin" / "python"), "-m", "tierlock", "install", "base", "--project", str(root)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert (site_packages(self_env) / "packaging-99.0.dist-info").is_dir()


# -- 16.1 armed siblings -------------------------------------------------------------------

SIBLINGS = """\
[project]
name = "app"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["basepkg>=1"]

[project.optional-dependencies]
brain = ["corelib>=1", "helper>=1"]
fast = ["corelib>=1"]

[tool.tierlock]
lock-dir = "lockfiles"

[tool.tierlock.tiers.brain]
source = "extra:brain"

[tool.tierlock.tiers.fast]
source = "extra:fast"
"""


def _siblings(world: World, wheels: dict[str, Path]) -> None:
    (world.root / "pyproject.toml").write_text(SIBLINGS, encoding="utf-8")
    base = [("basepkg", "1.0", wheels["basepkg-1.0"])]
    write_lock(world.root, "base", base)
    write_lock(
        world.root, "brain", [*base, ("corelib", "1.0", wheels["corelib-1.0"]), ("helper", "1.0", wheels["helper-1.0"])]
    )
    write_lock(world.root, "fast", [*base, ("corelib", "2.0", wheels["corelib-2.0"])])
    refreeze(world)


@pytest.mark.parametrize("backend", ["uv", "pip"])
def test_arming_a_tier_that_would_replace_another_armed_tiers_pin_is_refused_naming_both(
    world: World, wheels: dict[str, Path], backend: str
) -> None:
    _siblings(world, wheels)
    assert world.install("brain", "--backend", backend).code == 0
    before = sorted(p.name for p in world.site.iterdir())
    run = world.cli("install", "fast", "--backend", backend)
    assert run.code == 2, run.err
    assert "arming fast would replace corelib pinned by the armed tier(s) brain" in run.err
    assert "corelib: brain pins 1.0, fast would install 2.0" in run.err
    assert [a for a in run.backend_runs if "install" in a] == []
    assert sorted(p.name for p in world.site.iterdir()) == before

    remedy = _remedy(run.err)
    assert remedy[0] == "install-tier"
    assert "--replace-armed" in remedy
    assert remedy[remedy.index("--python") + 1] == world.python
    again = world.cli("install", *remedy[1:], target=False)
    assert again.code == 0, again.err
    assert "brain: marked stale - arming fast replaces corelib" in again.err
    assert (world.site / "corelib-2.0.dist-info").is_dir()

    status = world.cli("status", "--json", "brain")
    (row,) = status.json["tiers"]
    assert row["state"] == "partial"
    assert row["problems"][0] == "stale: arming fast replaced corelib"
    # brain's receipt no longer vouches for a no-op; re-arming brain is refused in turn (fast is armed now).
    rearm = world.cli("install", "brain")
    assert rearm.code == 2
    assert "pinned by the armed tier(s) fast" in rearm.err


def test_siblings_asked_together_are_refused_naming_every_package_and_the_remedy_arms_one(
    world: World, wheels: dict[str, Path]
) -> None:
    _siblings(world, wheels)
    run = world.cli("install", "brain", "fast")
    assert run.code == 2, run.err
    assert "tiers brain and fast cannot be armed together" in run.err
    assert "corelib: brain pins 1.0, fast pins 2.0" in run.err
    assert run.backend_runs == []
    remedy = _remedy(run.err)
    assert remedy[:4] == ["install-tier", "--project", str(world.root), "brain"]
    armed = world.cli("install", *remedy[1:], target=False)
    assert armed.code == 0, armed.err
    assert world.receipt("brain") is not None
    assert world.receipt("fast") is None


def test_tiers_that_agree_arm_side_by_side(world: World) -> None:
    assert world.install("base").code == 0
    run = world.install("brain")
    assert run.code == 0, run.err


# -- 9.12 why a backend failed -----------------------------------------------------------


@pytest.mark.parametrize("backend", ["uv", "pip"])
def test_a_hash_mismatch_names_the_package_in_the_message_and_the_json_error(
    world: World, tmp_path: Path, backend: str
) -> None:
    links = tmp_path / "links"
    shutil.copytree(world.find_links, links)
    build_wheel(links, "helper", "1.0", files={"helper/__init__.py": "X = 2  # tampered\n"})
    for key in ("UV_FIND_LINKS", "PIP_FIND_LINKS"):
        world.monkeypatch.setenv(key, str(links))
    world.monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path / "cache"))
    run = world.install("brain", "--backend", backend)
    assert run.code == 3, run.err
    error = run.json["error"]
    causes = " ".join(p["message"] for p in error["problems"])
    assert "helper" in causes
    assert "hash" in causes.lower()
    assert "helper" in error["message"]
    assert error["package"] == "helper"


def test_the_cause_survives_however_long_the_output_after_it(world: World, tmp_path: Path) -> None:
    # A backend whose cause line is followed by 80 lines of hash lists (what a big lock produces).
    stub = tmp_path / "uv"
    noise = "".join(f"echo '    --hash=sha256:{i:064x}'\n" for i in range(80))
    stub.write_text(
        '#!/bin/sh\n[ "$1" = --version ] && { echo "uv 0.0.1"; exit 0; }\n'
        "echo '  x Failed to download `numpy==2.4.6`' >&2\n"
        "echo '  |-> Hash mismatch for `numpy==2.4.6`' >&2\n" + noise + "exit 1\n",
        encoding="utf-8",
    )
    stub.chmod(0o755)
    world.monkeypatch.setenv("TIERLOCK_UV", str(stub))
    run = world.install("brain", "--backend", "uv")
    assert run.code == 3
    error = run.json["error"]
    assert "Hash mismatch for `numpy==2.4.6`" in error["message"] or any(
        "Hash mismatch for `numpy==2.4.6`" in p["message"] for p in error["problems"]
    )
    assert error["package"] == "numpy"
    assert "Hash mismatch for `numpy==2.4.6`" in run.err


def test_a_read_only_site_packages_is_refused_before_the_backend_runs(world: World) -> None:
    site = world.site
    if os.geteuid() == 0:
        locked = subprocess.run(["chattr", "+i", str(site)], capture_output=True, check=False).returncode == 0
        if not locked:
            pytest.skip("neither chattr nor a non-root user can make a folder read-only here")
    else:
        site.chmod(0o555)
    try:
        run = world.install("brain")
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(site)], check=False)
        site.chmod(0o755)
    assert run.code == 2, run.err
    assert f"its site-packages {site} is not writable" in run.err
    assert run.backend_runs == []
    assert world.receipt() is None


def test_a_users_json_error_never_carries_a_password(world: World, tmp_path: Path) -> None:
    stub = tmp_path / "uv"
    stub.write_text(
        '#!/bin/sh\n[ "$1" = --version ] && { echo "uv 0.0.1"; exit 0; }\n'
        'echo "error: Failed to fetch: $UV_INDEX_URL/helper/" >&2\nexit 2\n',
        encoding="utf-8",
    )
    stub.chmod(0o755)
    world.monkeypatch.setenv("TIERLOCK_UV", str(stub))
    world.monkeypatch.setenv("UV_INDEX_URL", "https://alice:p@ss/w:rd@index.example/simple")
    run = world.install("brain", "--backend", "uv")
    assert run.code == 3
    assert "p@ss/w:rd" not in run.out + run.err
    assert "ss/w" not in json.dumps(run.json)
    assert "https://alice:****@index.example/simple/helper/" in run.json["error"]["message"]
