"""The command line: a parser factory, ``main(argv)``, and the one place where
errors become messages and exit codes.

Each command lives in ``tierlock.commands.<name>`` and provides ``HELP``,
``add_arguments(parser)`` and ``run(args, ctx) -> int`` (and ``PLAIN = True``
for a fast path whose output stays plain even on a terminal); its module
imports only what parsing needs, so ``tierlock probe`` or ``check`` never load rich.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, NoReturn

from tierlock._version import __version__
from tierlock.errors import EXIT_BACKEND, EXIT_OK, EXIT_USAGE, TierlockError, UsageError
from tierlock.output import UI

if TYPE_CHECKING:
    from tierlock.tiers import Project

COMMANDS = (
    "tiers",
    "init",
    "install",
    "status",
    "remove",
    "probe",
    "admit",
    "lock",
    "check",
    "platforms",
    "validate",
    "schema",
    "setup-command",
    "export",
    "matrix",
    "completion",
    "census",
    "verify",
    "verified",
)


class _Parser(argparse.ArgumentParser):
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


class Context:
    """What a command gets besides its arguments (a plain class: ``dataclasses`` would load ``inspect``)."""

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __init__(
        self,
        ui: UI,
        project_arg: str | None,
        _project: Project | None = None,
        argv: tuple[str, ...] = (),
        prog: str = "tierlock",
    ) -> None:
        self.ui = ui
        self.project_arg = project_arg
        self._project = _project
        self.argv = argv
        """The arguments as given (after the program name): remedies rebuild corrected command lines from them."""
        self.prog = prog

    def _values(self) -> tuple[object, ...]:
        return (self.ui, self.project_arg, self._project, self.argv, self.prog)

    def __repr__(self) -> str:
        return (
            f"{type(self).__qualname__}(ui={self.ui!r}, project_arg={self.project_arg!r}, "
            f"argv={self.argv!r}, prog={self.prog!r})"
        )

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            assert isinstance(other, Context)
            return self._values() == other._values()
        return NotImplemented

    def project(self) -> Project:
        if self._project is None:
            from tierlock.tiers import load_project

            self._project = load_project(self.project_arg or ".")
        return self._project


class _Version(argparse.Action):
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


def _common(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    default = argparse.SUPPRESS if suppress else None
    parser.add_argument(
        "--project",
        metavar="DIR",
        default=default,
        help="project folder or pyproject.toml (default: nearest pyproject.toml upward)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        default=default if suppress else False,
        help="print one JSON document on stdout and nothing else there",
    )
    parser.add_argument("-q", "--quiet", action="store_true", default=default if suppress else False, help="print less")
    parser.add_argument(
        "-v", "--verbose", action="store_true", default=default if suppress else False, help="print more"
    )
    parser.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default=default if suppress else "auto",
        help="colour output: auto (on a terminal, unless NO_COLOR is set), always, never",
    )


def command_modules() -> dict[str, ModuleType]:
    return {name: _command_module(name) for name in COMMANDS}


def _command_module(name: str) -> ModuleType:
    return importlib.import_module(f"tierlock.commands.{name.replace('-', '_')}")


def _named_command(argv: Sequence[str]) -> str | None:
    """The command *argv* runs, when that is certain before parsing (else None: build the whole parser)."""
    takes_value = False
    for token in argv:
        if takes_value:
            takes_value = False
        elif token in ("-h", "--help", "--version", "--"):
            return None
        elif _takes_value(token):
            takes_value = True
        elif not token.startswith("-"):
            return token if token in COMMANDS else None
    return None


def _takes_value(token: str) -> bool:
    """Whether *token* is a global option (or its abbreviation) whose value is the next argument."""
    return "=" not in token and len(token) > 2 and any(opt.startswith(token) for opt in ("--project", "--color"))


def _unknown_command(argv: Sequence[str], prog: str) -> UsageError | None:
    """A usage error for a mistyped command (with the corrected command line), or None."""
    takes_value = False
    for index, token in enumerate(argv):
        if takes_value:
            takes_value = False
        elif token in ("-h", "--help", "--version", "--"):
            return None
        elif token.startswith("-"):
            takes_value = _takes_value(token)
        elif token in COMMANDS:
            return None
        else:
            from tierlock.suggest import closest, corrected

            match = closest(token, COMMANDS)
            if match is None:
                return UsageError(
                    f"{prog}: unknown command {token!r}; commands: {', '.join(COMMANDS)}", remedy=f"see: {prog} --help"
                )
            return UsageError(
                f"{prog}: unknown command {token!r} (did you mean {match!r}?)",
                remedy=corrected(prog, argv, index, match),
            )
    return None


def build_parser(prog: str = "tierlock", *, only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser with every subcommand (or just the one called *only*: a faster start)."""
    parser = _Parser(prog=prog, description="Fast base installs and opt-in dependency tiers from exact lockfiles.")
    parser.add_argument("--version", action=_Version, help="print the version and exit")
    _common(parser, suppress=False)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    modules = command_modules() if only is None else {only: _command_module(only)}
    for name, module in modules.items():
        # `install-tier` is `tierlock install`: its usage and errors say `install-tier`.
        own_prog = prog if prog != "tierlock" and name == "install" else None
        cmd = sub.add_parser(name, help=module.HELP, description=module.HELP, prog=own_prog)
        _common(cmd, suppress=True)
        module.add_arguments(cmd)
        cmd.set_defaults(_module=module)
    return parser


def main(argv: Sequence[str] | None = None, *, prog: str = "tierlock") -> int:
    """Run tierlock with *argv*; return the exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    json_mode = "--json" in args_list
    ui = UI(json_mode=json_mode)
    from tierlock import interrupts

    restore = interrupts.install()  # SIGTERM ends a command as Ctrl-C does: exit 130, one message
    try:
        only = _named_command(args_list)
        if only is None and prog == "tierlock":
            unknown = _unknown_command(args_list, prog)
            if unknown is not None:
                raise unknown
        parser = build_parser(prog, only=only)
        if isinstance(parser, _Parser):
            parser.json_output = json_mode
        args = parser.parse_args(args_list)
        module = getattr(args, "_module", None)
        ui = UI(
            json_mode=args.json,
            quiet=args.quiet,
            verbose=args.verbose,
            plain=getattr(module, "PLAIN", False),
            color=args.color,
        )
        if module is None:
            parser.print_help(sys.stderr)
            if args.json:  # stdout still carries its one document
                raise UsageError(f"{prog}: no command given", remedy=f"see: {prog} --help")
            return EXIT_USAGE
        ctx = Context(ui=ui, project_arg=args.project, argv=tuple(args_list), prog=prog)
        from tierlock.fsutil import reading_once

        with reading_once():  # each lockfile (and pyproject.toml, each test file) read once per command
            code: int = module.run(args, ctx)
        return code
    except TierlockError as err:
        ui.error(err)
        return err.exit_code
    except KeyboardInterrupt:
        return _stopped(ui, prog, args_list)
    except BrokenPipeError:  # `tierlock ... | head`: the reader left; not an error of ours
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except Exception as exc:  # a bug in tierlock: said as one, its traceback redacted like every other line
        return _internal_error(ui, exc)
    finally:
        restore()


def _stopped(ui: UI, prog: str, args_list: list[str]) -> int:
    """An interrupt that reached the top: said once (the command may have explained it), exit 130."""
    from tierlock import interrupts
    from tierlock.errors import EXIT_INTERRUPTED, Interrupted

    early = sys.modules.get("tierlock.earlyarm")  # an install's backend started early is running
    done = (
        "a backend that was running had a grace period to stop; the same command again repairs what is half-installed"
        if early is not None and early.current
        else "nothing more was done"
    )
    stopped = Interrupted(f"interrupted ({interrupts.name()}); {done}", remedy=interrupts.rerun(prog, args_list))
    if not ui.said_interrupted:
        ui.error(stopped)
    elif ui.json_mode and not ui.json_written:  # said once already, by the command that explained more
        ui.emit_json({"ok": False, "error": stopped.to_dict()})
    return EXIT_INTERRUPTED


def _internal_error(ui: UI, exc: Exception) -> int:
    """Report an unexpected exception (exit 3): the traceback on stderr, through the one redaction."""
    import traceback

    err = TierlockError(
        f"internal error ({type(exc).__name__}): this is a bug in tierlock, not in your project; "
        "please report it with the command line and the lines below",
        detail="".join(traceback.format_exception(exc)),
    )
    err.exit_code = EXIT_BACKEND
    err.kind = "internal"
    ui.error(err)
    return EXIT_BACKEND
