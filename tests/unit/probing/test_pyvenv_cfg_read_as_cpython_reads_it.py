"""A venv's ``pyvenv.cfg`` is read by one reader (:func:`tierlock.venvbase.settings`), as CPython's ``site.py``
reads it: the answer whether the venv sees its base interpreter's site-packages is the one its own interpreter
gives, on shapes of the file the venv module never writes.

``site.py`` reads the file as strict UTF-8 (an undecodable byte: the interpreter stops as it starts), takes every
line holding a ``=``, keeps the last of a key, and includes the system site when the key is ``true`` in any case
or not there at all. The probe read it with ``errors="replace"`` and took a missing key for ``false``; the venv
base's reader stopped at an undecodable byte. Each case is put to a real venv's interpreter beside the reader.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.env import clean_env, site_packages
from tests.support.probe_env import uv_install
from tests.support.wheels import build_wheel
from tierlock import venvbase
from tierlock.probing import probe_distribution
from tierlock.remedies import argv_of

#: Whether the interpreter put its base interpreter's site-packages on its path.
_SEES_BASE = (
    "import sys, sysconfig\n"
    "base = sysconfig.get_paths(vars={'base': sys.base_prefix, 'platbase': sys.base_prefix})['purelib']\n"
    "print(base in sys.path)\n"
)


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("cfg") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, env=clean_env())
    return folder


def _own_lines(venv: Path) -> bytes:
    """The lines the venv module wrote, but the one this test varies."""
    lines = (venv / "pyvenv.cfg").read_bytes().splitlines(keepends=True)
    return b"".join(line for line in lines if not line.lower().startswith(b"include-system-site-packages"))


def _as_cpython_says(venv: Path) -> bool | None:
    """Whether the venv's own interpreter sees its base's site-packages (None: it does not start)."""
    ran = subprocess.run(
        [str(venv / "bin" / "python"), "-c", _SEES_BASE], capture_output=True, text=True, env=clean_env(), check=False
    )
    return None if ran.returncode else ran.stdout.strip() == "True"


CASES = {
    "true": b"include-system-site-packages = true\n",
    "false": b"include-system-site-packages = false\n",
    "not set": b"",
    "upper case": b"Include-System-Site-Packages = TRUE\n",
    "no spaces": b"include-system-site-packages=true\n",
    "the last one kept": b"include-system-site-packages = true\ninclude-system-site-packages = false\n",
    "the last one kept, true": b"include-system-site-packages = false\ninclude-system-site-packages = true\n",
    "carriage returns": b"include-system-site-packages = false\r\n",
    "a value not true": b"include-system-site-packages = yes\n",
    "undecodable bytes, true": b"include-system-site-packages = true\nprompt = \xff\xfe\n",
    "undecodable bytes, not set": b"prompt = caf\xe9\n",
}


@pytest.mark.parametrize("case", CASES)
def test_whether_a_venv_includes_its_base_site_is_what_its_interpreter_says(venv: Path, case: str) -> None:
    original = (venv / "pyvenv.cfg").read_bytes()
    try:
        (venv / "pyvenv.cfg").write_bytes(_own_lines(venv) + CASES[case])
        said = _as_cpython_says(venv)
        assert venvbase.includes_system_site(venv) is bool(said), f"the interpreter says {said}"
        assert (venvbase.settings(venv) is None) is (said is None), "unreadable exactly when the interpreter stops"
    finally:
        (venv / "pyvenv.cfg").write_bytes(original)


def test_a_pyvenv_cfg_with_undecodable_bytes_names_no_base_interpreter(venv: Path) -> None:
    original = (venv / "pyvenv.cfg").read_bytes()
    assert venvbase.base_of(venv) is not None
    try:
        (venv / "pyvenv.cfg").write_bytes(original + b"prompt = \xff\n")
        assert venvbase.base_of(venv) is None
    finally:
        (venv / "pyvenv.cfg").write_bytes(original)


@pytest.mark.parametrize(
    ("setting", "state"), [(b"", "present"), (b"prompt = \xff\ninclude-system-site-packages = true\n", "partial")]
)
def test_the_probe_takes_a_venvs_base_site_as_its_interpreter_does(tmp_path: Path, setting: bytes, state: str) -> None:
    """A venv whose ``pyvenv.cfg`` does not set the key sees its base's site-packages: its own install shadows
    the base's copy (present); one its interpreter cannot read shadows nothing (two copies: partial)."""
    wheels = tmp_path / "wheels"
    build_wheel(wheels, "alpha", "1.0")
    build_wheel(wheels, "alpha", "2.0")
    folder = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, env=clean_env())
    uv_install(folder / "bin" / "python", wheels, "alpha==2.0")
    (folder / "pyvenv.cfg").write_bytes(_own_lines(folder) + setting)
    base = tmp_path / "base" / "lib" / "site-packages"
    uv_install(None, wheels, "alpha==1.0", target=base)
    result = probe_distribution("alpha", paths=[site_packages(folder), base])
    assert result.state == state, result.reasons


@pytest.mark.parametrize("lost", [("python", "python3", f"python3.{sys.version_info[1]}"), ("python",)])
def test_a_venv_that_lost_its_interpreter_is_said_so_and_its_remedy_run_as_printed_makes_it_again(
    tmp_path: Path, lost: tuple[str, ...]
) -> None:
    """Every name gone, or ``bin/python`` alone (the others, links to it, left: ``python -m venv`` alone would make
    ``python`` a link to ``python3.X``, which links back to it)."""
    folder = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, env=clean_env())
    exe = folder / "bin" / "python"
    (folder / "site.txt").write_text("a package's file stays\n")
    for name in lost:
        (folder / "bin" / name).unlink(missing_ok=True)
    assert venvbase.why_none(exe) == f": the environment {folder} has a pyvenv.cfg, but its interpreter is gone"
    remedy = venvbase.remedy_for_none(exe)
    assert argv_of(remedy) is not None  # (a command, carried as argv lists in --json)
    subprocess.run(remedy, shell=True, check=True, env=clean_env())
    assert subprocess.run([str(exe), "-c", "pass"], check=False).returncode == 0
    assert (folder / "site.txt").exists()


def test_a_folder_with_no_venv_names_no_reason_and_asks_for_an_interpreter(tmp_path: Path) -> None:
    exe = tmp_path / "bin" / "python"
    assert venvbase.why_none(exe) == ""
    assert venvbase.remedy_for_none(exe) == "pass --python PATH to a python executable"
