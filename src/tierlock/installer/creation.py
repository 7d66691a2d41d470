"""Creating the project environment, when ``install-tier`` finds it missing: ``uv venv`` with the uv backend,
else ``python -m venv``, with an interpreter that satisfies the project's ``requires-python``."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from tierlock.tiers import Project


def _satisfies(version: tuple[int, int, int], requires_python: str | None) -> bool:
    if not requires_python:
        return True
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        return SpecifierSet(requires_python).contains(".".join(map(str, version)))  # (never a pre-release)
    except InvalidSpecifier:
        return True


def base_interpreter() -> str:
    """The interpreter this one was made from (a venv's base), for ``python -m venv``."""
    return str(getattr(sys, "_base_executable", None) or sys.executable)


#: The interpreters :func:`choose_interpreter` took from PATH, with the versions they said they are.
_ASKED: dict[str, tuple[int, int, int]] = {}


def version_of(interpreter: str) -> tuple[int, int, int]:
    """The version of an interpreter :func:`choose_interpreter` chose: this one's (its base), else the one it said
    it is when it was chosen (asked of one not chosen so), else the minor its name says (``python3.9``)."""
    import re

    from tierlock.venvbase import version_run

    own = (sys.version_info[0], sys.version_info[1], sys.version_info[2])
    if interpreter == base_interpreter():
        return own
    known = _ASKED.get(interpreter) or version_run(interpreter)
    if known is not None:
        return known
    named = re.search(r"python3\.(\d+)$", interpreter)
    return own if named is None else (3, int(named.group(1)), 0)


def choose_interpreter(requires_python: str | None) -> str | None:
    """An interpreter satisfying *requires-python*: this one's base, else a ``python3.N`` on PATH (newest first),
    then ``python3`` and ``python``, that runs and whose own version satisfies it (asked of it: a pyenv shim of a
    version not selected is on PATH and cannot run, ``python3.12`` may be 3.12.1 for a ``>=3.12.2`` project, and
    an image may name its Python ``python3`` only)."""
    import shutil

    from tierlock.venvbase import version_run

    if _satisfies((sys.version_info[0], sys.version_info[1], sys.version_info[2]), requires_python):
        return base_interpreter()
    names = [*(f"python3.{minor}" for minor in range(20, 7, -1)), "python3", "python"]
    for name in names:
        found = shutil.which(name)
        minor = name[len("python3.") :] if name.startswith("python3.") else None
        if not found or (minor is not None and not _satisfies((3, int(minor), 99), requires_python)):
            continue  # (its name rules it out: not asked)
        runs = version_run(found)
        if runs is not None and _satisfies(runs, requires_python):
            _ASKED[found] = runs
            return found
    return None


def create(folder: str, *, project: Project, backend: str, again: str, note: Callable[[str], None]) -> None:
    """Create the project environment at *folder* (``uv venv`` with the uv backend, else ``python -m venv``);
    *again* is the command that repeats the install, for the remedies."""
    from pathlib import Path

    from tierlock import subproc
    from tierlock.errors import BackendError, UsageError
    from tierlock.installer import backends

    shown = project.relpath(Path(folder))
    uv = backends.find_uv() if backend in ("auto", "uv") else None
    if backend == "uv" and uv is None:
        raise BackendError(
            f"the uv backend was requested but uv is not installed; the project environment {shown} "
            "was not created and nothing was installed",
            remedy="pip install uv, or pass --backend pip",
        )
    interpreter = choose_interpreter(project.requires_python)
    if uv is not None:
        request = interpreter or project.requires_python or ""
        argv: list[str] = [str(uv), "venv", folder]
        if request:
            argv += ["--python", request]
        how = "uv venv"
    else:
        if interpreter is None:
            raise UsageError(
                f"no Python satisfying requires-python {project.requires_python!r} was found on PATH to create "
                f"the project environment {shown}; nothing was installed",
                file=str(project.pyproject),
                remedy=_without_python(folder, str(project.requires_python), again),
            )
        argv = [interpreter, "-m", "venv", folder]
        if backends.own_pip_sites(version_of(interpreter)):
            argv.insert(3, "--without-pip")  # tierlock's own pip installs into it (it runs on that Python)
        how = "python -m venv"
    result = subproc.run(
        argv,
        what=f"creating the project environment {shown}",
        remedy=f"create it yourself ({'uv venv' if uv else 'python -m venv'} {folder}), then run: {again}",
        check=False,
    )
    if result.returncode != 0 or not os.path.isfile(os.path.join(folder, "pyvenv.cfg")):
        raise BackendError(
            f"creating the project environment {shown} failed (exit {result.returncode}): {subproc.display(argv)}",
            detail=subproc.redact(result.tail()),
            remedy=f"create it yourself ({how} {folder}), then run: {again}",
        )
    note(f"created the project environment {shown} with {how} ({interpreter or project.requires_python or 'python'})")


def _without_python(folder: str, requires_python: str, again: str) -> str:
    """The fix when no Python on PATH satisfies *requires_python*: uv, when it is on this machine, finds or fetches
    one (``uv venv --python``); else one must be installed first."""
    from tierlock.installer import backends
    from tierlock.remedies import shell_join

    uv = backends.find_uv()
    if uv is None:
        where = "python.org, pyenv or your system's packages"
        return f"install a Python that satisfies {requires_python} ({where}), then run: {again}"
    return f"{shell_join([str(uv), 'venv', '--python', requires_python, folder])} && {again}"
