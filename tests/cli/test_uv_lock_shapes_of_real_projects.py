"""Shapes of uv projects seen on real ones (FastAPI, attrs), each on a lock real uv writes offline.

* A requirement declared twice, typically through two included groups (FastAPI's ``dev`` includes ``tests``
  and ``docs``, which both list ``pyyaml``; attrs' ``benchmark`` includes ``tests`` and lists
  ``pytest-xdist[psutil]`` again): uv records it once, so it is no drift, and a real change beside it still is,
  with ``uv lock`` as the remedy that clears it.
* A lock of a newer schema than this tierlock and its uv read: ``uv lock`` is no remedy (that uv refuses the
  file too), so the remedy says what is: a newer uv.
* A package that publishes only an sdist in a tier that installs from wheels only: uv.lock names every file of
  every package (a folder of wheels without hashes too), so ``check`` proves the declared platforms from it and
  ``install-tier`` refuses before the backend; both remedies end in ``uv lock`` (``tierlock lock`` refuses a uv
  project), and the edit they name, then the command as printed, fixes the next run.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.uvproject import PYPROJECT, copy_project, tool, uv, uv_env, write_project

pytestmark = pytest.mark.slow

REPEATS = PYPROJECT.replace(
    'tools = ["beta", { include-group = "test" }]',
    'tools = ["beta", { include-group = "test" }]\n'
    'lint = ["testkit", "beta"]\n'
    'every = [{ include-group = "tools" }, { include-group = "lint" }, "beta"]',
).replace('dependencies = ["alpha>=1",', 'dependencies = ["alpha>=1", "alpha >= 1",')


@pytest.fixture(scope="module")
def env(uv_wheelhouse: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return uv_env(uv_wheelhouse, tmp_path_factory.mktemp("uvcache"))


@pytest.fixture(scope="module")
def repeats(tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]) -> Path:
    root = write_project(tmp_path_factory.mktemp("repeats") / "proj", REPEATS)
    uv(["lock"], root, env)
    return root


def _sh(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A printed remedy, run exactly as printed."""
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, check=False)


def test_a_requirement_repeated_through_included_groups_is_no_drift(repeats: Path, env: dict[str, str]) -> None:
    assert uv(["lock", "--check"], repeats, env).returncode == 0
    result = tool("tierlock", ["check"], repeats, env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("ok: ")


def test_a_real_change_beside_a_repeat_is_drift_and_uv_lock_as_printed_clears_it(
    repeats: Path, env: dict[str, str], tmp_path: Path
) -> None:
    project = copy_project(repeats, tmp_path / "proj")
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('lint = ["testkit", "beta"]', 'lint = ["testkit", "beta<2"]'))
    code, report = _check_json(project, env)
    assert code == 1
    details = [f["detail"] for f in report["findings"]]
    assert details == [
        "uv.lock is out of date for pyproject.toml: group every: beta<2 added",
        "uv.lock is out of date for pyproject.toml: group lint: beta became beta<2",
    ]
    (remedy,) = {f["remedy"] for f in report["findings"]}
    assert _sh(remedy, project, env).returncode == 0
    code, report = _check_json(project, env)
    assert (code, report["ok"], report["problems"]) == (0, True, 0)


def _check_json(project: Path, env: dict[str, str]) -> tuple[int, dict[str, Any]]:
    result = tool("tierlock", ["check", "--json"], project, env)
    return result.returncode, json.loads(result.stdout)


def test_a_lock_of_a_newer_schema_names_a_newer_uv_and_never_uv_lock_which_refuses_it(
    repeats: Path, env: dict[str, str], tmp_path: Path
) -> None:
    project = copy_project(repeats, tmp_path / "proj")
    lock = project / "uv.lock"
    lock.write_text(lock.read_text().replace("version = 1\n", "version = 2\n", 1))
    refused = uv(["lock"], project, env, check=False)
    assert refused.returncode != 0  # the old remedy, as printed
    assert "unsupported schema version" in refused.stderr
    code, report = _check_json(project, env)
    assert code == 1
    (finding,) = report["findings"]
    assert "schema version 2" in finding["detail"]
    assert finding["remedy"].startswith("upgrade the uv tierlock runs (")
    assert "reads uv.lock schema version 2" in finding["remedy"]
    armed = tool("install-tier", ["base"], project, env)
    assert armed.returncode == 1  # the check before arming: nothing installed
    assert "to fix: upgrade the uv tierlock runs" in armed.stderr


@pytest.fixture(scope="module")
def sdist_env(uv_wheelhouse: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The uv project's wheels and one package, ``sdonly``, that publishes only an sdist."""
    import shutil

    from tests.support.platformwheels import build_sdist

    wheels = Path(shutil.copytree(uv_wheelhouse, tmp_path_factory.mktemp("sdist") / "wheels"))
    build_sdist(wheels, "sdonly", "1.0", salt="uv-lock-shapes")
    return uv_env(wheels, tmp_path_factory.mktemp("uvcache"))


def _sdist_project(root: Path, env: dict[str, str], old: str, new: str) -> Path:
    write_project(root, PYPROJECT.replace(old, new))
    uv(["lock"], root, env)
    return root


def test_a_base_package_with_only_an_sdist_is_refused_before_the_backend_and_the_printed_fix_arms_it(
    sdist_env: dict[str, str], tmp_path: Path
) -> None:
    project = _sdist_project(tmp_path / "proj", sdist_env, '"alpha>=1",', '"alpha>=1", "sdonly",')
    armed = tool("install-tier", ["base"], project, sdist_env)
    assert armed.returncode == 1, armed.stderr  # before: the backend's refusal, exit 3
    assert "sdonly 1.0 has no wheel" in armed.stderr
    assert "nothing was installed" in armed.stderr
    edit, _, command = armed.stderr.split("to fix: ", 1)[1].strip().rpartition("; then run: ")
    assert "move sdonly out of [project].dependencies into an extra or group" in edit
    assert command == "uv lock && install-tier base"  # before: tierlock lock base, which a uv project refuses
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text().replace('"alpha>=1", "sdonly",', '"alpha>=1",')
    pyproject.write_text(text.replace('old = ["corelib<2"]', 'old = ["corelib<2"]\nsource = ["sdonly"]'))
    assert _sh(command, project, sdist_env).returncode == 0
    probed = tool("tierlock", ["probe", "base"], project, sdist_env)
    assert probed.returncode == 0, probed.stdout


def test_check_proves_the_declared_platforms_from_uv_lock_and_names_uv_lock_to_run_after_the_edit(
    sdist_env: dict[str, str], tmp_path: Path
) -> None:
    declared = 'lock = "uv.lock"\nplatforms = ["linux-x86_64"]\nno-build = ["base", "brain"]'
    project = _sdist_project(tmp_path / "proj", sdist_env, 'lock = "uv.lock"', declared)
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"corelib>=2"]', '"corelib>=2", "sdonly"]'))
    uv(["lock"], project, sdist_env)
    code, report = _check_json(project, sdist_env)
    assert code == 1
    # before: "uv.lock records no artifacts" for every tier, and the remedy tierlock lock base brain
    assert [(f["tier"], f["kind"], f["detail"].split(" has ")[0]) for f in report["findings"]] == [
        ("brain", "no-wheel", "sdonly 1.0")
    ]
    (finding,) = report["findings"]
    edit, _, command = finding["remedy"].rpartition("; then run: ")
    assert "move it to a tier that may build" in edit
    assert command == "uv lock"
    pyproject.write_text(pyproject.read_text().replace('no-build = ["base", "brain"]', 'no-build = ["base"]'))
    assert _sh(command, project, sdist_env).returncode == 0
    code, report = _check_json(project, sdist_env)
    assert (code, report["problems"]) == (0, 0)


WORKSPACE_MEMBER_EXTRA = '\n[project.optional-dependencies]\nfast = ["testkit"]\n'


@pytest.fixture
def workspace(uv_wheelhouse: Path, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The uv project as a workspace whose member declares an extra, no tierlock table anywhere, locked by uv;
    the wheel folder also serves a stand-in for the plugin's distribution (init adds it to the member's group)."""
    import shutil

    from tests.support.uvproject import MEMBER
    from tests.support.wheels import build_wheel
    from tierlock.tiers.uvinit import PLUGIN_DISTRIBUTION

    wheels = Path(shutil.copytree(uv_wheelhouse, tmp_path / "wheels"))
    build_wheel(wheels, PLUGIN_DISTRIBUTION, "0.1.0")
    env = uv_env(wheels, tmp_path / "cache")
    root = write_project(tmp_path / "ws", PYPROJECT.split("[tool.tierlock]")[0], MEMBER + WORKSPACE_MEMBER_EXTRA)
    uv(["lock"], root, env)
    return root, env


def test_init_in_a_workspace_member_reads_the_workspaces_uv_lock_and_arms_the_workspaces_environment(
    workspace: tuple[Path, dict[str, str]],
) -> None:
    root, env = workspace
    member = root / "packages" / "member"
    result = tool("tierlock", ["init", "--no-groups"], member, env)
    assert result.returncode == 0, result.stderr
    import tomllib

    table = tomllib.loads((member / "pyproject.toml").read_text())["tool"]["tierlock"]
    # before: lock-dir = "lockfiles" (a second lock beside the workspace's), and lock = "../../uv.lock" refused
    assert (table["lock"], table["venv"]) == ("../../uv.lock", "../../.venv")
    assert table["tiers"]["fast"] == {"source": "extra:fast"}
    assert not (member / "uv.lock").exists()
    next_step = result.stdout.rsplit("; run: ", 1)[1].strip()
    assert next_step == "uv lock && tierlock check"
    ran = _sh(next_step, member, env)
    assert ran.returncode == 0, ran.stdout + ran.stderr  # run where init was run, as printed
    assert uv(["lock", "--check"], root, env).returncode == 0
    checked = tool("tierlock", ["check"], member, env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    armed = tool("install-tier", ["fast"], member, env)
    assert armed.returncode == 0, armed.stderr
    from tests.support.uvproject import editable_source, installed

    venv = root / ".venv"  # the environment uv sync and uv run use for every member
    assert not (member / ".venv").exists()
    assert {"testkit", "member", "beta"} <= set(installed(venv))
    assert editable_source(venv, "member") == member.as_uri()
    synced = uv(["sync", "--package", "member", "--extra", "fast", "--inexact"], member, env)
    assert "testkit" not in synced.stderr  # uv finds the tier armed as it would have armed it
    assert tool("tierlock", ["probe", "fast"], member, env).returncode == 0


def test_a_members_drift_is_named_after_its_declaration_and_uv_lock_in_the_member_clears_it(
    workspace: tuple[Path, dict[str, str]],
) -> None:
    root, env = workspace
    member = root / "packages" / "member"
    pyproject = member / "pyproject.toml"
    table = '\n[tool.tierlock]\nlock = "../../uv.lock"\nvenv = "../../.venv"\n\n[tool.tierlock.tiers.fast]\n'
    pyproject.write_text(pyproject.read_text() + table)
    assert tool("tierlock", ["check"], member, env).returncode == 0
    pyproject.write_text(pyproject.read_text().replace('fast = ["testkit"]', 'fast = ["testkit>=1"]'))
    code, report = _check_json(member, env)
    assert code == 1
    assert [(f["tier"], f["detail"], f["remedy"]) for f in report["findings"]] == [
        (
            "fast",
            '../../uv.lock is out of date for pyproject.toml: testkit; extra == "fast" became testkit>=1 (extra fast)',
            "uv lock",
        )
    ]
    assert _sh("uv lock", member, env).returncode == 0
    assert _check_json(member, env)[0] == 0


@pytest.mark.parametrize(
    ("where", "lock"),
    [("packages/member", "../other/uv.lock"), ("packages/member", "../uv.lock"), ("elsewhere", "../uv.lock")],
    ids=["another folder", "not the workspace root", "no member"],
)
def test_a_lock_above_the_project_that_is_not_its_workspaces_is_refused(
    workspace: tuple[Path, dict[str, str]], where: str, lock: str
) -> None:
    root, env = workspace
    folder = root / where
    folder.mkdir(parents=True, exist_ok=True)
    (root / "packages" / "other").mkdir(exist_ok=True)
    (root / "packages" / "uv.lock").write_text((root / "uv.lock").read_text())
    (root / "packages" / "other" / "uv.lock").write_text((root / "uv.lock").read_text())
    pyproject = folder / "pyproject.toml"
    head = pyproject.read_text() if pyproject.exists() else '[project]\nname = "elsewhere"\nversion = "1"\n'
    pyproject.write_text(head + f'\n[tool.tierlock]\nlock = "{lock}"\n')
    result = tool("tierlock", ["check"], folder, env)
    assert result.returncode == 2
    assert "or the uv.lock of the uv workspace the project is a member of" in result.stderr


def test_a_no_op_arming_from_uv_lock_is_answered_from_the_receipt_and_a_receipt_beyond_the_lock_is_not(
    repeats: Path, env: dict[str, str], tmp_path: Path
) -> None:
    """Before, every no-op ``install-tier`` on a uv project took the full path (the receipt was compared with
    uv.lock as if it were one tier's lockfile: 3.1x a no-op ``uv sync --inexact`` in bench_uvlock.py)."""
    project = copy_project(repeats, tmp_path / "proj")
    assert tool("install-tier", ["brain"], project, env).returncode == 0
    again = tool("install-tier", ["brain"], project, env)
    assert again.returncode == 0
    assert "checked against the receipt); nothing to do" in again.stdout  # the fast path's own line
    receipt = project / ".venv" / "tierlock" / "receipts" / "brain.json"
    data = json.loads(receipt.read_text())
    data["packages"].append({**data["packages"][0], "name": "notlocked", "version": "9.9"})
    receipt.write_text(json.dumps(data))
    full = tool("install-tier", ["brain"], project, env)
    assert full.returncode == 0
    assert full.stderr.startswith("planning ")  # the full path decides: the receipt vouches for a package uv.lock lacks
    assert "verified by the probe" in full.stdout


GROUP_CONFLICT = PYPROJECT.replace(
    'tools = ["beta", { include-group = "test" }]',
    'tools = ["beta", { include-group = "test" }]\n'
    'core = ["alpha>=1.1"]\n'
    'legacy = ["alpha<1.1"]\n'
    'dev = [{ include-group = "core" }, "testkit"]\n'
    'ci = [{ include-group = "dev" }]\n'
    'spare = ["testkit"]',
).replace(
    'conflicts = [[{ extra = "brain" }, { extra = "old" }]]',
    'conflicts = [[{ extra = "brain" }, { extra = "old" }], [{ group = "core" }, { group = "legacy" }]]',
)


def test_conflicts_uv_infers_through_included_groups_are_no_drift_and_a_new_one_is(
    env: dict[str, str], tmp_path: Path
) -> None:
    """narwhals declares 4 conflict sets and its uv.lock holds 8 (uv adds each set with a conflicting group
    replaced by every group that includes it): before, a fresh checkout had input-drift that ``uv lock`` never
    cleared."""
    project = write_project(tmp_path / "proj", GROUP_CONFLICT)
    uv(["lock"], project, env)
    import tomllib

    locked = tomllib.loads((project / "uv.lock").read_text())["conflicts"]
    assert len(locked) == 4  # brain/old, core/legacy, and uv's dev/legacy and ci/legacy
    code, report = _check_json(project, env)
    assert (code, report["problems"]) == (0, 0), report["findings"]
    pyproject = project / "pyproject.toml"
    conflict = '{ group = "legacy" }]]'
    pyproject.write_text(pyproject.read_text().replace(conflict, '{ group = "legacy" }, { group = "spare" }]]'))
    code, report = _check_json(project, env)
    assert code == 1
    (finding,) = report["findings"]
    assert "[tool.uv].conflicts changed (4 set(s) locked, 4 declared)" in finding["detail"]
    assert _sh(finding["remedy"], project, env).returncode == 0
    assert _check_json(project, env)[0] == 0


def test_a_sibling_conflict_from_uvs_forks_names_tierlock_check_after_the_edit_never_tierlock_lock(
    env: dict[str, str], tmp_path: Path
) -> None:
    """``free`` and ``old`` may be armed together, but uv locks ``corelib`` 2.0 for ``free`` alone and 1.0 for
    ``old`` (it forks on the declared brain/old conflict): as narwhals' cudf and pyspark-connect. Before, the
    remedy ended in ``tierlock lock free``, which a uv project refuses (exit 2)."""
    declared = PYPROJECT.replace('old = ["corelib<2"]', 'old = ["corelib<2"]\nfree = ["corelib"]')
    project = write_project(tmp_path / "proj", declared + "\n[tool.tierlock.tiers.free]\n")
    uv(["lock"], project, env)
    code, report = _check_json(project, env)
    assert code == 1
    (finding,) = report["findings"]
    assert finding["kind"] == "sibling-conflict"
    assert {finding["tier"], finding["other_tier"]} == {"free", "old"}
    remedy = finding["remedy"]
    assert "tierlock lock" not in remedy
    import re

    layer = r'layer one on the other: set layered-on = "(\w+)" in \[tool.tierlock.tiers.(\w+)\], then run: '
    edit = re.match(layer, remedy)
    assert edit is not None, remedy
    lower, upper = edit.groups()
    command = remedy[edit.end() :].split(" ", 2)[:2]
    assert command == ["tierlock", "check"]
    pyproject = project / "pyproject.toml"
    header = f"[tool.tierlock.tiers.{upper}]\n"
    pyproject.write_text(pyproject.read_text().replace(header, f'{header}layered-on = "{lower}"\n'))
    assert _sh(" ".join(command), project, env).returncode == 0


def test_a_git_source_names_the_source_to_change_and_the_change_then_uv_lock_as_printed_arms_the_tier(
    env: dict[str, str], tmp_path: Path
) -> None:
    """Before, the remedy of a package uv.lock takes from git was ``uv lock``, which keeps it in git: the next
    check said the same (python-sdk takes a dev tool from git)."""
    from tests.support.probe_env import BACKEND
    from tests.support.wheels import build_wheel

    repo = tmp_path / "gitpkg"
    (repo / "src" / "gitpkg").mkdir(parents=True)
    (repo / "src" / "gitpkg" / "__init__.py").write_text("X = 1\n")
    (repo / "backend.py").write_text(BACKEND.format(name="gitpkg", version="1.0"))
    (repo / "pyproject.toml").write_text(
        '[project]\nname = "gitpkg"\nversion = "1.0"\n\n[build-system]\nrequires = []\n'
        'build-backend = "backend"\nbackend-path = ["."]\n'
    )
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "i"]):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)
    declared = PYPROJECT.replace('old = ["corelib<2"]', 'old = ["corelib<2"]\nvcs = ["gitpkg"]').replace(
        "[tool.uv.sources]\n", f'[tool.uv.sources]\ngitpkg = {{ git = "{repo.as_uri()}" }}\n'
    )
    project = write_project(tmp_path / "proj", declared + "\n[tool.tierlock.tiers.vcs]\n")
    uv(["lock"], project, env)
    code, report = _check_json(project, env)
    assert code == 1
    (finding,) = report["findings"]
    assert "gitpkg comes from git" in finding["detail"]
    edit, _, command = finding["remedy"].rpartition(", then run: ")
    assert edit.startswith("take gitpkg from an index, a wheel file or a folder in [tool.uv.sources] (not git)")
    assert command == "uv lock"
    wheel = build_wheel(tmp_path / "built", "gitpkg", "1.0")
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(f'{{ git = "{repo.as_uri()}" }}', f'{{ path = "{wheel}" }}'))
    assert _sh(command, project, env).returncode == 0
    assert _check_json(project, env)[0] == 0
    armed = tool("install-tier", ["vcs"], project, env)
    assert armed.returncode == 0, armed.stderr


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("\"winonly; sys_platform == 'win32'\"", "\"winonly; platform_system == 'Windows'\""),
        ("\"winonly; sys_platform == 'win32'\"", "\"winonly; os_name == 'nt' and platform_system == 'Windows'\""),
        ('"member"]', '"member==0.2.0"]'),
        ('"member"]', '"member>=0.1,<1"]'),
    ],
    ids=["platform_system", "os_name and platform_system", "a pinned member", "a bounded member"],
)
def test_what_uv_rewrites_as_it_locks_is_no_drift(env: dict[str, str], tmp_path: Path, old: str, new: str) -> None:
    """pydantic's ``tzdata; platform_system == "Windows"`` is locked as ``sys_platform == 'win32'``, and its
    ``pydantic-core==2.48.0`` (a workspace member) with no version at all: before, 6 drift findings on a lock
    ``uv lock --check`` accepts, that ``uv lock`` never cleared."""
    assert old in PYPROJECT
    project = write_project(tmp_path / "proj", PYPROJECT.replace(old, new))
    uv(["lock"], project, env)
    assert uv(["lock", "--check"], project, env).returncode == 0
    code, report = _check_json(project, env)
    assert (code, report["problems"]) == (0, 0), report["findings"]


@pytest.mark.parametrize(
    ("old", "new"),
    [("revision = ", "supported-markers = 1\nrevision = "), ('name = "alpha"\n', 'name = "alpha"\nextra = [1\n')],
    ids=["a value of the wrong type", "invalid TOML"],
)
def test_a_lock_uv_cannot_read_either_names_the_commands_that_make_it_again(
    repeats: Path, env: dict[str, str], tmp_path: Path, old: str, new: str
) -> None:
    """Before, the remedy was ``uv lock``, which refuses such a lock (``invalid type: integer `1`, expected a
    sequence``) and leaves it as it is."""
    project = copy_project(repeats, tmp_path / "proj")
    lock = project / "uv.lock"
    assert old in lock.read_text()
    lock.write_text(lock.read_text().replace(old, new, 1))
    assert uv(["lock"], project, env, check=False).returncode != 0  # the old remedy, as printed
    code, report = _check_json(project, env)
    assert code == 1
    (remedy,) = {f["remedy"] for f in report["findings"]}
    assert remedy.startswith("uv cannot read this uv.lock either: restore the committed one (git checkout -- uv.lock)")
    command = remedy.rsplit(": ", 1)[1]
    assert command == "rm uv.lock && uv lock"
    assert _sh(command, project, env).returncode == 0
    assert _check_json(project, env)[0] == 0
