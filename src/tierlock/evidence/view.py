"""What a person sees while ``tierlock verify`` runs.

On an interactive terminal (not CI) a live line shows the running command
and its elapsed time (rich, imported here only); elsewhere one plain line
per command. With ``--json`` nothing is shown until the one JSON line.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Mapping
from typing import IO, Any, Protocol

from tierlock.evidence.answer import printable
from tierlock.evidence.steps import Step


def shown(step: Step) -> str:
    """The command line of *step* as a person would type it (never its env values)."""
    from tierlock.validators.credentials import redact

    line = shlex.join(step.argv)
    if step.cwd not in ("", "."):
        line = f"(cd {shlex.quote(step.cwd)} && {line})"
    return redact(printable(line))


def verdict(record: Mapping[str, Any]) -> str:
    status = str(record["status"])
    if status == "passed":
        return "ok"
    if status == "failed":
        return f"FAILED (exit {record['exitCode']})" if record["exitCode"] is not None else "FAILED"
    return status.upper()


class View(Protocol):
    def started(self, step: Step) -> None: ...
    def tick(self, step: Step, elapsed: float) -> None: ...
    def finished(self, step: Step, record: Mapping[str, Any]) -> None: ...
    def line(self, text: str, style: str | None = None) -> None: ...
    def close(self) -> None: ...


class Silent:
    """--json: nothing until the JSON line."""

    def started(self, step: Step) -> None:
        pass

    def tick(self, step: Step, elapsed: float) -> None:
        pass

    def finished(self, step: Step, record: Mapping[str, Any]) -> None:
        pass

    def line(self, text: str, style: str | None = None) -> None:
        pass

    def close(self) -> None:
        pass


class Plain:
    """One line when a command starts, one when it ends; for logs and CI."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream = stream or sys.stdout

    def _print(self, text: str) -> None:
        print(text, file=self.stream, flush=True)

    def started(self, step: Step) -> None:
        self._print(f"{step.list} {step.name}: {shown(step)}")

    def tick(self, step: Step, elapsed: float) -> None:
        pass

    def finished(self, step: Step, record: Mapping[str, Any]) -> None:
        self._print(f"{step.list} {step.name}: {verdict(record)} in {record['durationSeconds']:.2f} s")

    def line(self, text: str, style: str | None = None) -> None:
        self._print(text)

    def close(self) -> None:
        pass


class Live:
    """A live line on a terminal: the running command and its elapsed time."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        from rich.console import Console
        from rich.live import Live as RichLive

        self.console = Console(file=stream or sys.stdout, highlight=False)
        self.live = RichLive(console=self.console, refresh_per_second=8, transient=True)
        self.live.start()

    def started(self, step: Step) -> None:
        self.tick(step, 0.0)

    def tick(self, step: Step, elapsed: float) -> None:
        from rich.text import Text

        self.live.update(Text(f"{step.list} {step.name}: {shown(step)}  {elapsed:.1f} s", style="bold"))

    def finished(self, step: Step, record: Mapping[str, Any]) -> None:
        from rich.text import Text

        style = "green" if record["status"] == "passed" else "bold red"
        text = Text(f"{step.list} {step.name}: ")
        text.append(verdict(record), style=style)
        text.append(f" in {record['durationSeconds']:.2f} s  {shown(step)}", style="dim")
        self.console.print(text)
        self.live.update(Text(""))

    def line(self, text: str, style: str | None = None) -> None:
        from rich.text import Text

        self.console.print(Text(text, style=style or ""))

    def close(self) -> None:
        self.live.stop()


def make(*, json_mode: bool, fancy: bool, quiet: bool, stream: IO[str] | None = None) -> View:
    if json_mode or quiet:
        return Silent()
    return Live(stream) if fancy else Plain(stream)
