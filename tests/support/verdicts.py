"""Ask every entry point about one tier in one environment: ``probe``, ``probe --closure``, ``status``, ``admit``.

The CLI runs in-process (``tierlock.cli.main``); each answer is its ``--json``
document. :func:`run_remedy` runs a printed ``to fix:`` command exactly as
printed, in a shell in the project folder, with tierlock's console scripts
first on the ``PATH``.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import cli_json
from tests.support.env import bin_dir, clean_env


@dataclass(frozen=True)
class Verdicts:
    """What each entry point says about one tier."""

    probe: dict[str, Any]
    closure: dict[str, Any]
    status: dict[str, Any]
    admit: dict[str, Any]
    admit_code: int

    @property
    def states(self) -> tuple[str, str, str, str]:
        """(probe, probe --closure, status, admit's probe part)."""
        return (self.probe["state"], self.closure["state"], self.status["state"], self.admit["probe"]["verdict"])

    @property
    def reasons(self) -> list[str]:
        """Every reason the probe gives, roots first."""
        return [r for d in (*self.probe["roots"], *self.probe["closure"]) for r in d["reasons"]]


def every_verdict(capsys: pytest.CaptureFixture[str], root: Path, python: Path | str, tier: str) -> Verdicts:
    where = ("--python", str(python))
    code, probed = cli_json(capsys, "--project", str(root), "probe", tier, *where)
    (probe,) = probed["tiers"]
    assert code == (0 if probe["state"] == "present" else 1), probe
    _code, closure_doc = cli_json(capsys, "--project", str(root), "probe", tier, "--closure", *where)
    (closure,) = closure_doc["tiers"]
    code, stat = cli_json(capsys, "--project", str(root), "status", tier, *where)
    assert code == 0, stat
    (status,) = stat["tiers"]
    admit_code, admitted = cli_json(capsys, "--project", str(root), "admit", "--tier", tier, *where)
    return Verdicts(probe, closure, status, admitted, admit_code)


def run_remedy(command: str, *, cwd: Path, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run a printed remedy as printed (a shell command line) in *cwd*, tierlock's scripts first on PATH."""
    extra = {"PATH": f"{bin_dir()}{os.pathsep}{os.environ.get('PATH', '')}", **(env or {})}
    return subprocess.run(
        command, shell=True, cwd=cwd, env=clean_env(extra), capture_output=True, text=True, check=False
    )


def offline_env(wheels: Path, cache: Path) -> dict[str, str]:
    """The user's uv/pip configuration pointing at a local wheel folder (install-tier respects it)."""
    return {
        "UV_NO_INDEX": "1",
        "UV_FIND_LINKS": str(wheels),
        "UV_CACHE_DIR": str(cache),
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheels),
    }
