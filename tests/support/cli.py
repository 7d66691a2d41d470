"""``tierlock`` run in-process, as the CLI tests run it: the exit code and what it printed.

One runner for every test (``main(argv)`` as pypa/build's tests call it): :func:`run_cli` for the text,
:func:`cli_json` for the one JSON document of ``--json``. ``tests/conftest.py`` binds both to ``capsys``
as the ``cli`` and ``cli_json`` fixtures.
"""

from __future__ import annotations

import json
from typing import Any

import pytest


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``tierlock ARGV`` in-process: (exit code, stdout, stderr), with what was printed before left out."""
    from tierlock.cli import main

    capsys.readouterr()
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def cli_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any]:
    """``tierlock ARGV --json`` in-process (``--json`` added when ARGV lacks it): (exit code, the one document)."""
    args = list(argv) if "--json" in argv else [*argv, "--json"]
    code, out, err = run_cli(capsys, *args)
    try:
        return code, json.loads(out)
    except json.JSONDecodeError as exc:  # pragma: no cover - shows what went wrong
        raise AssertionError(f"not one JSON document from {args}:\n{out}\n{err}") from exc


def one_json_line(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any]:
    """``tierlock ARGV`` in-process for a command that prints one JSON line: (exit code, that document)."""
    code, out, _err = run_cli(capsys, *argv)
    assert out.count("\n") == 1, out
    return code, json.loads(out)
