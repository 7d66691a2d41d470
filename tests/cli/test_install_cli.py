"""End to end: ``install-tier`` with real uv and real pip into real virtual environments.

Wheels are built at test time (one carries a compiled-extension file), the
lockfiles carry their real sha256 hashes, and the backends find the wheels
through the user's own configuration (``UV_FIND_LINKS`` / ``PIP_FIND_LINKS``,
offline). After every scenario the project tree is byte-identical.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

import tierlock
from tests.support.env import bin_dir, clean_env, make_venv, site_packages
from tests.support.tierproject import (
    build_wheelhouse,
    changes,
    env_snapshot,
    make_project,
    tree_snapshot,
    write_pyproject,
)
from tests.support.wheels import EXT_SUFFIX, build_wheel
from tierlock import subproc
from tierlock.cli import main
from tierlock.installer import receipts
from tierlock.tiers import load_project

# -- shared, session-scoped parts ----------------------------------------------------------


@pytest.fixture(scope="session")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return build_wheelhouse(tmp_path_factory.mktemp("wheelhouse"))


@pytest.fixture(scope="session")
def wheel_dir(wheels: dict[str, Path]) -> Path:
    return next(iter(wheels.values())).parent


@pytest.fixture(scope="session")
def uv_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("uv-cache")


@pytest.fixture(scope="session")
def empty_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A pristine venv without pip; tests copy it rather than create their own."""
    folder = tmp_path_factory.mktemp("empty") / "venv"
    make_venv(folder)
    return folder


def index_env(find_links: Path | str, cache: Path) -> dict[str, str]:
    """The user's pip/uv configuration pointing at a local wheel folder (offline)."""
    links = str(find_links)
    return {
        "UV_NO_INDEX": "1",
        "UV_FIND_LINKS": links,
        "UV_CACHE_DIR": str(cache),
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": links,
    }


@dataclass
class Run:
    code: int
    out: str
    err: str
    argv: list[tuple[str, ...]]

    @property
    def json(self) -> Any:
        return json.loads(self.out)

    @property
    def backend_runs(self) -> list[tuple[str, ...]]:
        names = ("uv", "pip", "__pip-runner__.py")  # pip run by the target itself: pip's own runner script
        return [a for a in self.argv if any(Path(x).name in names or x == "pip" for x in a[:4])]


class World:
    """One test's project, venv and index, and a way to run the CLI in-process."""

    def __init__(
        self,
        *,
        root: Path,
        venv: Path,
        find_links: Path,
        cache: Path,
        monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str],
    ) -> None:
        self.root = root
        self.venv = venv
        self.find_links = find_links
        self.cache = cache
        self.monkeypatch = monkeypatch
        self.capsys = capsys
        self.frozen = tree_snapshot(root)
        for key, value in index_env(find_links, cache).items():
            monkeypatch.setenv(key, value)

    @property
    def python(self) -> str:
        return str(self.venv / "bin" / "python")

    @property
    def site(self) -> Path:
        return site_packages(self.venv)

    def cli(self, *args: str, target: bool = True) -> Run:
        seen: list[tuple[str, ...]] = []

        def observer(argv: Sequence[str]) -> None:
            seen.append(tuple(argv))

        subproc.observers.append(observer)
        self.capsys.readouterr()
        try:
            extra = ["--python", self.python] if target else []
            code = main([args[0], "--project", str(self.root), *extra, *args[1:]])
        finally:
            subproc.observers.remove(observer)
        out, err = self.capsys.readouterr()
        return Run(code, out, err, seen)

    def install(self, *args: str) -> Run:
        return self.cli("install", "--json", *args)

    def probe(self, tier: str = "brain", *, closure: bool = True) -> tierlock.TierProbe:
        return tierlock.probe(tier, project=load_project(self.root), python=self.python, closure=closure)

    def receipt(self, tier: str = "brain") -> receipts.Receipt | None:
        return receipts.load(receipts.receipt_path(self.venv, tier))

    def sub_env(self, links: str | None = None, cache: Path | None = None, **extra: str) -> dict[str, str]:
        return clean_env({**index_env(links or self.find_links, cache or self.cache), **extra})

    def spawn(self, *args: str, env: dict[str, str], new_session: bool = False) -> subprocess.Popen[str]:
        argv = [sys.executable, "-m", "tierlock", args[0], "--project", str(self.root), "--python", self.python]
        return subprocess.Popen(
            [*argv, *args[1:]],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=new_session,
        )


@dataclass(frozen=True)
class Kit:
    """The session's shared parts: built wheels, their folder, a uv cache and an empty venv."""

    wheels: dict[str, Path]
    wheel_dir: Path
    uv_cache: Path
    empty_venv: Path


@pytest.fixture(scope="session")
def kit(wheels: dict[str, Path], wheel_dir: Path, uv_cache: Path, empty_venv: Path) -> Kit:
    return Kit(wheels, wheel_dir, uv_cache, empty_venv)


@pytest.fixture
def world(
    tmp_path: Path, kit: Kit, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Iterator[World]:
    """A fresh project and a copy of the empty venv; the project tree must be unchanged by the test's runs."""
    root = make_project(tmp_path / "proj", kit.wheels)
    venv = tmp_path / "venv"
    shutil.copytree(kit.empty_venv, venv, symlinks=True)
    w = World(
        root=root, venv=venv, find_links=kit.wheel_dir, cache=kit.uv_cache, monkeypatch=monkeypatch, capsys=capsys
    )
    yield w
    assert tree_snapshot(root) == w.frozen, "tierlock wrote into the project tree"


def refreeze(world: World) -> None:
    """The test changed the project on purpose (a drifted declaration): that is the new baseline."""
    world.frozen = tree_snapshot(world.root)


@pytest.fixture(scope="session")
def armed_venv(
    tmp_path_factory: pytest.TempPathFactory, wheels: dict[str, Path], wheel_dir: Path, uv_cache: Path, empty_venv: Path
) -> Path:
    """A venv with brain armed once by uv through the ``install-tier`` script (tests copy it)."""
    base = tmp_path_factory.mktemp("armed")
    root = make_project(base / "proj", wheels)
    venv = base / "venv"
    shutil.copytree(empty_venv, venv, symlinks=True)
    argv = [
        str(bin_dir() / "install-tier"),
        "brain",
        "--project",
        str(root),
        "--python",
        str(venv / "bin" / "python"),
    ]
    env = clean_env(index_env(wheel_dir, uv_cache))
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return venv


def use_armed(world: World, armed_venv: Path) -> None:
    shutil.rmtree(world.venv)
    shutil.copytree(armed_venv, world.venv, symlinks=True)


# -- arming, idempotence, repair --------------------------------------------------------


def test_install_arms_a_tier_with_uv_verifies_it_and_writes_a_receipt(world: World) -> None:
    assert world.probe().state == "absent"
    run = world.install("brain", "--backend", "uv")
    assert run.code == 0, run.err
    doc = run.json
    assert doc["result"] == "installed"
    assert doc["backend"] == "uv"
    assert sorted(p["name"] for p in doc["packages"]["install"]) == ["basepkg", "corelib", "helper"]
    assert doc["tier"] == "brain"
    assert doc["duration_s"] > 0
    assert 0 < doc["backend_s"] < doc["duration_s"], "the backend's own wall time, part of the install's"
    assert len(run.backend_runs) >= 1
    (install_argv,) = [a for a in run.backend_runs if "install" in a]
    assert {"--no-deps", "--require-hashes"} <= set(install_argv)
    assert world.probe().state == "present"
    receipt = world.receipt()
    assert receipt is not None
    assert receipt.data["tier"] == "brain"
    assert receipt.data["backend"]["name"] == "uv"
    assert receipt.data["tierlock_version"] == tierlock.__version__
    assert set(receipt.lockfile_paths) == {"base", "brain"}
    assert receipt.package_names == {"basepkg", "corelib", "helper"}
    corelib = next(p for p in receipt.packages if p["name"] == "corelib")
    assert any(row[0].endswith(EXT_SUFFIX) and len(row) == 3 for row in corelib["files"])  # dated: a shared object


def test_second_install_changes_nothing_and_starts_no_process(world: World) -> None:
    before = env_snapshot(world.venv)
    first = world.install("brain")
    assert first.code == 0, first.err
    after_first = env_snapshot(world.venv)
    assert len(changes(before, after_first)) > 0

    second = world.cli("install", "brain")
    assert second.code == 0, second.err
    assert second.argv == []
    assert changes(after_first, env_snapshot(world.venv)) == []
    assert "brain: already present (3 package(s)" in second.out


def test_second_install_reports_unchanged_as_json(world: World) -> None:
    assert world.install("brain").code == 0
    run = world.install("brain")
    assert run.json["result"] == "unchanged"
    assert run.json["package_count"] == 3
    assert run.json["files_checked"] > 0
    assert run.argv == []


def test_noop_install_imports_none_of_rich_jsonschema_pip_or_uv(world: World, armed_venv: Path) -> None:
    assert world.install("brain").code == 0
    code = (
        "import sys\nfrom tierlock.cli import main\n"
        f"rc = main(['install', 'brain', '--project', {str(world.root)!r}, '--python', {world.python!r}])\n"
        "print([m for m in ('rich', 'jsonschema', 'pip', 'uv', 'tierlock.installer.run') if m in sys.modules], rc)"
    )
    proc = subprocess.run([sys.executable, "-c", code], env=world.sub_env(), capture_output=True, text=True, check=True)
    assert proc.stdout.strip().splitlines()[-1] == "[] 0"
    assert "already present" in proc.stdout


#: Run in a child: the ``install-tier`` console script's entry, with an audit hook that records every
#: process the child would start, then the modules it loaded.
FAST_PATH_CHILD = """
import sys
started = []
def hook(event, args):
    if event.startswith(("subprocess.", "os.posix_spawn", "os.fork", "os.exec", "os.spawn", "os.system")):
        started.append(event)
sys.addaudithook(hook)
sys.argv = ["install-tier", *sys.argv[1:]]
from tierlock import _entry
_entry._exit = sys.exit  # the real exit skips the interpreter's teardown; this child reports after it
try:
    _entry.install_tier()
except SystemExit as exc:
    code = exc.code
heavy = ("rich", "jsonschema", "pip", "uv", "argparse", "packaging", "tierlock.cli", "tierlock.installer.run")
print("RESULT", [m for m in heavy if m in sys.modules], started, code)
"""


def test_the_console_script_proves_a_noop_before_argparse_importing_no_backend_and_starting_no_process(
    world: World,
) -> None:
    assert world.install("brain").code == 0
    args = ["brain", "--project", str(world.root), "--python", world.python]
    proc = subprocess.run(
        [sys.executable, "-c", FAST_PATH_CHILD, *args], env=world.sub_env(), capture_output=True, text=True, check=True
    )
    lines = proc.stdout.strip().splitlines()
    assert lines[-1] == "RESULT [] [] 0", proc.stdout + proc.stderr
    assert lines[0].startswith("brain: already present (3 package(s), ")


def test_the_console_script_falls_back_to_the_full_path_when_a_file_is_missing(world: World) -> None:
    assert world.install("brain").code == 0
    (world.site / "helper" / "data.txt").unlink()
    args = ["brain", "--project", str(world.root), "--python", world.python, "--json"]
    proc = subprocess.run(
        [sys.executable, "-c", FAST_PATH_CHILD, *args], env=world.sub_env(), capture_output=True, text=True, check=True
    )
    out, _, result = proc.stdout.rpartition("RESULT ")
    assert json.loads(out)["result"] == "repaired", proc.stderr
    assert "'tierlock.cli'" in result
    assert "subprocess.Popen" in result
    assert result.strip().endswith(" 0")


def test_the_console_scripts_noop_json_matches_the_full_paths(world: World) -> None:
    assert world.install("brain").code == 0
    from_cli = world.install("brain").json
    proc = subprocess.run(
        [str(bin_dir() / "install-tier"), "brain", "--json", "--project", str(world.root), "--python", world.python],
        env=world.sub_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    from_script = json.loads(proc.stdout)
    for doc in (from_cli, from_script):
        doc.pop("duration_s")
    assert from_script == from_cli
    assert from_script["backend_s"] is None, "no backend ran"
    assert from_script["result"] == "unchanged"


@pytest.mark.parametrize(
    ("argv", "command", "expected"),
    [
        (["brain"], False, (["brain"], None, None, False, False, False)),
        (
            ["brain", "gpu", "--python", "/v/bin/python", "--project=/p", "--system", "--json", "-q"],
            False,
            (["brain", "gpu"], "/p", "/v/bin/python", True, True, True),
        ),
        (["--backend", "uv", "brain"], False, (["brain"], None, None, False, False, False)),
        (["--project", "/p", "install", "brain"], True, (["brain"], "/p", None, False, False, False)),
        (["install", "--python", "/v", "brain"], True, (["brain"], None, "/v", False, False, False)),
    ],
)
def test_the_entry_parses_a_plain_install_by_hand(argv: list[str], command: bool, expected: tuple[object, ...]) -> None:
    from tierlock.fastinstall import parse_install

    args = parse_install(argv, command=command)
    assert args is not None
    assert (args.tiers, args.project, args.python, args.system, args.json, args.quiet) == expected


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        ([], False),
        (["brain", "--dry-run"], False),
        (["brain", "-v"], False),
        (["-h"], False),
        (["--proj", "/p", "brain"], False),
        (["brain", "--python", "/v", "gpu"], False),
        (["brain", "--backend", "conda"], False),
        (["brain", "--python"], False),
        (["status", "brain"], True),
        (["--python", "/v", "install", "brain"], True),
        (["install"], True),
    ],
)
def test_the_entry_leaves_everything_else_to_argparse(argv: list[str], command: bool) -> None:
    from tierlock.fastinstall import parse_install

    assert parse_install(argv, command=command) is None


def test_install_with_the_pip_backend_arms_the_tier(world: World) -> None:
    run = world.install("brain", "--backend", "pip")
    assert run.code == 0, run.err
    assert run.json["backend"] == "pip"
    (argv,) = [a for a in run.backend_runs if "install" in a]
    assert "--require-hashes" in argv
    assert "--no-deps" in argv
    assert world.probe().state == "present"
    receipt = world.receipt()
    assert receipt is not None
    assert receipt.data["backend"]["name"] == "pip"


def test_install_repairs_a_husk_left_by_a_deleted_so(world: World, armed_venv: Path) -> None:
    use_armed(world, armed_venv)
    (so,) = (world.site / "corelib").glob(f"*{EXT_SUFFIX}")
    so.unlink()
    assert world.probe().state == "partial"
    run = world.install("brain", "--backend", "uv")
    assert run.code == 0, run.err
    assert run.json["result"] == "repaired"
    assert [p["name"] for p in run.json["packages"]["repair"]] == ["corelib"]
    assert run.json["packages"]["install"] == []
    (argv,) = [a for a in run.backend_runs if "install" in a]
    assert argv[argv.index("--reinstall-package") + 1] == "corelib"
    assert so.is_file()
    assert world.probe().state == "present"


def test_install_repairs_a_deleted_package_folder_with_pip(world: World, armed_venv: Path) -> None:
    use_armed(world, armed_venv)
    shutil.rmtree(world.site / "helper")
    assert world.probe().state == "partial"
    run = world.install("brain", "--backend", "pip")
    assert run.code == 0, run.err
    assert run.json["result"] == "repaired"
    assert [p["name"] for p in run.json["packages"]["repair"]] == ["helper"]
    (argv,) = [a for a in run.backend_runs if "install" in a]
    assert "--force-reinstall" in argv
    assert (world.site / "helper" / "data.txt").is_file()
    assert world.probe().state == "present"


def test_install_replaces_another_version_with_the_locked_one(
    world: World, armed_venv: Path, wheels: dict[str, Path]
) -> None:
    use_armed(world, armed_venv)
    make_project(world.root, wheels, corelib="2.0")
    refreeze(world)
    run = world.install("brain")
    assert run.code == 0, run.err
    assert run.json["result"] == "installed"
    assert [(p["name"], p["installed_version"], p["version"]) for p in run.json["packages"]["replace"]] == [
        ("corelib", "1.0", "2.0")
    ]
    assert sorted(p["name"] for p in run.json["packages"]["satisfied"]) == ["basepkg", "helper"]
    assert (world.site / "corelib-2.0.dist-info").is_dir()
    assert not (world.site / "corelib-1.0.dist-info").exists()


def test_without_python_the_active_venv_is_the_target_else_the_projects_environment(world: World) -> None:
    world.monkeypatch.setenv("VIRTUAL_ENV", str(world.venv))
    run = world.cli("install", "--json", "brain", target=False)
    assert run.code == 0, run.err
    assert run.json["target"] == str(world.venv)
    assert world.probe().state == "present"
    again = world.cli("install", "--json", "brain", target=False)
    assert again.json["result"] == "unchanged"
    assert again.argv == []

    world.monkeypatch.delenv("VIRTUAL_ENV")
    planned = world.cli("install", "--json", "brain", "--dry-run", target=False)
    assert planned.code == 2, planned.err  # never the interpreter running tierlock
    assert "the project environment .venv does not exist yet" in planned.err
    assert planned.argv == []


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.usefixtures("not_ci")
def test_on_a_terminal_install_shows_every_package_it_changes_and_plain_output_does_not(world: World) -> None:
    from tierlock.installer.run import Request, install
    from tierlock.output import UI

    plain = world.cli("install", "base")
    assert plain.code == 0, plain.err
    assert "base: installed - 1 installed" in plain.out
    assert "basepkg==1.0" not in plain.out + plain.err

    out, err = FakeTerminal(), io.StringIO()
    ui = UI(stdout=out, stderr=err)
    assert ui.fancy
    outcome = install(load_project(world.root), Request(("brain",), python=world.python), ui)
    assert outcome.result == "installed"
    shown = out.getvalue()
    for pin in ("corelib==1.0", "helper==1.0"):
        assert f"install {pin}: not installed" in shown
    assert "basepkg==1.0" not in shown  # satisfied: not a change


@pytest.mark.parametrize("backend", ["uv", "pip"])
def test_a_direct_reference_in_the_lock_is_installed_from_its_url_not_the_index(
    world: World, tmp_path: Path, wheels: dict[str, Path], backend: str
) -> None:
    from tests.support.tierproject import write_lock

    base = [("basepkg", "1.0", wheels["basepkg-1.0"])]
    vendored = world.root / "vendor" / wheels["helper-1.0"].name  # a lock names files inside the project
    vendored.parent.mkdir()
    shutil.copy(wheels["helper-1.0"], vendored)
    pins = [*base, ("corelib", "1.0", wheels["corelib-1.0"]), ("helper", "1.0", vendored)]
    write_lock(world.root, "brain", pins, urls={"helper"})
    refreeze(world)
    links = tmp_path / "links"  # the index does not have helper: only the lock's URL does
    shutil.copytree(world.find_links, links)
    for wheel in links.glob("helper-*.whl"):
        wheel.unlink()
    world.monkeypatch.setenv("UV_FIND_LINKS", str(links))
    world.monkeypatch.setenv("PIP_FIND_LINKS", str(links))
    run = world.install("brain", "--backend", backend)
    assert run.code == 0, run.err
    assert sorted(p["name"] for p in run.json["packages"]["install"]) == ["basepkg", "corelib", "helper"]
    assert world.probe().state == "present"


OUTSIDE: dict[str, Callable[[Path, Path], str]] = {
    "file URL": lambda wheel, root: wheel.as_uri(),
    "file URL through ..": lambda wheel, root: (root / ".." / "elsewhere" / wheel.name).as_uri(),
    "file://localhost": lambda wheel, root: "file://localhost" + str(wheel),
    "bare absolute path": lambda wheel, root: str(wheel),
    "symlink out of the project": lambda wheel, root: _linked_out(wheel, root).as_uri(),
}


def _linked_out(wheel: Path, root: Path) -> Path:
    link = root / "vendor"
    link.symlink_to(wheel.parent, target_is_directory=True)
    return link / wheel.name


@pytest.mark.parametrize("how", sorted(OUTSIDE))
def test_a_lock_rewritten_to_a_wheel_outside_the_project_is_a_finding_with_its_line_and_is_not_installed(
    world: World, tmp_path: Path, wheels: dict[str, Path], how: str
) -> None:
    """The hand edit recomputes the body digest: only where the file lies gives it away."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    wheel = Path(shutil.copy(wheels["helper-1.0"], elsewhere))
    lockfile = world.root / "lockfiles" / "brain.txt"
    url = OUTSIDE[how](wheel, world.root)
    text = lockfile.read_text(encoding="utf-8")
    line = next(i for i, t in enumerate(text.splitlines(), start=1) if t.startswith("helper=="))
    lockfile.write_text(text.replace("helper==1.0", f"helper @ {url}"), encoding="utf-8")
    from tierlock.lockfiles import digest, requirements

    body = requirements.split_lines(lockfile.read_text(encoding="utf-8"))
    start = next(i for i, t in enumerate(body) if not t.startswith("#"))
    recorded = requirements.parse(lockfile.read_text(encoding="utf-8")).header
    assert recorded is not None
    lockfile.write_text(
        lockfile.read_text(encoding="utf-8").replace(recorded.body_digest, digest.body_digest(body[start:])),
        encoding="utf-8",
    )
    refreeze(world)
    check = world.cli("check", "--json", target=False)
    assert check.code == 1, check.err
    [found] = json.loads(check.out)["findings"]
    assert (found["tier"], found["kind"], found["line"]) == ("brain", "outside-project", line)
    assert found["detail"].startswith("helper names a file")
    assert found["detail"].endswith("a lock names registry distributions and files inside the project")
    assert found["remedy"] == f"tierlock --project {world.root} lock brain"  # (the project it was given)
    admit = world.cli("admit", "--tier", "brain", "--json")
    assert admit.code == 1
    lockfiles = json.loads(admit.out)["lockfiles"]
    assert lockfiles["verdict"] == "fail"
    assert any(f":{line}: brain: outside-project: helper names a" in p for p in lockfiles["problems"])
    before = env_snapshot(world.venv)
    run = world.install("brain")
    assert run.code == 1, run.err
    assert "outside-project" in run.err
    assert run.backend_runs == []
    assert changes(before, env_snapshot(world.venv)) == []


def test_dry_run_prints_the_plan_and_changes_nothing(world: World) -> None:
    before = env_snapshot(world.venv)
    run = world.cli("install", "brain", "--dry-run")
    assert run.code == 0, run.err
    assert "plan for brain" in run.out
    assert "install  corelib" in run.out
    assert run.backend_runs == []
    assert changes(before, env_snapshot(world.venv)) == []


# -- bad input and faults ---------------------------------------------------------------


def test_drifted_lockfile_is_refused_and_nothing_is_installed(world: World) -> None:
    write_pyproject(world.root, brain=("corelib>=1", "helper>=1", "newdep>=1"))
    refreeze(world)
    before = env_snapshot(world.venv)
    run = world.install("brain")
    assert run.code == 1
    assert "nothing was installed" in run.err
    assert "newdep" in run.err
    assert f"to fix: tierlock --project {world.root} lock brain" in run.err
    assert run.backend_runs == []
    assert changes(before, env_snapshot(world.venv)) == []


def test_a_wheel_whose_hash_does_not_match_fails_with_exit_3_naming_the_package(
    world: World, tmp_path: Path, wheels: dict[str, Path]
) -> None:
    links = tmp_path / "links"
    shutil.copytree(world.find_links, links)
    build_wheel(links, "helper", "1.0", files={"helper/__init__.py": "X = 2  # tampered\n"})
    world.monkeypatch.setenv("UV_FIND_LINKS", str(links))
    world.monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path / "cache"))
    before = env_snapshot(world.site)
    run = world.install("brain", "--backend", "uv")
    assert run.code == 3
    assert "helper" in run.err
    assert "no receipt" in run.err or "failed" in run.err
    assert changes(before, env_snapshot(world.site)) == []
    assert world.receipt() is None


def test_a_package_missing_from_the_index_fails_then_a_rerun_completes(world: World, tmp_path: Path) -> None:
    assert world.install("base").code == 0
    links = tmp_path / "links"
    shutil.copytree(world.find_links, links)
    for wheel in links.glob("helper-*.whl"):
        wheel.unlink()
    world.monkeypatch.setenv("UV_FIND_LINKS", str(links))
    failed = world.install("brain")
    assert failed.code == 3
    assert "helper" in failed.err
    assert world.receipt() is None
    assert (world.site / "basepkg-1.0.dist-info").is_dir()  # what was installed stays
    assert world.probe().state == "absent"  # brain's roots are not installed (base's are: not enough)

    world.monkeypatch.setenv("UV_FIND_LINKS", str(world.find_links))
    rerun = world.install("brain")
    assert rerun.code == 0, rerun.err
    assert rerun.json["result"] == "installed"
    assert world.probe().state == "present"


def test_install_without_a_tier_exits_2_listing_the_declared_tiers(world: World) -> None:
    run = world.cli("install")
    assert run.code == 2
    assert "name at least one tier" in run.err
    assert "base, brain" in run.err


def test_an_install_the_probe_still_finds_wrong_exits_3_saying_what_and_writes_no_receipt(world: World) -> None:
    # The backend succeeds, but the tier declares an import root the locked wheel does not ship.
    pyproject = world.root / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    pyproject.write_text(
        text.replace(
            'tests = ["tests/brain/**"]', 'tests = ["tests/brain/**"]\nimport-roots = { helper = ["nosuchmod"] }'
        ),
        encoding="utf-8",
    )
    refreeze(world)
    run = world.install("brain")
    assert run.code == 3, run.err
    assert "after installing, 1 of 3 package(s) of brain are still not present; no receipt was written" in run.err
    assert "helper==1.0: repair needed - " in run.err
    assert "nosuchmod" in run.err
    assert len([a for a in run.backend_runs if "install" in a]) == 1
    assert world.receipt() is None
    assert (world.site / "helper-1.0.dist-info").is_dir()  # what was installed stays


def test_an_unknown_tier_exits_2_listing_the_declared_tiers(world: World) -> None:
    run = world.cli("install", "brian")
    assert run.code == 2
    assert "declared tiers: base, brain" in run.err
    assert "did you mean 'brain'" in run.err


def test_a_target_that_is_not_a_virtual_environment_is_refused(world: World) -> None:
    system_python = Path(sys.base_prefix) / "bin" / "python3"
    seen: list[str] = []

    def observer(argv: Sequence[str]) -> None:
        seen.append(" ".join(argv))

    subproc.observers.append(observer)
    try:
        code = main(["install", "brain", "--project", str(world.root), "--python", str(system_python)])
    finally:
        subproc.observers.remove(observer)
    err = world.capsys.readouterr().err
    assert code == 2
    assert "not a virtual environment" in err or "externally managed" in err
    assert not [a for a in seen if " install " in a]


def test_a_missing_backend_exits_3_and_installs_nothing(world: World) -> None:
    world.monkeypatch.setenv("TIERLOCK_UV", str(world.root / "no-such-uv"))
    before = env_snapshot(world.site)
    run = world.install("brain", "--backend", "uv")
    assert run.code == 3
    assert "uv is not installed" in run.err
    assert "--backend pip" in run.err
    assert changes(before, env_snapshot(world.site)) == []


def test_a_failing_backend_never_echoes_the_password_of_the_users_index_url(world: World, tmp_path: Path) -> None:
    # A backend that prints the configured index URL verbatim when it fails (older uv releases did).
    stub = tmp_path / "uv"
    stub.write_text(
        '#!/bin/sh\n[ "$1" = --version ] && { echo "uv 0.0.1"; exit 0; }\n'
        'echo "error: Failed to fetch: $UV_INDEX_URL/helper/" >&2\n'
        'echo "  proxy: $HTTPS_PROXY" >&2\nexit 2\n',
        encoding="utf-8",
    )
    stub.chmod(0o755)
    world.monkeypatch.setenv("TIERLOCK_UV", str(stub))
    world.monkeypatch.setenv("UV_INDEX_URL", "https://alice:hunter2@index.example/simple")
    world.monkeypatch.setenv("HTTPS_PROXY", "http://s3cr3t-token@proxy.example:3128")
    run = world.install("brain", "--backend", "uv")
    assert run.code == 3
    assert "Failed to fetch: https://alice:****@index.example/simple/helper/" in run.err
    assert "proxy: http://****@proxy.example:3128" in run.err
    assert "hunter2" not in run.err + run.out
    assert "s3cr3t-token" not in run.err + run.out
    assert world.receipt() is None


def test_a_lock_made_for_another_platform_is_refused(world: World, wheels: dict[str, Path]) -> None:
    make_project(world.root, wheels, platform="win-amd64/cpython-3.11")
    refreeze(world)
    run = world.install("brain")
    assert run.code == 2
    assert "win-amd64/cpython-3.11" in run.err
    assert "linux" in run.err or sys.platform != "linux"
    assert run.backend_runs == []


# -- interruption and concurrency, against a local index that can hold a download -----


class StallingIndex:
    """A find-links page over HTTP that holds the first download of *hold* until released."""

    def __init__(self, folder: Path, hold: str) -> None:
        self.folder = folder
        self.hold = hold
        self.requested = threading.Event()
        self.release = threading.Event()
        index = self

        class Handler(SimpleHTTPRequestHandler):
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, directory=str(folder), **kwargs)

            def do_GET(self) -> None:
                if self.path.strip("/") == "":
                    links = "".join(f'<a href="{p.name}">{p.name}</a>\n' for p in sorted(folder.glob("*.whl")))
                    body = f"<html><body>\n{links}</body></html>\n".encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                if index.hold in self.path and not index.release.is_set():
                    index.requested.set()
                    index.release.wait(60)
                super().do_GET()

            def log_message(self, format: str, *args: Any) -> None:
                del format, args

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/"

    def __enter__(self) -> StallingIndex:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def lines_of(stream: Any, sink: list[str], seen: threading.Event, needle: str) -> threading.Thread:
    def pump() -> None:
        for line in stream:
            sink.append(line)
            if needle in line:
                seen.set()

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize(
    ("signum", "backend"), [(signal.SIGTERM, "uv"), (signal.SIGINT, "pip")], ids=["sigterm-uv", "sigint-pip"]
)
def test_an_interrupted_install_writes_no_receipt_and_the_next_run_completes(
    world: World, tmp_path: Path, signum: int, backend: str
) -> None:
    with StallingIndex(world.find_links, hold="corelib") as index:
        env = world.sub_env(links=index.url, cache=tmp_path / "cache")
        proc = world.spawn("install", "brain", "--backend", backend, env=env, new_session=True)
        assert index.requested.wait(60), "the backend never asked for the wheel"
        if signum == signal.SIGINT:
            os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C does: the whole foreground group
        else:
            proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
        index.release.set()
    assert proc.returncode == 130, err
    assert "no receipt was written" in err
    assert world.receipt() is None
    assert world.probe().state != "present"

    rerun = world.install("brain", "--backend", backend)
    assert rerun.code == 0, rerun.err
    assert rerun.json["result"] in ("installed", "repaired")
    assert world.probe().state == "present"
    assert world.receipt() is not None


def test_two_concurrent_installs_are_serialized_and_the_second_finds_nothing_to_do(
    world: World, tmp_path: Path
) -> None:
    with StallingIndex(world.find_links, hold="corelib") as index:
        env = world.sub_env(links=index.url, cache=tmp_path / "cache")
        first = world.spawn("install", "brain", "--json", env=env)
        assert index.requested.wait(60), "the first install never reached the backend"
        second = world.spawn("install", "brain", "--json", env=env)
        err_lines: list[str] = []
        waiting = threading.Event()
        pump = lines_of(second.stderr, err_lines, waiting, "waiting for another tierlock install")
        assert waiting.wait(60), "".join(err_lines)
        index.release.set()
        out1, err1 = first.communicate(timeout=120)
        assert second.stdout is not None
        assert second.stderr is not None
        with second.stdout, second.stderr:
            out2 = second.stdout.read()
            second.wait(timeout=120)
            pump.join(10)
    assert first.returncode == 0, err1
    assert second.returncode == 0, "".join(err_lines)
    assert json.loads(out1)["result"] == "installed"
    doc2 = json.loads(out2)
    assert doc2["result"] == "unchanged"
    assert doc2["waited_for_lock"] is True
    assert doc2["counts"] == {"install": 0, "replace": 0, "repair": 0, "satisfied": 3}
    assert [p["name"] for p in doc2["packages"]["satisfied"]] == ["basepkg", "corelib", "helper"]
    assert world.probe().state == "present"


# -- status and remove --------------------------------------------------------------------


def test_status_reports_present_partial_absent_and_an_older_lock(world: World, armed_venv: Path) -> None:
    absent = world.cli("status", "--json")
    assert {t["tier"]: t["state"] for t in absent.json["tiers"]} == {"base": "absent", "brain": "absent"}
    use_armed(world, armed_venv)
    present = world.cli("status", "--json", "brain")
    (row,) = present.json["tiers"]
    assert row["state"] == "present"
    assert row["older_lock"] is False
    assert row["receipt"] is not None

    (next((world.site / "corelib").glob(f"*{EXT_SUFFIX}"))).unlink()
    partial = world.cli("status", "brain")
    assert "partial" in partial.out
    assert "corelib 1.0: " in partial.out
    assert f"install-tier --project {world.root} brain" in partial.out

    lockfile = world.root / "lockfiles" / "brain.txt"
    lockfile.write_text(lockfile.read_text(encoding="utf-8") + "# a note\n", encoding="utf-8")
    refreeze(world)
    older = world.cli("status", "--json", "brain")
    assert older.json["tiers"][0]["older_lock"] is True
    assert older.json["tiers"][0]["remedy"] == f"install-tier --project {world.root} brain --python {world.python}"


def test_remove_uninstalls_what_only_the_tier_needs_and_install_rearms_it(world: World, armed_venv: Path) -> None:
    use_armed(world, armed_venv)
    dry = world.cli("remove", "brain", "--dry-run", "--json")
    assert dry.code == 0, dry.err
    assert dry.json["would_remove"] == ["corelib", "helper"]
    assert dry.json["kept"] == ["basepkg"]
    assert dry.backend_runs == []
    assert (world.site / "helper").is_dir()

    run = world.cli("remove", "brain", "--json")
    assert run.code == 0, run.err
    assert run.json["removed"] == ["corelib", "helper"]
    assert not (world.site / "helper").exists()
    assert (world.site / "basepkg").is_dir()
    assert world.receipt() is None
    assert world.probe(closure=False).state == "absent"  # its roots are gone; base stays

    again = world.install("brain")
    assert again.code == 0, again.err
    assert world.probe().state == "present"


def test_prune_contract_a_sync_to_the_base_lock_leaves_the_tier_absent_and_install_rearms_it(
    world: World, armed_venv: Path
) -> None:
    use_armed(world, armed_venv)
    base_lock = world.root / "lockfiles" / "base.txt"
    subprocess.run(
        [str(bin_dir() / "uv"), "pip", "sync", "--python", world.python, str(base_lock)],
        env=world.sub_env(),
        capture_output=True,
        check=True,
    )
    assert not (world.site / "helper").exists()
    assert world.probe(closure=False).state == "absent"  # its roots are gone; base stays
    status = world.cli("status", "--json")
    assert {t["tier"]: t["state"] for t in status.json["tiers"]} == {"base": "present", "brain": "absent"}

    rearm = world.install("brain")
    assert rearm.code == 0, rearm.err
    assert sorted(p["name"] for p in rearm.json["packages"]["install"]) == ["corelib", "helper"]
    assert [p["name"] for p in rearm.json["packages"]["satisfied"]] == ["basepkg"]
    assert world.probe().state == "present"


def test_remove_keeps_packages_another_armed_tier_needs(world: World, wheels: dict[str, Path]) -> None:
    # A second tier "extra" that also needs helper.
    text = (world.root / "pyproject.toml").read_text(encoding="utf-8")
    text = text.replace(
        'brain = ["corelib>=1", "helper>=1"]', 'brain = ["corelib>=1", "helper>=1"]\nextra = ["helper>=1"]'
    )
    text += '\n[tool.tierlock.tiers.extra]\nsource = "extra:extra"\n'
    (world.root / "pyproject.toml").write_text(text, encoding="utf-8")
    from tests.support.tierproject import write_lock

    base = [("basepkg", "1.0", wheels["basepkg-1.0"])]
    write_lock(world.root, "base", base)
    write_lock(
        world.root, "brain", [*base, ("corelib", "1.0", wheels["corelib-1.0"]), ("helper", "1.0", wheels["helper-1.0"])]
    )
    write_lock(world.root, "extra", [*base, ("helper", "1.0", wheels["helper-1.0"])])
    refreeze(world)
    assert world.install("brain", "extra").code == 0
    run = world.cli("remove", "brain", "--json")
    assert run.json["removed"] == ["corelib"]
    assert sorted(run.json["kept"]) == ["basepkg", "helper"]


def test_a_pylock_tier_is_armed_from_the_wheels_chosen_by_the_target_tags(world: World) -> None:
    pyproject = world.root / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text(encoding="utf-8").replace(
            'lock-dir = "lockfiles"', 'lock-dir = "lockfiles"\nformat = "pylock"'
        ),
        encoding="utf-8",
    )
    wheels = Path(shutil.copytree(world.find_links, world.root / "wheels"))  # a pylock names files in the project
    for key in ("UV_FIND_LINKS", "PIP_FIND_LINKS"):
        world.monkeypatch.setenv(key, str(wheels))
    locked = world.cli("lock", "brain", "--no-index", "--find-links", str(wheels), target=False)
    assert locked.code == 0, locked.err
    assert (world.root / "lockfiles" / "pylock.brain.toml").is_file()
    refreeze(world)
    run = world.install("brain")
    assert run.code == 0, run.err
    assert sorted(p["name"] for p in run.json["packages"]["install"]) == ["basepkg", "corelib", "helper"]
    assert world.probe().state == "present"
    assert world.install("brain").json["result"] == "unchanged"
