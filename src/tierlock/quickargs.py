"""A command line parsed without argparse, when argparse could only give the same namespace.

Loading argparse (and gettext with it) and building a command's parser cost a full run of ``check``,
``probe``, ``status`` or ``admit`` 2-3 ms. A command line made only of the exact spellings of the options
its command declares is parsed here instead, from the same declarations: the global options
(:func:`common_options`) and the command's ``add_arguments(parser)``, read through a :class:`_Recorder`
that keeps what each ``add_argument`` says. Only the shapes whose result is certain are taken:

* an option exactly as declared (no abbreviation, no ``--name=value``, no ``-qv``), each value a word that
  does not start with ``-`` (argparse decides whether such a word is a value or an option) and, for an
  option with ``choices``, one of them;
* ``store`` (no ``nargs``, no ``type``), ``store_true`` and ``append`` options, and at most one positional
  with ``nargs="*"``, its words in one run (a word after an option that follows the run is argparse's error);
* the global options before the command only (``--project``, ``--json``, ``-q``, ``--quiet``, ``-v``,
  ``--verbose``, ``--color``), as the top-level parser takes them.

Anything else - help, ``--``, a word that starts with ``-`` and is not an option of the command, a
declaration of another shape (a ``type``, a group, ``nargs="+"``) - gives None, and argparse parses the
command line (and reports what is wrong with it) as before. The namespace has the attributes argparse's
would have, with the same values (``tests/unit/core/test_quickargs.py`` compares them for every command).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from types import ModuleType
    from typing import Any

#: argparse's ``SUPPRESS``: an option whose default it is sets nothing when it is not given.
SUPPRESS = "==SUPPRESS=="

_KEYWORDS = frozenset({"action", "default", "metavar", "help", "nargs", "choices", "dest"})
_ACTIONS = frozenset({"store", "store_true", "append"})


def common_options(parser: Any, suppressed: str | None) -> None:
    """The options every command takes, before its name (the top-level parser: *suppressed* None) and after it
    (*suppressed*: the parser's own ``SUPPRESS``, the default that sets nothing, so a value given before the
    command stays; argparse knows its own by identity)."""
    parser.add_argument(
        "--project",
        metavar="DIR",
        default=suppressed,
        help="project folder or pyproject.toml (default: nearest pyproject.toml upward)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        default=suppressed or False,
        help="print one JSON document on stdout and nothing else there",
    )
    parser.add_argument("-q", "--quiet", action="store_true", default=suppressed or False, help="print less")
    parser.add_argument("-v", "--verbose", action="store_true", default=suppressed or False, help="print more")
    parser.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default=suppressed or "auto",
        help="colour output: auto (on a terminal, unless NO_COLOR is set), always, never",
    )


class Namespace:
    """The parsed arguments, as attributes (argparse's ``Namespace``: equal by them, shown with them)."""

    def __init__(self, **values: Any) -> None:
        self.__dict__.update(values)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Namespace):
            return NotImplemented
        return vars(self) == vars(other)

    __hash__ = None  # type: ignore[assignment]  # (mutable, compared by value)

    if TYPE_CHECKING:  # (as typeshed reads argparse's: any attribute may have been declared)

        def __getattr__(self, name: str) -> Any: ...

    def __contains__(self, key: str) -> bool:
        return key in self.__dict__

    def __repr__(self) -> str:
        return f"Namespace({', '.join(f'{k}={v!r}' for k, v in self.__dict__.items())})"


class Unsupported(Exception):
    """A declaration of a shape this parser does not take: argparse parses the command line."""


class _Option:
    __slots__ = ("action", "choices", "default", "dest")

    def __init__(self, dest: str, action: str, default: object, choices: tuple[object, ...] | None) -> None:
        self.dest, self.action, self.default, self.choices = dest, action, default, choices


class _Recorder:
    """Stands for an ``ArgumentParser`` in ``add_arguments``: keeps what each ``add_argument`` declares; any
    other use of the parser raises :class:`Unsupported`."""

    def __init__(self) -> None:
        self.options: dict[str, _Option] = {}
        """Each spelling of an option (``-q``, ``--quiet``) -> the option."""
        self.order: list[_Option] = []
        """The options and the positional, in the order they were declared (their defaults are set so)."""
        self.positional: _Option | None = None

    def add_argument(self, *names: str, **kwargs: Any) -> None:
        action = kwargs.get("action", "store")
        if not names or set(kwargs) - _KEYWORDS or action not in _ACTIONS:
            raise Unsupported(names)
        choices = tuple(kwargs["choices"]) if "choices" in kwargs else None
        if not names[0].startswith("-"):
            if len(names) != 1 or self.positional is not None or kwargs.get("nargs") != "*" or choices:
                raise Unsupported(names)
            default = kwargs.get("default")
            if action != "store" or "dest" in kwargs or not (default is None or type(default) is list):
                raise Unsupported(names)
            self.positional = _Option(names[0], "*", default, None)
            self.order.append(self.positional)
            return
        if "nargs" in kwargs or (action == "store_true" and choices is not None):
            raise Unsupported(names)
        if not all(name.startswith("-") and name != "-" and "=" not in name for name in names):
            raise Unsupported(names)
        longs = [name for name in names if name.startswith("--")]
        dest = kwargs.get("dest") or (longs[0] if longs else names[0]).lstrip("-").replace("-", "_")
        default = kwargs.get("default", False if action == "store_true" else None)
        if default == SUPPRESS and default is not SUPPRESS:  # (argparse's own: not this module's)
            raise Unsupported(names)
        if not dest or (action == "append" and not (default is None or type(default) is list)):
            raise Unsupported(names)
        option = _Option(dest, action, default, choices)
        for name in names:
            if name in self.options:
                raise Unsupported(names)
            self.options[name] = option
        self.order.append(option)

    def __getattr__(self, name: str) -> Any:
        raise Unsupported(name)


def spec(declare: Callable[[_Recorder], None]) -> _Recorder:
    """What *declare* (an ``add_arguments``) declares; :class:`Unsupported` when it is not all of a taken shape."""
    recorder = _Recorder()
    declare(recorder)
    return recorder


def parse(argv: Sequence[str], command: str, module: ModuleType) -> Namespace | None:
    """The namespace argparse gives for *argv*, whose command is *command* (its module *module*), or None
    when that is not certain here (argparse then parses *argv*)."""
    try:
        top = spec(lambda parser: common_options(parser, None))
        sub = spec(lambda parser: _command_options(parser, module))
    except Unsupported:
        return None
    values: dict[str, Any] = {}
    _defaults(top, values)
    at = _options(argv, 0, top, values, stop_at=command)
    if at is None or at >= len(argv) or argv[at] != command:
        return None
    values["command"] = command
    given: dict[str, Any] = {}
    _defaults(sub, given)
    given["_module"] = module  # (the command's parser's own default, set before its options are read)
    if _options(argv, at + 1, sub, given, stop_at=None) is None:
        return None
    values.update(given)
    return Namespace(**values)


def _command_options(parser: _Recorder, module: ModuleType) -> None:
    """What the command's own parser declares: the global options again, then the command's."""
    common_options(parser, SUPPRESS)
    module.add_arguments(parser)


def _defaults(spec: _Recorder, values: dict[str, Any]) -> None:
    for option in spec.order:
        if option.default is not SUPPRESS and option.dest not in values:
            values[option.dest] = option.default


def _options(argv: Sequence[str], at: int, spec: _Recorder, values: dict[str, Any], stop_at: str | None) -> int | None:
    """Set into *values* what ``argv[at:]`` says by *spec*, up to the word *stop_at* (the command; its index
    returned) or the end (``len(argv)``); None at anything this parser does not take."""
    words: list[str] | None = None  # the positional's run: None before it, closed once an option follows it
    closed = False
    while at < len(argv):
        token = argv[at]
        at += 1
        if not token.startswith("-") or token == "-":
            if stop_at is not None:
                return at - 1 if token == stop_at else None
            if spec.positional is None or closed or token == "-":
                return None
            words = [] if words is None else words
            words.append(token)
            continue
        option = spec.options.get(token)
        taken = None if option is None else _take(option, argv, at, values)
        if taken is None:
            return None
        at += taken
        closed = words is not None
    if stop_at is not None:
        return None
    if spec.positional is not None:
        default = spec.positional.default
        values[spec.positional.dest] = words if words is not None else ([] if default is None else default)
    return at


def _take(option: _Option, argv: Sequence[str], at: int, values: dict[str, Any]) -> int | None:
    """Set *option* into *values*, its value (if it takes one) ``argv[at]``; how many words that took (0 or 1),
    or None when the value is not certain to be one (argparse's call) or not among the option's choices."""
    if option.action == "store_true":
        values[option.dest] = True
        return 0
    if at >= len(argv) or argv[at].startswith("-"):
        return None
    value = argv[at]
    if option.choices is not None and value not in option.choices:
        return None
    values[option.dest] = [*(values.get(option.dest) or []), value] if option.action == "append" else value
    return 1
