"""A command line parsed without argparse gives exactly argparse's namespace, or is left to argparse.

:mod:`tierlock.quickargs` reads each command's own declarations; for every command of the CLI and command
lines built from its options, the global options and words argparse treats specially (abbreviations,
``--name=value``, ``-qv``, ``--``, ``-h``, values that start with ``-``, a positional run split by an option),
whatever it answers is what argparse answers for the same words; the everyday command lines of the
read-only commands are answered there (no argparse loaded).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.env import clean_env
from tierlock import quickargs
from tierlock.cli import COMMANDS, _command_module, _named_command, build_parser
from tierlock.errors import UsageError

#: Words of a command line: the global options, values, tier names and what argparse treats specially.
GLOBAL = ["--project", "DIR", "--json", "-q", "--quiet", "-v", "--verbose", "--color", "always", "never", "auto"]
SPECIAL = ["-h", "--help", "--", "-", "--proj", "--js", "--json=1", "-qv", "-1", "--version", "", "rainbow", "-x y"]
WORDS = ["brain", "viz", "base", "x"]


def _options_of(command: str) -> list[str]:
    """The spellings of the options *command* declares (read from argparse's own parser), and some values."""
    parser = build_parser(only=command)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    spellings = [s for action in sub.choices[command]._actions for s in action.option_strings]
    return [*spellings, "3", "uv", "pip", "PATH"]


def _argparse(argv: list[str], command: str) -> dict[str, Any] | None:
    try:
        return vars(build_parser(only=command).parse_args(argv))
    except (UsageError, SystemExit):
        return None


def _words(command: str) -> st.SearchStrategy[list[str]]:
    pool = [*GLOBAL, *SPECIAL, *WORDS, *_options_of(command)]
    before = st.lists(st.sampled_from(GLOBAL), max_size=4)
    after = st.lists(st.sampled_from(pool), max_size=7)
    return st.builds(lambda head, tail: [*head, command, *tail], before, after)


@pytest.mark.parametrize("command", COMMANDS)
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_what_the_quick_parser_answers_is_argparse_s_answer(command: str, data: st.DataObject) -> None:
    argv = data.draw(_words(command))
    if _named_command(argv) != command:
        return
    quick = quickargs.parse(argv, command, _command_module(command))
    if quick is not None:
        assert vars(quick) == _argparse(argv, command), argv


@pytest.mark.parametrize(
    "argv",
    [
        ["check"],
        ["--project", "p", "check", "brain", "viz"],
        ["--json", "check", "--project", "q", "-q"],
        ["check", "--color", "never", "brain"],
        ["probe", "--python", "py", "--closure", "--deep", "brain"],
        ["--project", "p", "probe", "brain", "--json", "--python", "py"],
        ["status", "--python", "py", "--deep"],
        ["--project", "p", "-v", "status", "brain"],
        ["admit", "--tier", "brain", "--tier", "viz", "--python", "py"],
        ["--json", "admit"],
    ],
)
def test_the_everyday_command_lines_of_the_read_only_commands_are_parsed_without_argparse(argv: list[str]) -> None:
    command = _named_command(argv)
    assert command is not None
    quick = quickargs.parse(argv, command, _command_module(command))
    assert quick is not None
    assert vars(quick) == _argparse(argv, command)


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "--help"],
        ["check", "brain", "--json", "viz"],  # a positional run split by an option: argparse's error
        ["--proj", "p", "check"],  # an abbreviation
        ["check", "--color=never"],
        ["check", "-qv"],
        ["check", "--color", "rainbow"],
        ["probe", "--python", "-x"],
        ["probe", "--python"],
        ["check", "--", "brain"],
        ["check", "-"],
        ["admit", "brain"],  # admit takes no positional
    ],
)
def test_a_command_line_the_quick_parser_is_not_certain_of_is_left_to_argparse(argv: list[str]) -> None:
    command = _named_command(argv) or next(word for word in argv if word in COMMANDS)
    assert quickargs.parse(argv, command, _command_module(command)) is None


def test_a_bare_command_gets_the_global_options_defaults() -> None:
    quick = quickargs.parse(["check"], "check", _command_module("check"))
    assert quick is not None
    assert (quick.project, quick.json, quick.quiet, quick.verbose, quick.color) == (None, False, False, False, "auto")
    assert (quick.command, quick.tiers) == ("check", [])


def test_a_positional_with_a_list_for_its_default_is_taken_and_with_anything_else_left_to_argparse() -> None:
    taken = quickargs.spec(lambda p: p.add_argument("tiers", nargs="*", default=["base"]))
    assert taken.positional is not None
    assert taken.positional.default == ["base"]
    with pytest.raises(quickargs.Unsupported):
        quickargs.spec(lambda p: p.add_argument("tiers", nargs="*", default=("base",)))


def test_a_declaration_of_another_shape_leaves_the_command_line_to_argparse() -> None:
    for declare in (
        lambda p: p.add_argument("--runs", type=int),
        lambda p: p.add_argument("tiers", nargs="+"),
        lambda p: p.add_argument("--pick", action="store_const", const=1),
        lambda p: p.add_mutually_exclusive_group(),
        lambda p: p.add_argument("--x", default=argparse.SUPPRESS),  # argparse's own marker, not quickargs'
    ):
        with pytest.raises(quickargs.Unsupported):
            quickargs.spec(declare)


def test_the_namespace_compares_and_shows_as_argparse_s() -> None:
    one = quickargs.Namespace(project=None, json=True, tiers=["brain"])
    assert one == quickargs.Namespace(project=None, json=True, tiers=["brain"])
    assert one != quickargs.Namespace(project=None, json=False, tiers=["brain"])
    assert "json" in one
    assert "python" not in one
    assert repr(one) == repr(argparse.Namespace(project=None, json=True, tiers=["brain"]))
    with pytest.raises(AttributeError):
        _ = one.python


def test_a_full_check_parses_its_command_line_without_loading_argparse(tmp_path: Any) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "app"\nversion = "1"\n', encoding="utf-8")
    code = (
        "import sys; from tierlock.cli import main; code = main(['--project', sys.argv[1], 'check']); "
        "print(code, 'argparse' in sys.modules, 'gettext' in sys.modules)"
    )
    env = {**clean_env(), "TIERLOCK_CACHE_DIR": str(tmp_path / "cache")}
    argv = [sys.executable, "-c", code, str(tmp_path)]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    assert done.stdout.split()[-2:] == ["False", "False"], done.stdout + done.stderr
