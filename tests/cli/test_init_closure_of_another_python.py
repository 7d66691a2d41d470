"""``tierlock init`` layers a tier on another whose roots its closure reaches, reading the closure from the metadata
installed in the project's ``.venv``. A dependency asked for by an extra under a Python or platform marker
(``cudalib; python_version < "3.11" and extra == "cuda"``) counts whatever the Python tierlock runs on: the closure
is universal (it over-approximates), and here the project's own venv, of Python 3.10, holds that dependency.

Before, the marker was evaluated with tierlock's own environment (3.11 and later, Linux) for every variable but
``extra``: the dependency fell out of the closure and ``gpu`` was proposed without ``layered-on = "cuda"``. Real
wheels written at test time, installed by the real uv into a real 3.10 venv (the test skips without it).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.cli import cli_json
from tests.support.env import bin_dir, clean_env
from tests.support.interpreters import interpreter, make_venv_with
from tests.support.wheels import build_wheel

pytestmark = pytest.mark.slow

PYPROJECT = """\
[project]
name = "app"
version = "0.1"
requires-python = ">=3.10"
dependencies = []

[project.optional-dependencies]
cuda = ["cudalib"]
gpu = ["mlpkg[{extra}]"]
"""


def _proposed(tmp_path: Path, capsys: pytest.CaptureFixture[str], requires: str, extra: str = "cuda") -> dict[str, str]:
    """The tiers init proposes (tier -> the tier it is layered on, "" for none) for a project whose 3.10 venv holds
    mlpkg, whose metadata asks for cudalib as *requires* says."""
    old = interpreter("3.10.13")
    house, root = tmp_path / "wheels", tmp_path / "app"
    build_wheel(house, "mlpkg", "1.0", requires=[requires])
    build_wheel(house, "cudalib", "1.0")
    root.mkdir()
    (root / "pyproject.toml").write_text(PYPROJECT.format(extra=extra), encoding="utf-8")
    python = make_venv_with(old.python, root / ".venv")
    argv = [str(bin_dir() / "uv"), "pip", "install", "--python", str(python), "--no-index", "--find-links", str(house)]
    subprocess.run([*argv, "--no-cache", f"mlpkg[{extra}]==1.0"], check=True, env=clean_env(), capture_output=True)
    code, doc = cli_json(capsys, "--project", str(root), "--json", "init", "--dry-run")
    assert code == 0, doc
    return {t["name"]: t["layered_on"] or "" for t in doc["tiers"]}


@pytest.mark.parametrize(
    "marker",
    [
        'python_version < "3.11" and extra == "cuda"',  # the project's Python, older than any tierlock runs on
        'extra == "cuda" and python_full_version < "3.11"',
        'sys_platform == "win32" and extra == "cuda"',  # another platform's: the closure is universal
        '(python_version < "3.11" or platform_machine == "arm64") and extra == "cuda"',
        '"cuda" == extra and implementation_name == "pypy"',
    ],
)
def test_a_dependency_of_an_extra_under_another_pythons_marker_is_in_the_closure_and_the_tier_is_layered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], marker: str
) -> None:
    assert _proposed(tmp_path, capsys, f"cudalib; {marker}") == {"cuda": "", "gpu": "cuda"}


@pytest.mark.parametrize(
    "marker",
    [
        'python_version < "3.11" and extra == "other"',  # an extra the tier does not ask for
        'extra == "other" or extra == "more"',
    ],
)
def test_a_dependency_of_an_extra_not_asked_for_stays_out_of_the_closure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], marker: str
) -> None:
    assert _proposed(tmp_path, capsys, f"cudalib; {marker}") == {"cuda": "", "gpu": ""}
