"""Other real Pythons as targets: their venvs, and wheels whose compiled files are named for their ABI.

tierlock runs on the interpreter of the test process; the targets here are
other versions installed under ``/root/.pyenv/versions`` (a test skips a
version this machine lacks). What a wheel must be named for a target (its
``EXT_SUFFIX``, its platform) is asked of the target itself.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.binaries import loadable_stub
from tests.support.env import clean_env
from tests.support.wheels import build_wheel

PYENV = Path("/root/.pyenv/versions")
#: The target versions the issue names (tierlock itself runs on 3.11).
VERSIONS = ("3.9.18", "3.10.13", "3.12.1", "3.13.0")

_ASK = (
    "import json, sys, sysconfig; print(json.dumps({'ext': sysconfig.get_config_var('EXT_SUFFIX'), "
    "'platform': sysconfig.get_platform(), 'nodot': '%d%d' % sys.version_info[:2]}))"
)


@dataclass(frozen=True)
class Interpreter:
    version: str
    python: Path
    ext_suffix: str
    """``.cpython-313-x86_64-linux-gnu.so``: what an extension module is named for this interpreter."""
    platform: str
    """``linux_x86_64``: the wheel platform tag of this interpreter."""
    nodot: str

    @property
    def cp_tag(self) -> str:
        """The wheel tag of a version-specific CPython build (``cp313-cp313-linux_x86_64``)."""
        return f"cp{self.nodot}-cp{self.nodot}-{self.platform}"

    @property
    def abi3_tag(self) -> str:
        return f"cp37-abi3-{self.platform}"


def interpreter(version: str) -> Interpreter:
    """The interpreter of *version* under pyenv, described by itself (the test skips when it is missing)."""
    python = PYENV / version / "bin" / "python"
    if not python.exists():
        pytest.skip(f"Python {version} is not installed under {PYENV}")
    out = subprocess.run([str(python), "-c", _ASK], check=True, capture_output=True, text=True, env=clean_env())
    facts = json.loads(out.stdout)
    platform = str(facts["platform"]).replace("-", "_").replace(".", "_")
    return Interpreter(version, python, str(facts["ext"]), platform, str(facts["nodot"]))


def make_venv_with(python: Path, folder: Path) -> Path:
    """A real venv of *python* at *folder* (no pip: uv and pip target it from outside); its interpreter."""
    subprocess.run([str(python), "-m", "venv", "--without-pip", str(folder)], check=True, env=clean_env())
    return folder / "bin" / "python"


#: The project of the crypto tier those wheels arm (``{format}``: a line of ``[tool.tierlock]``, or nothing).
CRYPTO_PYPROJECT = """\
[project]
name = "app"
version = "0.1.0"
requires-python = ">=3.9"
dependencies = []

[project.optional-dependencies]
crypto = ["cryptography>=40"]

[tool.tierlock]
lock-dir = "lockfiles"
{format}
[tool.tierlock.tiers.crypto]
"""


def crypto_wheels(dest: Path, target: Interpreter) -> dict[str, Path]:
    """A ``cffi`` whose backend is ``_cffi_backend{EXT_SUFFIX}`` at the top of the site folder, and a
    ``cryptography`` (requiring cffi) whose Rust part is an ``.abi3.so``: named as real ones are."""
    backend = f"_cffi_backend{target.ext_suffix}"
    cffi = build_wheel(
        dest,
        "cffi",
        "1.17.1",
        files={"cffi/__init__.py": "import _cffi_backend\n", backend: loadable_stub(516)},
        tag=target.cp_tag,
        extension=True,
    )
    cryptography = build_wheel(
        dest,
        "cryptography",
        "44.0.0",
        requires=["cffi>=1.12"],
        files={
            "cryptography/__init__.py": "from cryptography.hazmat.bindings import _rust\n",
            "cryptography/hazmat/__init__.py": "",
            "cryptography/hazmat/bindings/__init__.py": "",
            "cryptography/hazmat/bindings/_rust.abi3.so": loadable_stub(1028),
        },
        tag=target.abi3_tag,
        extension=True,
    )
    return {"cffi": cffi, "cryptography": cryptography, "backend": Path(backend)}
