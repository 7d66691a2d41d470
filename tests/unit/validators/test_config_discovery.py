"""Where a project's runtime config is (``tierlock.validators.configfile``), found without the validator.

The first of ``tierlock.runtime.json``, ``tierlock.runtime.toml`` and a ``pyproject.toml`` that names
``[tool.tierlock.runtime]`` wins; a pyproject that is not valid TOML but names the table is still the
config (validating it says where it breaks); one that cannot be read is an error, never "no config".
``admit``'s runtime part is skipped when there is none and passes or fails on the validator's verdict.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tierlock.admission import runtime_part
from tierlock.errors import ConfigError
from tierlock.fsutil import FileRefused
from tierlock.tiers import load_project
from tierlock.validators.configfile import DISCOVERY, discover, has_runtime_table

_PYPROJECT = '[project]\nname = "demo"\nversion = "1"\n'


def test_the_discovery_order_is_json_then_toml_then_the_pyproject_table(tmp_path: Path) -> None:
    assert DISCOVERY == ("tierlock.runtime.json", "tierlock.runtime.toml", "pyproject.toml")
    assert discover(tmp_path) is None
    (tmp_path / "pyproject.toml").write_text(_PYPROJECT + "[tool.tierlock.runtime]\nsetup = []\n")
    assert discover(tmp_path) == tmp_path / "pyproject.toml"
    (tmp_path / "tierlock.runtime.toml").write_text("setup = []\n")
    assert discover(tmp_path) == tmp_path / "tierlock.runtime.toml"
    (tmp_path / "tierlock.runtime.json").write_text("{}\n")
    assert discover(tmp_path) == tmp_path / "tierlock.runtime.json"


def test_a_folder_or_a_dangling_link_of_a_config_name_is_found_and_refused_when_read(tmp_path: Path) -> None:
    (tmp_path / "tierlock.runtime.toml").mkdir()
    assert discover(tmp_path) == tmp_path / "tierlock.runtime.toml"
    os.symlink(tmp_path / "gone.json", tmp_path / "tierlock.runtime.json")
    assert discover(tmp_path) == tmp_path / "tierlock.runtime.json"


@pytest.mark.parametrize(
    ("text", "named"),
    [
        (_PYPROJECT, False),
        (_PYPROJECT + "[tool.tierlock]\nformat = 'pylock'\n", False),
        (_PYPROJECT + "[tool.tierlock.runtime]\n", True),
        (_PYPROJECT + "[tool.tierlock.runtime.verify]\nrun = 'x'\n", True),
        (_PYPROJECT + "[tool.other.runtime]\n", False),
        (_PYPROJECT + "[tool]\ntierlock = 3\n", False),
        (_PYPROJECT + "tool = 'text'\n", False),
        (_PYPROJECT + "[tool.tierlock.runtime\nbroken", True),  # not TOML, but it names the table
        (_PYPROJECT + "  [[ tool.tierlock.runtime.setup ]]\nbroken =", True),
        (_PYPROJECT + "[tool.tierlock.runtimes]\nbroken =", False),
        (_PYPROJECT + "# [tool.tierlock.runtime]\nbroken =", False),
        ("x = 1" + "0" * 5000 + "\n[tool.tierlock.runtime]\n", True),  # an integer too long for Python
    ],
)
def test_a_pyproject_names_the_runtime_table_or_not(tmp_path: Path, text: str, named: bool) -> None:
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(text)
    assert has_runtime_table(pyproject) is named
    assert (discover(tmp_path) == pyproject) is named


def test_a_pyproject_that_is_missing_or_not_text_holds_no_runtime_table(tmp_path: Path) -> None:
    assert has_runtime_table(tmp_path / "pyproject.toml") is False
    (tmp_path / "pyproject.toml").write_bytes(b"[tool.tierlock.runtime]\n\xff\xfe")
    assert has_runtime_table(tmp_path / "pyproject.toml") is False


def test_a_pyproject_that_cannot_be_read_is_an_error_not_no_config(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").mkdir()
    with pytest.raises((ConfigError, FileRefused)):
        has_runtime_table(tmp_path / "pyproject.toml")
    fifo = tmp_path / "fifo" / "pyproject.toml"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    with pytest.raises(FileRefused):
        discover(fifo.parent)


def test_admit_skips_the_runtime_part_without_a_config_and_judges_one_it_finds(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(_PYPROJECT)
    project = load_project(tmp_path)
    skipped = runtime_part(project)
    assert (skipped.verdict, skipped.counts, skipped.ok) == ("skipped", {"configs": 0, "commands": 0}, True)
    (tmp_path / "tierlock.runtime.json").write_text('{"setup": [{"run": 42}]}\n')
    failed = runtime_part(project)
    assert (failed.verdict, failed.ok, failed.counts["configs"]) == ("fail", False, 1)
    assert failed.problems
    assert failed.remedy == "fix tierlock.runtime.json, then run: tierlock validate"
    (tmp_path / "tierlock.runtime.json").write_text('{"schemaVersion": 1, "verification": []}\n')
    passed = runtime_part(project)
    assert (passed.verdict, passed.ok, passed.remedy, passed.problems) == ("pass", True, None, [])


def test_a_pyproject_behind_a_file_is_an_error_that_says_why(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    pyproject = tmp_path / "file" / "pyproject.toml"
    with pytest.raises(ConfigError) as caught:
        has_runtime_table(pyproject)
    assert caught.value.message == f"cannot read {pyproject}: Not a directory"
