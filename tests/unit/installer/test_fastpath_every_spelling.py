"""The no-op fast path finds one environment under every spelling of it, and steps aside when unsure.

``install-tier`` proves a no-op from the receipts before it loads anything: it must reach the same
receipts whether the environment was named by its folder, an interpreter, a console script, a
symlink, ``VIRTUAL_ENV`` or nothing at all (the project's ``.venv``), and leave to the full path
what it cannot name cheaply (``[tool.tierlock].venv``, a folder that is no venv). Files only: a
folder laid out like a venv (``pyvenv.cfg``, ``bin/``, one installed distribution) is all the fast
path looks at; it never runs the interpreter.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from packaging.utils import canonicalize_name

from tests.support.venvshape import armed, project
from tierlock.installer import fastpath, receiptfiles
from tierlock.installer.location import PROJECT_ENV_VAR, environment_key


@pytest.fixture
def clean(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No active venv, no project environment override (as on a developer's shell outside any venv)."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.delenv(PROJECT_ENV_VAR, raising=False)
    return monkeypatch


def noop_for(root: Path, python: str | None, *, system: bool = False) -> fastpath.NoOp:
    noop, why = fastpath.try_noop(["brain"], project_arg=str(root), python=python, system=system)
    assert noop is not None, why
    assert (noop.tiers, noop.packages, noop.files, noop.pins) == (["brain"], 1, 3, [("pkg", "1.0")])
    return noop


def test_every_spelling_of_one_venv_reaches_its_receipts(tmp_path: Path, clean: pytest.MonkeyPatch) -> None:
    root = project(tmp_path / "proj")
    venv = tmp_path / "venv"
    armed(venv, root)
    (tmp_path / "link-to-venv").symlink_to(venv)
    (tmp_path / "py").symlink_to(venv / "bin" / "python")
    (tmp_path / "py-of-link").symlink_to(tmp_path / "link-to-venv" / "bin" / "python3")
    spellings = {
        "venv": str(venv),
        "venv/": str(venv) + os.sep,
        "bin/python": str(venv / "bin" / "python"),
        "bin/python3": str(venv / "bin" / "python3"),
        "a console script": str(venv / "bin" / "install-tier"),
        "a symlink to the venv": str(tmp_path / "link-to-venv"),
        "an interpreter through that symlink": str(tmp_path / "link-to-venv" / "bin" / "python"),
        "relative to the working directory": os.path.relpath(venv / "bin" / "python"),
    }
    # A link elsewhere to its interpreter runs as the base interpreter (pyvenv.cfg is looked for beside the
    # path Python is started from): not this venv, so the full path decides (and refuses it as no venv).
    for link in ("py", "py-of-link"):
        assert fastpath.quick_target(str(tmp_path / link), system=False) is None, link
    for how, spelling in spellings.items():
        found = fastpath.quick_target(spelling, system=False)
        assert found is not None, how
        assert found[1] == environment_key(venv), how
        assert os.path.isfile(os.path.join(found[0], "pyvenv.cfg")), how
        assert environment_key(noop_for(root, spelling).prefix) == environment_key(venv), how


def test_every_spelling_of_a_tier_name_reaches_its_receipt(tmp_path: Path, clean: pytest.MonkeyPatch) -> None:
    root = project(tmp_path / "proj")
    armed(tmp_path / "venv", root, tier="my-tier")
    for spelling in ("my-tier", "My_Tier", "MY.TIER", "my__tier", "my-._tier"):
        noop, why = fastpath.try_noop([spelling], project_arg=str(root), python=str(tmp_path / "venv"), system=False)
        assert noop is not None, (spelling, why)
        assert noop.tiers == ["my-tier"]
    for name in ("_x", "-x-", "..x", "x_", "A.b-C_d"):  # as packaging normalizes them, separators at the ends too
        assert receiptfiles.canonical(name) == canonicalize_name(name)


def test_the_active_venv_is_the_target_when_no_interpreter_is_named(tmp_path: Path, clean: pytest.MonkeyPatch) -> None:
    root = project(tmp_path / "proj")
    venv = tmp_path / "venv"
    armed(venv, root)
    (tmp_path / "link-to-venv").symlink_to(venv)
    for spelling in (venv, tmp_path / "link-to-venv"):
        clean.setenv("VIRTUAL_ENV", str(spelling))
        assert fastpath.quick_target(None, system=False) == (str(spelling), environment_key(venv))
        assert noop_for(root, None).prefix == str(spelling)
    clean.chdir(tmp_path)
    clean.setenv("VIRTUAL_ENV", "venv")  # a relative VIRTUAL_ENV is made absolute
    assert fastpath.quick_target(None, system=False) == (str(venv), environment_key(venv))


def test_an_active_venv_that_is_no_venv_or_names_no_folder_sends_the_fast_path_the_full_way(
    tmp_path: Path, clean: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path / "proj")
    armed(tmp_path / "venv", root)
    (tmp_path / "venv" / "pyvenv.cfg").unlink()
    clean.setenv("VIRTUAL_ENV", str(tmp_path / "venv"))
    assert fastpath.quick_target(None, system=False) is None
    assert fastpath.try_noop(["brain"], project_arg=str(root), python=None, system=False) == (
        None,
        "the target needs inspecting",
    )
    clean.setenv("VIRTUAL_ENV", "")  # set but empty: as if unset, so the project's environment (none here)
    assert fastpath.try_noop(["brain"], project_arg=str(root), python=None, system=False) == (
        None,
        "the project environment needs locating",
    )


def test_the_running_environment_is_the_target_only_when_it_is_a_venv_or_system_is_given(
    tmp_path: Path, clean: pytest.MonkeyPatch
) -> None:
    running = (sys.prefix, environment_key(sys.prefix))
    clean.setenv("VIRTUAL_ENV", sys.prefix)  # the venv tierlock itself runs from, active
    assert sys.prefix != sys.base_prefix, "the tests run from a virtual environment"
    assert fastpath.quick_target(None, system=False) == running
    assert fastpath.quick_target(None, system=True) == running
    clean.setattr(sys, "prefix", sys.base_prefix)  # as if tierlock ran from an interpreter outside any venv
    clean.setenv("VIRTUAL_ENV", sys.base_prefix)
    assert fastpath.quick_target(None, system=False) is None
    assert fastpath.quick_target(None, system=True) == (sys.base_prefix, environment_key(sys.base_prefix))
    clean.delenv("VIRTUAL_ENV")
    assert fastpath.quick_target(None, system=False) is None
    assert fastpath.quick_target(None, system=True) == (sys.base_prefix, environment_key(sys.base_prefix))


def test_with_no_flag_and_no_active_venv_the_projects_venv_is_found(tmp_path: Path, clean: pytest.MonkeyPatch) -> None:
    root = project(tmp_path / "proj")
    armed(root / ".venv", root)
    assert environment_key(noop_for(root, None).prefix) == environment_key(root / ".venv")
    (root / "src" / "pkg").mkdir(parents=True)  # from a folder inside the project, or naming the pyproject itself
    for project_arg in (root / "src" / "pkg", root / "pyproject.toml"):
        noop, why = fastpath.try_noop(["brain"], project_arg=str(project_arg), python=None, system=False)
        assert noop is not None, why
    clean.chdir(root / "src")
    noop, why = fastpath.try_noop(["brain"], project_arg=None, python=None, system=False)
    assert noop is not None, why


def test_the_project_environment_variable_names_the_venv_with_no_flag(
    tmp_path: Path, clean: pytest.MonkeyPatch
) -> None:
    root = project(tmp_path / "proj", '\n[tool.tierlock]\nvenv = "envs/dev"\n')
    armed(tmp_path / "shared-env", root)
    clean.setenv(PROJECT_ENV_VAR, str(tmp_path / "shared-env"))  # wins over [tool.tierlock].venv
    assert environment_key(noop_for(root, None).prefix) == environment_key(tmp_path / "shared-env")
    clean.setenv(PROJECT_ENV_VAR, "../shared-env")  # relative to the project
    assert environment_key(noop_for(root, None).prefix) == environment_key(tmp_path / "shared-env")


def test_a_configured_venv_or_a_missing_one_is_left_to_the_full_path(tmp_path: Path, clean: pytest.MonkeyPatch) -> None:
    root = project(tmp_path / "proj", '\n[tool.tierlock]\nvenv = "envs/dev"\n')
    armed(root / "envs" / "dev", root)
    armed(root / ".venv", root)
    assert fastpath.try_noop(["brain"], project_arg=str(root), python=None, system=False) == (
        None,
        "the project environment needs locating",
    )
    # Named with --python, the same environment takes the fast path.
    noop_for(root, str(root / "envs" / "dev" / "bin" / "python"))

    bare = project(tmp_path / "bare")
    assert fastpath.try_noop(["brain"], project_arg=str(bare), python=None, system=False) == (
        None,
        "the project environment needs locating",
    )
    assert fastpath.try_noop(["brain"], project_arg=str(tmp_path / "no-project"), python=None, system=False) == (
        None,
        "no pyproject.toml",
    )


def test_what_is_no_venv_is_never_guessed(tmp_path: Path, clean: pytest.MonkeyPatch) -> None:
    root = project(tmp_path / "proj")
    armed(tmp_path / "venv", root)
    plain = tmp_path / "plain"
    (plain / "bin").mkdir(parents=True)
    (plain / "bin" / "python").write_text("#!/bin/sh\n", encoding="utf-8")  # an interpreter outside any venv
    for spelling in (
        tmp_path,
        plain,
        plain / "bin" / "python",
        tmp_path / "venv" / "lib",
        tmp_path / "nothing-here" / "bin" / "python",
    ):
        assert fastpath.quick_target(str(spelling), system=False) is None, spelling
        noop, why = fastpath.try_noop(["brain"], project_arg=str(root), python=str(spelling), system=False)
        assert (noop, why) == (None, "the target needs inspecting"), spelling
