"""An install into a target whose Python the project's ``requires-python`` excludes that fails says so, and the
fix printed makes the venv again with a Python that satisfies it, then arms it (run as printed, both backends).

Before, ``install-tier`` on a 3.8 venv of a ``>=3.9`` project ran the backend, which found no wheel for 3.8
(exit 3, its fix "run the same install-tier command again", which failed the same way), or, with a pylock, said
so with ``tierlock lock TIER`` as the fix (locking again resolves for the same Pythons: it failed again).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import cli_json
from tests.support.env import clean_env, site_packages
from tests.support.interpreters import CRYPTO_PYPROJECT, crypto_wheels, interpreter
from tests.support.tierproject import write_lock
from tests.support.verdicts import every_verdict, offline_env, run_remedy


@pytest.mark.parametrize("spelling", ["folder", "interpreter", "project environment"])
@pytest.mark.parametrize("backend", ["uv", "pip"])
def test_a_venv_of_a_python_below_requires_python_is_refused_and_the_printed_fix_makes_it_again_and_arms_it(
    backend: str,
    spelling: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    old = interpreter("3.8.18")
    here = interpreter(".".join(str(v) for v in sys.version_info[:3]))  # tierlock's Python: the one chosen
    house = tmp_path / "wheels"
    house.mkdir()
    wheels = crypto_wheels(house, here)
    root = tmp_path / "app"
    root.mkdir()
    (root / "pyproject.toml").write_text(CRYPTO_PYPROJECT.format(format=""), encoding="utf-8")
    write_lock(root, "base", [])
    write_lock(root, "crypto", [("cffi", "1.17.1", wheels["cffi"]), ("cryptography", "44.0.0", wheels["cryptography"])])
    offline = offline_env(house, tmp_path / "uv-cache")
    for key, value in offline.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    venv = root / ".venv" if spelling == "project environment" else tmp_path / "venv"
    subprocess.run(
        [str(old.python), "-m", "venv", "--without-pip", "--system-site-packages", str(venv)],
        check=True,
        env=clean_env(),
    )
    where = {"folder": [str(venv)], "interpreter": [str(venv / "bin" / "python")]}.get(spelling, [])
    python = ["--python", *where] if where else []

    code, done = cli_json(capsys, "--project", str(root), "install", "crypto", *python, "--backend", backend)
    assert code == 3, done  # the backend finds no wheel for 3.8 in the lock: it says why, with the fix
    error = done["error"]
    assert error["message"].endswith(
        f"; the target {venv} runs Python 3.8.18, which the project's requires-python '>=3.9' excludes (its locks "
        "were resolved for other Pythons)"
    )
    again = f"install-tier --project {root} crypto" + (f" --python {venv}" if where else "") + f" --backend {backend}"
    assert error["remedy"].endswith(f" -m venv --system-site-packages {venv} && {again}")

    fixed = run_remedy(error["remedy"], cwd=tmp_path, env=offline)
    assert fixed.returncode == 0, fixed.stderr
    assert (site_packages(venv) / f"_cffi_backend{here.ext_suffix}").is_file()
    whole = every_verdict(capsys, root, venv, "crypto")
    assert whole.states == ("present", "present", "present", "pass"), whole.reasons
    assert "include-system-site-packages = true" in (venv / "pyvenv.cfg").read_text(encoding="utf-8")
    code, again_done = cli_json(capsys, "--project", str(root), "install", "crypto", *python)
    assert (code, again_done["result"]) == (0, "unchanged")


def _printed(capsys: pytest.CaptureFixture[str], verb: str, root: Path, python: list[str]) -> dict[str, Any]:
    """What *verb* prints as the fix for tier crypto (its ``--json`` remedy), with why it is no plain install."""
    args = {"probe": ["probe", "crypto"], "status": ["status", "crypto"], "admit": ["admit", "--tier", "crypto"]}
    code, doc = cli_json(capsys, "--project", str(root), *args[verb], *python)
    assert code == (0 if verb == "status" else 1), doc
    if verb == "admit":
        return {"remedy": doc["probe"]["remedy"], "said": doc["probe"]["problems"]}
    (tier,) = doc["tiers"]
    return {"remedy": tier["remedy"], "said": tier.get("notes", [])}


_CASES = [
    ("3.8.18", ">=3.9", "folder"),
    ("3.10.13", ">=3.11", "interpreter"),
    ("3.8.18", ">=3.9", "project environment"),
]


@pytest.mark.parametrize("verb", ["probe", "status", "admit"])
@pytest.mark.parametrize("case", _CASES, ids=["3.8-folder", "3.10-interpreter", "3.8-project-environment"])
def test_probe_status_and_admit_on_a_venv_below_requires_python_print_the_fix_that_remakes_it_and_it_converges(
    verb: str,
    case: tuple[str, str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Before, probe, status and admit printed ``install-tier crypto --python VENV``, which the backend then
    failed (no wheel for that Python), printing the real fix only then: they print that fix first time now."""
    old_version, spec, spelling = case
    old = interpreter(old_version)
    here = interpreter(".".join(str(v) for v in sys.version_info[:3]))
    house = tmp_path / "wheels"
    house.mkdir()
    wheels = crypto_wheels(house, here)
    root = tmp_path / "app"
    root.mkdir()
    pyproject = CRYPTO_PYPROJECT.format(format="").replace('">=3.9"', f'"{spec}"')
    (root / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    write_lock(root, "base", [])
    write_lock(root, "crypto", [("cffi", "1.17.1", wheels["cffi"]), ("cryptography", "44.0.0", wheels["cryptography"])])
    offline = offline_env(house, tmp_path / "uv-cache")
    for key, value in offline.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    venv = root / ".venv" if spelling == "project environment" else tmp_path / "venv"
    subprocess.run([str(old.python), "-m", "venv", "--without-pip", str(venv)], check=True, env=clean_env())
    where = {"folder": [str(venv)], "interpreter": [str(venv / "bin" / "python")]}.get(spelling, [])
    python = ["--python", *where] if where else []

    printed = _printed(capsys, verb, root, python)
    remedy = str(printed["remedy"])
    assert f" -m venv {venv} && install-tier " in remedy, remedy
    assert not remedy.startswith("install-tier"), remedy
    assert remedy.endswith(f"crypto --python {venv}" if where else " crypto"), remedy
    why = f"runs Python {old_version}, which the project's requires-python '{spec}' excludes"
    assert verb == "status" or any(why in said for said in printed["said"]), printed

    fixed = run_remedy(remedy, cwd=tmp_path, env=offline)
    assert fixed.returncode == 0, fixed.stderr
    whole = every_verdict(capsys, root, venv, "crypto")
    assert whole.states == ("present", "present", "present", "pass"), whole.reasons
    assert _printed_after(capsys, verb, root, python) is None


def _printed_after(capsys: pytest.CaptureFixture[str], verb: str, root: Path, python: list[str]) -> object:
    """The fix *verb* prints on the rerun (None: nothing left to fix)."""
    args = {"probe": ["probe", "crypto"], "status": ["status", "crypto"], "admit": ["admit", "--tier", "crypto"]}
    code, doc = cli_json(capsys, "--project", str(root), *args[verb], *python)
    assert code == 0, doc
    return doc["probe"].get("remedy") if verb == "admit" else doc["tiers"][0]["remedy"]
