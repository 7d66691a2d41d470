"""A venv whose interpreter now runs another Python than the one that made it: ``python3 -m venv`` links the venv's
``bin/python3`` to the name it was started by (``/usr/bin/python3``), and an upgrade of the system's Python moves
that name to another version (3.12 -> 3.13). The venv's interpreter then runs 3.13, whose ``site-packages`` folder
(``lib/python3.13``) the venv does not have: nothing it holds is on the path.

Before, the probe said every tier absent ("no site folders") and printed ``install-tier brain``, which answered
"already present ... nothing to do" from the receipt (a loop); without a receipt it refused with "make
.../python3.13/site-packages writable", which no command does. Now every command says what happened and prints one
command that makes the venv whole: made again by the Python that made it when that one is still there (what it
holds stays), else moved to the Python it runs now and the armed tiers installed again. Run as printed, the tier is
present and a second install-tier is a no-op. Real venvs of 3.12.1 and 3.13.0, uv and pip."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.support.env import bin_dir
from tests.support.interpreters import interpreter
from tests.support.tierproject import tool_project
from tests.support.wheels import build_wheel

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def links(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("replaced-wheels")
    build_wheel(folder, "basepkg", "1.0")
    build_wheel(folder, "tool", "1.0")
    return folder


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def _fix(said: str) -> str:
    return next(line for line in said.splitlines() if "to fix: " in line).split("to fix: ", 1)[1].strip()


def _project(tmp_path: Path, links: Path) -> tuple[Path, dict[str, str]]:
    root, env = tool_project(tmp_path, links)
    # no pythonX.Y of pyenv's shims on PATH: the Python that made the venv is found only where the venv names it
    path = [p for p in env["PATH"].split(os.pathsep) if ".pyenv" not in p]
    env["PATH"] = os.pathsep.join(path)
    return root, env


def _upgraded(system: Path, now: Path, venv: Path, old: str) -> None:
    """The system's python3 moved to *now*; with *old* ``gone``, the Python the venv's ``pyvenv.cfg`` names too."""
    (system / "python3").unlink()
    (system / "python3").symlink_to(now)
    if old == "gone":
        # (and a receipt of a tier the project no longer declares, left by a branch switch: the fix passes it over)
        receipt = venv / "tierlock" / "receipts" / "brain.json"
        document = json.loads(receipt.read_text(encoding="utf-8"))
        document["tier"] = "gone-tier"
        receipt.with_name("gone-tier.json").write_text(json.dumps(document), encoding="utf-8")
        cfg = venv / "pyvenv.cfg"
        lines = cfg.read_text(encoding="utf-8").splitlines()
        gone = str(venv.parent / "gone" / "python3.12")
        cfg.write_text("\n".join(f"executable = {gone}" if line.startswith("executable") else line for line in lines))


@pytest.mark.parametrize("backend", ["uv", "pip"])
@pytest.mark.parametrize("old", ["still-there", "gone"])
def test_a_venv_whose_base_python_was_replaced_by_another_version_is_named_and_the_printed_fix_makes_it_whole(
    tmp_path: Path, links: Path, backend: str, old: str
) -> None:
    made, now = interpreter("3.12.1"), interpreter("3.13.0")
    root, env = _project(tmp_path, links)
    system = tmp_path / "system" / "bin"
    system.mkdir(parents=True)
    (system / "python3").symlink_to(made.python.resolve())  # the system's python3, 3.12 for now
    venv = tmp_path / "venv"
    subprocess.run([str(system / "python3"), "-m", "venv", str(venv)], check=True, env=env, capture_output=True)
    python = str(venv / "bin" / "python")
    install = [str(bin_dir() / "install-tier"), "brain", "--python", python, "--backend", backend]
    armed = _run(install, root, env)
    assert armed.returncode == 0, armed.stdout + armed.stderr

    _upgraded(system, now.python.resolve(), venv, old)
    fixes = set()
    probe = [str(bin_dir() / "tierlock"), "probe", "brain", "--python", python]
    status = [str(bin_dir() / "tierlock"), "status", "--python", python]
    for argv in (probe, status, install):
        ran = _run(argv, root, env)
        said = ran.stdout + ran.stderr
        assert ran.returncode == 2, said
        assert f"the environment {venv} was made by Python 3.12.1 (its pyvenv.cfg)" in said, said
        assert "now runs Python 3.13.0" in said, said
        assert "already present" not in said, said
        assert "writable" not in said, said
        fixes.add(_fix(said))
    assert len(fixes) == 1, fixes
    fix = fixes.pop()
    if old == "still-there":  # what the venv holds stays: it is made again by the Python that made it
        assert shlex.split(fix.split(" && ")[-1])[:3] == [str(made.python.resolve()), "-m", "venv"], fix
    else:  # moved to the Python it runs now, and the armed tier installed again there
        assert "--upgrade" in fix, fix
        assert fix.endswith(f"install-tier --armed --python {python}"), fix
    done = subprocess.run(fix, shell=True, cwd=root, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr

    probed = _run(probe, root, env)
    assert probed.returncode == 0, probed.stdout + probed.stderr
    again = _run(install, root, env)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "checked against the receipt); nothing to do" in again.stdout, again.stdout  # the fast no-op holds again
    ran = _run([python, "-c", "import sys, tool; print('%d.%d' % sys.version_info[:2])"], root, env)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == ("3.12" if old == "still-there" else "3.13")


@pytest.mark.parametrize("backend", ["uv", "pip"])
def test_a_venv_whose_python_was_removed_and_made_again_by_the_other_version_left_is_armed_again_not_a_noop(
    tmp_path: Path, links: Path, backend: str
) -> None:
    # `python3.12 -m venv` links to python3.12 itself; the upgrade removes it and leaves python3 (3.13). The printed
    # fix of "no interpreter" makes the venv again with that python3: a 3.13 venv over the 3.12 one, whose packages
    # are not on its path. Before, install-tier answered "already present" from the 3.12 receipt (its files still
    # there, in lib/python3.12) while the probe said absent and printed that same install-tier: a loop.
    made, now = interpreter("3.12.1"), interpreter("3.13.0")
    root, env = _project(tmp_path, links)
    system = tmp_path / "system" / "bin"
    system.mkdir(parents=True)
    (system / "python3.12").symlink_to(made.python.resolve())
    venv = tmp_path / "venv"
    subprocess.run([str(system / "python3.12"), "-m", "venv", str(venv)], check=True, env=env, capture_output=True)
    cfg = venv / "pyvenv.cfg"  # (as a venv of a Python before 3.11 writes it, or one whose `executable` is gone)
    cfg.write_text("".join(x for x in cfg.read_text(encoding="utf-8").splitlines(True) if "executable" not in x))
    python = str(venv / "bin" / "python")
    install = [str(bin_dir() / "install-tier"), "brain", "--python", python, "--backend", backend]
    assert _run(install, root, env).returncode == 0
    (system / "python3.12").unlink()
    (system / "python3").symlink_to(now.python.resolve())

    probe = [str(bin_dir() / "tierlock"), "probe", "brain", "--python", python]
    gone = _run(probe, root, env)
    assert gone.returncode == 2, gone.stdout + gone.stderr
    assert "its interpreter is gone" in gone.stdout + gone.stderr
    remade = subprocess.run(_fix(gone.stdout + gone.stderr), shell=True, cwd=root, env=env, check=False)
    assert remade.returncode == 0
    for _ in range(3):  # each printed fix, as printed, until the probe says present
        probed = _run(probe, root, env)
        if probed.returncode == 0:
            break
        fix = _fix(probed.stdout + probed.stderr)
        done = subprocess.run(fix, shell=True, cwd=root, env=env, capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "already present" not in done.stdout + done.stderr, fix
    assert probed.returncode == 0, probed.stdout + probed.stderr
    ran = _run([python, "-c", "import sys, tool; print('%d.%d' % sys.version_info[:2])"], root, env)
    assert ran.stdout.strip() == "3.13", ran.stderr
