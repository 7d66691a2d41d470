"""A remedy printed by a command given ``--project DIR`` names the project in each tierlock command of it.

:func:`tierlock.remedies.carried` is the one rule (every remedy leaving through the CLI's output, the plugin's
too, passes it): ``--project DIR`` right after the program word of each ``tierlock`` and ``install-tier`` command;
another program's command, a command that names a project already, and prose stay byte for byte; ``remedy_argv``
(:func:`argv_of` of what is printed) is the original argv with the option inserted.
"""

from __future__ import annotations

import io
import json
import os

from hypothesis import given
from hypothesis import strategies as st

from tierlock.errors import UsageError
from tierlock.output import UI
from tierlock.remedies import (
    argv_of,
    carried,
    carried_argv,
    carried_document,
    carried_text,
    names_project,
    shell_join,
    with_project,
)

PROGRAMS = ["tierlock", "install-tier", "uv", "python", "pip", "python3.12", "/venv/bin/python", "rm", "git"]
words = st.one_of(
    st.text(min_size=0, max_size=12), st.sampled_from(["lock", "pip", "sync", "--project", "--directory=x"])
)
commands = st.builds(lambda program, rest: [program, *rest], st.sampled_from(PROGRAMS), st.lists(words, max_size=5))
chains = st.lists(commands, min_size=1, max_size=3)
projects = st.one_of(
    st.text(min_size=1, max_size=16), st.sampled_from(["a/pyproject.toml", "pyproject.toml", "-x", "a/b", "-a/b"])
)


def _inserted(argv: list[str], project: str) -> list[str]:
    folder = (os.path.dirname(project) or ".") if os.path.basename(project) == "pyproject.toml" else project
    if (
        argv[0] == "uv"
        and argv[1:2]
        and argv[1] in {"lock", "sync", "export", "tree", "add", "remove", "run", "version"}
    ):
        if any(w.partition("=")[0] in ("--project", "--directory") for w in argv[2:]):
            return argv
        return [argv[0], *([f"--project={folder}"] if folder.startswith("-") else ["--project", folder]), *argv[1:]]
    if argv[0] not in ("tierlock", "install-tier") or names_project(argv[1:]):
        return argv
    flag = [f"--project={project}"] if project.startswith("-") else ["--project", project]
    return [argv[0], *flag, *argv[1:]]


@given(chains, projects)
def test_each_tierlock_command_of_a_remedy_gets_the_project_and_the_json_argv_says_the_same(
    chain: list[list[str]], project: str
) -> None:
    remedy = " && ".join(shell_join(argv) for argv in chain)
    assert argv_of(remedy) == chain
    out = carried(remedy, project)
    expected = [_inserted(argv, project) for argv in chain]
    assert argv_of(out) == expected
    assert carried_argv(chain, project) == expected
    others = [shell_join(argv) for argv in chain if argv[0] not in ("tierlock", "install-tier", "uv")]
    assert all(part in out for part in others)  # another program's command: byte for byte


@given(st.text(max_size=60), projects)
def test_text_that_is_no_command_is_left_byte_for_byte(text: str, project: str) -> None:
    aside = text.rfind(" (") if text.endswith(")") else -1
    if argv_of(text) is None and ": " not in text and (aside <= 0 or argv_of(text[:aside].rstrip(" ")) is None):
        assert carried(text, project) == text


@given(st.text(max_size=40), chains, projects)
def test_words_that_end_in_a_command_to_run_keep_the_words_and_carry_the_command(
    words: str, chain: list[list[str]], project: str
) -> None:
    command = " && ".join(shell_join(argv) for argv in chain)
    prose = f"{words}; then run: {command}"
    if argv_of(prose) is None:
        out = carried(prose, project)
        assert out.startswith(f"{words}; then run: ")
        assert argv_of(out.removeprefix(f"{words}; then run: ")) == [_inserted(argv, project) for argv in chain]


@given(chains)
def test_without_a_project_nothing_changes(chain: list[list[str]]) -> None:
    remedy = " && ".join(shell_join(argv) for argv in chain)
    assert carried(remedy, None) == remedy
    assert carried(remedy, "") == remedy
    line = f"  brain is absent; to fix: {remedy}"
    assert carried_text(line, None) == line


def test_a_quoted_ampersand_pair_is_a_word_not_a_chain() -> None:
    assert argv_of("tierlock --project '&&' lock brain") == [["tierlock", "--project", "&&", "lock", "brain"]]
    assert argv_of("tierlock lock brain && install-tier brain") == [
        ["tierlock", "lock", "brain"],
        ["install-tier", "brain"],
    ]


def test_a_command_naming_a_project_already_and_other_programs_keep_their_words() -> None:
    remedy = "tierlock --project a lock x && uv pip install y && install-tier --proj=b z && install-tier w"
    assert carried(remedy, "c d") == (
        "tierlock --project a lock x && uv pip install y && install-tier --proj=b z && install-tier --project 'c d' w"
    )
    assert with_project(["tierlock", "lock", "--", "--project"], "p") == [
        "tierlock",
        "--project",
        "p",
        "lock",
        "--",
        "--project",
    ]
    assert with_project(["install-tier", "base"], "-odd") == ["install-tier", "--project=-odd", "base"]
    # (argparse takes the shortest unambiguous abbreviation: ``--pr``; ``--p`` is also ``--python``'s)
    assert names_project(["--pr", "b"])
    assert not names_project(["--p", "b"])


def test_uvs_lock_finds_the_project_from_the_folder_it_is_given_and_uv_pip_stays() -> None:
    remedy = "uv lock && install-tier typing --python venv/bin/python"
    assert carried(remedy, "itsdangerous") == (
        "uv --project itsdangerous lock && install-tier --project itsdangerous typing --python venv/bin/python"
    )
    assert carried("uv lock", "a/pyproject.toml") == "uv --project a lock"
    assert carried("uv lock", "services/api") == "uv --project services/api lock"
    assert carried("uv sync", "pyproject.toml") == "uv --project . sync"
    assert carried("uv lock --directory b", "a") == "uv lock --directory b"
    assert carried("uv pip install x", "a") == "uv pip install x"
    prose = "restore that folder, or lock again against what is there: uv lock"
    assert carried(prose, "a") == "restore that folder, or lock again against what is there: uv --project a lock"


def test_a_venv_made_first_keeps_its_own_words_and_the_install_names_the_project() -> None:
    remedy = "/usr/bin/python3 -m venv --without-pip .venv && install-tier brain --python .venv/bin/python"
    assert carried(remedy, "svc") == (
        "/usr/bin/python3 -m venv --without-pip .venv && install-tier --project svc brain --python .venv/bin/python"
    )


def test_prose_with_a_command_in_it_is_left_as_it_is() -> None:
    prose = "name a declared tier, or declare it under [tool.tierlock.tiers] (tierlock init proposes them)"
    assert carried(prose, "svc") == prose
    assert carried_text(f"  to fix: {prose}", "svc") == f"  to fix: {prose}"
    later = "pin corelib; then run: tierlock lock brain (tierlock lock also records every pin's files)"
    assert carried(later, "svc") == (
        "pin corelib; then run: tierlock --project svc lock brain (tierlock lock also records every pin's files)"
    )  # the command, then words in brackets: the command named
    mixed = "pin corelib; then run: tierlock lock brain; then read the log"
    assert carried(mixed, "svc") == mixed  # words after the command that are no aside: left as they are


def test_a_command_followed_by_words_in_brackets_names_the_project_and_keeps_the_words() -> None:
    # (check's last line: run from another folder without the project, census --fix fixed another project or none)
    remedy = "tierlock census --fix  (applies every census fix above)"
    assert carried(remedy, "svc") == "tierlock --project svc census --fix  (applies every census fix above)"
    assert carried_text(f"  to fix: {remedy}", "a b") == (
        "  to fix: tierlock --project 'a b' census --fix  (applies every census fix above)"
    )
    assert carried("tierlock lock brain (x) (y)", "svc") == "tierlock lock brain (x) (y)"  # (no command before " (")
    assert carried("mark the test (line 3)", "svc") == "mark the test (line 3)"


def test_a_line_that_names_a_command_after_a_colon_names_the_project() -> None:
    # (status and probe's line of a tier kept apart: the swap it names ran from outside found no project)
    swap = (
        "  modin: declared in conflict with dask (present here): one environment holds one of them; "
        "to swap them, run: install-tier modin --python /v/bin/python --replace-armed"
    )
    assert carried_text(swap, "svc").endswith(
        "run: install-tier --project svc modin --python /v/bin/python --replace-armed"
    )
    assert carried_text("next: review the table, then run: tierlock tiers && tierlock lock", "svc") == (
        "next: review the table, then run: tierlock --project svc tiers && tierlock --project svc lock"
    )
    blocked = "fix the setup (see the log /l/setup-1.log), then run again: tierlock verify"  # (verify's blockers)
    assert carried(blocked, "svc").endswith("then run again: tierlock --project svc verify")
    plain = "tier brain: tests globs: tests/brain/** (3 files)"
    assert carried_text(plain, "svc") == plain  # (no command after its colons)
    assert carried_text("receipt: /x/receipt.json", "svc") == "receipt: /x/receipt.json"  # (no tierlock command)


def test_the_command_a_remedy_in_words_ends_with_names_the_project() -> None:
    remedy = "fix tierlock.runtime.json, then run: tierlock validate"
    assert carried(remedy, "svc") == "fix tierlock.runtime.json, then run: tierlock --project svc validate"
    assert argv_of(carried(remedy, "svc")) is None  # still words: no remedy_argv
    quoted = "edit it; then run: tierlock lock 'run: x'"
    assert carried(quoted, "svc") == "edit it; then run: tierlock --project svc lock 'run: x'"


def test_a_document_carries_every_remedy_its_argv_and_each_fix_line_in_its_text() -> None:
    row = {"remedy": "install-tier brain", "remedy_argv": [["install-tier", "brain"]]}
    probe = {"problems": ["x.txt:1: brain: stale; to fix: tierlock lock brain"], "remedy": None, "remedy_argv": None}
    document = {
        "ok": False,
        "tiers": [{**row, "install_command": "install-tier brain"}],
        "probe": probe,
        "remedies": ["tierlock lock brain", "edit pyproject.toml"],
    }
    out = carried_document(document, "svc")
    row = {"remedy": "install-tier --project svc brain", "remedy_argv": [["install-tier", "--project", "svc", "brain"]]}
    probe = {
        "problems": ["x.txt:1: brain: stale; to fix: tierlock --project svc lock brain"],
        "remedy": None,
        "remedy_argv": None,
    }
    assert out == {
        "ok": False,
        "tiers": [{**row, "install_command": "install-tier --project svc brain"}],
        "probe": probe,
        "remedies": ["tierlock --project svc lock brain", "edit pyproject.toml"],
    }
    assert carried_document(document, None) is document


def test_an_error_said_through_the_ui_of_a_command_given_a_project_names_it_in_text_and_json() -> None:
    err = UsageError("brain has no lockfile", remedy="tierlock lock brain && install-tier brain")
    stderr, stdout = io.StringIO(), io.StringIO()
    UI(json_mode=True, stdout=stdout, stderr=stderr, project="../api").error(err)
    assert (
        "  to fix: tierlock --project ../api lock brain && install-tier --project ../api brain\n" in stderr.getvalue()
    )
    error = json.loads(stdout.getvalue())["error"]
    assert error["remedy"] == "tierlock --project ../api lock brain && install-tier --project ../api brain"
    assert error["remedy_argv"] == argv_of(error["remedy"])


def test_without_a_project_the_ui_says_the_remedy_byte_for_byte() -> None:
    err = UsageError("brain has no lockfile", remedy="tierlock lock brain && install-tier brain")
    stderr, stdout = io.StringIO(), io.StringIO()
    UI(json_mode=True, stdout=stdout, stderr=stderr).error(err)
    assert stderr.getvalue() == "ERROR brain has no lockfile\n  to fix: tierlock lock brain && install-tier brain\n"
    assert json.loads(stdout.getvalue())["error"]["remedy_argv"] == [
        ["tierlock", "lock", "brain"],
        ["install-tier", "brain"],
    ]


def test_every_way_out_of_the_ui_carries_the_project_and_an_empty_one_is_none() -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    ui = UI(stdout=stdout, stderr=stderr, project="svc")
    ui.line("brain is absent; to fix: install-tier brain")
    ui.note("to fix: tierlock lock brain")
    ui.table("t", ["tier", "fix"], [["brain", "to fix: install-tier brain"]])
    ui.alert(["a: to fix: tierlock check"])
    assert "brain is absent; to fix: install-tier --project svc brain\n" in stdout.getvalue()
    assert "brain  to fix: install-tier --project svc brain" in stdout.getvalue()
    assert stderr.getvalue() == "to fix: tierlock --project svc lock brain\na: to fix: tierlock --project svc check\n"
    machine = io.StringIO()
    UI(json_mode=True, stdout=machine, project="svc").json_line({"remedy": "install-tier brain"})
    assert json.loads(machine.getvalue()) == {"remedy": "install-tier --project svc brain"}
    assert UI(project="").project is None
    same = io.StringIO()
    UI(stdout=same, stderr=same).line("to fix: install-tier brain")
    assert same.getvalue() == "to fix: install-tier brain\n"


def test_a_long_remedy_with_quoted_words_is_read_to_its_last_character() -> None:
    argv = ["install-tier", "--project", "a b", "brain", "--python", "/venvs/" + "x" * 300 + "/bin/python"]
    assert argv_of(shell_join(argv)) == [argv]
    assert argv_of(shell_join([*argv, "'quoted end'"])) == [[*argv, "'quoted end'"]]


def test_a_fix_line_names_the_project_in_what_follows_to_fix_whatever_precedes_it() -> None:
    line = "x: /venv/bin/python: to fix: install-tier brain"  # words before it that would read as a command
    assert carried_text(line, "p") == "x: /venv/bin/python: to fix: install-tier --project p brain"
    assert carried_text(f"ok\n  {line}", "p") == "ok\n  x: /venv/bin/python: to fix: install-tier --project p brain"


def test_a_tierlock_named_by_its_path_is_given_the_project_too() -> None:
    assert carried("/venv/bin/install-tier brain", "p") == "/venv/bin/install-tier --project p brain"
    assert carried("/venv/bin/python -m venv .venv", "p") == "/venv/bin/python -m venv .venv"


def _carried_by_reading_every_tail(remedy: str, project: str) -> str:
    """:func:`carried` as it was: every tail after a ``: `` read as a command (a long line read once per ``: ``)."""
    commands = argv_of(remedy)
    if commands is not None:
        return " && ".join(shell_join(with_project(argv, project)) for argv in commands)
    head = remedy[: remedy.rfind(" (")].rstrip(" ") if remedy.endswith(")") and remedy.rfind(" (") > 0 else ""
    if head and argv_of(head) is not None:  # a command, then words in brackets
        return _carried_by_reading_every_tail(head, project) + remedy[len(head) :]
    at = remedy.find(": ")
    while at >= 0:
        start = at + 2
        tail = remedy[start:]
        if argv_of(tail) is not None:
            return remedy[:start] + _carried_by_reading_every_tail(tail, project)
        aside = tail.rfind(" (") if tail.endswith(")") else -1
        head = tail[:aside].rstrip(" ") if aside > 0 else ""
        if head and argv_of(head) is not None:
            return remedy[:start] + _carried_by_reading_every_tail(head, project) + tail[len(head) :]
        at = remedy.find(": ", start)
    return remedy


pieces = st.one_of(
    st.sampled_from([": ", "then run: ", " (which locks broken first)", " && ", "'a b/tierlock'", "'x y'", " "]),
    st.sampled_from([*PROGRAMS, "lock", "brain", "fix", "pin", "mark", "(x)", "''"]),
    st.text(alphabet="ab :()'&/", max_size=5),
)


@given(st.lists(pieces, max_size=10).map("".join), projects)
def test_a_remedy_in_words_is_carried_as_when_every_tail_after_a_colon_was_read(remedy: str, project: str) -> None:
    # (only a tail whose first word names a program, or is quoted, is read as a command: the same answer)
    assert carried(remedy, project) == _carried_by_reading_every_tail(remedy, project)
