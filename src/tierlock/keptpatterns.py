"""The regular expressions a full run compiles, kept compiled beside its code bundle for the next run.

A read-only command's full run imports ``tomllib``, ``json`` and ``packaging``, which compile ~60 regular expressions
at import (``packaging.specifiers``' and ``packaging._tokenizer``'s are long ones); ``re`` parses and compiles each in
Python: ~30 M instructions, more than all of tierlock's own work in such a run. What ``re`` makes of a pattern is the
arguments it hands to ``_sre.compile`` (the program, the flags, the groups), which depend only on the pattern, its
flags and the interpreter. :func:`install` keeps, for each pattern a run compiles (its text or bytes, exactly, and its
flags), the arguments ``re`` handed over, in a file beside the command's bundle (:func:`tierlock.codebundle.path_of`,
``.patterns`` for ``.bundle``: the folder of tierlock's compiled files); the next run hands them to ``_sre.compile``
itself, which checks the program as it does any other. The file is stamped with the interpreter's version and
``_sre``'s (another build reads nothing from it); an entry that ``_sre.compile`` refuses, a file that does not
load, or a pattern not in it: ``re`` compiles it as without this module. A pattern ``re`` refuses raises as before
(nothing kept). ``re.DEBUG`` is never served (it prints the compile).

:func:`save` (at the process's end, after the bundle) writes the file again, atomically, only when the run compiled
a pattern it did not hold; at most :data:`LIMIT` patterns (beyond that, only this run's;
a run that compiled more keeps none).
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found,unused-ignore]  # (built in)
import marshal
import re  # noqa: F401 (what this module serves; loaded by every full run anyway: tomllib's patterns)
import sys
from _thread import get_ident
from os import getpid, replace, unlink

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

#: Bump when the file's layout changes.
FORMAT = 1
#: The most patterns kept: a run compiling patterns made from its input (globs) keeps only its own beyond it.
LIMIT = 400
#: ``re.DEBUG`` (``re`` is imported by :func:`install` only).
DEBUG = 128
#: The arguments kept: (pattern, flags) -> what ``re`` handed to ``_sre.compile`` after the pattern.
_kept: dict[tuple[str | bytes, int], tuple[Any, ...]] = {}
#: What this run compiled or was served: written back (with what was kept) when it compiled one anew.
_used: dict[tuple[str | bytes, int], tuple[Any, ...]] = {}
#: What this run compiled anew.
_new: dict[tuple[str | bytes, int], tuple[Any, ...]] = {}
_where: list[str] = []
#: The arguments ``_sre.compile`` was last handed, per thread.
_handed: dict[int, tuple[Any, ...]] = {}


def _stamp() -> tuple[Any, ...]:
    return (FORMAT, sys.version, sys.hexversion, _sre.MAGIC, _sre.CODESIZE)


def install(bundle: str | None) -> None:
    """Serve the patterns kept beside *bundle* (the command's code bundle's path; None: nothing) to ``re`` from now
    on, and note the others as ``re`` compiles them."""
    if bundle is None or _where:
        return
    compiler: Any = sys.modules.get("re._compiler") or sys.modules.get("sre_compile")  # (3.11 on / 3.10)
    original, sre = getattr(compiler, "compile", None), getattr(compiler, "_sre", None)
    if not callable(original) or type(sre) is not type(sys):
        return
    where = f"{bundle.removesuffix('.bundle')}.patterns"  # (beside it, whatever its name)
    _where.append(where)
    try:
        with open(where, "rb") as handle:
            stamp, kept = marshal.loads(handle.read())
    except (OSError, EOFError, ValueError, TypeError):
        stamp, kept = None, None
    if stamp == _stamp() and type(kept) is dict:
        _kept.update(kept)
    handing = type(sys)(sre.__name__)  # (``_sre`` as ``re``'s compiler sees it: its compile notes what it is handed)
    handing.__dict__.update({k: v for k, v in vars(sre).items() if not k.startswith("__")})
    handing.compile = _noting(sre.compile)
    compiler._sre = handing
    compiler.compile = _serving(original, sre.compile)


def _noting(compile: Callable[..., Any]) -> Callable[..., Any]:
    def noted(*args: Any) -> Any:
        _handed[get_ident()] = args
        return compile(*args)

    return noted


def _serving(original: Callable[..., Any], compile: Callable[..., Any]) -> Callable[..., Any]:
    """``re``'s compiler of a pattern (*original*), the arguments kept for it handed to ``_sre.compile`` first."""

    def served(p: Any, flags: Any = 0) -> Any:
        kind = type(p)
        if (kind is not str and kind is not bytes) or not isinstance(flags, int):
            return original(p, flags)
        key = (p, int(flags))
        if key[1] & DEBUG:
            return original(p, flags)
        args = _kept.get(key)
        if type(args) is tuple and len(args) == 5:
            try:
                pattern = compile(p, *args)
            except (TypeError, ValueError, RuntimeError, OverflowError):  # (kept for another build, or spoilt)
                pass
            else:
                _used[key] = args
                return pattern
        _handed.pop(get_ident(), None)
        pattern = original(p, flags)
        handed = _handed.pop(get_ident(), None)
        if handed is not None and len(handed) == 6:
            _, final, code, groups, index, names = handed
            _used[key] = _new[key] = (int(final), list(map(int, code)), groups, dict(index), names)
        return pattern

    return served


def save() -> None:
    """Write the patterns kept again when this run compiled one it did not hold (atomically; not with
    ``sys.dont_write_bytecode``)."""
    if not _new or not _where or sys.dont_write_bytecode:
        return
    table = {**_kept, **_used}
    table = table if len(table) <= LIMIT else _used
    if len(table) > LIMIT:
        return
    try:
        data = marshal.dumps((_stamp(), table))
    except ValueError:  # (an argument marshal cannot write: nothing kept)
        return
    where = _where[0]
    temporary = f"{where}.{getpid()}.tmp"
    try:
        with open(temporary, "wb") as handle:
            handle.write(data)
        replace(temporary, where)
    except OSError:  # a read-only install: nothing kept
        try:  # noqa: SIM105 (contextlib is an import more)
            unlink(temporary)
        except OSError:
            pass
