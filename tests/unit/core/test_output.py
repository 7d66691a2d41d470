"""Output: rich on a terminal, plain lines in CI or when piped, one JSON document with --json."""

from __future__ import annotations

import io
import json

import pytest

from tierlock.errors import ConfigError, Problem
from tierlock.output import UI


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


ROWS = [["base", "project.dependencies"], ["brain", "extra:brain"]]


@pytest.mark.usefixtures("not_ci")
def test_terminal_outside_ci_gets_a_rich_table() -> None:
    out = FakeTerminal()
    UI(stdout=out).table("tiers", ["tier", "source"], ROWS)
    assert "┃" in out.getvalue() or "│" in out.getvalue()


def test_terminal_in_ci_gets_plain_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    out = FakeTerminal()
    UI(stdout=out).table("tiers", ["tier", "source"], ROWS)
    assert out.getvalue().splitlines() == [
        "tiers",
        "tier   source",
        "base   project.dependencies",
        "brain  extra:brain",
    ]


def test_json_mode_hides_human_lines_and_writes_one_document() -> None:
    out, err = io.StringIO(), io.StringIO()
    ui = UI(json_mode=True, stdout=out, stderr=err)
    ui.line("hello")
    ui.table("t", ["a"], [["b"]])
    ui.emit_json({"ok": True})
    assert json.loads(out.getvalue()) == {"ok": True}
    with pytest.raises(RuntimeError):
        ui.emit_json({"again": True})


def test_error_goes_to_stderr_with_problems_and_remedy() -> None:
    out, err = io.StringIO(), io.StringIO()
    UI(stdout=out, stderr=err).error(
        ConfigError("bad table", problems=[Problem("unknown key 'x'", "[tool.tierlock].x")], remedy="edit it")
    )
    assert out.getvalue() == ""
    assert err.getvalue().splitlines() == [
        "ERROR bad table",
        "  - [tool.tierlock].x: unknown key 'x'",
        "  to fix: edit it",
    ]


class Writes(io.StringIO):
    """A stream that counts its writes (unbuffered, as stdout with ``PYTHONUNBUFFERED``: each one a system call)."""

    def __init__(self) -> None:
        super().__init__()
        self.writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        return super().write(text)


@pytest.mark.parametrize("one_line", [False, True])
def test_a_json_document_is_written_in_one_piece_with_the_same_bytes(one_line: bool) -> None:
    document = {"ok": True, "packages": [{"name": f"pkg{i}", "version": "1.0", "files": i} for i in range(40)]}
    out = Writes()
    ui = UI(json_mode=True, stdout=out, stderr=io.StringIO())
    ui.json_line(document) if one_line else ui.emit_json(document)
    expected = json.dumps(document, separators=(",", ":")) if one_line else json.dumps(document, indent=2)
    assert out.getvalue() == expected + "\n"
    assert out.writes == 1


def test_plain_long_steps_are_told_as_notes_on_stderr_and_verbose_details_only_with_v() -> None:
    err = io.StringIO()
    ui = UI(stdout=io.StringIO(), stderr=err)
    with ui.status("resolving brain"):
        pass
    with ui.progress() as step:
        step("installing 3 package(s)")
    ui.detail("a detail")
    assert err.getvalue() == "resolving brain\ninstalling 3 package(s)\n"
    loud = io.StringIO()
    UI(stdout=io.StringIO(), stderr=loud, verbose=True).detail("a detail")
    assert loud.getvalue() == "a detail\n"


def test_colour_forced_on_a_pipe_writes_colour_codes_and_never_writes_none() -> None:
    forced, never = io.StringIO(), io.StringIO()
    UI(stdout=forced, color="always").line("brain", style="bold")
    UI(stdout=never, color="never").line("brain", style="bold")
    assert "\x1b[" in forced.getvalue()
    assert never.getvalue() == "brain\n"


def test_a_plain_table_wraps_to_the_width_counting_two_spaces_between_columns() -> None:
    from tierlock.output import plain_table

    row = [["w" * 10, "x" * 10, "y" * 10, "z" * 10]]
    fitted = f"{'w' * 10}  {'x' * 10}  {'y' * 10}  {'z' * 10}"  # 40 + 3 gaps of 2 = 46
    assert plain_table(["a", "b", "c", "d"], row, width=46)[1] == fitted
    assert plain_table(["a", "b", "c", "d"], row, width=45)[1] != fitted


def test_on_a_terminal_long_steps_show_one_spinner_that_is_started_and_cleared() -> None:
    out, err = io.StringIO(), io.StringIO()
    ui = UI(stdout=out, stderr=err, color="always")
    with ui.progress() as step:
        step("installing 3 package(s)")
        step("verifying")
    assert out.getvalue().startswith("\x1b[?25l")  # the spinner was started (the cursor hidden) ...
    assert "verifying" in out.getvalue()  # ... showed the last step ...
    assert out.getvalue().endswith("\x1b[2K")  # ... and was cleared at the end
    assert err.getvalue() == ""
