"""Run a Markdown tutorial: write its files, run its commands, compare their output with the page.

The page's conventions:

* ``<!-- file: PATH -->`` right before a fenced block: the block is the content of PATH (written, not run);
* a ``console`` block: each ``$ COMMAND`` line runs (``cd DIR`` moves), the lines after it up to the next
  ``$`` line are what it prints (stdout and stderr as a terminal shows them); ``# exit N`` at the end of a
  command line says it exits with N (else 0);
* ``<!-- not run -->`` right before a console block: shown, never run (a command that needs the registry
  or a CI service).

Outputs are compared after :func:`normalize` (timings, versions of uv, timestamps, the scratch folder).
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

_FENCE = re.compile(r"^```(\w*)\s*$")
_FILE = re.compile(r"^<!-- file: (\S+) -->\s*$")
_EXIT = re.compile(r"\s+# exit (\d+)$")


@dataclass
class Command:
    line: int
    """0-based line of the ``$`` line in the page."""
    text: str
    exit_code: int
    expected: list[str] = field(default_factory=list)
    end: int = 0
    """0-based line after the last expected output line."""


@dataclass
class Step:
    kind: str
    """``file`` or ``commands``."""
    path: str = ""
    content: str = ""
    commands: list[Command] = field(default_factory=list)


def parse(text: str) -> list[Step]:
    lines = text.splitlines()
    steps: list[Step] = []
    i = 0
    pending_file: str | None = None
    skip = False
    while i < len(lines):
        line = lines[i]
        match = _FILE.match(line)
        if match:
            pending_file = match.group(1)
            i += 1
            continue
        if line.strip() == "<!-- not run -->":
            skip = True
            i += 1
            continue
        fence = _FENCE.match(line)
        if fence:
            lang = fence.group(1)
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            body = lines[i + 1 : j]
            if pending_file is not None:
                steps.append(Step("file", path=pending_file, content="\n".join(body) + "\n"))
            elif lang == "console" and not skip:
                steps.append(Step("commands", commands=_commands(body, i + 1)))
            pending_file = None
            skip = False
            i = j + 1
            continue
        if line.strip():
            pending_file = None
            skip = False
        i += 1
    return steps


def _commands(body: list[str], first: int) -> list[Command]:
    out: list[Command] = []
    for offset, line in enumerate(body):
        if line.startswith("$ "):
            text = line[2:]
            code = 0
            match = _EXIT.search(text)
            if match:
                code = int(match.group(1))
                text = text[: match.start()]
            out.append(Command(line=first + offset, text=text, exit_code=code, end=first + offset + 1))
        elif out:
            out[-1].expected.append(line)
            out[-1].end = first + offset + 1
    return out


def normalize(text: str, root: Path) -> str:
    text = text.replace(str(root), "…")
    text = re.sub(r"\b\d+(\.\d+)?s\b", "0.0s", text)
    text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "2026-01-01T00:00:00Z", text)
    text = re.sub(r"\buv \d+\.\d+\.\d+\b", "uv 0.0.0", text)
    text = re.sub(r"Python \d+\.\d+\.\d+", "Python 3.x", text)
    text = re.sub(r"python3\.\d+", "python3.x", text)
    text = re.sub(r"cpython-3\d+", "cpython-3xx", text)
    return "\n".join(line.rstrip() for line in text.splitlines()).strip("\n")


@dataclass
class Result:
    command: Command
    output: str
    code: int


def run(steps: list[Step], root: Path, env: Mapping[str, str]) -> list[Result]:
    """Run every step in *root* (the empty folder the tutorial starts in)."""
    cwd = root
    results: list[Result] = []
    for step in steps:
        if step.kind == "file":
            path = cwd / step.path
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(step.content, encoding="utf-8")
            continue
        for command in step.commands:
            if command.text.startswith("cd "):
                cwd = (cwd / command.text[3:].strip()).resolve()
                results.append(Result(command, "", 0))
                continue
            proc = subprocess.run(
                ["bash", "-c", command.text],
                cwd=cwd,
                env=dict(env),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                check=False,
            )
            results.append(Result(command, proc.stdout, proc.returncode))
    return results


def rewrite(text: str, results: list[Result], root: Path) -> str:
    """*text* with every command's shown output replaced by what it printed (paths under *root* as ``…``)."""
    lines = text.splitlines()
    for result in sorted(results, key=lambda r: r.command.line, reverse=True):
        command = result.command
        if normalize(result.output, root) == normalize("\n".join(command.expected), Path("/nonexistent")):
            continue  # only timings or versions differ: keep the page as it is
        shown = result.output.replace(str(root), "…").rstrip("\n")
        new = [line.rstrip() for line in shown.splitlines()] if shown else []
        lines[command.line + 1 : command.end] = new
    return "\n".join(lines) + "\n"
