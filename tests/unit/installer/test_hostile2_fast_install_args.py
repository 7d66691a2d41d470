"""The plain ``install`` read by hand (:func:`tierlock.fastinstall.parse_install`) against the full parser.

Whatever it reads, argparse (the CLI's own parser, ``cli.build_parser``) reads the same: the same tiers, project,
interpreter, backend and flags, no other option set; anything it cannot be sure of gives None (the full parser then
decides). Hypothesis draws command lines from the words that make parsers differ: ``install`` as an option's value
and as a tier, ``--``, ``-``, abbreviations, ``=`` forms, empty values, repeated options, ``-q``/``-v``/``-qv``,
values that begin with a dash, options before the command.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tierlock.cli import build_parser
from tierlock.errors import UsageError
from tierlock.fastinstall import parse_install

WORDS = [
    "install",
    "brain",
    "base",
    "-",
    "--",
    "",
    "-1",
    "x=y",
    "--project",
    "--project=",
    "--project=install",
    "--proj",
    "--proj=p",
    "--python",
    "--python=-x",
    "--pyth",
    "--backend",
    "--backend=uv",
    "--backend=pip",
    "--backend=auto",
    "--backend=conda",
    "uv",
    "pip",
    "auto",
    "--system",
    "--sys",
    "--system=1",
    "--json",
    "--js",
    "--json=",
    "-q",
    "--quiet",
    "--qu",
    "-qq",
    "-v",
    "-qv",
    "--verbose",
    "--color",
    "--color=never",
    "--dry-run",
    "--reinstall",
    "--index-url",
    "-h",
    "--version",
    "-p",
    "-Pproject",
]

#: What the fast path's Args hold, and the argparse attribute of each.
FIELDS = {"tiers": "tiers", "project": "project", "python": "python", "system": "system", "json": "json"}


def _full(argv: list[str], prog: str) -> Any:
    """argparse's reading of *argv* (the ``tierlock`` words), or None when it refuses it."""
    parser = build_parser(prog, only="install")
    try:
        return parser.parse_args(argv)
    except (UsageError, SystemExit):
        return None


def _defaults(prog: str) -> dict[str, Any]:
    found = vars(_full(["install", "t"], prog))
    return {k: v for k, v in found.items() if k not in ("tiers", "_module")}


def _agree(argv: list[str], *, command: bool) -> None:
    prog = "tierlock" if command else "install-tier"
    words = argv if command else ["install", *argv]
    fast = parse_install(argv, command=command)
    if fast is None:
        return  # (the full parser decides)
    full = _full(words, prog)
    assert full is not None, f"{argv}: read by hand, refused by argparse"
    for mine, theirs in FIELDS.items():
        assert getattr(fast, mine) == getattr(full, theirs), (argv, mine)
    assert fast.quiet == full.quiet, argv
    assert full.verbose is False, argv
    expected = None  # the last --backend given (the hand reading takes only auto, uv, pip)
    for i, word in enumerate(argv):
        if word.startswith("--backend="):
            expected = word.partition("=")[2]
        elif word == "--backend":
            expected = argv[i + 1]
    defaults = _defaults(prog)
    assert full.backend == (expected or defaults["backend"]), argv
    skip = (*FIELDS.values(), "quiet", "verbose", "backend", "_module")
    others = {k: v for k, v in vars(full).items() if k not in skip}
    assert others == {k: v for k, v in defaults.items() if k in others}, f"{argv}: another option set"


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(WORDS), max_size=7), st.booleans())
def test_a_command_line_read_by_hand_is_what_the_full_parser_reads(argv: list[str], command: bool) -> None:
    _agree(argv, command=command)


@pytest.mark.parametrize(
    "argv",
    [
        ["--project", "install", "install", "brain"],
        ["install", "--project", "install", "brain"],
        ["install", "install", "brain"],
        ["install", "brain", "--backend", "uv", "--backend=pip"],
        ["--project", "a", "install", "brain", "--project", "b"],
        ["install", "brain", "--project="],
        ["install", "brain", "--python=-x"],
        ["install", "-", "brain"],
        ["install", "", "brain"],
        ["--json", "-q", "install", "brain", "--quiet"],
    ],
)
def test_command_lines_that_name_install_twice_or_repeat_options_agree_with_the_full_parser(argv: list[str]) -> None:
    assert parse_install(argv, command=True) is not None
    _agree(argv, command=True)


@pytest.mark.parametrize(
    "argv",
    [
        ["install", "brain", "--", "base"],
        ["install", "brain", "--proj", "p"],
        ["install", "brain", "--sys"],
        ["install", "brain", "-qv"],
        ["install", "brain", "-v"],
        ["install", "brain", "--json", "base"],
        ["--python", "x", "install", "brain"],
        ["install", "brain", "--backend", "conda"],
        ["install", "brain", "--project", "-p"],
        ["install", "brain", "--json=1"],
        ["install", "-1"],
    ],
)
def test_command_lines_the_hand_reading_cannot_be_sure_of_go_to_the_full_parser(argv: list[str]) -> None:
    assert parse_install(argv, command=True) is None


#: Options the hand reading takes, each in every shape (a word, or a word and its value).
TAKEN = [
    ["--project", "p"],
    ["--project=install"],
    ["--python", "install"],
    ["--python=py"],
    ["--backend", "pip"],
    ["--backend=uv"],
    ["--system"],
    ["--json"],
    ["-q"],
    ["--quiet"],
]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from([["--project", "install"], ["--json"], ["-q"], ["--quiet"], ["--project=q"]]), max_size=2),
    st.lists(st.sampled_from(["brain", "base", "install", "-", "x=y"]), min_size=1, max_size=3),
    st.lists(st.sampled_from(TAKEN), max_size=4),
    st.lists(st.sampled_from(TAKEN), max_size=2),
    st.booleans(),
)
def test_a_command_line_of_the_options_the_hand_reading_takes_is_read_as_the_full_parser_reads_it(
    before: list[list[str]], tiers: list[str], after: list[list[str]], first: list[list[str]], command: bool
) -> None:
    argv = [w for o in before for w in o] if command else []
    argv += ["install"] if command else []
    argv += [w for o in first for w in o] + tiers + [w for o in after for w in o]
    assert parse_install(argv, command=command) is not None, argv
    _agree(argv, command=command)
