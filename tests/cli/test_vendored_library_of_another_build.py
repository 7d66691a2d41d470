"""A package whose extension needs a library its wheel vendors (auditwheel's layout: ``corelib.libs/`` holds
``libcore-<hash>.so.1``, found through ``$ORIGIN``), and whose extension was replaced by the same file of another
build of the package (``cp -p``: another build's extension asks for its own build's copy, by another hashed name).

Only the package's wheel provides a library of that name, so the fix is the package's reinstall, never the
system's package manager: ``probe``, ``status`` and ``install-tier`` say so, and the printed fix converges when run
exactly as printed, with uv and with pip. Real wheels written at test time (the extensions and libraries built with
the compiler); the real ``import`` is the witness. (numpy 2.2.5's ``_multiarray_umath`` copied over 2.2.6's: the
same size, and it needs ``libscipy_openblas64_-6bb31eeb.so`` where 2.2.6's ``numpy.libs`` holds ``-56d6093b``.)
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.cli.test_install_cli import index_env
from tests.support.env import bin_dir, clean_env, make_venv, site_packages
from tests.support.native import build_extension, build_library, needs_compiler
from tests.support.probe_env import platform_tag
from tests.support.tierproject import write_lock, write_pyproject
from tests.support.wheels import EXT_SUFFIX, build_wheel

pytestmark = [needs_compiler, pytest.mark.slow]

OURS, THEIRS = "libcore-0a1b2c3d.so.1", "libcore-9f8e7d6c.so.1"
EXTENSION = f"corelib/_native{EXT_SUFFIX}"


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """corelib 1.0's wheel (in the index) and the extension of another build of it (its own hashed library)."""
    root = tmp_path_factory.mktemp("vendored")
    house = root / "wheels"
    out: dict[str, Path] = {"house": house}
    for key, soname in (("ours", OURS), ("theirs", THEIRS)):
        library = build_library(root / key / "lib", soname)
        extension = build_extension(
            root / key, "_native", EXT_SUFFIX, needs=[library], runpath="$ORIGIN/../corelib.libs"
        )
        out[key] = extension
        out[f"{key}-library"] = library.path
    files: dict[str, bytes | str] = {
        "corelib/__init__.py": "from ._native import value\n",
        EXTENSION: out["ours"].read_bytes(),
        f"corelib.libs/{OURS}": out["ours-library"].read_bytes(),
    }
    out["corelib"] = build_wheel(house, "corelib", "1.0", files=files, tag=platform_tag(), extension=True)
    out["basepkg"] = build_wheel(house, "basepkg", "1.0")
    out["helper"] = build_wheel(house, "helper", "1.0")
    return out


class Scene:
    """The project (brain locks corelib) and a venv holding brain's packages."""

    def __init__(self, root: Path, builds: dict[str, Path], backend: str) -> None:
        self.root = root / "proj"
        self.venv = root / "venv"
        write_pyproject(self.root)
        if backend == "pip":
            text = (self.root / "pyproject.toml").read_text()
            (self.root / "pyproject.toml").write_text(
                text.replace('lock-dir = "lockfiles"', 'lock-dir = "lockfiles"\nbackend = "pip"')
            )
        base = [("basepkg", "1.0", builds["basepkg"])]
        write_lock(self.root, "base", base)
        brain = [*base, ("corelib", "1.0", builds["corelib"]), ("helper", "1.0", builds["helper"])]
        write_lock(self.root, "brain", brain)
        make_venv(self.venv)
        self.env = clean_env({**index_env(builds["house"], root / "uv-cache"), "TIERLOCK_CACHE_DIR": str(root / "c")})
        self.fix = shlex.join(["install-tier", "brain", "--python", str(self.python)])

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    def run(self, *argv: str) -> subprocess.CompletedProcess[str]:
        program = shutil.which(argv[0], path=str(bin_dir())) or argv[0]
        return subprocess.run(
            [program, *argv[1:]], cwd=self.root, env=self.env, capture_output=True, text=True, check=False
        )

    def installed_by_another_tool(self) -> None:
        """brain's packages as a CI image's ``uv pip install`` puts them (no receipt: tierlock never armed it)."""
        argv = [str(bin_dir() / "uv"), "pip", "install", "--python", str(self.python)]
        proc = self.run(*argv, "corelib==1.0", "basepkg==1.0", "helper==1.0")
        assert proc.returncode == 0, proc.stderr

    def mix_in_the_other_build(self, theirs: Path) -> None:
        """``cp -p`` of the other build's extension over ours (its size is ours: the RECORD sizes all hold)."""
        ours = site_packages(self.venv) / EXTENSION
        assert theirs.stat().st_size == ours.stat().st_size  # what makes this damage invisible to a size check
        subprocess.run(["cp", "-p", str(theirs), str(ours)], check=True)

    def imports(self) -> str:
        argv = [str(self.python), "-c", "import corelib; print(corelib.value())"]
        proc = subprocess.run(argv, capture_output=True, text=True, check=False, env=clean_env())
        return proc.stdout.strip() if proc.returncode == 0 else proc.stderr.strip().splitlines()[-1]


WHY = (
    f"compiled artifact {EXTENSION} needs {THEIRS}, which the dynamic loader cannot find (a library the package's "
    "wheel vendors, by its hashed name: only its own install provides it)"
)


def _said_and_repaired(scene: Scene, backend: str) -> None:
    """probe and status name the library as the package's own and print the reinstall; run as printed, it
    repairs corelib, and the tier is present."""
    assert f"{THEIRS}: cannot open shared object file" in scene.imports()  # the witness
    probed = scene.run("tierlock", "probe", "brain", "--python", str(scene.python))
    assert probed.returncode == 1, probed.stdout + probed.stderr
    assert f"corelib partial 1.0 — {WHY}" in probed.stdout
    assert f"brain is partial; to fix: {scene.fix}" in probed.stdout
    assert "to fix: provide" not in probed.stdout
    status = scene.run("tierlock", "status", "brain", "--python", str(scene.python), "--json")
    (tier,) = json.loads(status.stdout)["tiers"]
    assert (tier["state"], tier["problems"], tier["remedy"]) == ("partial", [f"corelib 1.0: {WHY}"], scene.fix)

    repaired = scene.run(*shlex.split(scene.fix))  # exactly as printed
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert f"{backend}: installing 0, replacing 0, repairing 1 of 3 package(s)" in repaired.stderr
    assert scene.imports() == "7"
    assert scene.run("tierlock", "probe", "brain", "--python", str(scene.python)).returncode == 0
    assert "already present" in scene.run(*shlex.split(scene.fix)).stdout


@pytest.mark.parametrize("backend", ["uv", "pip"])
def test_another_builds_extension_needing_its_own_vendored_library_is_the_packages_to_reinstall(
    tmp_path: Path, builds: dict[str, Path], backend: str
) -> None:
    """Before: ``to fix: provide libcore-9f8e7d6c.so.1 (the dynamic loader finds it in the loader cache, ...)``, and
    install-tier counted corelib present, then stopped with the same words (exit 1): no command fixed it."""
    scene = Scene(tmp_path, builds, backend)
    scene.installed_by_another_tool()
    assert scene.imports() == "7"
    scene.mix_in_the_other_build(builds["theirs"])
    _said_and_repaired(scene, backend)


def _zero_the_header(scene: Scene) -> None:
    """The extension's ELF header overwritten in place (``dd conv=notrunc``): its size kept, no ELF file any more."""
    with open(site_packages(scene.venv) / EXTENSION, "r+b") as fh:
        fh.write(b"\0" * 20)


@pytest.mark.parametrize("backend", ["uv", "pip"])
@pytest.mark.parametrize("damage", ["another-build", "header-zeroed"])
def test_a_shared_object_rewritten_at_its_size_after_arming_is_repaired_by_the_printed_fix(
    tmp_path: Path, builds: dict[str, Path], backend: str, damage: str
) -> None:
    """Armed by install-tier (a receipt: every file's size), then a shared object rewritten at the same size. The
    probe reads what it needs and whether it loads, and prints ``install-tier brain``. Before: that command took
    the receipt's no-op fast path (sizes only) and answered "already present (...); nothing to do", so the printed
    fix never fixed. Now the receipt keeps when each shared object was written, and the fast path sees the rewrite."""
    scene = Scene(tmp_path, builds, backend)
    armed = scene.run(*shlex.split(scene.fix))
    assert armed.returncode == 0, armed.stdout + armed.stderr
    assert scene.imports() == "7"
    if damage == "another-build":
        scene.mix_in_the_other_build(builds["theirs"])
        _said_and_repaired(scene, backend)
        return
    _zero_the_header(scene)
    assert "invalid ELF header" in scene.imports()
    probed = scene.run("tierlock", "probe", "brain", "--python", str(scene.python))
    assert f"compiled extension {EXTENSION} is not an ELF file (no compiled code)" in probed.stdout
    assert f"brain is partial; to fix: {scene.fix}" in probed.stdout
    repaired = scene.run(*shlex.split(scene.fix))  # exactly as printed
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert "already present" not in repaired.stdout
    assert f"{backend}: installing 0, replacing 0, repairing 1 of 3 package(s)" in repaired.stderr
    assert scene.imports() == "7"
    assert scene.run("tierlock", "probe", "brain", "--python", str(scene.python)).returncode == 0
    assert "already present" in scene.run(*shlex.split(scene.fix)).stdout
