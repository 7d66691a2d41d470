"""``tierlock verified`` from the console script without argparse or the CLI: the pre-push hook's path.

:func:`fast` reads the few options the gate has; anything else returns None and the full CLI
decides (and prints the same). :func:`run` is the whole command: judge, print, exit code.
Only the standard library.
"""

from __future__ import annotations

import os

from tierlock.evidence import answer, judge

# Not ``typing``: it imports ``re``.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO

#: Options of ``tierlock verified`` that take a value, as the fast path reads them.
_VALUED = ("--project", "--config", "--config-from", "--evidence-dir")
_FLAGS = {"--json": "--json", "-q": "-q", "--quiet": "-q", "--head": "--head"}


def fast(argv: list[str]) -> int | None:
    """``tierlock verified [options]`` without argparse or the CLI; None for anything it does not know."""
    values: dict[str, str] = {}
    flags = {"--json": False, "-q": False, "--head": False}
    command = None
    i = 0
    while i < len(argv):
        token = argv[i]
        i += 1
        name, eq, value = token.partition("=")
        if not token.startswith("-"):
            if command is not None or token != "verified":
                return None
            command = token
        elif name in _VALUED and (command is not None or name == "--project"):
            if not eq:
                if i >= len(argv) or argv[i].startswith("-"):
                    return None
                value = argv[i]
                i += 1
            if name in values:
                return None
            values[name] = value
        elif token in _FLAGS and (command is not None or token != "--head"):
            flags[_FLAGS[token]] = True
        else:
            return None
    if command is None:
        return None
    return run(
        values.get("--project"),
        values.get("--config"),
        values.get("--config-from"),
        values.get("--evidence-dir"),
        json_mode=flags["--json"],
        quiet=flags["-q"],
        head=flags["--head"],
    )


def run(
    project: str | None,
    config: str | None,
    config_from: str | None,
    evidence_dir: str | None,
    *,
    json_mode: bool,
    quiet: bool,
    head: bool = False,
    stdout: IO[str] | None = None,
) -> int:
    """The whole of ``tierlock verified``: check, print, return the exit code."""
    start = os.path.abspath(project or ".")
    if os.path.isfile(start):  # a pyproject.toml
        start = os.path.dirname(start)
    verdict = judge.check(
        start,
        config=os.path.abspath(config) if config else None,
        config_from=config_from,
        evidence_dir=os.path.abspath(evidence_dir) if evidence_dir else None,
        head=head,
        remedy=answer.verify_command(config, config_from, evidence_dir, project),
    )
    return answer.render(verdict, json_mode=json_mode, quiet=quiet, stdout=stdout)
