"""The console scripts ``tierlock`` and ``install-tier``: the no-op fast path first, then the CLI.

A second ``install-tier brain`` on an armed environment should cost little
more than starting the interpreter. So, before ``argparse`` and before
:mod:`tierlock.cli` (which imports every command module), :func:`tierlock.fastinstall.fast_install`
reads the arguments of a plain ``install`` by hand and asks
:mod:`tierlock.installer.fastpath` whether the receipts in the target still
hold. Only ``os``, ``sys`` and the C parts of ``json`` and ``sha256`` are
loaded, and no process is started. Anything else - another command, an option
it does not know (``-v``, ``--dry-run``, ``--help``, abbreviations), a receipt
that does not match - goes to :func:`tierlock.cli.main`, which parses
everything again and decides in full.

The read-only commands (``check``, ``probe``, ``status``, ``admit``) are
answered from what an earlier run kept when everything it looked at is
unchanged (:mod:`tierlock.keptrun`); otherwise they run in full, recorded
(:mod:`tierlock.keptrecord`).
"""

from __future__ import annotations

import sys

from tierlock.exitcodes import EXIT_INTERRUPTED

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import ModuleType
    from typing import NoReturn


def _fast(argv: Sequence[str], *, command: bool) -> int | None:
    """:func:`fast_install` with SIGTERM made an interrupt; an interrupt exits 130 with one message."""
    from tierlock import interrupts

    interrupts.install()
    if command and "install" not in argv:
        return None  # (no ``install`` among the words: not one the fast path reads, and its module not loaded)
    from tierlock.fastinstall import fast_install

    try:
        return fast_install(argv, command=command)
    except KeyboardInterrupt:
        return _interrupted(argv, "tierlock" if command else "install-tier")


def _interrupted(argv: Sequence[str], prog: str, *, started: bool = False) -> int:
    """Exit 130 with one message naming the command to run again (*started*: a backend had started)."""
    from tierlock import interrupts
    from tierlock.errors import Interrupted
    from tierlock.output import UI

    done = (
        "a backend that was running had a grace period to stop; the same command again repairs what is half-installed"
        if started
        else "nothing was changed"
    )
    err = Interrupted(f"interrupted ({interrupts.name()}); {done}", remedy=interrupts.rerun(prog, argv))
    UI(json_mode="--json" in argv).error(err)
    return err.exit_code


def _exit(code: int) -> NoReturn:
    """End the process with *code* after flushing stdout and stderr, without the interpreter's teardown.

    Freeing every module at exit costs about 20 ms of a one-shot command; by
    now every file tierlock wrote is closed (context managers) and no thread of
    it has work left. Under ``coverage`` the normal exit runs (it writes its data at exit).
    """
    if "coverage" in sys.modules:
        sys.exit(code)
    import _signal  # type: ignore[import-not-found,unused-ignore]  # (the C module, built in: ``signal`` loads enum)

    # the answer is given: an interrupt from here on waits, unseen, for the end (os._exit drops it), so that neither
    # a cache file half written (its temporary file left) nor the output half flushed (a traceback instead) is left:
    # noted only by tierlock's handler (whichever thread the system gave it to), blocked under any other
    interrupts = sys.modules.get("tierlock.interrupts")
    if interrupts is not None:
        interrupts.close()
    if hasattr(_signal, "pthread_sigmask"):  # (POSIX)
        _signal.pthread_sigmask(_signal.SIG_BLOCK, [_signal.SIGINT, _signal.SIGTERM])
    for kept in ("tierlock.probing.libraries", "tierlock.probing.distcache", "tierlock.lockfiles.keptparse"):
        module = sys.modules.get(kept)
        if module is not None:  # what this run learnt (written at exit; os._exit skips atexit)
            try:
                module.save_all()
            except KeyboardInterrupt:  # an interrupt as the process ends: its answer stands, the caches wait
                break
    import os

    for stream in (sys.stdout, sys.stderr):
        try:  # noqa: SIM105 (contextlib is an import more on the fast path)
            stream.flush()
        except (OSError, ValueError):  # a reader that left (`| head`), or a closed stream
            pass
    for kept in ("tierlock.codebundle", "tierlock.keptpatterns"):  # the code this run loaded from its files, and the
        if kept in sys.modules:  # regular expressions it compiled, kept for the next run
            sys.modules[kept].save()
    os._exit(code)


#: The import names of the ``cli`` extra (what ``pip install tierlock`` alone, the plugin, lacks).
CLI_MODULES = ("rich", "jsonschema", "tomlkit")


def missing_cli_modules() -> list[str]:
    """The modules of the ``cli`` extra that cannot be found here, found without importing them (nor
    ``importlib.util``: the finders on :data:`sys.meta_path` are asked directly)."""
    return [name for name in CLI_MODULES if name not in sys.modules and not any(_finds(f, name) for f in sys.meta_path)]


def _finds(finder: object, name: str) -> bool:
    """Whether *finder* finds *name*; the bundle's finder is not asked (:mod:`tierlock.codebundle`: it gives a spec
    only for a module the finders after it would find, and asks them for any other)."""
    find_spec = getattr(finder, "find_spec", None)
    if find_spec is None or getattr(finder, "__module__", None) == "tierlock.codebundle":
        return False
    return find_spec(name, None) is not None


def _cli(argv: list[str], prog: str | None = None) -> int:
    """:func:`tierlock.cli.main`, or exit 2 naming the command that installs the CLI's dependencies.

    ``pip install tierlock`` alone is the pytest plugin (packaging is all it needs); the no-op fast path
    above works there too, everything else needs the ``cli`` extra.
    """
    missing = missing_cli_modules()
    if missing:
        from tierlock.output import UI
        from tierlock.selfinstall import missing_cli_error

        err = missing_cli_error(missing)
        UI(json_mode="--json" in argv, plain=True).error(err)  # plain: rich may be what is missing
        return err.exit_code
    from tierlock.cli import main

    return main(argv) if prog is None else main(argv, prog=prog)


def _kept(argv: list[str]) -> int:
    """A read-only command (check, probe, status, admit): its kept answer when everything it rests on is
    unchanged (:mod:`tierlock.keptrun`), else :func:`_cli`, recorded so the next run can be answered so.

    The cyclic garbage collector is off from here to the end of a read-only command: it builds its answer
    and ends (no cycle worth collecting; a recorded run holds it off anyway, :mod:`tierlock.collector`), and
    its collections while the modules load cost a full run ~1 ms (any other command gets it back at once)."""
    import gc

    gc.disable()
    from tierlock import keptfirst

    if keptfirst.command_word(argv) == "lock":  # (its compiles start before keptrun loads: tierlock.lockkept)
        gc.enable()
        from tierlock import lockkept

        return _lock(argv) if lockkept.is_lock(argv) else _cli(argv)
    from tierlock import keptrun

    if (command := keptrun.command_of(argv)) is None:
        gc.enable()
        return _cli(argv)
    try:
        code = keptrun.replay(argv)
    except KeyboardInterrupt:
        return _interrupted(argv, "tierlock")
    if code is not None:
        return code
    _bundled(command)  # (the rest of the modules from one file, before the run is recorded)
    from tierlock.lightpathlib import light_pathlib

    light_pathlib()  # (no thread of tierlock's runs yet: none can meet the stand-in)
    from tierlock import keptrecord

    return keptrecord.run(argv, lambda: _cli(argv))


def _bundled(command: str) -> None:
    """*command*'s modules served from its code bundle (:mod:`tierlock.codebundle`) and the regular expressions
    they compile from the patterns kept beside it (:mod:`tierlock.keptpatterns`)."""
    from tierlock import codebundle

    codebundle.install(command)
    from tierlock import keptpatterns  # (after: ``re`` and what it loads come from the bundle)

    keptpatterns.install(codebundle.path_of(command))


def _lock(argv: list[str]) -> int:
    """``tierlock lock``: its kept answer when nothing it read changed and its uv compiles write what they
    wrote (:mod:`tierlock.lockkept`), else :func:`_cli`, recorded so the next run can be answered so."""
    from tierlock import lockkept

    try:
        code = lockkept.replay(argv)
    except KeyboardInterrupt:
        return _interrupted(argv, "tierlock")
    if code is not None:
        return code
    _bundled("lock")
    from tierlock import lockrecord

    return lockrecord.run(argv, lambda: _cli(argv))


def version(argv: Sequence[str]) -> int | None:
    """``tierlock --version`` (alone, or with ``--json``): printed before anything else is imported; else None.

    The answer is the one :func:`tierlock.cli.main` gives for the same arguments (``tierlock VERSION``, or
    with ``--json`` one JSON document); any other argument goes there.
    """
    if "--version" not in argv or not set(argv) <= {"--version", "--json"}:
        return None
    from tierlock._version import __version__

    if "--json" in argv:
        sys.stdout.write('{"ok": true, "version": "%s"}\n' % __version__)  # noqa: UP031 (json costs an import)
    else:
        sys.stdout.write(f"tierlock {__version__}\n")
    return 0


def tierlock() -> NoReturn:
    """The ``tierlock`` console script."""
    code = version(sys.argv[1:])
    if code is not None:
        _exit(code)
    try:
        code = _tierlock(sys.argv[1:])
    except KeyboardInterrupt:  # a signal while a command's modules load, before the command's own handling of one
        code = _interrupted(sys.argv[1:], "tierlock")
    _exit(code)


def _tierlock(argv: list[str]) -> int:
    code = _fast(argv, command=True)
    if code is None and "verified" in argv:  # the gate a pre-push hook calls: no argparse, no CLI
        from tierlock.evidence.fastgate import fast

        code = fast(argv)
    if code is None and argv[:1] == ["install"]:
        code = _arm(argv[1:], argv)
    if code is None:
        code = _kept(argv)
    return code


def _arm(tail: list[str], argv: list[str], prog: str | None = None) -> int:
    """:func:`_cli` for an install (*tail*: its arguments after the command): with its backend started early
    from a kept plan (:mod:`tierlock.earlyarm`) when one holds, else recorded so that the next one may be."""
    from tierlock.fastinstall import parse_install  # (loaded already: the no-op check came first)

    args = parse_install(tail, command=False)
    if args is None or args.system:
        return _collected(argv, prog)
    from tierlock.armplan import eligible

    if not eligible(tail):
        return _collected(argv, prog)
    from tierlock.collector import Paused

    with Paused():  # the arming builds ~10^5 objects and no cycle worth collecting (tierlock.collector)
        return _armed(tail, argv, prog)


def _collected(argv: list[str], prog: str | None) -> int:
    """:func:`_cli` with the cyclic garbage collector on (``install-tier`` holds it off from its start: an install
    the early start cannot serve gets it back)."""
    import gc

    if not gc.isenabled():
        from tierlock.collector import back

        back()
    return _cli(argv, prog)


def _armed(tail: list[str], argv: list[str], prog: str | None) -> int:
    """:func:`_arm` past its checks, the cyclic garbage collector held off: beside an early backend its
    collections took ~20 ms of CPU from the backend's cores an arming of 10,000 files, and ~1.5 ms after it."""
    from tierlock import earlyarm

    try:
        early = earlyarm.start(tail)
        if early is not None:
            _bundled("install")
        recording = _recording() if early is None else None
        code = _cli(argv, prog)
        earlyarm.finish(code)  # (an early backend nobody took over is waited for: an interrupt may land there)
    except KeyboardInterrupt:  # before the command's own handling of it: the early backend gets its grace
        started = earlyarm.current is not None
        earlyarm.finish(EXIT_INTERRUPTED)  # (a second signal meanwhile is noted only: tierlock.interrupts)
        return _interrupted(tail if prog else argv, prog or "tierlock", started=started)
    except BaseException:  # anything else out of the command: an early backend is not left running, nor its file
        earlyarm.finish(EXIT_INTERRUPTED)
        raise
    if recording is not None:
        recording.end(tail, code)
    return code


def _recording() -> ModuleType:
    """:mod:`tierlock.armrecord`, watching this install from now on."""
    from tierlock import armrecord

    armrecord.begin()
    return armrecord


def install_tier() -> NoReturn:
    """The ``install-tier`` console script: exactly ``tierlock install``. The cyclic garbage collector is off from its
    start: its passes over what the no-op check and the early start's plan load cost ~0.5 ms before the backend is
    spawned (:func:`_arm` gives it back to an install the early start cannot serve)."""
    import gc

    gc.disable()
    try:
        code = _fast(sys.argv[1:], command=False)
        if code is None:
            code = _arm(sys.argv[1:], ["install", *sys.argv[1:]], prog="install-tier")
    except KeyboardInterrupt:  # a signal while the command's modules load, before the command's own handling of one
        code = _interrupted(sys.argv[1:], "install-tier")
    _exit(code)
