"""A failed install from the project's tree: the remedy names ``--no-install-project`` only when the project itself
is what failed, and a failure of another package of the tree (which that flag does not skip) keeps its own reason
and names no command.

The backend is a stand-in at the process boundary: a real ``python -c`` that fails when one of the packages
it is asked to install is one of the broken ones (as uv or pip fail a build), and logs every call.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, cast

import pytest

from tierlock.errors import BackendError
from tierlock.installer import projecttree
from tierlock.installer.projecttree import LocalStep
from tierlock.lockfiles.locks import LocalPackage

AGAIN = "install-tier brain --python /v/bin/python"
FAIL = "import sys; bad = set(sys.argv[1].split(',')); sys.exit(3 if bad & set(sys.argv[2:]) else 0)"


class Backend:
    """Installs nothing; fails when asked for any of *broken*; records the names of each call."""

    name = "uv"

    def __init__(self, broken: tuple[str, ...]) -> None:
        self.broken = broken
        self.calls: list[list[str]] = []

    def local_argv(self, target: Any, folders: list[tuple[Path, bool, str]], options: list[str]) -> list[str]:
        del target, options
        names = [name for _folder, _editable, name in folders]
        self.calls.append(names)
        return [sys.executable, "-c", FAIL, ",".join(self.broken), *names]


class Target:
    prefix = Path("/v")


def _steps(*names: str, satisfied: tuple[str, ...] = ()) -> list[LocalStep]:
    out = []
    for name in names:
        package = LocalPackage(name, "1.0", Path("/p") / name, True)  # type: ignore[arg-type]
        out.append(LocalStep(package, "satisfied" if name in satisfied else "install", "not installed"))
    return out


def _arm(steps: list[LocalStep], backend: Backend, again: str | None = AGAIN) -> None:
    projecttree.arm(steps, cast(Any, backend), cast(Any, Target()), (), again=again, project="app")


def test_the_project_that_fails_alone_gets_the_command_without_it() -> None:
    backend = Backend(("app",))
    with pytest.raises(BackendError) as caught:
        _arm(_steps("app"), backend)
    assert caught.value.remedy == f"{AGAIN} --no-install-project"
    assert "the tier's own packages are installed, the project app itself is not: once its build is fixed" in (
        caught.value.message
    )
    assert f"{AGAIN} installs it; until then arm the tier without it" in caught.value.message
    assert backend.calls == [["app"]]


def test_the_project_that_fails_beside_a_member_is_found_by_installing_the_member_alone() -> None:
    backend = Backend(("app",))
    with pytest.raises(BackendError) as caught:
        _arm(_steps("app", "member"), backend)
    assert caught.value.remedy == f"{AGAIN} --no-install-project"
    assert backend.calls == [["app", "member"], ["member"]]  # the member alone installs: the project failed


def test_a_member_that_fails_beside_the_project_keeps_its_own_failure_and_no_command() -> None:
    backend = Backend(("member",))
    with pytest.raises(BackendError) as caught:
        _arm(_steps("app", "member"), backend)
    assert caught.value.remedy is not None
    assert "--no-install-project" not in caught.value.remedy
    assert caught.value.to_dict()["remedy_argv"] is None
    assert "install of member from the project tree" in caught.value.message
    assert backend.calls == [["app", "member"], ["member"]]


def test_a_member_that_fails_alone_names_no_command() -> None:
    backend = Backend(("member",))
    with pytest.raises(BackendError) as caught:
        _arm(_steps("member", "app", satisfied=("app",)), backend)
    assert caught.value.to_dict()["remedy_argv"] is None
    assert "the project app itself is not" not in caught.value.message
    assert backend.calls == [["member"]]


def test_without_the_failed_command_nothing_is_named() -> None:
    backend = Backend(("app",))
    with pytest.raises(BackendError) as caught:
        _arm(_steps("app", "member"), backend, again=None)
    assert caught.value.to_dict()["remedy_argv"] is None
    assert backend.calls == [["app", "member"]]


def test_an_install_that_succeeds_or_has_nothing_to_do_raises_nothing() -> None:
    backend = Backend(())
    _arm(_steps("app", "member"), backend)
    _arm(_steps("app", satisfied=("app",)), backend)
    assert backend.calls == [["app", "member"]]


def test_the_command_without_the_project_names_the_flag_once() -> None:
    from tierlock.installer.treerefusal import without_project

    assert without_project(AGAIN) == f"{AGAIN} --no-install-project"
    assert without_project(f"{AGAIN} --no-install-project") == f"{AGAIN} --no-install-project"
