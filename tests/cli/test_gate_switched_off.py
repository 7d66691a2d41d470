"""The pytest gate switched off - ``-p no:tierlock`` in the addopts pytest reads or in ``PYTEST_ADDOPTS``, plugin
autoloading disabled with nothing loading the plugin, ``-p no:tierlock`` in a verification command - is said by
``tierlock check`` and ``admit``: where, and the edit that turns it back on; in CI it fails closed, elsewhere it
warns.

Before, both said nothing: a CI run of ``pytest`` with the plugin off skipped the tests of a missing required tier
(``importorskip``) and went green.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tests.support.cli import cli_json, run_cli
from tests.support.plugin_project import inner_pyproject, laptop, write_files
from tests.support.tierproject import write_lock
from tierlock.pytest_plugin import EXIT_TIER_MISSING

PYPROJECT = '[project]\nname = "gq"\nversion = "0.1"\ndependencies = []\n\n[tool.tierlock]\nlock-dir = "lockfiles"\n'

#: shape -> (files written beside pyproject.toml (a pyproject.toml key: appended to it), environment, where,
#: the files and environment after the edit the remedy names).
Shape = tuple[dict[str, str], dict[str, str], str, dict[str, str], dict[str, str]]
SHAPES: dict[str, Shape] = {
    "pytest.ini": (
        {"pytest.ini": "[pytest]\ntestpaths = tests\naddopts = -ra -p no:tierlock\n"},
        {},
        "pytest.ini:3",
        {"pytest.ini": "[pytest]\ntestpaths = tests\naddopts = -ra\n"},
        {},
    ),
    ".pytest.ini attached": (
        {".pytest.ini": "[pytest]\naddopts =\n    -q\n    -pno:tierlock\n"},
        {},
        ".pytest.ini:2",
        {".pytest.ini": "[pytest]\naddopts =\n    -q\n"},
        {},
    ),
    "pyproject string": (
        {"pyproject.toml": '\n[tool.pytest.ini_options]\naddopts = "-p no:tierlock --strict-markers"\n'},
        {},
        "pyproject.toml:10",
        {"pyproject.toml": '\n[tool.pytest.ini_options]\naddopts = "--strict-markers"\n'},
        {},
    ),
    "pyproject list": (
        {"pyproject.toml": '\n[tool.pytest.ini_options]\nminversion = "8"\naddopts = ["-p", "no:tierlock"]\n'},
        {},
        "pyproject.toml:11",
        {"pyproject.toml": '\n[tool.pytest.ini_options]\nminversion = "8"\naddopts = []\n'},
        {},
    ),
    "tox.ini": (
        {"tox.ini": "[tox]\nenvlist = py\n\n[pytest]\naddopts = -p no:tierlock\n"},
        {},
        "tox.ini:5",
        {"tox.ini": "[tox]\nenvlist = py\n\n[pytest]\naddopts =\n"},
        {},
    ),
    "setup.cfg": (
        {"setup.cfg": "[metadata]\nname = gq\n\n[tool:pytest]\naddopts = -p no:tierlock\n"},
        {},
        "setup.cfg:5",
        {"setup.cfg": "[metadata]\nname = gq\n\n[tool:pytest]\naddopts =\n"},
        {},
    ),
    "PYTEST_ADDOPTS": ({}, {"PYTEST_ADDOPTS": "-x -p no:tierlock"}, "PYTEST_ADDOPTS", {}, {"PYTEST_ADDOPTS": "-x"}),
    "autoload disabled": (
        {"pytest.ini": "[pytest]\naddopts = -ra\n"},
        {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
        {"pytest.ini": "[pytest]\naddopts = -ra -p tierlock\n"},
        {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
    ),
    "autoload flag": (
        {"pytest.ini": "[pytest]\naddopts = --disable-plugin-autoload\n"},
        {},
        "pytest.ini:2",
        {"pytest.ini": "[pytest]\naddopts = --disable-plugin-autoload -p tierlock\n"},
        {},
    ),
    "verification toml": (
        {
            "tierlock.runtime.toml": 'schemaVersion = 1\n[[verification]]\nkey = "t"\n'
            'command = "pytest -p no:tierlock"\n'
        },
        {},
        "tierlock.runtime.toml: verification[0] (t)",
        {"tierlock.runtime.toml": 'schemaVersion = 1\n[[verification]]\nkey = "t"\ncommand = "pytest"\n'},
        {},
    ),
    "verification pyproject": (
        {
            "pyproject.toml": "\n[tool.tierlock.runtime]\nschemaVersion = 1\n[[tool.tierlock.runtime.verification]]\n"
            'key = "t"\ncommand = "python"\nargs = ["-m", "pytest", "-pno:tierlock"]\n'
        },
        {},
        "pyproject.toml: [tool.tierlock.runtime] verification[0] (t)",
        {
            "pyproject.toml": "\n[tool.tierlock.runtime]\nschemaVersion = 1\n[[tool.tierlock.runtime.verification]]\n"
            'key = "t"\ncommand = "python"\nargs = ["-m", "pytest"]\n'
        },
        {},
    ),
    "verification command": (
        {
            "tierlock.runtime.json": '{"schemaVersion": 1, "verification": [{"key": "unit", "command": "pytest", '
            '"args": ["-q", "-p", "no:tierlock"]}]}'
        },
        {},
        "tierlock.runtime.json: verification[0] (unit)",
        {
            "tierlock.runtime.json": '{"schemaVersion": 1, "verification": [{"key": "unit", "command": "pytest", '
            '"args": ["-q"]}]}'
        },
        {},
    ),
}


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).write_text(PYPROJECT + text if name == "pyproject.toml" else text, encoding="utf-8")


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str], env: dict[str, str]) -> Path:
    root = tmp_path / "gq"
    root.mkdir()
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    write_lock(root, "base", [])
    _write(root, files)
    for key in ("PYTEST_ADDOPTS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD", "PYTEST_PLUGINS", "CI"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return root


@pytest.mark.parametrize("shape", list(SHAPES), ids=list(SHAPES))
def test_check_and_admit_say_the_gate_is_off_where_fail_in_ci_and_the_named_edit_turns_it_on(
    shape: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    files, env, where, fixed_files, fixed_env = SHAPES[shape]
    root = _project(tmp_path, monkeypatch, files, env)

    code, laptop_doc = cli_json(capsys, "--project", str(root), "check")
    assert code == 0, laptop_doc  # a laptop: a warning
    (off,) = laptop_doc["gate_off"]
    assert off["where"] == where, off
    monkeypatch.setenv("CI", "true")
    code, ci_doc = cli_json(capsys, "--project", str(root), "check")
    assert (code, ci_doc["ok"], ci_doc["gate_off"]) == (1, False, [off])
    code, admitted = cli_json(capsys, "--project", str(root), "admit")
    assert (code, admitted["census"]["verdict"]) == (1, "fail"), admitted
    assert off["remedy"] in admitted["census"]["remedy"]

    # The edit the remedy names, made; then the command it names, run: the gate is on.
    edit, run = off["remedy"].split(", then run: ")
    assert edit.endswith(where) or edit == "add -p tierlock to addopts in pytest.ini [pytest]", edit
    _write(root, fixed_files)
    for key in env:
        monkeypatch.delenv(key, raising=False)
    for key, value in fixed_env.items():
        monkeypatch.setenv(key, value)
    command = shlex.split(run)
    assert command == ["tierlock", "--project", str(root), "check"], run
    code, again = cli_json(capsys, *command[1:])
    assert (code, again["ok"], again["gate_off"]) == (0, True, [])
    code, admitted = cli_json(capsys, "--project", str(root), "admit")
    assert admitted["census"]["verdict"] == "pass", admitted


@pytest.mark.parametrize(
    ("files", "env"),
    [
        ({"pytest.ini": "[pytest]\naddopts = -p no:tierlock -p tierlock\n"}, {}),  # the last -p wins
        (
            {"pytest.ini": "[pytest]\n", "tox.ini": "[pytest]\naddopts = -p no:tierlock\n"},
            {},
        ),  # pytest reads pytest.ini
        ({}, {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTEST_ADDOPTS": "-p tierlock"}),
        ({}, {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTEST_PLUGINS": "tierlock.pytest_plugin"}),
        ({"pytest.ini": "[pytest]\naddopts = -p no:cacheprovider\n"}, {"PYTEST_ADDOPTS": "-p no:randomly"}),
    ],
    ids=["blocked-then-loaded", "tox-not-read", "autoload-off-loaded", "autoload-off-plugins", "other-plugins"],
)
def test_a_gate_that_stays_on_is_not_reported(
    files: dict[str, str],
    env: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = _project(tmp_path, monkeypatch, files, env)
    monkeypatch.setenv("CI", "true")
    code, doc = cli_json(capsys, "--project", str(root), "check")
    assert (code, doc["gate_off"]) == (0, []), doc


SKIPPING = "import pytest\n\nbrainpkg = pytest.importorskip('brainpkg')\n\n\ndef test_model():\n    pass\n"


def test_the_gate_off_lets_a_ci_run_go_green_over_a_missing_tier_and_on_again_it_fails_closed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """What the finding is about: the same CI run, plugin off (green, the test skipped) and on (exit 6)."""
    laptop(monkeypatch)
    monkeypatch.setenv("CI", "true")
    switched_off = inner_pyproject(cacheprovider=False).replace(
        '"--strict-markers"', '"--strict-markers", "-p", "no:tierlock"'
    )
    assert "no:tierlock" in switched_off
    pytester.makefile(".toml", pyproject=switched_off)
    write_files(
        pytester.path, {"tests/brain/test_model.py": SKIPPING, "tests/test_plain.py": "def test_a():\n    pass\n"}
    )
    assert pytester.runpytest("tests").ret == 0  # green, the brain test skipped: what check now fails on
    code, doc = cli_json(capsys, "--project", str(pytester.path), "check")
    assert (code, bool(doc["gate_off"])) == (1, True), doc
    pytester.makefile(".toml", pyproject=inner_pyproject(cacheprovider=False))
    assert pytester.runpytest("tests").ret == EXIT_TIER_MISSING


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["-p"], []),  # a -p with nothing after it names no plugin
        (["-x", "-p"], []),
        (["-x", "no:tierlock"], []),  # only what follows a -p is a plugin argument
        (["-pno:tierlock", "-p", " tierlock "], ["no:tierlock", "tierlock"]),
        (["--pdb", "-p", "no:cacheprovider"], ["no:cacheprovider"]),
    ],
)
def test_the_plugin_arguments_are_read_as_pytest_reads_them(words: list[str], expected: list[str]) -> None:
    from tierlock.gateoff import plugin_args

    assert plugin_args(words) == expected


def test_quoted_words_of_pytest_addopts_are_split_as_a_shell_splits_them(tmp_path: Path) -> None:
    from tierlock.gateoff import gate_off

    (off,) = gate_off(tmp_path, {"PYTEST_ADDOPTS": "-k 'not slow' -p \"no:tierlock\""})
    assert off.where == "PYTEST_ADDOPTS"
    assert gate_off(tmp_path, {"PYTEST_ADDOPTS": "-k 'not slow' -p no:cacheprovider"}) == []


def test_check_strict_fails_a_laptop_run_where_ci_would_and_passes_once_the_gate_is_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``check --strict`` (the pre-commit hook's): the gate switched off fails outside CI too, with the edit."""
    root = _project(tmp_path, monkeypatch, {"pytest.ini": "[pytest]\naddopts = -p no:tierlock\n"}, {})
    code, out, _ = run_cli(capsys, "--project", str(root), "check")
    assert code == 0, out  # a laptop: a warning
    assert "(fails in CI)" in out
    code, out, _ = run_cli(capsys, "--project", str(root), "check", "--strict")
    assert code == 1, out
    assert "warning:" not in out
    assert "1 problem(s)" in out
    fix = f"remove -p no:tierlock from addopts in pytest.ini:2, then run: tierlock --project {root} check"
    assert f"  to fix: {fix}" in out
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")  # the edit; then the command, as printed
    assert run_cli(capsys, *shlex.split(fix.split(", then run: ")[1])[1:])[0] == 0
    code, out, _ = run_cli(capsys, "--project", str(root), "check", "--strict")
    assert code == 0, out
