"""The closure, not only the roots: every verdict covers every file the tier's locked closure installs.

A ``pandas``-like tier whose root is pure Python and whose closure holds
``python-dateutil`` (import name ``dateutil``) and ``six``, locked from real
wheels and armed with uv into a real venv:

* with ``dateutil/parser/_parser.py`` deleted (``import pandas`` would fail),
  ``probe``, ``probe --closure``, ``status`` and ``admit`` all say partial
  with the same reason, ``install-tier`` does not call it present, and the
  printed remedy, run as printed, makes it present;
* a file of the closure rewritten with the same size is seen by ``--deep``
  (``probe --deep`` and ``status --deep``: RECORD hashes), and its remedy
  (``install-tier ... --deep``) repairs it;
* ``status`` says per tier, in words, what is wrong and the one command that fixes it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.cli import cli_json
from tests.support.env import make_venv, site_packages
from tests.support.tierproject import write_lock
from tests.support.verdicts import every_verdict, offline_env, run_remedy
from tests.support.wheels import build_wheel
from tierlock.cli import main

PYPROJECT = """\
[project]
name = "app"
version = "0.1.0"
requires-python = ">=3.9"
dependencies = ["six>=1"]

[project.optional-dependencies]
pandas = ["pandaslike>=1"]

[tool.tierlock]
lock-dir = "lockfiles"

[tool.tierlock.tiers.pandas]
tests = ["tests/pandas/**"]
"""

PARSER = "dateutil/parser/_parser.py"


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    house = tmp_path_factory.mktemp("closure-wheels")
    return {
        "six": build_wheel(house, "six", "1.17.0", files={"six.py": "PY3 = True\n" * 10}),
        "python-dateutil": build_wheel(
            house,
            "python-dateutil",
            "2.9.0",
            requires=["six>=1.5"],
            files={
                "dateutil/__init__.py": "",
                "dateutil/parser/__init__.py": "from ._parser import parse\n",
                PARSER: "def parse(text):\n    return text\n",
            },
            top_level="dateutil",
        ),
        "pandaslike": build_wheel(
            house,
            "pandaslike",
            "2.2.3",
            requires=["python-dateutil>=2.8"],
            files={"pandaslike/__init__.py": "import dateutil.parser\n"},
        ),
    }


@pytest.fixture
def armed(
    tmp_path: Path, wheelhouse: dict[str, Path], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, Path, dict[str, str]]:
    """(project root, the venv's python, the offline settings) with pandas armed."""
    root = tmp_path / "app"
    root.mkdir()
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    pins = [(name, wheel.name.split("-")[1], wheel) for name, wheel in wheelhouse.items()]
    write_lock(root, "base", [p for p in pins if p[0] == "six"])
    write_lock(root, "pandas", pins)
    offline = offline_env(next(iter(wheelhouse.values())).parent, tmp_path / "uv-cache")
    for key, value in offline.items():
        monkeypatch.setenv(key, value)
    python = make_venv(tmp_path / "venv")
    code, done = cli_json(capsys, "--project", str(root), "install", "pandas", "--python", str(python))
    assert code == 0, done
    return root, python, offline


def test_a_file_missing_from_a_closure_package_is_partial_everywhere_and_the_remedy_repairs_it(
    armed: tuple[Path, Path, dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, python, offline = armed
    whole = every_verdict(capsys, root, python, "pandas")
    assert whole.states == ("present", "present", "present", "pass")
    assert whole.probe["files_checked"] == whole.closure["files_checked"]  # every file, by default

    (site_packages(python.parent.parent) / PARSER).unlink()
    broken = every_verdict(capsys, root, python, "pandas")
    assert broken.states == ("partial", "partial", "partial", "fail")
    assert broken.admit_code == 1
    assert broken.reasons == [f"file listed in RECORD is missing: {PARSER}"]
    assert broken.status["problems"] == [f"python-dateutil 2.9.0: file listed in RECORD is missing: {PARSER}"]
    remedy = broken.probe["install_command"]
    assert remedy == f"install-tier --project {root} pandas --python {python}"
    assert broken.status["remedy"] == broken.admit["probe"]["remedy"] == remedy

    fixed = run_remedy(remedy, cwd=root, env=offline)
    assert fixed.returncode == 0, fixed.stderr
    assert "repaired" in fixed.stdout
    assert every_verdict(capsys, root, python, "pandas").states == ("present", "present", "present", "pass")


def test_deep_sees_a_closure_file_rewritten_with_its_size_and_its_remedy_repairs_it(
    armed: tuple[Path, Path, dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, python, offline = armed
    six = site_packages(python.parent.parent) / "six.py"
    six.unlink()  # replaced, not edited in place: uv links installed files to its cache
    six.write_text("PY2 = True\n" * 10, encoding="utf-8")  # the same size, other bytes
    where = ("--python", str(python))
    code, probed = cli_json(capsys, "--project", str(root), "probe", "pandas", *where)
    assert (code, probed["tiers"][0]["state"]) == (0, "present")  # stat and size only
    code, deep = cli_json(capsys, "--project", str(root), "probe", "pandas", "--deep", *where)
    assert (code, deep["tiers"][0]["state"]) == (1, "partial")
    code, status = cli_json(capsys, "--project", str(root), "status", "pandas", "--deep", *where)
    assert (code, status["tiers"][0]["state"]) == (0, "partial")
    assert status["tiers"][0]["problems"] == ["six 1.17.0: file does not match its RECORD hash: six.py"]
    remedy = deep["tiers"][0]["install_command"]
    assert remedy == status["tiers"][0]["remedy"] == f"install-tier --project {root} pandas --python {python} --deep"

    fixed = run_remedy(remedy, cwd=root, env=offline)
    assert fixed.returncode == 0, fixed.stderr
    code, again = cli_json(capsys, "--project", str(root), "status", "pandas", "--deep", *where)
    assert again["tiers"][0]["state"] == "present"


def test_status_says_per_tier_in_words_what_is_wrong_and_how_to_fix_it(
    armed: tuple[Path, Path, dict[str, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, python, _offline = armed
    (site_packages(python.parent.parent) / PARSER).unlink()
    shutil.rmtree(site_packages(python.parent.parent) / "pandaslike")
    capsys.readouterr()
    assert main(["--project", str(root), "status", "--python", str(python)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("base: present") and "1 package" in line for line in lines), lines
    first = next(i for i, line in enumerate(lines) if line.startswith("pandas:"))
    assert lines[first].startswith("pandas: partial — 2 of 3 packages broken"), lines
    site = site_packages(python.parent.parent)
    assert lines[first + 1 : first + 5] == [
        "  pandaslike 2.2.3: file listed in RECORD is missing: pandaslike/__init__.py",
        f"  pandaslike 2.2.3: import root 'pandaslike' (recorded) is missing from {site}",
        f"  python-dateutil 2.9.0: file listed in RECORD is missing: {PARSER}",
        f"  to fix: install-tier --project {root} pandas --python {python}",
    ], lines
