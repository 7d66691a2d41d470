"""Lock backends: ``uv pip compile`` and pip-tools' ``pip-compile`` behind one small Protocol.

Each backend turns a :class:`CompileRequest` (an input file of roots, an
optional constraints file, the output file holding the previous lock) into a
compiled lockfile body. Every process goes through :func:`tierlock.subproc.run`.
The user's own pip/uv configuration is respected: the environment is passed on
untouched.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from tierlock import fsutil, subproc
from tierlock.distversion import installed_version
from tierlock.errors import BackendError, UsageError
from tierlock.lockfiles.lockplatform import platform_id

UV_REMEDY = "install uv (pip install uv) or choose pip-tools: tierlock lock --backend pip"
PIP_TOOLS_REMEDY = "install pip-tools (pip install pip-tools) or choose uv: tierlock lock --backend uv"
#: The oldest uv whose ``pip compile --format pylock.toml`` writes a hash for every wheel (also those found
#: through ``--find-links``); older ones write a lock that ``packaging.pylock`` rightly refuses. The ``uv``
#: extra requires it; a uv found on PATH is checked (``make test-lowest`` runs the pylock tests on it).
PYLOCK_MIN_UV = "0.12.11"
#: What a uv compile is called in error messages.
UV_COMPILE = "uv pip compile"


@dataclass(frozen=True)
class IndexOptions:
    """Where packages come from; passed through to the backend as given."""

    index_url: str | None = None
    extra_index_urls: tuple[str, ...] = ()
    find_links: tuple[str, ...] = ()
    no_index: bool = False

    def argv(self) -> list[str]:
        out: list[str] = []
        if self.index_url:
            out += ["--index-url", self.index_url]
        for url in self.extra_index_urls:
            out += ["--extra-index-url", url]
        for link in self.find_links:
            out += ["--find-links", link]
        if self.no_index:
            out.append("--no-index")
        return out


@dataclass(frozen=True)
class CompileRequest:
    input_file: Path
    output_file: Path
    """Holds the previous lock (when any) so its pins are kept; the backend writes the new lock here."""
    constraints: Path | None
    format: str
    python_version: str | None
    upgrade: bool = False
    upgrade_packages: tuple[str, ...] = ()
    index: IndexOptions = field(default_factory=IndexOptions)
    cwd: Path | None = None


class Backend(Protocol):
    name: str
    """``uv`` or ``pip-tools`` (as recorded in lockfile headers)."""
    universal: bool
    """Whether the lock holds every platform (uv) or only the one it runs on (pip-tools)."""

    def version(self) -> str: ...

    def platform(self) -> str | None:
        """The platform id a single-platform lock is made for (None when universal)."""
        ...

    def compile(self, request: CompileRequest) -> None: ...


def _find(executable: str) -> str | None:
    """*executable* next to the running interpreter (its venv), else on PATH."""
    here = Path(sys.executable).parent / executable
    if here.is_file() and os.access(here, os.X_OK):
        return str(here)
    return shutil.which(executable)


def lock_interpreter() -> str | None:
    """The interpreter uv resolves with: this one, unless ``UV_PYTHON`` chooses (spares uv its own search).

    A universal lock's target is ``--python-version``; the interpreter only
    runs builds of source distributions, so any local one serves, and uv never
    goes looking for (or downloading) one that matches the target version.
    """
    if "UV_PYTHON" in os.environ or not sys.executable:
        return None
    return sys.executable


def python_downloads_off(project: Path | None = None) -> bool:
    """Whether to tell uv not to download interpreters: yes, unless the user's uv settings decide.

    Asked for means ``UV_PYTHON_DOWNLOADS`` is set, or ``python-downloads`` is
    set in the project's ``uv.toml`` / ``[tool.uv]`` or the user's ``uv.toml``.
    """
    if "UV_PYTHON_DOWNLOADS" in os.environ:
        return False
    import tomllib

    config_home = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    places: list[tuple[Path, tuple[str, ...]]] = [(config_home / "uv" / "uv.toml", ())]
    if project is not None:
        places += [(project / "uv.toml", ()), (project / "pyproject.toml", ("tool", "uv"))]
    for path, keys in places:
        try:
            data: object = tomllib.loads(fsutil.read_text(path))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue
        for key in keys:
            data = data.get(key) if isinstance(data, dict) else None
        if isinstance(data, dict) and "python-downloads" in data:
            return False
    return True


@dataclass
class UvBackend:
    executable: str
    log: Callable[[str], None] | None = None
    name: str = "uv"
    universal: bool = True
    _version: str | None = None

    def version(self) -> str:
        """uv's version: from the distribution that installed it next to this interpreter, else ``uv --version``."""
        if self._version is None:
            self._version = installed_version(self.executable, "uv")
        if self._version is None:
            out = subproc.run([self.executable, "--version"], what="uv --version", remedy=UV_REMEDY).stdout
            match = re.search(r"\d+\.\d+[\w.+-]*", out)
            self._version = match.group(0) if match else out.strip()
        return self._version

    def platform(self) -> str | None:
        return None

    def refuse_old_for_pylock(self) -> None:
        """Refuse (exit 3) a uv older than :data:`PYLOCK_MIN_UV` for a pylock lock, naming both versions."""
        from packaging.version import InvalidVersion, Version

        try:
            old = Version(self.version()) < Version(PYLOCK_MIN_UV)
        except InvalidVersion:
            return  # a uv that does not say its version: let it try
        if old:
            from tierlock.selfinstall import install_command

            raise BackendError(
                f"uv {self.version()} ({self.executable}) cannot write a pylock lockfile with a hash for every "
                f"wheel; the pylock format needs uv {PYLOCK_MIN_UV} or newer; no lockfile was changed",
                remedy=install_command(f"'uv>={PYLOCK_MIN_UV}'"),
            )

    def compile(self, request: CompileRequest) -> None:
        subproc.run(
            self.command(request), what=UV_COMPILE, cwd=request.cwd, remedy=compile_remedy(request), log=self.log
        )

    def command(self, request: CompileRequest) -> list[str]:
        """The ``uv pip compile`` command line that :meth:`compile` runs for *request*."""
        argv: list[str | Path] = [self.executable, "pip", "compile", request.input_file]
        argv += ["--output-file", request.output_file, "--universal", "--generate-hashes", "--no-header", "--quiet"]
        if request.format == "pylock":
            self.refuse_old_for_pylock()
            argv += ["--format", "pylock.toml"]
        argv += _uv_target(request)
        if request.constraints is not None:
            argv += ["--constraint", request.constraints]  # the spelling every uv since 0.5 takes (not --constraints)
        if request.upgrade:
            argv.append("--upgrade")
        for name in request.upgrade_packages:
            argv += ["--upgrade-package", name]
        argv += request.index.argv()
        return [str(a) for a in argv]


def _uv_target(request: CompileRequest) -> list[str | Path]:
    """The Python a universal uv lock targets, the interpreter that runs its builds, no interpreter downloads."""
    argv: list[str | Path] = []
    if request.python_version:
        argv += ["--python-version", request.python_version]
    interpreter = lock_interpreter()
    if interpreter is not None:
        argv += ["--python", interpreter]
    if python_downloads_off(request.cwd):
        argv.append("--no-python-downloads")
    return argv


def uv_executable(backend: Backend) -> str | None:
    """uv to list a lock's files with: the backend itself when it is uv, else uv beside Python or on PATH."""
    if isinstance(backend, UvBackend):
        return backend.executable
    return _find("uv")


def list_files(uv: str, pinned: Path, request: CompileRequest, *, log: Callable[[str], None] | None = None) -> str:
    """The files of every exact pin of *pinned*, as uv lists them in a pylock document (the same index settings).

    ``--no-deps`` on exact pins resolves nothing new: it asks the index (or uv's
    cache of what the lock just fetched) for each pinned version's wheels and sdist.
    """
    output = pinned.with_name("pylock.listing.toml")
    argv: list[str | Path] = [uv, "pip", "compile", pinned, "--output-file", output, "--universal", "--no-deps"]
    argv += ["--format", "pylock.toml", "--no-header", "--quiet", *_uv_target(request), *request.index.argv()]
    subproc.run(
        argv,
        what="uv pip compile (listing the files of each pin)",
        cwd=request.cwd,
        remedy=f"fix what uv explains above, then run: tierlock lock {request.input_file.stem}",
        log=log,
    )
    return output.read_text(encoding="utf-8")


@dataclass
class PipToolsBackend:
    executable: str
    log: Callable[[str], None] | None = None
    name: str = "pip-tools"
    universal: bool = False
    _version: str | None = None

    def version(self) -> str:
        if self._version is None:
            try:
                from importlib.metadata import version

                if Path(self.executable).parent == Path(sys.executable).parent:
                    self._version = version("pip-tools")
                    return self._version
            except Exception:  # not importable here: ask the executable
                pass
            out = subproc.run([self.executable, "--version"], what="pip-compile --version", remedy=PIP_TOOLS_REMEDY)
            match = re.search(r"\d+\.\d+[\w.+-]*", out.stdout)
            self._version = match.group(0) if match else out.stdout.strip()
        return self._version

    def platform(self) -> str | None:
        return platform_id()

    def compile(self, request: CompileRequest) -> None:
        if request.format == "pylock":
            raise UsageError(
                "pip-tools cannot write the pylock format",
                remedy='lock with uv (tierlock lock --backend uv) or set format = "requirements" in [tool.tierlock]',
            )
        argv: list[str | Path] = [self.executable, request.input_file, "--output-file", request.output_file]
        # Not --quiet: that hides pip's explanation of a conflict or an unreachable index.
        argv += ["--generate-hashes", "--no-header", "--allow-unsafe", "--strip-extras"]
        argv += ["--no-emit-index-url", "--no-emit-find-links", "--no-emit-trusted-host"]
        if request.constraints is not None:
            argv += ["--constraint", request.constraints]
        if request.upgrade:
            argv.append("--upgrade")
        for name in request.upgrade_packages:
            argv += ["--upgrade-package", name]
        argv += request.index.argv()
        result = subproc.run(argv, what="pip-compile", cwd=request.cwd, check=False, log=self.log)
        if result.returncode != 0:
            raise BackendError(
                f"pip-compile failed (exit {result.returncode}): {subproc.display(result.argv)}",
                detail=without_tracebacks(result.stdout + "\n" + result.stderr) or result.tail(),
                remedy=compile_remedy(request),
            )


def without_tracebacks(text: str, lines: int = subproc.TAIL_LINES) -> str:
    """*text* without Python traceback frames: pip's own explanation and the exception lines (pure).

    pip-compile may die with a traceback whose 30-line tail holds only frames,
    hiding the lines that say which requirements conflict or which index failed.
    """
    out: list[str] = []
    in_frames = False
    for line in text.splitlines():
        if line.startswith("Traceback (most recent call last):"):
            in_frames = True
            continue
        if in_frames and (not line.strip() or line.startswith(" ")):
            continue  # a frame: '  File ...', its source line and its carets
        in_frames = False
        if line.strip() and not line.startswith("The above exception was the direct cause"):
            out.append(line.rstrip())
    return "\n".join(out[-lines:])


def compile_remedy(request: CompileRequest) -> str:
    tier = request.input_file.stem
    return (
        "fix what the backend explains above (a conflicting requirement in pyproject.toml, an unreachable "
        f"index, a missing package), then run: tierlock lock {tier}"
    )


def choose(name: str, *, log: Callable[[str], None] | None = None) -> Backend:
    """The backend called *name* (``auto``, ``uv``, ``pip``/``pip-tools``), or a BackendError saying how to get it."""
    if name in ("auto", "uv"):
        uv = _find("uv")
        if uv is not None:
            return UvBackend(uv, log=log)
        if name == "uv":
            raise BackendError("the uv backend was chosen but uv is not installed", remedy=UV_REMEDY)
    if name in ("auto", "pip", "pip-tools"):
        pip_compile = _find("pip-compile")
        if pip_compile is not None:
            return PipToolsBackend(pip_compile, log=log)
        if name != "auto":
            raise BackendError(
                "the pip-tools backend was chosen but pip-compile is not installed", remedy=PIP_TOOLS_REMEDY
            )
        from tierlock import selfinstall

        raise BackendError(selfinstall.NO_LOCK_BACKEND, remedy=selfinstall.no_lock_backend_remedy())
    raise UsageError(f"unknown backend {name!r}; choose auto, uv or pip", remedy="tierlock lock --backend uv")


def python_version_for(requires_python: str | None, known: Sequence[int] = tuple(range(8, 30))) -> str | None:
    """The lowest ``3.X`` that *requires-python* allows (what a universal lock targets)."""
    if not requires_python:
        return None
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import Version

    try:
        spec = SpecifierSet(requires_python)
    except InvalidSpecifier:
        return None
    for minor in known:
        for micro in range(30):
            if spec.contains(Version(f"3.{minor}.{micro}"), prereleases=True):
                return f"3.{minor}" if micro == 0 else f"3.{minor}.{micro}"
    return None
