"""Terminal output: rich on a terminal, plain lines otherwise, JSON on request.

rich is imported only when output goes to an interactive terminal outside CI,
so fast paths (probe, check, no-op install) never pay for it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import IO, Any

from tierlock.ci import is_ci
from tierlock.errors import TierlockError
from tierlock.masking import mask_credentials, mask_json


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
    ) -> None:
        """*plain*: plain lines even on a terminal (the fast paths, which never import rich)."""
        self.json_mode = json_mode
        self.quiet = quiet
        self.verbose = verbose
        self.stdout = stdout or sys.stdout
        self.stderr = stderr or sys.stderr
        self.fancy = not plain and not json_mode and _isatty(self.stdout) and not is_ci()
        self._json_written = False
        self._console: Any = None

    # -- people ---------------------------------------------------------
    def _rich(self) -> Any:
        if self._console is None:
            from rich.console import Console

            self._console = Console(file=self.stdout, highlight=False)
        return self._console

    def line(self, text: str = "", *, style: str | None = None) -> None:
        """A line for people (hidden by --json and -q)."""
        if self.json_mode or self.quiet:
            return
        text = mask_credentials(text)
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
        if not self.quiet:
            print(mask_credentials(text), file=self.stderr, flush=True)

    def table(self, title: str, columns: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
        if self.json_mode or self.quiet:
            return
        title = mask_credentials(title)
        rows = [[mask_credentials(cell) for cell in row] for row in rows]
        if self.fancy:
            from rich.table import Table

            table = Table(title=title, title_justify="left")
            for col in columns:
                table.add_column(col)
            for row in rows:
                table.add_row(*row)
            self._rich().print(table)
            return
        widths = [max(len(c), *(len(r[i]) for r in rows)) if rows else len(c) for i, c in enumerate(columns)]
        print(title, file=self.stdout)
        print("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip(), file=self.stdout)
        for row in rows:
            print("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip(), file=self.stdout)

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

    # -- machines -------------------------------------------------------
    def emit_json(self, document: Any) -> None:
        """Write the one JSON document of this run to stdout."""
        if self._json_written:
            raise RuntimeError("a command wrote two JSON documents")
        self._json_written = True
        # Credentials in URLs never reach the document, whatever it was built from.
        document = mask_json(json.loads(json.dumps(document, default=str)))
        json.dump(document, self.stdout, indent=2, sort_keys=False)
        self.stdout.write("\n")

    # -- errors ---------------------------------------------------------
    def error(self, err: TierlockError) -> None:
        lines = err.lines()
        for i, text in enumerate(lines):
            print(("ERROR " if i == 0 else "") + mask_credentials(text), file=self.stderr)
        if self.json_mode and not self._json_written:
            self.emit_json({"ok": False, "error": err.to_dict()})


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
