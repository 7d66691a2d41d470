"""Terminal output: rich on a terminal, plain lines otherwise, JSON on request.

rich is imported only when output goes to an interactive terminal outside CI,
so fast paths (probe, check, no-op install) never pay for it.

Every line and every JSON string that leaves through a :class:`UI` passes
:func:`tierlock.redaction.redact` (URL credentials masked, every other
credential-shaped part ``[redacted]``), whatever it was built from: a path or a
tier name typed on the command line, a backend's output, a config's value.

A command given ``--project DIR`` is run from outside the project: every remedy that leaves through its
:class:`UI` (a ``to fix:`` line, a document's ``remedy`` and ``remedy_argv``) names that project in each
``tierlock`` and ``install-tier`` command (:func:`tierlock.remedies.carried`), so that it runs as printed from
the same folder. Without ``--project`` the output is what the command wrote.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import IO, Any

from tierlock.errors import TierlockError
from tierlock.redaction import redact, redact_json


class UI:
    """Where a command's output goes. Commands never print directly."""

    def __init__(
        self,
        *,
        json_mode: bool = False,
        quiet: bool = False,
        verbose: bool = False,
        plain: bool = False,
        stdout: IO[str] | None = None,
        stderr: IO[str] | None = None,
        color: str = "auto",
        project: str | None = None,
    ) -> None:
        """*plain*: plain lines even on a terminal (the fast paths, which never import rich).

        *project*: the ``--project`` value the command was given, as written: every remedy printed names it.

        *color*: ``auto`` (colours on a terminal outside CI, unless ``NO_COLOR`` is set), ``always``
        (rich output even when piped or in CI), ``never`` (no colour codes at all).
        """
        self.json_mode = json_mode
        self.quiet = quiet
        self.verbose = verbose
        self.stdout = stdout or sys.stdout
        self.stderr = stderr or sys.stderr
        self.color = color
        self.project = project or None
        self.no_color = color == "never" or (color == "auto" and bool(os.environ.get("NO_COLOR")))
        forced = color == "always"
        self.fancy = not plain and not json_mode and (forced or (_isatty(self.stdout) and not _in_ci()))
        self._json_written = False
        self.said_interrupted = False
        """Whether a command already told the user it was interrupted (the CLI then does not say it again)."""
        self._console: Any = None

    # -- people ---------------------------------------------------------
    def _rich(self) -> Any:
        if self._console is None:
            from rich.console import Console

            forced = self.color == "always"
            self._console = Console(
                file=self.stdout,
                highlight=False,
                no_color=self.no_color,
                force_terminal=True if forced else None,
                color_system=None if self.no_color else ("standard" if forced else "auto"),
            )
        return self._console

    def line(self, text: str = "", *, style: str | None = None) -> None:
        """A line for people (hidden by --json and -q)."""
        if self.json_mode or self.quiet:
            return
        text = self._said(text)
        if self.fancy:
            from rich.text import Text

            self._rich().print(Text(text, style=style or ""))
        else:
            print(text, file=self.stdout)

    def detail(self, text: str) -> None:
        """A line shown only with -v."""
        if self.verbose:
            self.note(text)

    def note(self, text: str) -> None:
        """A line on stderr (progress, waiting, warnings); never on stdout."""
        if text.startswith("interrupted"):
            self.said_interrupted = True
        if not self.quiet:  # one write: an interrupt between the text and its newline would glue the next line on
            self.stderr.write(self._said(text) + "\n")
            self.stderr.flush()

    def table(self, title: str, columns: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
        if self.json_mode or self.quiet:
            return
        title = self._said(title)
        rows = [[self._said(cell) for cell in row] for row in rows]
        if self.fancy:
            from rich.table import Table

            table = Table(title=title, title_justify="left")
            for col in columns:
                table.add_column(col, overflow="fold")  # wrap long paths and globs; never cut them
            for row in rows:
                table.add_row(*row)
            self._rich().print(table)
            return
        print(title, file=self.stdout)
        for line in plain_table(columns, rows, width=self._width()):
            print(line, file=self.stdout)

    def _width(self) -> int | None:
        """The width plain tables wrap to: the terminal's, or ``COLUMNS``; None (never wrap) in a pipe."""
        columns = os.environ.get("COLUMNS", "")
        if columns.isdigit() and int(columns) > 0:
            return int(columns)
        if _isatty(self.stdout):
            import shutil

            return shutil.get_terminal_size().columns
        return None

    @contextmanager
    def status(self, text: str) -> Iterator[None]:
        """Show *text* while a long step runs (a spinner on a terminal)."""
        if self.fancy and not self.quiet:
            with self._rich().status(text):
                yield
        else:
            if not self.json_mode:
                self.note(text)
            yield

    @contextmanager
    def progress(self) -> Iterator[Callable[[str], None]]:
        """A function showing each step of a long run: one spinner updated in place on a terminal, else notes."""
        if not (self.fancy and not self.quiet):
            yield self.note
            return
        status = self._rich().status("")
        started = False

        def update(text: str) -> None:
            nonlocal started
            status.update(text)
            if not started:
                from tierlock import interrupts

                with interrupts.sheltered():  # its refresh thread gets no signal: the main thread does
                    status.start()
                    started = True  # (before the block ends, where an interrupt held meanwhile lands)

        try:
            yield update
        finally:
            if started:
                status.stop()

    @property
    def json_written(self) -> bool:
        """Whether this run already wrote its JSON document."""
        return self._json_written

    # -- machines -------------------------------------------------------
    def emit_json(self, document: Any, *, one_line: bool = False) -> None:
        """Write the one JSON document of this run to stdout (*one_line*: compact, on one line)."""
        if self._json_written:
            raise RuntimeError("a command wrote two JSON documents")
        self._dump(document, one_line=one_line)

    def json_line(self, document: Any) -> None:
        """This run's document as one compact line, also after :meth:`error` said the error on stderr
        (a command that words its own failure document); redacted as every document is."""
        self._dump(document, one_line=True)

    def _dump(self, document: Any, *, one_line: bool) -> None:
        self._json_written = True
        # No credential reaches the document, whatever it was built from.
        document = json.loads(json.dumps(document, default=str))
        if self.project is not None:  # the remedies name the project given (tierlock.remedies.carried)
            from tierlock.remedies import carried_document

            document = carried_document(document, self.project)
        document = redact_json(document)
        # one write: with PYTHONUNBUFFERED (containers, CI) json.dump writes each token on its own (an arming's document
        # of 46 packages: ~1,000 system calls after the backend)
        if one_line:
            text = json.dumps(document, separators=(",", ":"))
        else:
            text = json.dumps(document, indent=2, sort_keys=False)
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def write(self, text: str) -> None:
        """Text for machines on stdout as it is (an export, a matrix, a completion script), redacted."""
        self.stdout.write("".join(redact(line) for line in text.splitlines(keepends=True)))

    def alert(self, lines: Sequence[str]) -> None:
        """Error lines on stderr, shown even with -q (a command that reports several failures itself)."""
        print("\n".join(self._said(line) for line in lines), file=self.stderr, flush=True)

    def _said(self, text: str) -> str:
        """*text* as it leaves: its remedies naming the project given (:func:`tierlock.remedies.carried_text`),
        redacted."""
        if self.project is not None:
            from tierlock.remedies import carried_text

            text = carried_text(text, self.project)
        return redact(text)

    @property
    def terminal(self) -> bool:
        """Whether stdout is an interactive terminal."""
        return _isatty(self.stdout)

    # -- errors ---------------------------------------------------------
    def error(self, err: TierlockError) -> None:
        lines = err.lines()
        for i, text in enumerate(lines):
            print(("ERROR " if i == 0 else "") + self._said(text), file=self.stderr)
        if self.json_mode and not self._json_written:
            self.emit_json({"ok": False, "error": err.to_dict()})


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def plain_table(columns: Sequence[str], rows: Sequence[Sequence[str]], *, width: int | None = None) -> list[str]:
    """Aligned plain lines; wider than *width*, the widest columns wrap onto continuation lines (pure).

    Nothing is cut: a long path or glob continues on the next line, in its column.
    """
    widths = [max(len(c), *(len(r[i]) for r in rows)) if rows else len(c) for i, c in enumerate(columns)]
    gap = 2 * (len(columns) - 1)
    if width is not None:
        floor = 8
        while sum(widths) + gap > width:
            widest = max(range(len(widths)), key=lambda i: widths[i])
            if widths[widest] <= floor:
                break
            widths[widest] -= 1
    out: list[str] = []
    for row in [list(columns), *(list(r) for r in rows)]:
        cells = [_fold(value, w) for value, w in zip(row, widths, strict=True)]
        for n in range(max(len(c) for c in cells)):
            parts = [(c[n] if n < len(c) else "").ljust(w) for c, w in zip(cells, widths, strict=True)]
            out.append("  ".join(parts).rstrip())
    return out


def _fold(value: str, width: int) -> list[str]:
    """*value* in pieces of at most *width* characters, broken after a space, ``/`` or ``,`` when one is near."""
    pieces: list[str] = []
    while len(value) > width:
        cut = max(value.rfind(sep, 0, width) for sep in (" ", "/", ","))
        cut = cut + 1 if cut >= width // 2 else width
        pieces.append(value[:cut].rstrip())
        value = value[cut:].lstrip(" ")
    pieces.append(value)
    return pieces


def _in_ci() -> bool:
    """:func:`tierlock.ci.is_ci`, loaded only for a terminal (a hook's or CI's output is not one)."""
    from tierlock.ci import is_ci

    return is_ci()
