"""uv and pip behind one small interface.

Both install exact ``name==version --hash=...`` lines from a temporary
requirements file, always with ``--no-deps`` and hash checking, and repair by
forcing a reinstall of just the named packages. The user's own pip/uv
configuration (indexes, find-links, certificates, proxies) applies: the
environment is passed through untouched.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal, Protocol

from tierlock import scratch, subproc
from tierlock.environment import Target
from tierlock.errors import BackendError, UsageError
from tierlock.frozen import Frozen

BackendName = Literal["uv", "pip"]
#: Overrides where tierlock looks for the uv executable.
UV_ENV = "TIERLOCK_UV"
#: ``no_build`` meaning every package: wheels only.
ALL = ":all:"


class Backend(Protocol):
    """An installer that puts exact pins into a target environment."""

    @property
    def name(self) -> BackendName: ...

    def version(self) -> str: ...

    def install_argv(
        self, target: Target, requirements: Path, *, reinstall: Sequence[str], no_build: Sequence[str] = ()
    ) -> list[str]:
        """The install command; *no_build*: the packages that must come from wheels (``[ALL]``: every one)."""
        ...

    def uninstall_argv(self, target: Target, names: Sequence[str]) -> list[str]: ...

    def local_argv(
        self, target: Target, folders: Sequence[tuple[Path, bool, str]], options: Sequence[str]
    ) -> list[str]:
        """Install packages from their folders ((folder, editable, name) each), ``--no-deps``."""
        ...


def _folders(folders: Sequence[tuple[Path, bool, str]]) -> list[str]:
    out: list[str] = []
    for folder, editable, _name in folders:
        out += ["-e", str(folder)] if editable else [str(folder)]
    return out


class UvBackend(Frozen):
    """uv, run as its executable *executable* (a :class:`~tierlock.frozen.Frozen` value, as every class an arming
    loads beside its backend: building a dataclass there cost the backend's cores its CPU)."""

    _fields = ("executable", "name")

    executable: Path
    name: BackendName

    def __init__(self, executable: Path, name: BackendName = "uv") -> None:
        self._init(executable, name)

    def version(self) -> str:
        from tierlock.distversion import installed_version

        installed = installed_version(str(self.executable), "uv")
        if installed is not None:
            return installed
        out = subproc.run([self.executable, "--version"], what="uv --version").stdout.split()
        return out[1] if len(out) > 1 else "?"

    def install_argv(
        self, target: Target, requirements: Path, *, reinstall: Sequence[str], no_build: Sequence[str] = ()
    ) -> list[str]:
        argv = [str(self.executable), "pip", "install", "--python", str(target.python)]
        argv += ["--no-deps", "--require-hashes", "-r", str(requirements)]
        for name in reinstall:
            argv += ["--reinstall-package", name]
        if reinstall:
            # A repair reads nothing from uv's cache: uv hard-links the files it installs to its cache's, so a file
            # damaged in place (``cp -p`` or ``dd`` over it) damaged the cache's too, and a reinstall from there
            # (a wheel of a --find-links folder is never fetched again) brought the same damage back.
            argv.append("--no-cache")
        if ALL in no_build:
            argv.append("--no-build")
        else:
            for name in no_build:
                argv += ["--only-binary", name]
        return argv

    def uninstall_argv(self, target: Target, names: Sequence[str]) -> list[str]:
        return [str(self.executable), "pip", "uninstall", "--python", str(target.python), *names]

    def local_argv(
        self, target: Target, folders: Sequence[tuple[Path, bool, str]], options: Sequence[str]
    ) -> list[str]:
        argv = [str(self.executable), "pip", "install", "--python", str(target.python), "--no-deps", *options]
        for _folder, _editable, name in folders:  # rebuilt even when uv finds the same version there
            argv += ["--reinstall-package", name]
        return argv + _folders(folders)


class PipBackend(Frozen):
    """pip: the target's own pip when it has one, else this interpreter's pip run by the target.

    Without a pip of its own, the target runs this interpreter's pip through
    pip's ``__pip-runner__.py`` - exactly what ``pip --python TARGET`` does
    after starting a first pip in this interpreter only to re-run itself
    there (that first start costs a quarter of a second). With an older pip
    that has no runner, ``python -m pip --python TARGET``.
    """

    _fields = ("python", "target_flag", "name", "sites", "runner")

    python: Path
    """The interpreter that runs pip."""
    target_flag: bool
    """Whether pip runs from outside the target (``pip --python TARGET``)."""
    name: BackendName

    sites: tuple[Path, ...]
    """The site folders of the interpreter that runs pip (to read pip's version without starting it)."""
    runner: Path | None
    """pip's ``__pip-runner__.py`` when the target runs this interpreter's pip."""

    def __init__(
        self,
        python: Path,
        target_flag: bool,
        name: BackendName = "pip",
        sites: tuple[Path, ...] = (),
        runner: Path | None = None,
    ) -> None:
        self._init(python, target_flag, name, sites, runner)

    def _pip(self, target: Target) -> list[str]:
        if self.runner is not None:
            return [str(target.python), str(self.runner)]
        argv = [str(self.python), "-m", "pip"]
        if self.target_flag:
            argv += ["--python", str(target.python)]
        return argv

    def version(self) -> str:
        for site in self.sites:
            for info in sorted(site.glob("pip-*.dist-info")):
                return info.name[len("pip-") : -len(".dist-info")]
        return "?"

    def install_argv(
        self, target: Target, requirements: Path, *, reinstall: Sequence[str], no_build: Sequence[str] = ()
    ) -> list[str]:
        argv = self._pip(target)
        argv += ["install", "--disable-pip-version-check", "--no-deps", "--require-hashes", "-r", str(requirements)]
        if no_build:
            argv += ["--only-binary", ALL if ALL in no_build else ",".join(no_build)]
        if reinstall:
            # Every line of the file is about to change anyway; forcing makes repairs reinstall.
            argv.append("--force-reinstall")
        return argv

    def uninstall_argv(self, target: Target, names: Sequence[str]) -> list[str]:
        return [*self._pip(target), "uninstall", "--disable-pip-version-check", "-y", *names]

    def local_argv(
        self, target: Target, folders: Sequence[tuple[Path, bool, str]], options: Sequence[str]
    ) -> list[str]:
        argv = [*self._pip(target), "install", "--disable-pip-version-check", "--no-deps", *options]
        return argv + _folders(folders)


def find_uv() -> Path | None:
    """uv from ``$TIERLOCK_UV``, else beside this interpreter, else on PATH."""
    override = os.environ.get(UV_ENV)
    if override:
        path = Path(override)
        return path if path.is_file() and os.access(path, os.X_OK) else None
    sibling = Path(sys.executable).parent / "uv"
    if sibling.is_file():
        return sibling
    found = shutil.which("uv")
    return Path(found) if found else None


def _has_pip(folders: Sequence[Path]) -> bool:
    return any((folder / "pip" / "__init__.py").is_file() for folder in folders)


def own_pip_sites(version: Sequence[int] | None = None) -> tuple[Path, ...]:
    """The site folders of this interpreter when pip is installed there (else empty); with *version*, only when
    that pip runs on a Python of that version (:func:`pip_runs_on`): it runs in the target, not in tierlock's
    interpreter."""
    own = tuple(Path(p) for p in sys.path if p and Path(p).is_dir() and "site-packages" in p)
    if not _has_pip(own) or (version is not None and not pip_runs_on(own, version)):
        return ()
    return own


def pip_requires_python(sites: Sequence[Path]) -> str:
    """The ``Requires-Python`` of the pip installed in *sites* ("" when it says none or cannot be read)."""
    from tierlock.probing.metadata import headers

    for site in sites:
        for info in sorted(site.glob("pip-*.dist-info")):
            return next(iter(headers(str(info / "METADATA"), "Requires-Python")), "")
    return ""


def pip_runs_on(sites: Sequence[Path], version: Sequence[int]) -> bool:
    """Whether the pip in *sites* runs on a Python of *version* (its ``Requires-Python``; unreadable: it does)."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    spec = pip_requires_python(sites)
    try:
        return SpecifierSet(spec).contains(".".join(str(v) for v in version[:3]), prereleases=True)
    except InvalidSpecifier:
        return True


def find_pip(target: Target) -> PipBackend | None:
    """The target's own pip, else this interpreter's pip when it runs on the target's Python; None: neither."""
    if _has_pip(target.site_paths):
        return PipBackend(python=target.python, target_flag=False, sites=target.site_paths)
    own = own_pip_sites(target.version)
    if own:
        runner = next(
            (f / "pip" / "__pip-runner__.py" for f in own if (f / "pip" / "__pip-runner__.py").is_file()), None
        )
        return PipBackend(python=Path(sys.executable), target_flag=True, sites=own, runner=runner)
    return None


def choose(preference: str, target: Target) -> Backend:
    """The backend for *preference* (``auto``, ``uv`` or ``pip``), or BackendError when it is missing."""
    if preference not in ("auto", "uv", "pip"):
        raise UsageError(f"unknown backend {preference!r}; choose auto, uv or pip", remedy="pass --backend uv")
    if preference in ("auto", "uv"):
        uv = find_uv()
        if uv is not None:
            return UvBackend(uv)
        if preference == "uv":
            where = f"${UV_ENV}={os.environ[UV_ENV]}" if os.environ.get(UV_ENV) else "beside python or on PATH"
            raise BackendError(
                f"the uv backend was requested but uv is not installed ({where}); nothing was installed",
                remedy="pip install uv, or pass --backend pip",
            )
    pip = find_pip(target)
    if pip is not None:
        return pip
    own = own_pip_sites()
    if own:
        python = ".".join(str(v) for v in target.version)
        raise BackendError(
            f"the pip beside tierlock (pip {PipBackend(Path(sys.executable), True, sites=own).version()}, "
            f"Requires-Python {pip_requires_python(own)}) does not run on Python {python} of {target.prefix}, "
            "which has no pip of its own"
            + ("" if preference == "pip" else ", and uv is not installed")
            + "; nothing was installed",
            remedy=f"{shlex.quote(str(target.python))} -m ensurepip",
        )
    raise BackendError(
        f"no installer backend: uv is not installed and pip is neither in {target.prefix} nor beside tierlock; "
        "nothing was installed",
        remedy="pip install uv (or install pip into the target environment)",
    )


def execute(
    backend: Backend,
    target: Target,
    lines: Sequence[str],
    *,
    reinstall: Sequence[str],
    no_build: Sequence[str] = (),
    log: Callable[[str], None] | None = None,
    on_line: Callable[[str], None] | None = None,
    fresh: bool = False,
) -> subproc.Result:
    """Run the backend on *lines* (a temporary requirements file); :class:`InstallFailed` on failure.

    *no_build*: packages that must come from wheels (``[ALL]``: every one). *on_line*
    sees each line the backend prints, as it prints it. *fresh*: the plan installs every package
    (none was found in the target), so the command may be kept for an early start
    (:mod:`tierlock.armrecord`); a backend started early that runs exactly this command is taken over
    (:mod:`tierlock.earlyarm`).
    """
    watching = sys.modules.get("tierlock.armrecord")  # an install whose plan may be kept: its reads end here
    recorded = watching is not None and watching.watching()
    end_recording()
    data = ("\n".join(lines) + "\n").encode("utf-8")
    what = f"{backend.name} install into {target.prefix}"
    early = sys.modules.get("tierlock.earlyarm")  # a backend started early: taken over when it runs this
    taken = None
    if early is not None and not recorded:  # its very command: no requirements file of the install's own
        taken = early.take(
            lambda path: backend.install_argv(target, Path(path), reinstall=reinstall, no_build=no_build), data
        )
    if taken is not None:
        argv, started = taken
        _before_verification(target)  # it runs already: what the verification after it loads, loaded while it runs
        return _succeeded(what, subproc.run(argv, what=what, log=log, check=False, on_line=on_line, started=started))
    with scratch.scratch_dir("tierlock-install-") as tmp:
        requirements = tmp / "requirements.txt"
        requirements.write_bytes(data)
        argv = backend.install_argv(target, requirements, reinstall=reinstall, no_build=no_build)
        if watching is not None:
            watching.capture(argv, str(requirements), data, str(target.prefix), fresh=fresh, backend=backend.name)
        started = early.adopt(argv, str(requirements)) if early is not None else None
        if started is not None:
            _before_verification(target)
        # The backend's own temporary folders (pip's pip-install-*, a build's) made inside this one: a backend killed
        # before it could remove them (a second interrupt cuts its grace short) leaves nothing behind either.
        own = tmp / "tmp"
        own.mkdir()
        env = None if started is not None else {**os.environ, "TMPDIR": str(own)}
        result = subproc.run(argv, what=what, log=log, check=False, on_line=on_line, started=started, env=env)
        return _succeeded(what, result)


def end_recording() -> None:
    """What the install reads from here on is not part of its kept plan (:func:`tierlock.armrecord.pause`): called
    before anything starts beside the backend (its version asked in a thread), which the plan must neither rest on
    nor be refused for (a process that thread started before the backend step was a plan never kept)."""
    watching = sys.modules.get("tierlock.armrecord")
    if watching is not None:
        watching.pause()


def _succeeded(what: str, result: subproc.Result) -> subproc.Result:
    """*result* of the backend's install; :class:`InstallFailed` when it failed."""
    if result.returncode != 0:
        raise failure(
            what,
            result,
            remedy="fix the cause shown above, then run the same install-tier command again "
            "(what was installed stays; the rerun completes it)",
        )
    return result


def _before_verification(target: Target) -> None:
    """Load what the verification runs after the backend: its modules (the library check's: 2-4 ms of imports) and
    the library verdicts kept for the target's site folders (:func:`tierlock.probing.libraries.preload`: read again
    after it only when their files changed). Beside a backend started early, tierlock waits for it anyway; after it,
    they would add to the arming's time."""
    import tierlock.installer.inventory
    import tierlock.probing.distribution
    import tierlock.probing.filechecks
    import tierlock.probing.libremedy
    import tierlock.probing.relied  # noqa: F401 (the receipt's rows)
    from tierlock.probing import libraries

    libraries.preload([str(p) for p in target.site_paths], str(target.python))


class InstallFailed(BackendError):
    """The backend failed to install (exit 3); :attr:`output` is everything it printed (for the diagnosis)."""

    output: str = ""


#: Lines of uv's and pip's output that name why an install failed (the rest is context: hash lists, progress).
_CAUSE = (  # compiled (and cached by re) at its first use: only a failed run reads it
    r"(?i)(^\s*(error|caused by|hint)\b|hash mismatch|do not match the hashes|no matching distribution"
    r"|could not find a version|no solution found|conflict|resolutionimpossible|because .* (depends|requires)"
    r"|failed to |is not available|not found in|permission denied|read-only file system|no space left"
    r"|expected sha\d+|got\s+[0-9a-f]{16,}|^\s+\S+==\S+ from )"
)
_PIN = r"`?([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s`:,]+)"
MAX_CAUSES = 12


def causes(output: str) -> list[str]:
    """The lines of *output* that say why the backend failed, in order, without duplicates (at most 12)."""
    found: list[str] = []
    for raw in output.splitlines():
        line = " ".join(raw.split())
        if line and re.search(_CAUSE, raw) and line not in found:
            found.append(line)
    if len(found) > MAX_CAUSES:
        found = [*found[: MAX_CAUSES - 1], f"... and {len(found) - MAX_CAUSES + 1} more line(s) (run with -v)"]
    return found


def failure(what: str, result: subproc.Result, *, remedy: str) -> InstallFailed:
    """The error of a failed backend run: its cause lines first (from the whole output), then the tail."""
    from tierlock.errors import Problem

    found = [subproc.redact(c) for c in causes(result.stdout + "\n" + result.stderr)]
    named = next(((c, m) for c in found if (m := re.search(_PIN, c))), None)
    pin = named[1] if named else None
    first = f": {found[0]}" if found else ""
    if named is not None and named[0] != found[0]:
        first += f" - {named[0]}"  # the line naming the package, when the first one does not
    error = InstallFailed(
        f"{what} failed (exit {result.returncode}){first}; command: {subproc.display(result.argv)}",
        package=pin.group(1) if pin else None,
        problems=[Problem(c) for c in found],
        detail=subproc.redact(result.tail()),
        remedy=remedy,
    )
    error.output = result.stdout + "\n" + result.stderr
    return error


def uninstall(
    backend: Backend, target: Target, names: Sequence[str], *, log: Callable[[str], None] | None = None
) -> subproc.Result:
    return subproc.run(
        backend.uninstall_argv(target, names),
        what=f"{backend.name} uninstall from {target.prefix}",
        remedy="fix the cause shown above, then run the same tierlock remove command again",
        log=log,
    )
