"""Compiled artifacts: which installed files are compiled code, which module one provides, and the check of one.

* :func:`is_compiled`: extension modules and shared libraries, by name
  (``.so``, ``.so.1.2``, ``.pyd``, ``.dll``, ``.dylib``), on any target;
* :func:`module_name`: the module an extension file provides *to a given
  target*, whose extension suffixes it reported
  (:attr:`tierlock.environment.Target.ext_suffixes`): on CPython 3.13,
  ``_cffi_backend.cpython-313-x86_64-linux-gnu.so`` provides
  ``_cffi_backend`` and ``_rust.abi3.so`` provides ``_rust``, while a
  ``.cpython-312-...so`` provides nothing;
* :func:`check_artifact`: what is wrong with one compiled file that is there
  with its recorded size. It is the one place a deeper check of a compiled
  file (the shared libraries it needs ...) hooks in; today it says whether an
  extension module was built for another Python than the target.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from functools import cache

from tierlock.compiledname import is_compiled

__all__ = ["ANOTHER_PYTHON", "check_artifact", "is_compiled", "loads", "module_name", "module_path"]

#: What :func:`check_artifact` says of an extension module the target does not import.
ANOTHER_PYTHON = "is built for another Python"
#: An extension module's ABI part: ``.cpython-313-x86_64-linux-gnu.so``, ``.cpython-313t-darwin.so``,
#: ``.cp313-win_amd64.pyd``, ``.pypy310-pp73-x86_64-linux-gnu.so``.
_TAGGED = r"\.(?:cpython-[0-9]+[a-z]*-[^./]+|cp[0-9]+[a-z]*-[^./]+|pypy[0-9]+-pp[0-9]+-[^./]+)\.(?:so|pyd)$"


@cache
def _tagged() -> re.Pattern[str]:
    """:data:`_TAGGED` compiled, when a compiled file is first checked (a probe whose verdicts are kept checks none)."""
    return re.compile(_TAGGED)


def module_name(filename: str, suffixes: Sequence[str]) -> str | None:
    """The module the file *filename* (a base name) provides as an extension module to a target that imports
    *suffixes*, or None (another ABI's build, a plain shared library, not compiled, no importable name)."""
    stem = _stem(filename, suffixes)
    return stem if stem is not None and stem.isidentifier() else None


def _stem(filename: str, suffixes: Sequence[str]) -> str | None:
    """*filename* without the first of *suffixes* it ends with, when that suffix accounts for its whole
    ending (``x.cpython-312-….so`` ends with ``.so``, but that is not what makes it an extension for ``.so``)."""
    for suffix in suffixes:
        if filename.endswith(suffix) and len(filename) > len(suffix):
            stem = filename[: -len(suffix)]
            return stem if "." not in stem else None
    return None


def check_artifact(
    path: str, rel: str, suffixes: Sequence[str], loadable: Callable[[], AbstractSet[str]]
) -> str | None:
    """What is wrong with the compiled file at *path* (RECORD's *rel*, there with its recorded size) for a target
    that imports *suffixes*; None when nothing is. *loadable* gives the modules (``pkg/_core``) the distribution
    provides to this target (:func:`module_path`), so that a build for another Python beside the target's own
    is no fault: asked only for such a build. Called for every compiled file of every probe."""
    if _tagged().search(rel) is None or loads(rel, suffixes):
        return None  # no extension module built for one Python, or one this target imports
    if module_path(rel) in loadable():
        return None  # another Python's build beside one this target imports
    wanted = ", ".join(suffixes) or "no extension modules"
    return f"compiled extension {rel} {ANOTHER_PYTHON} (this one imports {wanted})"


def loads(rel: str, suffixes: Sequence[str]) -> bool:
    """Whether the target (importing *suffixes*) loads the file at RECORD path *rel* as an extension module."""
    return _stem(rel.rpartition("/")[2], suffixes) is not None


def module_path(rel: str) -> str:
    """The module a RECORD path would provide, as a path without its endings (``pkg/_core``)."""
    folder, _, name = rel.rpartition("/")
    stem = name.split(".", 1)[0]
    return f"{folder}/{stem}" if folder else stem
