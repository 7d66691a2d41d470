"""The inner project as pytest runs it in a real venv of its own, and its printed remedy run as a user would.

The project is locked for real (:func:`tests.support.lockproj.lock_offline`) from
a module's own wheel folder. pytest runs in a venv that is not the one
``install-tier`` picks by default (:func:`own_venv`: it sees this checkout's
pytest and tierlock through a ``.pth`` file), so a remedy names it with
``--python``; :func:`run_printed` runs a printed remedy exactly as printed, the
index options coming from the user's configuration (:func:`offline`), as pip
and uv read it.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
import sysconfig
from collections.abc import Sequence
from pathlib import Path

from tests.support.env import clean_env, make_venv, site_packages
from tests.support.pyproject import pyproject, value

#: The inner project's pytest options: no plugin of the outer run's that would change what a run prints.
_ADDOPTS = ["-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-p", "no:randomly", "-p", "no:xdist"]


def locked_pyproject(
    extras: dict[str, list[str]],
    required: Sequence[str],
    *,
    tests: dict[str, str] | None = None,
    conflicts: Sequence[Sequence[str]] = (),
) -> str:
    """The inner project's pyproject.toml (:func:`tests.support.pyproject.pyproject`): one tier per extra of
    *extras* (gating the glob *tests* gives it), its lockfiles in ``lockfiles/``, *required* in CI, and the pairs
    *conflicts* declared apart."""
    tierlock: dict[str, object] = {"lock-dir": "lockfiles", "ci-require": list(required)}
    if conflicts:
        tierlock["conflicts"] = [list(pair) for pair in conflicts]
    tiers = {name: {"tests": [tests[name]]} if tests and name in tests else {} for name in extras}
    return pyproject(
        name="inner",
        version="0.1",
        extras=extras,
        tierlock=tierlock,
        tiers=tiers,
        tail=f"[tool.pytest.ini_options]\naddopts = {value(_ADDOPTS)}",
    )


def own_venv(tmp_path: Path, interpreter: Path | None = None) -> Path:
    """A real venv (not the project's) that sees this checkout's pytest and tierlock through a .pth file; of
    *interpreter* (another Python under pyenv: pytest, pluggy and packaging are pure Python) or of this one."""
    if interpreter is None:
        python = make_venv(tmp_path / "elsewhere")
    else:
        subprocess.run([str(interpreter), "-m", "venv", "--without-pip", str(tmp_path / "elsewhere")], check=True)
        python = tmp_path / "elsewhere" / "bin" / "python"
    lent = [sysconfig.get_paths()["purelib"], str(Path(__file__).resolve().parents[2] / "src")]
    (site_packages(tmp_path / "elsewhere") / "lent.pth").write_text("\n".join(lent) + "\n")
    return python


def run_pytest(
    python: Path, folder: Path, *args: str, extra: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m pytest ARGS`` in *folder*, this machine's pip and uv configuration left out (*extra* added)."""
    return subprocess.run(
        [str(python), "-m", "pytest", *args],
        cwd=folder,
        env=clean_env(extra),
        capture_output=True,
        text=True,
        check=False,
    )


def remedy_of(output: str, marker: str) -> str:
    """What follows *marker* (``to fix: ``, ``to run them: ``) on the first line of *output* that holds it."""
    line = next(line for line in output.splitlines() if marker in line)
    return line.split(marker, 1)[1].strip()


def offline(house: Path) -> dict[str, str]:
    """The user's own pip and uv configuration: no index, the wheels of *house*."""
    return {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(house), "UV_NO_INDEX": "1", "UV_FIND_LINKS": str(house)}


def run_printed(printed: str | Sequence[str], folder: Path, config: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """A command line as a user types it (a printed remedy: the line, or its words) run exactly so in *folder* with
    the user's *config*; its command is this checkout's console script of that name."""
    argv = shlex.split(printed) if isinstance(printed, str) else list(printed)
    argv[0] = str(Path(sys.executable).with_name(argv[0]))
    return subprocess.run(argv, cwd=folder, env=clean_env(config), capture_output=True, text=True, check=False)
