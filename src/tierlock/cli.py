"""The command line: ``main(argv)``, a parser factory, and the one place where
errors become messages and exit codes.

Each command lives in ``tierlock.commands.<name>`` and provides ``HELP``,
``add_arguments(parser)`` and ``run(args, ctx) -> int`` (and ``PLAIN = True``
for a fast path whose output stays plain even on a terminal); its module
imports only what parsing needs, so ``tierlock probe`` or ``check`` never load rich.
A command line made of the exact options its command declares is parsed by
:mod:`tierlock.quickargs` (no argparse); any other by argparse (:mod:`tierlock.cliparser`).
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING

from tierlock.errors import EXIT_BACKEND, EXIT_OK, EXIT_USAGE, TierlockError, UsageError
from tierlock.output import UI

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from types import ModuleType

    from tierlock.cliparser import Parser
    from tierlock.quickargs import Namespace
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


def build_parser(prog: str = "tierlock", *, only: str | None = None) -> Parser:
    """The argument parser with every subcommand (or just the one called *only*: a faster start)."""
    from tierlock.cliparser import build

    return build(prog, command_modules() if only is None else {only: _command_module(only)})


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
        args = _parsed(args_list, prog, only, json_mode=json_mode)
        module = getattr(args, "_module", None)
        ui = UI(
            json_mode=args.json,
            quiet=args.quiet,
            verbose=args.verbose,
            plain=getattr(module, "PLAIN", False),
            color=args.color,
            project=args.project,  # every remedy printed names it: it runs from here, as printed
        )
        if module is None:
            build_parser(prog, only=only).print_help(sys.stderr)
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
        if interrupts.inside(exc):  # the interrupt, wrapped on its way up: still an interrupt (exit 130)
            return _stopped(ui, prog, args_list)
        return _internal_error(ui, exc)
    finally:
        environment = sys.modules.get("tierlock.environment")
        if environment is not None:  # (a target started early that the command never asked: not left running)
            environment.end_early()
        restore()


def _parsed(args_list: list[str], prog: str, only: str | None, *, json_mode: bool) -> argparse.Namespace | Namespace:
    """The parsed arguments: without argparse when :mod:`tierlock.quickargs` is certain of its answer."""
    if only is not None:
        from tierlock.quickargs import parse

        quick = parse(args_list, only, _command_module(only))
        if quick is not None:
            return quick
    parser = build_parser(prog, only=only)
    parser.json_output = json_mode  # (--version then prints JSON)
    return parser.parse_args(args_list)


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
