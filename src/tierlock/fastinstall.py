"""A plain ``install`` read by hand, and answered when the receipts in the target prove it a no-op.

The arguments of ``[tierlock] install TIER... [options]`` (:func:`parse_install`) without ``argparse``: only the
options a no-op can answer (``--project``, ``--python``, ``--backend``, ``--system``, ``--json``, ``-q``); anything
else gives None and the CLI parses everything again and decides in full. :func:`fast_install` asks
:mod:`tierlock.installer.fastpath` whether the receipts still hold and prints "already present" when they do.
"""

from __future__ import annotations

import sys

from tierlock.exitcodes import EXIT_OK

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

_VALUED = frozenset({"--project", "--python", "--backend"})
_FLAGS = frozenset({"--system", "--json", "-q", "--quiet"})
_BACKENDS = frozenset({"auto", "uv", "pip"})
#: The options ``tierlock`` itself takes before the command.
_GLOBAL = frozenset({"--project", "--json", "-q", "--quiet"})


class Args:
    """The arguments of a plain ``install`` (what the fast path needs)."""

    __slots__ = ("json", "project", "python", "quiet", "system", "tiers")

    def __init__(self) -> None:
        self.tiers: list[str] = []
        self.project: str | None = None
        self.python: str | None = None
        self.system = False
        self.json = False
        self.quiet = False


def parse_install(argv: Sequence[str], *, command: bool) -> Args | None:
    """The arguments of ``[tierlock] install TIER... [options]``, or None for anything this parser does not know.

    With *command*, the first positional must be ``install`` (the ``tierlock``
    script); without, every positional is a tier (``install-tier``). Tiers
    must be one run of positionals, as argparse requires.
    """
    args = Args()
    positionals: list[str] = []
    closed = False
    i = 0
    while i < len(argv):
        token = argv[i]
        i += 1
        if not token.startswith("-") or token == "-":
            if closed and positionals[int(command) :]:
                return None  # tiers split by an option: argparse's call
            positionals.append(token)
            continue
        if positionals[int(command) :]:
            closed = True
        if command and not positionals and token.partition("=")[0] not in _GLOBAL:
            return None
        taken = _option(args, token, argv, i)
        if taken is None:
            return None
        i += taken
    if command:
        if not positionals or positionals[0] != "install":
            return None
        positionals = positionals[1:]
    if not positionals:
        return None
    args.tiers = positionals
    return args


def _option(args: Args, token: str, argv: Sequence[str], i: int) -> int | None:
    """Set the option *token* (``--name`` or ``--name=value``) on *args*; how many more words it took (0 or 1),
    or None when it is not one this parser knows."""
    name, eq, value = token.partition("=")
    if name in _VALUED:
        taken = 0
        if not eq:
            if i >= len(argv) or argv[i].startswith("-"):
                return None
            value, taken = argv[i], 1
        if name == "--project":
            args.project = value
        elif name == "--python":
            args.python = value
        elif value not in _BACKENDS:
            return None
        return taken
    if name not in _FLAGS or eq:
        return None
    if name == "--system":
        args.system = True
    elif name == "--json":
        args.json = True
    else:
        args.quiet = True
    return 0


def fast_install(argv: Sequence[str], *, command: bool) -> int | None:
    """Exit code 0 after printing "already present" when the receipts prove a no-op; else None."""
    from time import perf_counter

    started = perf_counter()
    args = parse_install(argv, command=command)
    if args is None:
        return None
    from tierlock.installer import fastpath

    try:
        noop, _why = fastpath.try_noop(args.tiers, project_arg=args.project, python=args.python, system=args.system)
    except Exception:  # anything unexpected: the full path decides, and reports it properly
        return None
    if noop is None:
        return None
    if args.json:  # the document names the target's folder: through the one redaction, as every document
        import json

        from tierlock.redaction import redact_json

        document = redact_json(fastpath.to_json(noop, perf_counter() - started))
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
    elif not args.quiet:
        # Only counts and the names of tiers the project declares and already installed (canonical,
        # lower case): the line is printed without importing ``re`` and the redaction (milliseconds here).
        sys.stdout.write(fastpath.summary(noop) + "\n")
    return EXIT_OK
