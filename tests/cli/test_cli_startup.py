"""``tierlock --version`` answers before anything else is imported, with the same words as the full CLI.

The console script's ``--version`` (alone or with ``--json``) is printed by :mod:`tierlock._entry` itself:
``python -X importtime`` shows no module of tierlock but the entry point and the version, and none of
argparse, json, re, dataclasses or typing. Any other argument goes through the full parser.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support.env import clean_env
from tests.support.importtime import loaded
from tierlock.cli import main

ENTRY = "import sys; sys.argv[1:] = {argv!r}; from tierlock._entry import tierlock; tierlock()"


def _run(argv: list[str], *, importtime: bool = False) -> subprocess.CompletedProcess[str]:
    options = ["-X", "importtime"] if importtime else []
    return subprocess.run(
        [sys.executable, *options, "-c", ENTRY.format(argv=argv)],
        check=False,
        capture_output=True,
        text=True,
        env=clean_env(),
    )


@pytest.mark.parametrize("argv", [["--version"], ["--version", "--json"], ["--json", "--version"]])
def test_version_says_what_the_full_cli_says(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    fast = _run(argv)
    with pytest.raises(SystemExit) as ended:
        main(argv)
    assert ended.value.code == 0
    assert (fast.returncode, fast.stdout, fast.stderr) == (0, capsys.readouterr().out, "")


@pytest.mark.parametrize("argv", [["--version"], ["--version", "--json"]])
def test_version_imports_nothing_but_the_entry_point_and_the_version(argv: list[str]) -> None:
    proc = _run(argv, importtime=True)
    assert proc.returncode == 0, proc.stderr
    modules = loaded(proc.stderr)
    ours = {m for m in modules if m.startswith("tierlock")}
    # exitcodes is the named exit codes alone (it imports nothing)
    assert ours == {"tierlock", "tierlock._entry", "tierlock._version", "tierlock._lazy", "tierlock.exitcodes"}
    assert modules.isdisjoint({"argparse", "json", "re", "dataclasses", "typing", "packaging", "rich"})


def test_version_with_another_option_goes_through_the_full_parser() -> None:
    proc = _run(["--version", "--quiet"], importtime=True)
    assert proc.returncode == 0
    assert proc.stdout.startswith("tierlock ")
    assert "argparse" in proc.stderr


def test_the_full_help_loads_neither_dataclasses_nor_inspect() -> None:
    """The errors and the command context are plain classes: ``dataclasses`` (which loads ``inspect``) is
    left to the commands whose models need it."""
    proc = _run(["--help"], importtime=True)
    assert proc.returncode == 0, proc.stderr
    modules = loaded(proc.stderr)
    assert "  install " in proc.stdout  # every command built (importlib's imports are not in the list)
    assert {"tierlock.cli", "tierlock.errors", "tierlock.output", "tierlock.indexopts"} <= modules
    assert modules.isdisjoint({"dataclasses", "inspect"}), sorted(modules & {"dataclasses", "inspect"})
