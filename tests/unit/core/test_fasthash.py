"""tierlock's sha256 comes from the interpreter's own C module, on every Python it runs on, and is hashlib's digest.

``hashlib`` loads OpenSSL when imported (milliseconds on every read-only command). The C module is ``_sha256`` up
to Python 3.11 and ``_sha2`` from 3.12: proved on each interpreter installed here, and the fallback to ``hashlib``
on one that has neither.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[3] / "src"
PYENV = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
CHILD = (
    "import sys\n"
    "sys.path.insert(0, sys.argv[1])\n"
    "for name in sys.argv[2:]:\n"
    "    sys.modules[name] = None  # (as on a build without it: ImportError)\n"
    "from tierlock.fasthash import sha256\n"
    "print(sha256(b'tierlock').hexdigest(), sha256.__module__, 'hashlib' in sys.modules)\n"
)


def _interpreters() -> list[str]:
    """This interpreter, and every CPython 3.10 or later that pyenv holds here."""
    found = [sys.executable]
    if PYENV.is_dir():
        for folder in sorted(PYENV.iterdir()):
            python = folder / "bin" / "python3"
            if python.is_file() and folder.name.startswith(("3.10", "3.11", "3.12", "3.13", "3.14")):
                found.append(str(python))
    return found


def _run(python: str, *blocked: str) -> list[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_", "PYTHON"))}
    ran = subprocess.run([python, "-c", CHILD, str(SRC), *blocked], env=env, capture_output=True, text=True, check=True)
    return ran.stdout.split()


@pytest.mark.parametrize("python", _interpreters())
def test_the_digest_is_hashlibs_from_the_c_module_without_loading_hashlib(python: str) -> None:
    digest, module, hashlib_loaded = _run(python)
    assert digest == hashlib.sha256(b"tierlock").hexdigest()
    assert module in {"_sha256", "_sha2"}
    assert hashlib_loaded == "False"


def test_an_interpreter_without_either_c_module_falls_back_to_hashlib() -> None:
    digest, module, hashlib_loaded = _run(sys.executable, "_sha256", "_sha2")
    assert digest == hashlib.sha256(b"tierlock").hexdigest()
    assert module not in {"_sha256", "_sha2"}
    assert hashlib_loaded == "True"


#: Every module of tierlock's that makes a digest (the kept answers, the caches' seals, the lockfiles' digests).
HASHING = (
    "tierlock.keptrun",
    "tierlock.keptseal",
    "tierlock.keptnote",
    "tierlock.lockkept",
    "tierlock.projectparts",
    "tierlock.codebundle",
    "tierlock.census.factdigest",
    "tierlock.census.keptresult",
    "tierlock.lockfiles.keptparse",
    "tierlock.lockfiles.overlapkept",
    "tierlock.lockfiles.digest",
    "tierlock.probing.libcache",
    "tierlock.installer.fastpath",
)
IMPORTS = (
    "import sys, importlib, sysconfig, tempfile\n"
    "sys.path[:0] = [sys.argv[1], sys.argv[2]]\n"
    "for name in sys.argv[3:]:\n"
    "    module = importlib.import_module(name)\n"
    "from tierlock.installer import fastpath\n"
    "from tierlock.lockfiles import digest\n"
    "with tempfile.NamedTemporaryFile() as handle:\n"
    "    handle.write(b'tierlock'); handle.flush()\n"
    "    print(fastpath.digest(handle.name), digest.sha256(b'tierlock'), 'hashlib' in sys.modules)\n"
)


@pytest.mark.parametrize("python", [p for p in _interpreters() if "/3.10" not in p])
def test_no_module_that_makes_a_digest_loads_hashlib_on_any_interpreter(python: str) -> None:
    """(tierlock's own dependencies are pure Python: this interpreter's site folder serves the others too.)"""
    import sysconfig

    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_", "PYTHON"))}
    ran = subprocess.run(
        [python, "-c", IMPORTS, str(SRC), sysconfig.get_paths()["purelib"], *HASHING],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    expected = "sha256:" + hashlib.sha256(b"tierlock").hexdigest()
    assert ran.stdout.split() == [expected, expected, "False"]
