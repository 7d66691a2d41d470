"""Setup and verification commands run in the target environment, activated as ``uv run`` activates it.

Real git repositories, real virtual environments (``python -m venv``): a setup that makes the project's
``.venv`` arms every later command with it (its ``bin`` first on PATH, ``VIRTUAL_ENV`` set), and an
active ``VIRTUAL_ENV`` is the target when there is one. The receipt says which environment.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.support.env import make_venv
from tests.support.gitrepo import check, commit_all, make_repo, receipt_of, verify_json

#: Prints which interpreter ran and which environment was active.
WHERE = "import os, sys\nprint(sys.prefix)\nprint(os.environ.get('VIRTUAL_ENV'))\n"
#: A console script the setup puts into the environment's bin folder.
TOOL = """\
import pathlib
p = pathlib.Path(".venv/bin/where-tool")
p.write_text('#!/bin/sh\\necho "tool in $VIRTUAL_ENV"\\n')
p.chmod(0o755)
"""

pytestmark = pytest.mark.usefixtures("git_identity")


def _log(doc: dict[str, object], key: str) -> str:
    record = next(c for c in doc["commands"] if c["key"] == key)  # type: ignore[attr-defined]
    return Path(record["log"]["path"]).read_text(encoding="utf-8")


def test_a_setup_that_makes_the_project_environment_arms_every_later_command_with_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(
        tmp_path / "r",
        {"where.py": WHERE, "tool.py": TOOL},
        [
            {"key": "python", "command": "python", "args": ["where.py"]},
            {"key": "tool", "command": "where-tool"},
        ],
        setup=[
            {"key": "venv", "command": sys.executable, "args": ["-m", "venv", "--without-pip", ".venv"]},
            check("make-tool", "tool.py"),
        ],
    )
    (repo / ".gitignore").write_text("__pycache__/\nout/\n.venv/\n", encoding="utf-8")
    commit_all(repo, "ignore the environment")
    code, doc = verify_json(capsys, repo)
    assert code == 0, doc
    venv = str(repo / ".venv")
    assert _log(doc, "python").split("\n")[:2] == [venv, venv]
    assert _log(doc, "tool") == f"tool in {venv}\n"
    receipt = receipt_of(doc)
    assert receipt["environment"]["path"] == venv
    assert receipt["environment"]["source"] == "project"
    assert receipt["environment"]["existedAtStart"] is False
    assert [c["envActivated"] for c in receipt["commands"]] == [False, True, True, True]
    assert doc["usable"] is True


def test_the_active_virtual_environment_is_the_target_and_comes_first_on_path(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "active-env"
    make_venv(other)
    monkeypatch.setenv("VIRTUAL_ENV", str(other))
    monkeypatch.setenv("PATH", os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]))
    repo = make_repo(
        tmp_path / "r", {"where.py": WHERE}, [{"key": "python", "command": "python", "args": ["where.py"]}]
    )
    code, doc = verify_json(capsys, repo)
    assert code == 0, doc
    assert _log(doc, "python").split("\n")[:2] == [str(other), str(other)]
    environment = receipt_of(doc)["environment"]
    assert (environment["path"], environment["source"], environment["existedAtStart"]) == (
        str(other),
        "VIRTUAL_ENV",
        True,
    )


def test_without_any_environment_commands_run_with_the_inherited_path_and_the_receipt_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"where.py": WHERE}, [check("python", "where.py")])
    code, doc = verify_json(capsys, repo)
    assert code == 0
    environment = receipt_of(doc)["environment"]
    assert (environment["path"], environment["existedAtStart"], environment["activated"]) == (
        str(repo / ".venv"),
        False,
        False,
    )
    assert _log(doc, "python").split("\n")[1] == "None"
