"""tierlock's cache folder is an absolute folder of the user's, or none: never a folder made where a command runs.

A relative ``XDG_CACHE_HOME`` is ignored (the XDG base directory rule: "a relative path ... should be considered
invalid"), and a home folder that cannot be told (``HOME`` unset and no password entry for the user id: a
container run as ``-u 12345``, where ``~`` stays ``~``) is no cache. Before, both made a cache folder in the working
folder (``relative/tierlock``, a folder named ``~``: the project's own, which ``rm -rf ~`` would take for the home).
"""

from __future__ import annotations

import os
import pwd
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.env import clean_env
from tierlock import keptfirst


@pytest.fixture
def user(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.delenv("TIERLOCK_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_folder_is_the_users_and_an_absolute_xdg_cache_home_moves_it(
    user: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert keptfirst.folder() == str(user / "home" / ".cache" / "tierlock")
    monkeypatch.setenv("XDG_CACHE_HOME", str(user / "xdg"))
    assert keptfirst.folder() == str(user / "xdg" / "tierlock")
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", "")
    assert keptfirst.folder() is None


@pytest.mark.parametrize("relative", ["relcache", ".cache", "./x", "~nobody-here/x"])
def test_a_relative_xdg_cache_home_is_ignored(user: Path, monkeypatch: pytest.MonkeyPatch, relative: str) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", relative)
    assert keptfirst.folder() == str(user / "home" / ".cache" / "tierlock")


def test_a_home_that_cannot_be_told_is_no_cache(user: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOME")

    def nobody(uid: int) -> pwd.struct_passwd:
        raise KeyError(f"getpwuid(): uid not found: {uid}")

    monkeypatch.setattr(pwd, "getpwuid", nobody)
    assert os.path.expanduser("~") == "~"  # the case
    assert keptfirst.folder() is None
    monkeypatch.setenv("XDG_CACHE_HOME", str(user / "xdg"))  # an absolute one of the user's still counts
    assert keptfirst.folder() == str(user / "xdg" / "tierlock")


ENTRY = "import sys; sys.argv[1:] = {argv!r}; from tierlock._entry import tierlock; tierlock()"


def test_a_command_run_with_a_relative_xdg_cache_home_makes_no_folder_where_it_runs(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "1"\n\n[tool.tierlock]\n')
    env = {**clean_env(), "XDG_CACHE_HOME": "relcache", "HOME": str(tmp_path / "home")}
    env.pop("TIERLOCK_CACHE_DIR", None)
    for command in ("check", "status", "probe"):
        subprocess.run(
            [sys.executable, "-c", ENTRY.format(argv=[command])], cwd=project, env=env, capture_output=True, check=False
        )
    assert sorted(p.name for p in project.iterdir()) == ["pyproject.toml"]
    assert (tmp_path / "home" / ".cache" / "tierlock").is_dir()  # the user's cache folder instead
