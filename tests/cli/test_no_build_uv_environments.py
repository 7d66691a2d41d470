"""The no-build proof of a ``uv.lock`` resolved for some environments only (``[tool.uv] environments``), and of a
PEP 751 ``pylock.toml`` made for some (its own ``environments``).

uv resolves such a lock for those environments alone and keeps only the wheels they can use; ``uv sync`` (and
``install-tier``) refuse a machine none of them holds. A declared platform outside them installs nothing: the proof
must not call it proven (a pure package's wheel fits it), nor blame a package's wheels (uv dropped them), and its
printed fix, applied and run as printed, must converge. Locks are made by real uv from the local index of
``test_no_build_check``.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.cli.test_no_build_check import files, from_the_index, index, uv_cache  # noqa: F401 (its fixtures)
from tests.support.cli import cli_json, run_cli
from tests.support.env import bin_dir

PYPROJECT = """\
[project]
name = "app"
version = "0.1.0"
requires-python = ">=3.11,<3.13"
dependencies = [{base}]

[tool.uv]
environments = [{environments}]

[tool.tierlock]
lock = "uv.lock"
platforms = ["linux-x86_64", "windows-x86_64"]
"""


def _uv(command: str, cwd: Path) -> None:
    env = {**os.environ, "PATH": f"{bin_dir()}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(command.split(), cwd=cwd, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def _project(folder: Path, base: str, environments: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "pyproject.toml").write_text(PYPROJECT.format(base=base, environments=environments), encoding="utf-8")
    _uv("uv lock", folder)
    return folder


def test_a_platform_outside_the_locks_environments_is_not_proven_by_a_pure_wheel(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # before: `ok: every no-build tier installs from wheels on linux-x86_64, windows-x86_64`, exit 0; uv sync refuses
    # every Windows machine (the lock was resolved for Linux only)
    folder = _project(tmp_path / "app", '"purepkg"', "\"sys_platform == 'linux'\"")
    code, out, _ = run_cli(capsys, "--project", str(folder), "platforms")
    assert code == 1, out
    assert "windows-x86_64 (win_amd64)            not in the lock  not in the lock" in out
    assert out.splitlines()[-1] == "1 no-build tier(s) locked for some platforms only: base"
    assert "would build from source" not in out  # (its record is usable, and no package lacks a wheel)
    assert "    to fix: add \"sys_platform == 'win32'\" to [tool.uv] environments in pyproject.toml" in out
    code, document = cli_json(capsys, "--project", str(folder), "check")
    assert code == 1
    (finding,) = document["findings"]
    assert finding["kind"] == "outside-environments"
    assert finding["detail"] == (
        "uv.lock was resolved only for the environments [tool.uv] environments names (`sys_platform == 'linux'`): "
        "windows-x86_64 (win_amd64) on Python 3.11, 3.12 is in none of them, so nothing installs there (uv sync "
        "refuses it); tier base installs from wheels only (no-build)"
    )
    (coverage,) = document["coverage"]
    assert coverage["environments"] == ["sys_platform == 'linux'"]
    assert [c["outside"] for c in coverage["cells"]] == [False, False, True, True]


@pytest.mark.parametrize(
    ("environments", "added"),
    [
        ("\"sys_platform == 'linux'\"", ["sys_platform == 'win32'"]),
        (
            "\"python_version >= '3.12'\"",
            [
                "sys_platform == 'linux' and platform_machine == 'x86_64' and python_version == '3.11'",
                "sys_platform == 'win32' and platform_machine == 'AMD64' and python_version == '3.11'",
            ],
        ),
    ],
)
def test_the_environment_to_add_applied_and_uv_lock_run_as_printed_prove_the_platform(
    environments: str, added: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # before: natpkg "has no wheel for windows-x86_64" and the fix was to require a version that publishes one; the
    # locked version does, uv left its wheels out of a lock made for Linux only
    folder = _project(tmp_path / "app", '"natpkg"', environments)
    code, out, _ = run_cli(capsys, "--project", str(folder), "check")
    assert code == 1, out
    assert "no-wheel" not in out
    fixes = sorted({line.split("to fix: ", 1)[1] for line in out.splitlines() if "to fix: " in line})
    edits = [re.findall(r'"([^"]+)"', fix.split(" to [tool.uv] environments", 1)[0]) for fix in fixes]
    assert sorted(e for edit in edits for e in edit) == sorted(added)
    commands = {fix.rsplit("then run: ", 1)[1] for fix in fixes}
    assert commands == {f"uv --project {folder} lock"}
    pyproject = folder / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    listed = ", ".join([environments, *(f'"{e}"' for edit in edits for e in edit)])
    pyproject.write_text(text.replace(f"environments = [{environments}]", f"environments = [{listed}]"))
    _uv(commands.pop(), tmp_path)  # run as printed, from outside the project
    code, out, _ = run_cli(capsys, "--project", str(folder), "check")
    assert code == 0, out
    code, out, _ = run_cli(capsys, "--project", str(folder), "platforms")
    assert code == 0, out
    assert out.splitlines()[-1] == (
        "ok: every no-build tier installs from wheels on linux-x86_64, windows-x86_64 (Python 3.11, 3.12)"
    )


PYLOCK = """\
lock-version = "1.0"
created-by = "another-tool"
requires-python = ">=3.11,<3.13"
environments = ["sys_platform == 'linux'"]

[[packages]]
name = "purepkg"
version = "1.0"
wheels = [{ name = "purepkg-1.0-py3-none-any.whl", url = "https://example.invalid/purepkg-1.0-py3-none-any.whl", \
hashes = { sha256 = "0000000000000000000000000000000000000000000000000000000000000000" } }]
"""


def test_a_platform_outside_a_pylocks_own_environments_is_not_proven_either(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # before: `ok: every no-build tier installs from wheels on linux-x86_64, windows-x86_64`, exit 0; installing it
    # on Windows fails (packaging's select(): the lock's environments)
    folder = tmp_path / "app"
    folder.mkdir()
    text = PYPROJECT.format(base='"purepkg"', environments="").replace('lock = "uv.lock"', 'lock = "pylock.toml"')
    (folder / "pyproject.toml").write_text(text.replace("[tool.uv]\nenvironments = []\n\n", ""), encoding="utf-8")
    (folder / "pylock.toml").write_text(PYLOCK, encoding="utf-8")
    code, out, _ = run_cli(capsys, "--project", str(folder), "platforms")
    assert code == 1, out
    assert "windows-x86_64 (win_amd64)            not in the lock  not in the lock" in out
    code, document = cli_json(capsys, "--project", str(folder), "check")
    assert code == 1
    (finding,) = document["findings"]
    assert (finding["kind"], finding["file"]) == ("outside-environments", "pylock.toml")
    assert finding["detail"].startswith(
        'pylock.toml was resolved only for the environments its `environments` names (`sys_platform == "linux"`): '
        "windows-x86_64 (win_amd64) on Python 3.11, 3.12 is in none of them, so nothing installs there (its "
        "installer refuses it)"
    )
    assert finding["remedy"] == (
        "regenerate pylock.toml with the tool that wrote it for \"sys_platform == 'win32'\" too, or take "
        "windows-x86_64 out of [tool.tierlock].platforms"
    )


def test_install_tier_refuses_a_target_outside_a_pylocks_environments_in_the_pylocks_words(tmp_path: Path) -> None:
    """The lock's environments, now read from a pylock too, leave install-tier's refusal packaging's (its
    ``select()``): not uv.lock's, whose fix (``[tool.uv] environments``, ``uv lock``) does not apply to it."""
    import sys

    folder = tmp_path / "app"
    folder.mkdir()
    text = PYPROJECT.format(base='"purepkg"', environments="").replace('lock = "uv.lock"', 'lock = "pylock.toml"')
    (folder / "pyproject.toml").write_text(text.replace("[tool.uv]\nenvironments = []\n\n", ""), encoding="utf-8")
    (folder / "pylock.toml").write_text(PYLOCK.replace("'linux'", "'win32'"), encoding="utf-8")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    argv = [str(bin_dir() / "install-tier"), "base", "--project", str(folder), "--python", str(venv)]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "pylock.toml: " in done.stderr
    assert "nothing was installed" in done.stderr
    assert "[tool.uv]" not in done.stderr
    assert "uv lock" not in done.stderr
