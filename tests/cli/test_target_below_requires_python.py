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
