"""The fix the probe prints for a tier not present (:func:`tierlock.probing.tierremedy.tier_remedy`): in a venv
whose Python ``requires-python`` excludes, the venv made again first (run as printed, with real venvs, in
tests/cli/test_target_below_requires_python.py); elsewhere the plain ``install-tier``."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support.targets import a_target
from tierlock import outsidepython
from tierlock.installer import creation
from tierlock.probing.tierremedy import tier_remedy
from tierlock.tiers import load_project

CHOSEN = "/opt/py/bin/python3.12"


def _project(root: Path, spec: str | None) -> object:
    root.mkdir(parents=True, exist_ok=True)
    line = f'requires-python = "{spec}"\n' if spec is not None else ""
    (root / "pyproject.toml").write_text(
        f'[project]\nname = "app"\nversion = "0.1"\n{line}dependencies = []\n\n'
        '[project.optional-dependencies]\nbrain = ["numpy"]\n\n[tool.tierlock]\nlock-dir = "lockfiles"\n\n'
        "[tool.tierlock.tiers.brain]\n",
        encoding="utf-8",
    )
    return load_project(root)


@pytest.fixture(autouse=True)
def _chosen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(creation, "choose_interpreter", lambda spec: CHOSEN)


def _remedy(project: object, target: object, **kw: object) -> tuple[str, list[str]]:
    notes: list[str] = []
    args: dict[str, object] = {"python": None, "deep": False, "locked": True, **kw}
    tier = project.tier("brain")  # type: ignore[attr-defined]
    return tier_remedy(project, tier, target, notes=notes, **args), notes  # type: ignore[arg-type]


def test_a_venv_outside_is_made_again_then_armed_naming_its_folder(tmp_path: Path) -> None:
    project = _project(tmp_path / "app", ">=3.9")
    venv = tmp_path / "venv"
    remedy, notes = _remedy(project, a_target(venv, version=(3, 8, 18)), python=str(venv / "bin" / "python3.8"))
    assert remedy == (
        f"rm -f {venv}/bin/python {venv}/bin/python3 {venv}/bin/python3.8 && {CHOSEN} -m venv {venv} && "
        f"install-tier brain --python {venv}"
    )
    assert notes == [
        f"the target {venv} runs Python 3.8.18, which the project's requires-python '>=3.9' excludes (its locks were "
        "resolved for other Pythons)"
    ]


def test_found_by_default_it_names_no_python_and_deep_and_unlocked_are_kept(tmp_path: Path) -> None:
    project = _project(tmp_path / "app", ">=3.11")
    venv = tmp_path / "venv"
    venv.mkdir()
    (venv / "pyvenv.cfg").write_text("home = /x\ninclude-system-site-packages = true\n", encoding="utf-8")
    remedy, _ = _remedy(project, a_target(venv, version=(3, 10, 13)), deep=True, locked=False)
    remake = f"rm -f {venv}/bin/python {venv}/bin/python3 {venv}/bin/python3.10 && {CHOSEN} -m venv"
    assert remedy == f"tierlock lock brain && {remake} --system-site-packages {venv} && install-tier brain --deep"


@pytest.mark.parametrize("spec", [None, ">=3.8", "not a specifier", ">=3.8.18", ">=3.8.18rc1"])
def test_inside_or_unjudged_the_plain_command_and_no_note(tmp_path: Path, spec: str | None) -> None:
    project = _project(tmp_path / "app", spec)
    venv = tmp_path / "venv"
    remedy, notes = _remedy(project, a_target(venv, version=(3, 8, 18)), python=str(venv))
    assert (remedy, notes) == (f"install-tier brain --python {venv}", [])
    assert outsidepython.outside(a_target(venv, version=(3, 8, 18)), spec) is None


def test_no_venv_or_no_python_found_the_plain_command_with_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = _project(tmp_path / "app", ">=3.99")
    system = a_target(Path(sys.base_prefix), version=(3, 8, 18))
    remedy, notes = _remedy(project, system, python="/usr/bin/python3")
    assert remedy == "install-tier brain --python /usr/bin/python3 --system"
    assert len(notes) == 1
    assert "excludes" in notes[0]
    monkeypatch.setattr(creation, "choose_interpreter", lambda spec: None)
    venv = tmp_path / "venv"
    remedy, notes = _remedy(project, a_target(venv, version=(3, 8, 18)), locked=False)
    assert remedy == "tierlock lock brain && install-tier brain"
    assert len(notes) == 1
    found = outsidepython.outside(a_target(venv, version=(3, 8, 18)), ">=3.99")
    assert found is not None
    assert (found.remake, found.prefix) == (None, str(venv))


def test_inside_the_plain_command_names_the_python_before_deep_and_a_managed_one_gets_a_venv(tmp_path: Path) -> None:
    project = _project(tmp_path / "app", ">=3.8")
    venv = tmp_path / "venv"
    remedy, _ = _remedy(project, a_target(venv, version=(3, 11, 7)), python=str(venv), deep=True)
    assert remedy == f"install-tier brain --python {venv} --deep"
    stdlib = tmp_path / "stdlib"
    stdlib.mkdir()
    (stdlib / "EXTERNALLY-MANAGED").write_text("[externally-managed]\nError = no\n", encoding="utf-8")
    managed = a_target(Path(sys.base_prefix), version=(3, 11, 7), stdlib=stdlib)
    remedy, _ = _remedy(project, managed, python="/usr/bin/python3")
    assert remedy == "/usr/bin/python3 -m venv --without-pip .venv && install-tier brain --python .venv/bin/python"
    remedy, _ = _remedy(project, managed)  # found by default: nothing to make a venv of by name
    assert remedy == "install-tier brain"
