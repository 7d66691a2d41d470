"""A venv shared with a host of another machine: its locked package was installed there, and its extension is built
for that machine. ``probe``, ``status`` and ``install-tier`` say which file and why, blame no system library, and the
printed fix (a reinstall for this platform) converges when run exactly as printed, with uv and with pip.

Real wheels written at test time: the project's own (a C extension built with the compiler) and the other host's
(``manylinux_2_17_aarch64``, a crafted aarch64 ELF file), which the real uv installs with ``--python-platform``, as
it would on that host. The real ``import`` is the witness.
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
from packaging.tags import sys_tags

from tests.cli.test_install_cli import index_env
from tests.support import binaries
from tests.support.env import bin_dir, clean_env, make_venv, site_packages
from tests.support.native import build_extension, needs_compiler
from tests.support.probe_env import platform_tag
from tests.support.tierproject import write_lock, write_pyproject
from tests.support.wheels import EXT_SUFFIX, build_wheel
from tierlock.probing import elf, elfmatch

pytestmark = [needs_compiler, pytest.mark.slow]


def _own() -> elf.ElfInfo:
    """The ELF header of the interpreter running the tests (the venvs are made from it)."""
    info = elf.read_file(os.path.realpath(sys.executable))
    assert info is not None
    return info


OWN = _own()
OTHER = (183, "aarch64") if OWN.machine != 183 else (62, "x86_64")


class Scene:
    """The project (brain locks corelib, an extension) and a venv whose corelib came from the other host's wheel."""

    def __init__(self, root: Path, backend: str) -> None:
        self.root = root / "proj"
        self.venv = root / "venv"
        house, other = root / "wheels", root / "other-host"
        ext = build_extension(root / "build", "_native", EXT_SUFFIX, needs=[])
        init = "from ._native import value\n"
        corelib = build_wheel(
            house,
            "corelib",
            "1.0",
            files={"corelib/__init__.py": init, f"corelib/_native{EXT_SUFFIX}": ext.read_bytes()},
            tag=platform_tag(),
            extension=True,
        )
        foreign: dict[str, bytes | str] = {
            "corelib/__init__.py": init,
            "corelib/_native.abi3.so": binaries.elf(machine=OTHER[0], needed=["libc.so.6"]),
        }
        tag = f"{platform_tag().split('-')[0]}-abi3-manylinux_2_17_{OTHER[1]}"
        build_wheel(other, "corelib", "1.0", files=foreign, tag=tag, extension=True)
        basepkg = build_wheel(house, "basepkg", "1.0")
        helper = build_wheel(house, "helper", "1.0")
        for wheel in (basepkg, helper):
            shutil.copy(wheel, other)
        write_pyproject(self.root)
        if backend == "pip":
            text = (self.root / "pyproject.toml").read_text()
            (self.root / "pyproject.toml").write_text(
                text.replace('lock-dir = "lockfiles"', 'lock-dir = "lockfiles"\nbackend = "pip"')
            )
        base = [("basepkg", "1.0", basepkg)]
        write_lock(self.root, "base", base)
        write_lock(self.root, "brain", [*base, ("corelib", "1.0", corelib), ("helper", "1.0", helper)])
        make_venv(self.venv)
        argv = [str(bin_dir() / "uv"), "pip", "install", "--no-index", "--find-links", str(other), "--no-cache"]
        argv += ["--python", str(self.python), "--python-platform", f"{OTHER[1]}-manylinux_2_17"]
        subprocess.run(
            [*argv, "corelib==1.0", "basepkg==1.0", "helper==1.0"], check=True, env=clean_env(), capture_output=True
        )
        self.env = clean_env({**index_env(house, root / "uv-cache"), "TIERLOCK_CACHE_DIR": str(root / "cache")})

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    def run(self, *argv: str) -> subprocess.CompletedProcess[str]:
        program = shutil.which(argv[0], path=str(bin_dir())) or argv[0]
        return subprocess.run(
            [program, *argv[1:]], cwd=self.root, env=self.env, capture_output=True, text=True, check=False
        )

    def imports(self) -> subprocess.CompletedProcess[str]:
        argv = [str(self.python), "-c", "import corelib; print(corelib.value())"]
        return subprocess.run(argv, capture_output=True, text=True, check=False, env=clean_env())


@pytest.mark.parametrize("backend", ["uv", "pip"])
def test_an_extension_of_another_machine_is_named_and_the_printed_reinstall_converges(
    tmp_path: Path, backend: str
) -> None:
    scene = Scene(tmp_path, backend)
    assert "cannot open shared object file" in scene.imports().stderr  # the witness: the loader refuses it
    here = elfmatch.name(OWN)
    why = (
        f"compiled extension corelib/_native.abi3.so is built for {OTHER[1]}, and this environment runs {here}: "
        "the dynamic loader cannot load it"
    )
    fix = shlex.join(["install-tier", "brain", "--python", str(scene.python)])

    probed = scene.run("tierlock", "probe", "brain", "--python", str(scene.python))
    assert probed.returncode == 1
    assert f"corelib partial 1.0 — {why}" in probed.stdout
    assert f"brain is partial; to fix: {fix}" in probed.stdout
    assert "libc" not in probed.stdout  # no system library is blamed

    status = scene.run("tierlock", "status", "brain", "--python", str(scene.python), "--json")
    (tier,) = json.loads(status.stdout)["tiers"]
    assert tier["state"] == "partial"
    wheel = (  # the wheel it came from says so too (its WHEEL file's tags: that host's)
        f"installed from a wheel for {platform_tag().split('-')[0]}-abi3-manylinux_2_17_{OTHER[1]} (its WHEEL file's "
        f"tags), which this environment does not accept (it takes {next(iter(sys_tags()))} and the like): built for "
        "another platform or Python"
    )
    assert tier["problems"] == [f"corelib 1.0: {why}", f"corelib 1.0: {wheel}"]
    assert tier["remedy"] == fix

    repaired = scene.run(*shlex.split(fix))  # exactly as printed
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert f"{backend}: installing 0, replacing 0, repairing 1 of 3 package(s)" in repaired.stderr
    assert scene.imports().stdout.strip() == "0"
    assert not (site_packages(scene.venv) / "corelib" / "_native.abi3.so").exists()
    again = scene.run("tierlock", "probe", "brain", "--python", str(scene.python))
    assert again.returncode == 0, again.stdout
    assert "already present" in scene.run(*shlex.split(fix)).stdout


def test_a_receipt_written_on_a_host_of_another_machine_proves_nothing_here_and_the_printed_fix_converges(
    tmp_path: Path,
) -> None:
    """The venv as an arm64 host armed it, then mounted here: its receipt (written there, by an interpreter of that
    machine) lists files of the sizes they have. install-tier's no-op fast path must not take it as proof."""
    scene = Scene(tmp_path, "uv")
    fix = ["install-tier", "brain", "--python", str(scene.python)]
    assert scene.run(*fix).returncode == 0  # armed here first: the receipt's shape, as that host writes it
    so = next((site_packages(scene.venv) / "corelib").glob("_native*.so"))
    foreign = binaries.elf(machine=OTHER[0], needed=["libc.so.6"])
    size = so.stat().st_size
    so.unlink()  # (a new file, as an installer writes it: not through uv's cache's hard link)
    so.write_bytes(foreign + b"\0" * (size - len(foreign)))  # that host's build, of the size listed
    path = scene.venv / "tierlock" / "receipts" / "brain.json"
    receipt = json.loads(path.read_text())
    receipt["interpreter"]["machine"] = [OWN.elf_class, 1 if OWN.little_endian else 2, OTHER[0]]  # written there
    path.write_text(json.dumps(receipt))

    probed = scene.run("tierlock", "probe", "brain", "--python", str(scene.python))
    assert f"is built for {OTHER[1]}" in probed.stdout
    assert f"to fix: {shlex.join(fix)}" in probed.stdout
    repaired = scene.run(*shlex.split(shlex.join(fix)))  # exactly as printed
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert "already present" not in repaired.stdout
    assert "repairing 1 of 3 package(s)" in repaired.stderr
    assert scene.imports().stdout.strip() == "0"
    assert scene.run("tierlock", "probe", "brain", "--python", str(scene.python)).returncode == 0
    assert "already present" in scene.run(*fix).stdout  # the receipt written here proves the next no-op
