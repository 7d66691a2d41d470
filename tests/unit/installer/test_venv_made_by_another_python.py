"""A venv whose interpreter runs another Python than the one its ``pyvenv.cfg`` says made it: told from the settings
(``version``, uv's ``version_info``), refused where the target's answer is read only when its site folder is missing,
and the one command that makes it whole (again by a Python of the version that made it, else moved to the one it runs
now with the armed tiers). The interpreters are real (3.12.1 and 3.13.0); see tests/cli/test_venv_base_replaced.py."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.support.interpreters import interpreter
from tierlock import targetanswer
from tierlock.errors import UsageError
from tierlock.installer.fastpath import RECEIPTS_DIR
from tierlock.venvbase import interpreter_of_version, made_by_other, remedy_for_other


def _venv(tmp_path: Path, cfg: str) -> Path:
    prefix = tmp_path / "venv"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "pyvenv.cfg").write_text(cfg, encoding="utf-8")
    return prefix


@pytest.mark.parametrize(
    ("cfg", "runs", "made"),
    [
        ("home = /usr/bin\nversion = 3.12.1\n", (3, 13, 0), "3.12.1"),
        ("home = /usr/bin\nversion_info = 3.12.1\n", (3, 13, 0), "3.12.1"),  # uv's key
        ("version_info = 3.12.1.final.0\nversion = 3.11.2\n", (3, 13, 0), "3.12.1"),  # virtualenv's: the first wins
        ("version = 3.12.1\n", (4, 12, 0), "3.12.1"),  # another major with the same minor
        ("version = 3.12.1\n", (3, 12, 8), None),  # another micro: the same site folder
        ("version = 3.12\n", (3, 12, 0), None),
        ("version = 3.12\n", (3, 13, 0), "3.12"),
        ("home = /usr/bin\n", (3, 13, 0), None),  # says nothing
        ("version = three.12\n", (3, 13, 0), None),
        ("version = 3.x\n", (3, 13, 0), None),
        ("version = 3\n", (3, 13, 0), None),
    ],
)
def test_the_version_that_made_a_venv_is_told_only_when_its_minor_is_another(
    tmp_path: Path, cfg: str, runs: tuple[int, int, int], made: str | None
) -> None:
    assert made_by_other(_venv(tmp_path, cfg), runs) == made


def test_no_settings_tell_nothing(tmp_path: Path) -> None:
    assert made_by_other(tmp_path, (3, 13, 0)) is None


def test_the_interpreter_of_the_version_is_the_one_that_runs_it_not_the_one_named_so(tmp_path: Path) -> None:
    old, new = interpreter("3.12.1"), interpreter("3.13.0")
    home = tmp_path / "home"
    home.mkdir()
    (home / "python3").symlink_to(new.python.resolve())  # the name is there, the version is another now
    prefix = _venv(tmp_path, f"home = {home}\nversion = 3.12.1\nexecutable = {tmp_path / 'gone' / 'python3.12'}\n")
    saved = os.environ.get("PATH", "")
    os.environ["PATH"] = str(tmp_path / "nothing")
    try:
        assert interpreter_of_version(prefix, "3.12") is None
        assert interpreter_of_version(prefix, "3.13") == str(home / "python3")
        (home / "python3.12").symlink_to(old.python.resolve())
        assert interpreter_of_version(prefix, "3.12") == str(home / "python3.12")
        inside = prefix / "bin" / "python3.12"  # one inside the venv itself is never the one that made it
        inside.symlink_to(old.python.resolve())
        cfg = f"home = {prefix / 'bin'}\nversion = 3.12.1\nexecutable = {inside}\n"
        (prefix / "pyvenv.cfg").write_text(cfg, encoding="utf-8")
        assert interpreter_of_version(prefix, "3.12") is None
        os.environ["PATH"] = str(home)  # a python3.12 on PATH that runs 3.12
        assert interpreter_of_version(prefix, "3.12") == str(home / "python3.12")
    finally:
        os.environ["PATH"] = saved


def test_the_fix_makes_the_venv_again_with_the_python_that_made_it_when_it_is_there(tmp_path: Path) -> None:
    old = interpreter("3.12.1")
    made_by = tmp_path / "base" / "py"  # a name that says no version: the venv's python3.12 is removed all the same
    made_by.parent.mkdir()
    made_by.symlink_to(old.python.resolve())
    prefix = _venv(tmp_path, f"version = 3.12.1\nexecutable = {made_by}\n")
    exe = prefix / "bin" / "python"
    fix = remedy_for_other(exe, str(prefix), "3.12.1", ["brain"])
    gone, again = fix.split(" && ")
    names = {os.path.basename(p) for p in shlex.split(gone)[2:]}
    assert shlex.split(gone)[:2] == ["rm", "-f"]
    assert names == {"python", "python3", "python3.12", "py"}
    assert {os.path.dirname(p) for p in shlex.split(gone)[2:]} == {str(prefix / "bin")}
    assert shlex.split(again) == [str(made_by), "-m", "venv", "--without-pip", str(prefix)]


def test_the_fix_moves_the_venv_to_the_python_it_runs_and_arms_its_tiers_again_when_none_is_there(
    tmp_path: Path,
) -> None:
    new = interpreter("3.13.0")
    prefix = _venv(tmp_path, f"version = 3.12.1\nexecutable = {tmp_path / 'gone'}\n")
    exe = prefix / "bin" / "python"
    exe.symlink_to(new.python.resolve())
    saved = os.environ.get("PATH", "")
    os.environ["PATH"] = str(tmp_path / "nothing")
    try:
        upgrade = [str(new.python.resolve()), "-m", "venv", "--upgrade", "--without-pip", str(prefix)]
        assert remedy_for_other(exe, str(prefix), "3.12.1", []) == shlex.join(upgrade)
        fix = remedy_for_other(exe, str(prefix), "3.12.1", ["brain", "gpu"])
        assert fix == f"{shlex.join(upgrade)} && install-tier --armed --python {exe}"
    finally:
        os.environ["PATH"] = saved


def test_the_answer_of_such_a_venv_is_refused_naming_both_versions_and_the_armed_tiers(tmp_path: Path) -> None:
    new = interpreter("3.13.0")
    prefix = _venv(tmp_path, f"version = 3.12.1\nexecutable = {tmp_path / 'gone'}\n")
    exe = prefix / "bin" / "python"
    exe.symlink_to(new.python.resolve())
    receipts = prefix.joinpath(*RECEIPTS_DIR)
    receipts.mkdir(parents=True)
    for name in ("gpu.json", "brain.json", "brain.json.tmp"):
        (receipts / name).write_text("{}", encoding="utf-8")
    purelib = prefix / "lib" / "python3.13" / "site-packages"
    saved = os.environ.get("PATH", "")
    os.environ["PATH"] = str(tmp_path / "nothing")
    try:
        with pytest.raises(UsageError) as caught:
            targetanswer._refuse_made_by_other(exe, str(prefix), str(purelib), (3, 13, 0))
    finally:
        os.environ["PATH"] = saved
    said = str(caught.value)
    assert said.startswith(f"the environment {prefix} was made by Python 3.12.1 (its pyvenv.cfg)")
    assert f"its interpreter {exe} now runs Python 3.13.0 ({new.python.resolve()}:" in said
    assert f"{purelib} does not exist" in said
    assert caught.value.remedy is not None
    assert caught.value.remedy.endswith(f"install-tier --armed --python {exe}")
    # the same Python's minor, or nothing said: no refusal
    targetanswer._refuse_made_by_other(exe, str(prefix), str(purelib), (3, 12, 9))
    (prefix / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    targetanswer._refuse_made_by_other(exe, str(prefix), str(purelib), (3, 13, 0))


def test_the_answer_of_a_real_interpreter_in_such_a_venv_is_refused_until_it_has_its_site_folder(
    tmp_path: Path,
) -> None:
    # The 3.13 interpreter run as the venv's python, the venv's pyvenv.cfg saying 3.12.1 made it: its answer read.
    new = interpreter("3.13.0")
    real = new.python.resolve()
    prefix = _venv(tmp_path, f"home = {real.parent}\nversion = 3.12.1\nexecutable = {tmp_path / 'gone'}\n")
    exe = prefix / "bin" / "python"
    exe.symlink_to(real)
    answer = subprocess.run(targetanswer.inspection(exe), capture_output=True, text=True, check=True).stdout
    with pytest.raises(UsageError, match=r"was made by Python 3\.12\.1"):
        targetanswer.parse(exe, answer)
    site = prefix / "lib" / "python3.13" / "site-packages"  # one made for it (an install that went on): not refused
    site.mkdir(parents=True)
    target = targetanswer.parse(exe, answer)
    assert target.purelib == site
    assert target.version[:2] == (3, 13)


def test_the_receipts_folder_is_the_installers() -> None:
    assert targetanswer._RECEIPTS == RECEIPTS_DIR
