"""A wheel built for another platform, installed whole in a target of another Python than tierlock's: its WHEEL
file's tags are not the target's. Nothing of it is an extension module the target imports (an executable it
bundles for that machine, or pure Python written for Windows), so no file check sees it: before, ``probe``,
``status`` and ``admit`` said ``present`` while the tool it ships could not run (``Exec format error``) or its
import failed. Now the tier is partial, the reason names the wheel's tags and the target's Python, and the printed
fix (a reinstall for this platform) converges when run exactly as printed, with uv and with pip.

The target is a real venv of Python 3.12 (tierlock runs on 3.11: the tags must be the target's, not tierlock's);
the other host's wheel is installed by the real uv with ``--python-platform``, as a venv armed there and mounted
here holds it.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from packaging.tags import platform_tags as _platform_tags

from tests.cli.test_install_cli import index_env
from tests.support import binaries
from tests.support.env import bin_dir, clean_env
from tests.support.interpreters import interpreter, make_venv_with
from tests.support.tierproject import write_lock, write_pyproject
from tests.support.wheels import build_wheel

pytestmark = pytest.mark.slow

#: The bundled tool each wheel ships (this host's runs; the other host's is an ELF file of another machine).
_TOOL_HERE = "#!/bin/sh\necho tool-ran\n"
_INIT = "import os\nTOOL = os.path.join(os.path.dirname(__file__), 'bin', 'tool')\n"
#: What the witness runs in the target: the import, then the tool the package ships (made executable: the test's
#: wheels keep no file modes).
_WITNESS = (
    "import os, subprocess, toolpkg; os.chmod(toolpkg.TOOL, 0o755); "
    "print(subprocess.run([toolpkg.TOOL], capture_output=True, text=True).stdout)"
)

#: (the other host's wheel tag, uv's --python-platform for it, the files of that wheel, what the witness says there)
_OTHERS: dict[str, tuple[str, str, dict[str, bytes | str], str]] = {
    "aarch64-executable": (
        "py3-none-manylinux_2_17_aarch64",
        "aarch64-manylinux_2_17",
        {"toolpkg/__init__.py": _INIT, "toolpkg/bin/tool": binaries.elf(machine=183)},
        "Exec format error",
    ),
    "windows-pure-python": (
        "py3-none-win_amd64",
        "windows",
        {"toolpkg/__init__.py": "import winreg\n" + _INIT, "toolpkg/bin/tool": _TOOL_HERE},
        "No module named 'winreg'",
    ),
}


class Scene:
    """The project (brain locks toolpkg, a wheel for this platform) and a 3.12 venv holding the other host's."""

    def __init__(self, root: Path, backend: str, other: str) -> None:
        target = interpreter("3.12.1")
        self.root = root / "proj"
        self.venv = root / "venv"
        house, away = root / "wheels", root / "other-host"
        here_tag = f"py3-none-{target.platform}"
        toolpkg = build_wheel(
            house, "toolpkg", "1.0", files={"toolpkg/__init__.py": _INIT, "toolpkg/bin/tool": _TOOL_HERE}, tag=here_tag
        )
        tag, python_platform, files, self.broken = _OTHERS[other]
        build_wheel(away, "toolpkg", "1.0", files=files, tag=tag)
        basepkg = build_wheel(house, "basepkg", "1.0")
        shutil.copy(basepkg, away)
        write_pyproject(self.root, brain=("toolpkg>=1",))
        if backend == "pip":
            text = (self.root / "pyproject.toml").read_text()
            (self.root / "pyproject.toml").write_text(
                text.replace('lock-dir = "lockfiles"', 'lock-dir = "lockfiles"\nbackend = "pip"')
            )
        base = [("basepkg", "1.0", basepkg)]
        write_lock(self.root, "base", base)
        write_lock(self.root, "brain", [*base, ("toolpkg", "1.0", toolpkg)])
        make_venv_with(target.python, self.venv)
        argv = [str(bin_dir() / "uv"), "pip", "install", "--no-index", "--find-links", str(away), "--no-cache"]
        argv += ["--python", str(self.python), "--python-platform", python_platform, "--python-version", "3.12"]
        subprocess.run([*argv, "toolpkg==1.0", "basepkg==1.0"], check=True, env=clean_env(), capture_output=True)
        self.tag = tag
        self.platform = next(iter(_platform_tags()))
        self.env = clean_env({**index_env(house, root / "uv-cache"), "TIERLOCK_CACHE_DIR": str(root / "cache")})

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    def run(self, *argv: str) -> subprocess.CompletedProcess[str]:
        program = shutil.which(argv[0], path=str(bin_dir())) or argv[0]
        return subprocess.run(
            [program, *argv[1:]], cwd=self.root, env=self.env, capture_output=True, text=True, check=False
        )

    def witness(self) -> subprocess.CompletedProcess[str]:
        argv = [str(self.python), "-c", _WITNESS]
        return subprocess.run(argv, capture_output=True, text=True, check=False, env=clean_env())


@pytest.mark.parametrize("other", sorted(_OTHERS))
@pytest.mark.parametrize("backend", ["uv", "pip"])
def test_a_wheel_of_another_platform_is_partial_in_a_312_target_and_the_printed_reinstall_converges(
    tmp_path: Path, backend: str, other: str
) -> None:
    scene = Scene(tmp_path, backend, other)
    assert scene.broken in scene.witness().stderr  # the witness: what that wheel holds does not run here
    why = (
        f"installed from a wheel for {scene.tag} (its WHEEL file's tags), which this environment does not accept "
        f"(it takes cp312-cp312-{scene.platform} and the like): built for another platform or Python"
    )
    fix = shlex.join(["install-tier", "brain", "--python", str(scene.python)])

    probed = scene.run("tierlock", "probe", "brain", "--python", str(scene.python))
    assert probed.returncode == 1, probed.stdout
    assert f"toolpkg partial 1.0 — {why}" in probed.stdout
    assert f"brain is partial; to fix: {fix}" in probed.stdout

    status = scene.run("tierlock", "status", "brain", "--python", str(scene.python), "--json")
    (tier,) = json.loads(status.stdout)["tiers"]
    assert (tier["state"], tier["problems"], tier["remedy"]) == ("partial", [f"toolpkg 1.0: {why}"], fix)
    admitted = scene.run("tierlock", "admit", "--tier", "brain", "--python", str(scene.python))
    assert admitted.returncode == 1, admitted.stdout

    repaired = scene.run(*shlex.split(fix))  # exactly as printed
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert f"{backend}: installing 0, replacing 0, repairing 1 of 2 package(s)" in repaired.stderr
    assert scene.witness().stdout.strip() == "tool-ran"
    again = scene.run("tierlock", "probe", "brain", "--python", str(scene.python))
    assert again.returncode == 0, again.stdout
    assert "already present" in scene.run(*shlex.split(fix)).stdout
