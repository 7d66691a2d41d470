"""The read-only commands as whole processes, side by side with the bare interpreter and ``uv pip check``.

On a generated 3-tier project (base, ``brain`` with compiled-extension files, ``viz``; 19 packages, all
armed in one environment, offline), each of these in a fresh process, the runs interleaved so a change in
the machine's load hits every side alike, medians printed with the ratio against the goals:

* ``tierlock --version`` vs ``python -c pass`` (goal: at most 2x the bare interpreter);
* ``tierlock check``, ``admit``, ``probe`` and ``status`` (``--python`` the armed environment) vs
  ``python -c pass`` (goal: each at most 5x) and vs ``uv pip check --python`` (for scale).

Each command's second and later runs find the facts an earlier run kept (``$TIERLOCK_CACHE_DIR``, here a
folder of the benchmark's own): that is the every-keystroke case. ``--cold`` empties it before every run.
``--baseline SRC`` also runs another tierlock's sources (``git archive REV src | tar -x -C DIR`` gives
``DIR/src``) through ``python -c`` on ``PYTHONPATH`` beside this checkout's, for a before/after in one run.

``--edited test`` rewrites one test file with a small real change (the asserted value, on its line) before
every run, every other cache warm: the run a hook or an editor starts right after the user saved a test file.
``--edited test-lines`` appends a line to the file's last test instead (the file's facts change, the census's
result does not: the census is worked out again from the kept facts); ``--edited test-added`` appends a new
test (the census's result names every test: the command runs in full); ``--edited pyproject`` changes a
setting in pyproject.toml that no answer rests on (a linter's line length, in a table of its own: the kept
answer holds once the file's parts are read again, :mod:`tierlock.projectparts`); ``--edited pyproject-deps``
widens a dependency's specifier instead (the first ``>=`` of ``[project.optional-dependencies]`` lowered to
``0.N``: the lock no longer matches, and the command runs in full).

With ``--cold`` or ``--edited pyproject-deps`` (a full run: the command works its answer out again) a floor runs
in the same rounds: an interpreter that imports exactly what a full run cannot do without, as tierlock
does (the garbage collector off, the end without teardown), :data:`FLOOR_IMPORTS`. Printed: the floor's own ratio to
``python -c pass`` (the 5x goal is within reach only when the floor is below it), and each command's ratio to
the floor with its margin in ms (the median of the per-round differences): what tierlock itself adds.

With ``--cold`` a second floor runs too, :data:`FLOOR_COLD`: the floor with the target interpreter asked beside it,
as a run that keeps nothing must ask it (started first, read at the end).

``--cpu`` times each run by the CPU time (user + system) of the process and its children instead of the wall
clock: on a machine whose cores other work keeps busy, the wall time is mostly waiting for a core, and the CPU time
is what the command itself costs (a lower bound of its wall time on an idle machine).

``--project DIR --python PY`` runs the four commands on a real project instead (its armed environment's
interpreter as ``--python``), beside ``python -c pass``, against the goal of at most 150 ms each.

Run: ``.venv/bin/python benchmarks/bench_cli.py [--runs N] [--cold | --edited KIND] [--baseline DIR/src]`` or
``... --project DIR --python PY [--runs N] [--cold | --edited KIND] [--test-file REL] [--baseline DIR/src]``.
"""

from __future__ import annotations

import argparse
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.kept import backdate

from benchmarks._cliworld import BIN, REPO, environ, interleaved, load, make_world, ratio_line, run

COMMANDS = ("check", "admit", "probe", "status")
EDITS = ("test", "test-lines", "test-added", "pyproject", "pyproject-deps")
#: A ``>=`` specifier's version (what ``--edited pyproject-deps`` lowers).
LOWER_BOUND = re.compile(r">=\s*[0-9][0-9A-Za-z.]*")


class Editor:
    """Makes one small real change before every run: *kind* ``test`` rewrites the asserted value of the last
    ``assert`` of *test_file* on its own line (a new value each time), ``test-lines`` appends a line to its
    last test, ``test-added`` appends a test, ``pyproject`` sets a new ``line-length`` in a
    ``[tool.example-linter]`` table of *pyproject* (no dependency), ``pyproject-deps`` lowers the first ``>=``
    of its ``[project.optional-dependencies]`` to ``0.N`` (a specifier widened)."""

    def __init__(self, kind: str, test_file: Path, pyproject: Path) -> None:
        self.kind = kind
        self.path = pyproject if kind.startswith("pyproject") else test_file
        self.original = self.path.read_bytes()
        self.count = 0

    def __call__(self) -> None:
        self.count += 1
        text = self.original.decode("utf-8")
        if self.kind == "pyproject":
            text += f"\n[tool.example-linter]\nline-length = {100 + self.count}\n"
        elif self.kind == "pyproject-deps":
            found = LOWER_BOUND.search(text, max(text.find("[project.optional-dependencies]"), 0))
            if found is None:
                raise SystemExit(f"{self.path} has no >= specifier to widen")
            text = f"{text[: found.start()]}>=0.{self.count}{text[found.end() :]}"
        elif self.kind == "test-lines":
            text += f"    assert {self.count} == {self.count}\n"
        elif self.kind == "test-added":
            text += f"\n\ndef test_added_{self.count}():\n    assert {self.count} == {self.count}\n"
        else:
            lines = text.splitlines(keepends=True)
            last = max(i for i, line in enumerate(lines) if line.lstrip().startswith("assert "))
            end = "\n" if lines[last].endswith("\n") else ""
            lines[last] = f"{lines[last].rstrip()} or {self.count} == -{self.count}{end}"
            text = "".join(lines)
        self.path.write_text(text, encoding="utf-8")

    def restore(self) -> None:
        self.path.write_bytes(self.original)

    def expected(self, argv: Sequence[str | Path], env: dict[str, str], before: int) -> int:
        """The exit code of *argv* after an edit (a widened specifier: the lock no longer matches), *before*
        for the other kinds; the file is put back, dated back, after."""
        if self.kind != "pyproject-deps":
            return before
        self()
        try:
            return subprocess.run(_strs(argv), env=env, capture_output=True, check=False).returncode
        finally:
            self.restore()
            backdate(self.path)


ENTRY = "import sys; from tierlock._entry import tierlock; tierlock()"
#: What a full run of check, admit, probe or status cannot do without, imported by the floor: the parser of
#: pyproject.toml (``tomllib``: the tiers, their requirements and the lock settings are read from it); packaging's
#: requirement parser (``packaging.requirements``, with the markers, specifiers, versions and tags it loads: the
#: tier model and the drift check rest on parsed requirements, and the project's rules forbid parsing them any
#: other way); ``json`` (the target interpreter's facts, ``--json``, the kept records). Not in it: ``pathlib``,
#: ``argparse`` and everything of tierlock's own - choices of the code, counted in its margin. The floor runs as
#: tierlock's read-only commands run: the cyclic garbage collector off while the modules load (its collections
#: there cost ~15% of the imports, and are avoidable), and the end without the interpreter's teardown
#: (``os._exit``).
FLOOR_IMPORTS = "import gc; gc.disable(); import tomllib, json, packaging.requirements, os; os._exit(0)"
#: With ``--cold``, a second floor: :data:`FLOOR_IMPORTS` with the target interpreter asked as a run that keeps nothing
#: must ask it (``python -I -c`` :data:`tierlock.targetanswer.INSPECT`, the fields every fact about the target comes
#: from), started first (``os.posix_spawn``: the earliest a run could start it) and its answer read at the end:
#: on two free cores its start-up hides behind the imports; by CPU time (``--cpu``) it is counted.
FLOOR_COLD = (
    "import gc; gc.disable(); import os; r, w = os.pipe(); "
    "pid = os.posix_spawn({python!r}, [{python!r}, '-I', '-c', {inspect!r}], os.environ,"
    " file_actions=[(os.POSIX_SPAWN_DUP2, w, 1)], setpgroup=0); os.close(w); "
    "import tomllib, json, packaging.requirements; "
    "answer = b''.join(iter(lambda: os.read(r, 65536), b'')); os.waitpid(pid, 0); os._exit(0)"
)
#: The modes whose runs are full runs (the floor is measured beside them).
FULL_EDITS = ("pyproject-deps",)
#: Whether a run is timed by its CPU time (``--cpu``) rather than its wall time.
CPU = [False]


def timed(argv: Sequence[str | Path], env: dict[str, str], expect: int = 0) -> float:
    """:func:`~benchmarks._cliworld.run`'s wall seconds, or with ``--cpu`` the CPU seconds (user + system) the
    process and its children spent: on a loaded machine the wall time is mostly waiting for a core."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = run(argv, env, expect=expect)
    if not CPU[0]:
        return wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def argv_of(command: str, project: Path, python: Path) -> list[str | Path]:
    if command == "--version":
        return ["--version"]
    target: list[str | Path] = [] if command == "check" else ["--python", python]
    return ["--project", project, command, *target]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=15, help="runs of each command (after one warm-up)")
    parser.add_argument("--cold", action="store_true", help="empty tierlock's cache folder before every run")
    parser.add_argument("--edited", choices=EDITS, help="make one small real change before every run (see above)")
    parser.add_argument("--test-file", help="with --project --edited test: the test file to edit (relative)")
    parser.add_argument("--baseline", type=Path, help="another tierlock's src folder, run beside this one")
    parser.add_argument("--project", type=Path, help="a real project (with [tool.tierlock] and its lockfiles) instead")
    parser.add_argument("--python", type=Path, help="with --project: the interpreter of its armed environment")
    parser.add_argument(
        "--cpu", action="store_true", help="time each run by its CPU time (user + system), not the wall clock"
    )
    args = parser.parse_args(argv)
    CPU[:] = [args.cpu]
    if args.project is not None:
        if args.python is None:
            parser.error("--project needs --python (the interpreter of the project's armed environment)")
        real_project(
            args.project.resolve(),
            args.python,
            args.runs,
            cold=args.cold,
            edited=args.edited,
            test=args.test_file,
            baseline=args.baseline,
        )
        return
    print(f"load average before: {load()}")
    with tempfile.TemporaryDirectory(prefix="tierlock-bench-cli-") as tmp:
        root = Path(tmp)
        project, _wheels, python, env = make_world(root)
        backdate(project, python.parent.parent)  # files as they are when not just written
        cache = Path(env["TIERLOCK_CACHE_DIR"])
        editor = Editor(
            args.edited or "test", project / "tests" / "brain" / "test_brain.py", project / "pyproject.toml"
        )

        def measure(
            argv: Sequence[str | Path], expect: int = 0, extra: dict[str, str] | None = None, *, ours: bool = True
        ) -> Callable[[], float]:
            after = expect
            if ours and args.edited:  # the answer kept on settled files, before the edits start
                after = editor.expected(argv, {**env, **(extra or {})}, expect)
                run(argv, {**env, **(extra or {})}, expect=expect)

            def once() -> float:
                if args.cold:
                    shutil.rmtree({**env, **(extra or {})}["TIERLOCK_CACHE_DIR"], ignore_errors=True)
                if ours and args.edited:
                    editor()
                return timed(argv, {**env, **(extra or {})}, expect=after)

            return once

        commands: dict[str, Callable[[], float]] = {
            "python -c pass": measure([sys.executable, "-c", "pass"], ours=False),
            "uv pip check": measure([BIN / "uv", "pip", "check", "--python", python], ours=False),
        }
        commands.update(_floors(args, python, measure))
        for command in ("--version", *COMMANDS):
            commands[command] = measure([BIN / "tierlock", *argv_of(command, project, python)])
            if args.baseline is not None:
                commands.update(_sides(command, argv_of(command, project, python), args.baseline, cache, measure))
        samples: dict[str, list[float]] = {name: [] for name in commands}
        try:
            medians = interleaved(_sampled(commands, samples), args.runs)
        finally:
            editor.restore()
    _report(medians, args)
    if _full(args):
        _floor_report(medians, samples, args)


def _floors(
    args: argparse.Namespace, python: Path, measure: Callable[..., Callable[[], float]]
) -> dict[str, Callable[[], float]]:
    """The floor of a full run (:data:`FLOOR_IMPORTS`), and with ``--cold`` the floor of a run that also asks the
    target (:data:`FLOOR_COLD`), each measured beside the commands."""
    floors: dict[str, Callable[[], float]] = {}
    if _full(args):
        floors["floor"] = measure([sys.executable, "-c", FLOOR_IMPORTS], ours=False)
    if args.cold:
        from tierlock.targetanswer import INSPECT

        cold = FLOOR_COLD.format(python=str(python), inspect=INSPECT)
        floors["cold floor"] = measure([sys.executable, "-c", cold], ours=False)
    return floors


def _full(args: argparse.Namespace) -> bool:
    """Whether every run of the commands is a full run (nothing kept, or a dependency bound changed)."""
    return bool(args.cold or args.edited in FULL_EDITS)


def _sampled(
    commands: dict[str, Callable[[], float]], samples: dict[str, list[float]]
) -> dict[str, Callable[[], float]]:
    """*commands*, each of whose runs is also noted in *samples* (the warm-up's too, dropped by the report)."""

    def noting(name: str, measure: Callable[[], float]) -> Callable[[], float]:
        def once() -> float:
            taken = measure()
            samples[name].append(taken)
            return taken

        return once

    return {name: noting(name, measure) for name, measure in commands.items()}


def _paired(ours: list[float], floor: list[float]) -> float:
    """The median of the per-round differences (ms), the warm-up round left out: what one adds to the other when
    both met the same load."""
    return statistics.median(a - b for a, b in zip(ours[1:], floor[1:], strict=True)) * 1000


def _floor_report(medians: dict[str, float], samples: dict[str, list[float]], args: argparse.Namespace) -> None:
    """Each command against the floor (:data:`FLOOR_IMPORTS`): its ratio and its margin in ms; the floor's own
    ratio to the bare interpreter."""
    bare, floor = medians["python -c pass"], medians["floor"]
    verdict = "below" if floor <= 5 * bare else "ABOVE"
    print(
        "floor (python, then import tomllib, json, packaging.requirements, as tierlock runs):"
        f" {floor * 1000:.1f} ms = {floor / bare:.2f}x python -c pass ({verdict} the 5x goal)"
    )
    for command in COMMANDS:
        ours = medians[command]
        print(
            f"  tierlock {command:<8} {ours * 1000:7.1f} ms = {ours / floor:5.2f}x the floor;"
            f" margin {_paired(samples[command], samples['floor']):+6.1f} ms (paired)"
        )
    if "cold floor" in medians:
        cold = medians["cold floor"]
        added = _paired(samples["cold floor"], samples["floor"])
        print(
            f"cold floor (the floor, the target interpreter asked beside it): {cold * 1000:.1f} ms ="
            f" {cold / bare:.2f}x python -c pass; the target adds {added:+.1f} ms (paired)"
        )
        for command in COMMANDS:
            print(
                f"  tierlock {command:<8} {medians[command] / cold:5.2f}x the cold floor;"
                f" margin {_paired(samples[command], samples['cold floor']):+6.1f} ms (paired)"
            )
    if args.baseline is not None:
        for command in COMMANDS:
            new, old = (_paired(samples[f"{command} ({side}, -c)"], samples["floor"]) for side in ("new", "old"))
            print(
                f"  margin over the floor (python -c): {command:<8} this checkout {new:+6.1f} ms"
                f"   baseline {old:+6.1f} ms"
            )


def _sides(
    command: str, argv: Sequence[str | Path], baseline: Path, cache: Path, measure: Callable[..., Callable[[], float]]
) -> dict[str, Callable[[], float]]:
    """*command* through ``python -c`` with this checkout's sources and with *baseline*'s, each with a cache folder
    of its own (what one side keeps never evicts the other's)."""
    out = {}
    for label, src in (("new", REPO / "src"), ("old", baseline)):
        code = [sys.executable, "-c", ENTRY.replace("tierlock()", f"sys.argv[1:] = {_strs(argv)!r}; tierlock()")]
        side = {"PYTHONPATH": str(src), "TIERLOCK_CACHE_DIR": f"{cache}-{label}"}
        out[f"{command} ({label}, -c)"] = measure(code, extra=side)
    return out


def _report(medians: dict[str, float], args: argparse.Namespace) -> None:
    """The 3-tier figures: each command against the bare interpreter and uv, and the baseline beside."""
    bare, uv = medians["python -c pass"], medians["uv pip check"]
    state = f"edited ({args.edited})" if args.edited else "cold" if args.cold else "warm"
    print(f"CLI latency, 3 tiers (19 packages), medians of {args.runs} runs, {state} cache")
    print(f"python -c pass {bare * 1000:.1f} ms; uv pip check {uv * 1000:.1f} ms; load average after: {load()}")
    print(
        ratio_line(
            "tierlock --version",
            medians["--version"],
            bare,
            "python -c pass",
            "<= 2x",
            within=medians["--version"] <= 2 * bare,
        )
    )
    for command in COMMANDS:
        ours = medians[command]
        print(ratio_line(f"tierlock {command}", ours, bare, "python -c pass", "<= 5x", within=ours <= 5 * bare))
        print(
            ratio_line(f"tierlock {command}", ours, uv, "uv pip check", "for scale", within=True).replace(": met", "")
        )
    if args.baseline is not None:
        print("before/after (both through python -c, PYTHONPATH to each src):")
        for command in ("--version", *COMMANDS):
            new, old = medians[f"{command} (new, -c)"], medians[f"{command} (old, -c)"]
            print(
                f"  {command:<10} this checkout {new * 1000:7.1f} ms   baseline {old * 1000:7.1f} ms"
                f"   {new / old:5.2f}x"
            )


def real_project(
    project: Path,
    python: Path,
    runs: int,
    *,
    cold: bool,
    edited: str | None = None,
    test: str | None = None,
    baseline: Path | None = None,
) -> None:
    """check, admit, probe and status on *project* (``--python`` *python*) beside ``python -c pass``
    (goal: each at most 150 ms; the ratio printed for scale). Each command's exit code is taken from a first
    run (a real project may well have a problem ``check`` reports) and every later run must give it again.
    With *edited*, *test* (a test file, relative) or pyproject.toml is changed before every run. With
    *baseline* (another tierlock's src folder), this checkout's and that one's code also run through
    ``python -c`` in the same interleaved rounds, the baseline on a copy of *project* with a cache folder of its
    own (what one side keeps - the census's cache in ``.pytest_cache``, its kept result - never evicts the
    other's)."""
    print(f"load average before: {load()}")
    editor = Editor(edited or "test", project / (test or "pyproject.toml"), project / "pyproject.toml")
    with tempfile.TemporaryDirectory(prefix="tierlock-bench-cli-real-") as tmp:
        env = environ(Path(tmp) / "uv-cache")
        cache = Path(env["TIERLOCK_CACHE_DIR"])

        def measure(
            argv: Sequence[str | Path],
            *,
            ours: bool = True,
            extra: dict[str, str] | None = None,
            editing: Editor = editor,
        ) -> Callable[[], float]:
            environ = {**env, **(extra or {})}
            own_cache = Path(environ["TIERLOCK_CACHE_DIR"])
            expect = after = subprocess.run(_strs(argv), env=environ, capture_output=True, check=False).returncode
            if ours and edited:  # kept on settled files (a first run may have written the census's cache)
                after = editing.expected(argv, environ, expect)
                time.sleep(2.1)
                run(argv, environ, expect=expect)

            def once() -> float:
                if cold:
                    shutil.rmtree(own_cache, ignore_errors=True)
                if ours and edited:
                    editing()
                return timed(argv, environ, expect=after)

            return once

        copy = Path(tmp) / "baseline" / project.name
        if baseline is not None:
            shutil.copytree(project, copy, symlinks=True)
        copied = (
            Editor(edited or "test", copy / (test or "pyproject.toml"), copy / "pyproject.toml") if baseline else editor
        )

        commands = {"python -c pass": measure([sys.executable, "-c", "pass"], ours=False)}
        for command in COMMANDS:
            commands[command] = measure([BIN / "tierlock", *argv_of(command, project, python)])
            sides = ((("new", REPO / "src", project, editor), ("old", baseline, copy, copied))) if baseline else ()
            for label, src, where, editing in sides:
                code = ENTRY.replace(
                    "tierlock()", f"sys.argv[1:] = {_strs(argv_of(command, where, python))!r}; tierlock()"
                )
                side = {"PYTHONPATH": str(src), "TIERLOCK_CACHE_DIR": f"{cache}-{label}"}  # kept results apart
                commands[f"{command} ({label}, -c)"] = measure(
                    [sys.executable, "-c", code], extra=side, editing=editing
                )
        try:
            medians = interleaved(commands, runs)
        finally:
            editor.restore()
    state = f"edited ({edited}: {editor.path.name})" if edited else "cold" if cold else "warm"
    _real_report(medians, f"CLI latency on {project.name}, medians of {runs} runs, {state} cache", baseline)


def _real_report(medians: dict[str, float], title: str, baseline: Path | None) -> None:
    """A real project's figures: each command against the goal of 150 ms, and the baseline beside."""
    bare = medians["python -c pass"]
    print(title)
    print(f"python -c pass {bare * 1000:.1f} ms; load average after: {load()}")
    for command in COMMANDS:
        ours = medians[command]
        verdict = "met" if ours <= 0.150 else "NOT met"
        print(
            f"tierlock {command:<8} {ours * 1000:8.1f} ms   {ours / bare:5.2f}x python -c pass"
            f"   (goal <= 150 ms: {verdict})"
        )
    if baseline is not None:
        print("before/after (both through python -c, PYTHONPATH to each src):")
        for command in COMMANDS:
            new, old = medians[f"{command} (new, -c)"], medians[f"{command} (old, -c)"]
            print(
                f"  {command:<10} this checkout {new * 1000:7.1f} ms   baseline {old * 1000:7.1f} ms"
                f"   {new / old:5.2f}x"
            )


def _strs(argv: Sequence[str | Path]) -> list[str]:
    return [str(a) for a in argv]


if __name__ == "__main__":
    main()
