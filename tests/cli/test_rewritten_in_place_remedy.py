"""An armed tier whose installed file is written in place, its modification time put back: what the kept answers,
install-tier's no-op fast path and the repair make of it.

``cp -p OTHER FILE`` writes OTHER's bytes into FILE's inode and copies OTHER's modification time; ``truncate`` cuts a
file in place and ``touch -r`` puts its time back. A build of another version of the same size keeps every identity
the kept verdicts were keyed by but the time the file's status last changed. And where uv armed the tier (uv links
each installed file to the copy unpacked in its cache), the change is made to the cache too: a reinstall from it
links the damaged bytes again.

Real console scripts, the real uv and pip, wheels written at test time (an extension built with the compiler): the
answer of every read-only command equals a run that keeps nothing, the printed fix run exactly as printed repairs
the tier (``import`` is the witness), and the same fix then finds nothing to do.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from tests.cli.test_install_cli import index_env
from tests.support.env import bin_dir, clean_env, make_venv, site_packages
from tests.support.kept import backdate
from tests.support.native import build_extension, needs_compiler
from tests.support.probe_env import platform_tag
from tests.support.tierproject import write_lock, write_pyproject
from tests.support.wheels import EXT_SUFFIX, build_wheel

pytestmark = [needs_compiler, pytest.mark.slow]

UTIL = "def f():\n    return 1\n" * 20


class Scene:
    """The project (brain locks corelib, with an extension and a module, and helper) armed by install-tier."""

    def __init__(self, root: Path, backend: str) -> None:
        self.root = root / "proj"
        self.venv = root / "venv"
        house = root / "wheels"
        ext = build_extension(root / "build", "_native", EXT_SUFFIX, needs=[])
        files = {"corelib/__init__.py": "from ._native import value\n", "corelib/util.py": UTIL}
        files[f"corelib/_native{EXT_SUFFIX}"] = ext.read_bytes()  # type: ignore[assignment]
        corelib = build_wheel(house, "corelib", "1.0", files=files, tag=platform_tag(), extension=True)
        basepkg, helper = build_wheel(house, "basepkg", "1.0"), build_wheel(house, "helper", "1.0")
        write_pyproject(self.root)
        (self.root / "tests" / "brain").mkdir(parents=True)
        (self.root / "tests" / "brain" / "test_core.py").write_text("import corelib\n\n\ndef test_it():\n    pass\n")
        if backend == "pip":
            text = (self.root / "pyproject.toml").read_text()
            (self.root / "pyproject.toml").write_text(
                text.replace('lock-dir = "lockfiles"', 'lock-dir = "lockfiles"\nbackend = "pip"')
            )
        base = [("basepkg", "1.0", basepkg)]
        write_lock(self.root, "base", base)
        write_lock(self.root, "brain", [*base, ("corelib", "1.0", corelib), ("helper", "1.0", helper)])
        make_venv(self.venv)
        self.cache = root / "cache"
        self.env = clean_env({**index_env(house, root / "uv-cache"), "TIERLOCK_CACHE_DIR": str(self.cache)})
        self.fix = shlex.join(["install-tier", "brain", "--python", str(self.python)])
        armed = self.run(*shlex.split(self.fix))
        assert armed.returncode == 0, armed.stdout + armed.stderr
        backdate(self.root, self.venv)  # settled: what the commands keep is kept

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    def file(self, name: str) -> Path:
        return next((site_packages(self.venv) / "corelib").glob(name))

    def run(self, *argv: str, **env: str) -> subprocess.CompletedProcess[str]:
        program = shutil.which(argv[0], path=str(bin_dir())) or argv[0]
        return subprocess.run(
            [program, *argv[1:]],
            cwd=self.root,
            env={**self.env, **env},
            capture_output=True,
            text=True,
            check=False,
            timeout=120,  # (a wait on a FIFO fails the test, never hangs the run)
        )

    def imports(self) -> subprocess.CompletedProcess[str]:
        argv = [str(self.python), "-c", "import corelib, corelib.util; print(corelib.value(), corelib.util.f())"]
        return subprocess.run(argv, capture_output=True, text=True, check=False, env=clean_env())


def _another_machine(scene: Scene, into: Path) -> str:
    """``cp -p`` of the extension built for another machine (its ELF header's machine field), of its size and dated
    like it: the inode, size and modification time the installed one has."""
    installed = scene.file("_native*.so")
    data = bytearray(installed.read_bytes())
    little = data[5] == 1
    machine = struct.unpack("<H" if little else ">H", data[18:20])[0]
    data[18:20] = struct.pack("<H" if little else ">H", 62 if machine == 183 else 183)
    other = into / installed.name
    other.write_bytes(bytes(data))
    was = installed.stat()
    os.utime(other, ns=(was.st_atime_ns, was.st_mtime_ns))
    subprocess.run(["cp", "-p", str(other), str(installed)], check=True)
    now = installed.stat()
    assert (now.st_ino, now.st_size, now.st_mtime_ns) == (was.st_ino, was.st_size, was.st_mtime_ns)
    return f"compiled extension corelib/{installed.name} is built for"


def _truncated(scene: Scene, into: Path) -> str:
    """``truncate`` of a module to half its size in place, its time put back with ``touch -r``."""
    installed = scene.file("util.py")
    (into / "stamp").touch()
    subprocess.run(["touch", "-r", str(installed), str(into / "stamp")], check=True)
    subprocess.run(["truncate", "-s", str(len(UTIL) // 2), str(installed)], check=True)
    subprocess.run(["touch", "-r", str(into / "stamp"), str(installed)], check=True)
    return f"file has another size than RECORD says: corelib/util.py ({len(UTIL) // 2} bytes, RECORD says {len(UTIL)})"


@pytest.mark.parametrize("damage", [_another_machine, _truncated], ids=["cp-p-another-build", "truncated-touch-r"])
@pytest.mark.parametrize("backend", ["uv", "pip"])
def test_a_file_written_in_place_is_seen_by_every_kept_answer_and_the_printed_fix_repairs_it(
    tmp_path: Path, backend: str, damage: object
) -> None:
    scene = Scene(tmp_path, backend)
    commands = {
        "probe": ["tierlock", "probe", "brain", "--python", str(scene.python)],
        "status": ["tierlock", "status", "brain", "--python", str(scene.python)],
        "admit": ["tierlock", "admit", "--tier", "brain", "--python", str(scene.python)],
    }
    for argv in commands.values():  # answered, then kept
        for _ in range(2):
            assert scene.run(*argv).returncode == 0
    assert list(scene.cache.glob("runs-*.marshal"))
    if backend == "uv":  # the case: uv linked the files from its cache
        assert scene.file("util.py").stat().st_nlink > 1
    why = damage(scene, tmp_path)  # type: ignore[operator]
    for name, argv in commands.items():
        after, full = scene.run(*argv), scene.run(*argv, TIERLOCK_CACHE_DIR="")
        assert (after.returncode, after.stdout, after.stderr) == (full.returncode, full.stdout, full.stderr), name
        assert after.returncode == (0 if name == "status" else 1), (name, after.stdout)  # (status reports, exit 0)
        assert "partial" in after.stdout
    probed = json.loads(scene.run(*commands["probe"], "--json").stdout)
    (tier,) = probed["tiers"]
    assert any(why in reason for package in tier["roots"] + tier["closure"] for reason in package["reasons"])
    assert tier["remedy"] == scene.fix

    repaired = scene.run(*shlex.split(scene.fix))  # exactly as printed
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert f"{backend}: installing 0, replacing 0, repairing 1 of 3 package(s)" in repaired.stderr
    assert scene.imports().stdout.split() == ["0", "1"]
    for argv in commands.values():
        assert scene.run(*argv).returncode == 0
    assert "already present" in scene.run(*shlex.split(scene.fix)).stdout


def test_with_the_clock_set_back_since_the_arming_a_file_written_in_place_is_still_repaired(tmp_path: Path) -> None:
    """The clock set back an hour since the arming: a change made now is dated before the receipt was written. The
    no-op fast path takes no receipt dated after the clock; the full path repairs and dates the receipt again."""
    scene = Scene(tmp_path, "uv")
    receipt = scene.venv / "tierlock" / "receipts" / "brain.json"
    ahead = receipt.stat().st_mtime + 3600  # (written an hour "later" than the clock now says)
    os.utime(receipt, (ahead, ahead))
    _another_machine(scene, tmp_path)
    repaired = scene.run(*shlex.split(scene.fix))
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert "uv: installing 0, replacing 0, repairing 1 of 3 package(s)" in repaired.stderr
    assert scene.imports().stdout.split() == ["0", "1"]
    assert receipt.stat().st_mtime < ahead
    again = scene.run(*shlex.split(scene.fix))
    assert "planning" not in again.stderr  # the no-op fast path again
    assert "already present" in again.stdout


def test_hard_links_made_to_the_files_after_the_arming_cost_one_full_path_then_the_fast_one(tmp_path: Path) -> None:
    """Another environment armed from the same uv cache links the same files (their status changes): the no-op fast
    path cannot tell that from a change of their bytes, steps aside once, and the receipt is dated again."""
    scene = Scene(tmp_path, "uv")
    os.link(scene.file("_native*.so"), tmp_path / "another-link.so")
    first = scene.run(*shlex.split(scene.fix))
    assert first.returncode == 0, first.stderr
    assert "planning 3 package(s) for brain" in first.stderr
    assert "already present" in first.stdout
    second = scene.run(*shlex.split(scene.fix))
    assert "planning" not in second.stderr
    assert "already present" in second.stdout
