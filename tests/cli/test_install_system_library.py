"""A system library a locked package needs goes away: every command says so, names it, and its remedy converges.

Real ELF files built with the C compiler at test time (skipped, with the reason, where there is none): a
``libtierdep.so.1`` installed outside the environment (as a system package would), and a locked package
whose extension links it. ``install-tier`` (its no-op fast path included), ``probe`` and ``status`` all
notice when it is removed; the remedy names the library, and once it is provided the printed command is
run exactly as printed.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.cli.test_install_cli import index_env
from tests.support.env import bin_dir, clean_env, make_venv
from tests.support.native import build_extension, build_library, needs_compiler
from tests.support.probe_env import platform_tag
from tests.support.tierproject import write_lock, write_pyproject
from tests.support.wheels import EXT_SUFFIX, build_wheel

pytestmark = [needs_compiler, pytest.mark.slow]


class Scene:
    """A project whose brain tier locks corelib (an extension needing libtierdep.so.1), and its venv."""

    def __init__(self, root: Path) -> None:
        self.root = root / "proj"
        self.venv = root / "venv"
        self.house = root / "wheels"
        lib = build_library(root / "opt" / "lib", "libtierdep.so.1")
        self.library = lib.path
        ext = build_extension(root / "build", "_native", EXT_SUFFIX, needs=[lib], runpath=str(lib.path.parent))
        files: dict[str, bytes | str] = {
            "corelib/__init__.py": "from ._native import value\n",
            f"corelib/_native{EXT_SUFFIX}": ext.read_bytes(),
        }
        corelib = build_wheel(self.house, "corelib", "1.0", files=files, tag=platform_tag(), extension=True)
        basepkg = build_wheel(self.house, "basepkg", "1.0")
        helper = build_wheel(self.house, "helper", "1.0")
        write_pyproject(self.root)
        base = [("basepkg", "1.0", basepkg)]
        write_lock(self.root, "base", base)
        write_lock(self.root, "brain", [*base, ("corelib", "1.0", corelib), ("helper", "1.0", helper)])
        make_venv(self.venv)
        self.env = clean_env({**index_env(self.house, root / "uv-cache"), "TIERLOCK_CACHE_DIR": str(root / "cache")})

    def run(self, *argv: str) -> subprocess.CompletedProcess[str]:
        """A console script (``install-tier`` or ``tierlock``) in a new process, from the project folder."""
        program = shutil.which(argv[0], path=str(bin_dir())) or argv[0]
        return subprocess.run(
            [program, *argv[1:]], cwd=self.root, env=self.env, capture_output=True, text=True, check=False
        )

    def install(self, *extra: str) -> subprocess.CompletedProcess[str]:
        return self.run("install-tier", "brain", "--python", str(self.venv / "bin" / "python"), *extra)

    def imports(self) -> bool:
        argv = [str(self.venv / "bin" / "python"), "-c", "import corelib; corelib.value()"]
        return subprocess.run(argv, capture_output=True, check=False, env=clean_env()).returncode == 0


@pytest.fixture
def scene(tmp_path: Path) -> Scene:
    return Scene(tmp_path)


def test_a_removed_system_library_fails_install_probe_and_status_until_provided_then_the_remedy_converges(
    scene: Scene, tmp_path: Path
) -> None:
    assert scene.install().returncode == 0
    assert scene.imports()
    assert list((tmp_path / "cache").glob("libraries-*.marshal"))  # the console script kept what its probe learnt
    receipt = json.loads((scene.venv / "tierlock" / "receipts" / "brain.json").read_text())
    (corelib,) = [p for p in receipt["packages"] if p["name"] == "corelib"]
    assert any(rel.endswith("/opt/lib/libtierdep.so.1") for rel, *_ in corelib["files"])
    assert "already present" in scene.install().stdout  # the no-op fast path

    aside = tmp_path / "aside"
    shutil.move(scene.library, aside)
    assert not scene.imports()

    # install-tier: its no-op fast path sees the library gone, the full path names it; no receipt vouches for it.
    installed = scene.install("--json")
    assert installed.returncode == 1, installed.stderr
    error = json.loads(installed.stdout)["error"] if installed.stdout.strip() else {}
    text = installed.stderr + installed.stdout
    assert "corelib needs libtierdep.so.1, which the dynamic loader cannot find on this system" in text
    assert f"corelib: compiled artifact corelib/_native{EXT_SUFFIX} needs libtierdep.so.1" in text
    remedy = error.get("remedy") or text.split("to fix: ", 1)[1].strip()
    assert remedy.startswith("provide libtierdep.so.1")
    then = remedy.split("; then run: ", 1)[1]
    assert then == shlex.join(["install-tier", "brain", "--python", str(scene.venv / "bin" / "python")])

    probed = scene.run("tierlock", "probe", "brain", "--python", str(scene.venv / "bin" / "python"))
    assert probed.returncode == 1
    assert f"corelib partial 1.0 — compiled artifact corelib/_native{EXT_SUFFIX} needs libtierdep.so.1" in probed.stdout
    assert "brain is partial; to fix: provide libtierdep.so.1" in probed.stdout

    status = scene.run("tierlock", "status", "brain", "--python", str(scene.venv / "bin" / "python"), "--json")
    (tier,) = json.loads(status.stdout)["tiers"]
    assert tier["state"] == "partial"
    assert not tier["pruned"]  # its packages are all there: nothing was removed outside tierlock
    assert any("needs libtierdep.so.1" in p for p in tier["problems"])
    assert tier["remedy"].startswith("provide libtierdep.so.1")

    shutil.move(aside, scene.library)  # the first half of the remedy: provide the library
    assert scene.run(*shlex.split(then)).returncode == 0  # the second half, exactly as printed
    assert scene.imports()
    assert scene.run("tierlock", "probe", "brain", "--python", str(scene.venv / "bin" / "python")).returncode == 0


def test_a_first_install_without_the_system_library_installs_then_stops_naming_it_and_writes_no_receipt(
    scene: Scene, tmp_path: Path
) -> None:
    aside = tmp_path / "aside"
    shutil.move(scene.library, aside)
    first = scene.install()
    assert first.returncode == 1
    assert "corelib needs libtierdep.so.1" in first.stderr
    assert "no receipt was written" in first.stderr
    assert not (scene.venv / "tierlock" / "receipts" / "brain.json").exists()
    assert (scene.venv / "lib").exists()  # the packages are installed: only the system library is missing
    again = scene.install()  # nothing a reinstall could fix: the same answer, no backend run
    assert again.returncode == 1
    assert "uv: installing" not in again.stdout + again.stderr  # no backend ran
    then = again.stderr.split("; then run: ", 1)[1].strip()
    shutil.move(aside, scene.library)
    assert scene.run(*shlex.split(then)).returncode == 0
    assert (scene.venv / "tierlock" / "receipts" / "brain.json").exists()
    assert scene.imports()
