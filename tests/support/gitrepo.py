"""Real git repositories in tmp_path with a runtime config of small Python scripts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import one_json_line

#: A fixed identity, so commits work on any machine (and in remedies run by a shell).
IDENTITY = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", "-C", str(repo), *args],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **IDENTITY},
    )
    return proc.stdout


def check(key: str, script: str, *args: str, **extra: Any) -> dict[str, Any]:
    """A verification entry that runs ``python SCRIPT ARGS`` with this interpreter."""
    return {"key": key, "command": sys.executable, "args": [script, *args], **extra}


def write_config(repo: Path, verification: list[dict[str, Any]], setup: list[dict[str, Any]] | None = None) -> None:
    document: dict[str, Any] = {"schemaVersion": 1, "verification": verification}
    if setup is not None:
        document["setup"] = setup
    (repo / "tierlock.runtime.json").write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")


def make_repo(
    folder: Path,
    scripts: Mapping[str, str],
    verification: list[dict[str, Any]],
    setup: list[dict[str, Any]] | None = None,
    *,
    commit: bool = True,
) -> Path:
    """A git repository holding *scripts*, a runtime config and a ``.gitignore``, committed."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in scripts.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    write_config(folder, verification, setup)
    (folder / ".gitignore").write_text("__pycache__/\nout/\n", encoding="utf-8")
    git(folder, "init", "-q", "-b", "main")
    if commit:
        git(folder, "add", "-A")
        git(folder, "commit", "-q", "-m", "first")
    return folder


def commit_all(repo: Path, message: str = "change") -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def verify_json(capsys: pytest.CaptureFixture[str], repo: Path, *args: str) -> tuple[int, dict[str, Any]]:
    """``tierlock --project REPO verify --json ARGS`` in-process: (exit code, its one JSON line)."""
    return one_json_line(capsys, "--project", str(repo), "verify", "--json", "--kill-grace", "0.5", *args)


def verified_json(capsys: pytest.CaptureFixture[str], repo: Path, *args: str) -> tuple[int, dict[str, Any]]:
    """``tierlock --project REPO verified --json ARGS`` in-process: (exit code, its one JSON line)."""
    return one_json_line(capsys, "--project", str(repo), "verified", "--json", *args)


def receipt_of(document: Mapping[str, Any]) -> dict[str, Any]:
    """The receipt a ``verify --json`` line names."""
    loaded: dict[str, Any] = json.loads(Path(document["receipt"]).read_text(encoding="utf-8"))
    return loaded
