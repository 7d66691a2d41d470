"""The argparse parser of the command line: every command's options, help and usage, and usage errors.

:func:`tierlock.cli.main` parses a command line here when :mod:`tierlock.quickargs` cannot be certain of
argparse's answer (help, a mistake, an abbreviation, a rarer option shape); the two read the same
declarations (:func:`tierlock.quickargs.common_options` and each command's ``add_arguments``).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import Any, NoReturn

from tierlock._version import __version__
from tierlock.errors import UsageError
from tierlock.quickargs import common_options


class Parser(argparse.ArgumentParser):
    """argparse that raises UsageError instead of exiting, so main() can return."""

    json_output = False
    """Set by main() when ``--json`` is on the command line (``--version`` then prints JSON)."""

    _writing = False
    """Whether help or usage text is being written (the terminal's width is measured only then)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}", remedy=f"see: {self.prog} --help")

    def format_help(self) -> str:
        return self._written(super().format_help)

    def format_usage(self) -> str:
        return self._written(super().format_usage)

    def _written(self, write: Callable[[], str]) -> str:
        self._writing = True
        try:
            return write()
        finally:
            self._writing = False

    def _get_formatter(self) -> argparse.HelpFormatter:
        """argparse's formatter; when no text is written (``add_argument`` builds one for each option, to check
        its metavar against its nargs) one of a fixed width, so that parsing never loads ``shutil`` to measure
        the terminal (with ``bz2``, ``lzma`` and ``zlib``: milliseconds of every command's start)."""
        if self._writing:
            return super()._get_formatter()
        formatter: Any = self.formatter_class  # argparse's own classes all take a width
        return formatter(prog=self.prog, width=80)  # type: ignore[no-any-return]


class Version(argparse.Action):
    """``--version``: ``tierlock VERSION``, or with ``--json`` the one JSON document."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest=dest, default=argparse.SUPPRESS, nargs=0, help=kwargs.get("help"))

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> NoReturn:
        if getattr(parser, "json_output", False):
            print(json.dumps({"ok": True, "version": __version__}))
        else:
            print(f"tierlock {__version__}")
        parser.exit()


def build(prog: str, modules: Mapping[str, ModuleType]) -> Parser:
    """The argument parser with a subcommand for each of *modules* (name -> command module)."""
    parser = Parser(prog=prog, description="Fast base installs and opt-in dependency tiers from exact lockfiles.")
    parser.add_argument("--version", action=Version, help="print the version and exit")
    common_options(parser, None)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name, module in modules.items():
        # `install-tier` is `tierlock install`: its usage and errors say `install-tier`.
        own_prog = prog if prog != "tierlock" and name == "install" else None
        cmd = sub.add_parser(name, help=module.HELP, description=module.HELP, prog=own_prog)
        common_options(cmd, argparse.SUPPRESS)
        module.add_arguments(cmd)
        cmd.set_defaults(_module=module)
    return parser
