"""Measure ``tierlock lock base`` (uv backend) against ``uv pip compile`` on the same inputs.

Uses the generated ~90-package project of bench_check (offline wheels). Both
sides compile the base tier's roots universally with hashes from the same
find-links folder with ``--upgrade`` (tierlock relocks over the lockfile its
previous run wrote, as uv over its previous output); the two take turns, and
the medians of 9 runs each (after a warm-up) are printed with the ratio and
the machine's load. Target: within 1.2x. tierlock keeps what it remembers of
its last run (the uv commands it starts before reading the project) in a
cache folder of the benchmark's own, as uv keeps its cache.

Then a no-change lock of four tiers (base; brain, vision and speech layered on
base): ``tierlock lock`` over fresh lockfiles against the same four ``uv pip
compile`` runs started one after another by hand (the base compile, then each
tier with the base lock as constraints, each over its previous output, with
the interpreter named so uv does not search for one). Target: within 1.2x.

For scale it also prints two floors: the one no Python front end can go below, an
interpreter that only starts the same ``uv pip compile`` (``os.posix_spawn``) and
waits for it; and what a lock that works its answer out needs before uv can start,
the interpreter importing the CLI frame, ``tomllib``, ``subprocess``, ``tempfile``
and ``packaging.requirements`` (which the tier model parses requirements with).

``--baseline SRC`` also locks the small input through another tierlock's sources
(``git archive REV src | tar -x -C DIR`` gives ``DIR/src``) and through this
checkout's, both by ``python -c`` on ``sys.path``, interleaved with the rest: a
before/after of tierlock's own cost in one run (the paired medians: each round's
own difference, which the load shared by the round cancels out of).

Run: ``.venv/bin/python benchmarks/bench_lock.py [--multi] [--baseline DIR/src] [--repeat N]``.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._lockbench import BIN, REPO, interleaved_samples, load, make_project, run

FLOOR_IMPORTS = "import tierlock.cli, tomllib, subprocess, tempfile, packaging.requirements"
#: A Python front end that does nothing but start its argv and wait for it.
SPAWN_ONLY = "import os, sys; os.waitpid(os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ), 0)"
#: ``tierlock`` as the console script runs it, from the sources named by the first argument.
_ENTRY = (
    "import sys; sys.argv[0] = 'tierlock'; sys.path.insert(0, sys.argv.pop(1)); "
    "from tierlock._entry import tierlock; tierlock()"
)


def main(baseline: Path | None = None, repeat: int = 9) -> None:
    with tempfile.TemporaryDirectory(prefix="tierlock-bench-lock-") as tmp:
        project, wheels, _ = make_project(Path(tmp))
        from tierlock.tiers import load_project

        roots = [str(r) for r in load_project(project).tier("base").requirements]
        inputs = Path(tmp) / "base.in"
        inputs.write_text("".join(f"{r}\n" for r in roots), encoding="utf-8")
        out = Path(tmp) / "out.txt"
        lockdir = project / "lockfiles"

        ours_argv: list[str | Path] = [
            BIN / "tierlock",
            "--project",
            project,
            "-q",
            "lock",
            "base",
            "--no-index",
            "-f",
            wheels,
        ]
        ours_argv += ["--backend", "uv", "--upgrade"]
        peer_argv: list[str | Path] = [
            BIN / "uv",
            "pip",
            "compile",
            inputs,
            "-o",
            out,
            "--universal",
            "--generate-hashes",
        ]
        peer_argv += ["--python-version", "3.11", "--no-index", "--find-links", wheels, "--quiet", "--upgrade"]
        shutil.rmtree(lockdir, ignore_errors=True)
        print(f"load average before: {load()}")
        spawn_only = [a if a != out else Path(tmp) / "out-floor.txt" for a in peer_argv]
        argvs: list[list[str | Path]] = [ours_argv, peer_argv, [sys.executable, "-c", FLOOR_IMPORTS]]
        argvs.append([sys.executable, "-c", SPAWN_ONLY, *spawn_only])
        if baseline is not None:
            argvs += [[sys.executable, "-c", _ENTRY, str(src), *ours_argv[1:]] for src in (REPO / "src", baseline)]
        samples = interleaved_samples(argvs, repeat=repeat)
        ours, peer, floor, bare = (statistics.median(taken) for taken in samples[:4])
        print(f"base tier roots: {len(roots)}")
        print(f"tierlock lock base:   {ours * 1000:7.1f} ms (median)")
        print(f"uv pip compile:       {peer * 1000:7.1f} ms (median)")
        print(f"ratio tierlock/uv:    {ours / peer:7.2f}x (target <= 1.2x)")
        print(f"floor (python + imports a lock needs): {floor * 1000:.1f} ms = {floor / peer:.2f}x of uv pip compile")
        print(
            f"floor of any Python front end (the interpreter started, uv started and waited for): {bare * 1000:.1f} ms"
            f" = {bare / peer:.2f}x of uv pip compile; paired, tierlock - it {_paired(samples[0], samples[3]):+.1f} ms"
        )
        if baseline is not None:
            _before_after(samples[4], samples[5], samples[1])
        print(f"load average after: {load()}")

    multi_tier()


def _before_after(new: list[float], old: list[float], peer: list[float]) -> None:
    """This checkout's sources against the baseline's, both through ``python -c``, each against uv."""
    mine, theirs, uv = (statistics.median(taken) * 1000 for taken in (new, old, peer))
    print(
        f"before/after (python -c, each src first on sys.path): this checkout {mine:.1f} ms, baseline {theirs:.1f} ms"
    )
    print(f"  ratios to uv pip compile: this checkout {mine / uv:.2f}x, baseline {theirs / uv:.2f}x")
    print(
        f"  paired medians: this checkout - baseline {_paired(new, old):+.1f} ms; "
        f"this checkout - uv {_paired(new, peer):+.1f} ms; baseline - uv {_paired(old, peer):+.1f} ms"
    )


def _paired(ours: list[float], theirs: list[float]) -> float:
    """The median of the differences round by round (ms)."""
    return statistics.median(a - b for a, b in zip(ours, theirs, strict=True)) * 1000


EXTRAS = {"vision": slice(9, 13), "speech": slice(13, 18)}


def multi_tier(repeat: int = 9) -> None:
    """A no-change lock of four tiers against the four uv compiles it stands for, run directly."""
    with tempfile.TemporaryDirectory(prefix="tierlock-bench-lock4-") as tmp:
        project, wheels, _ = make_project(Path(tmp))
        pyproject = project / "pyproject.toml"
        text = pyproject.read_text(encoding="utf-8")
        from tierlock.tiers import load_project

        brain = [str(r) for r in load_project(project).tier("brain").requirements]
        extras = "".join(
            f"{name} = [{', '.join(repr(r) for r in brain[part.start - 9 : part.stop - 9])}]\n"
            for name, part in EXTRAS.items()
        )
        text = text.replace("[tool.uv]", f"{extras.replace(chr(39), chr(34))}\n[tool.uv]")
        text += "".join(f'\n[tool.tierlock.tiers.{name}]\nsource = "extra:{name}"\n' for name in EXTRAS)
        pyproject.write_text(text, encoding="utf-8")
        model = load_project(project)
        tiers = list(model.tiers)
        ours_argv: list[str | Path] = [BIN / "tierlock", "--project", project, "-q", "lock", "--no-index", "-f", wheels]
        run(ours_argv)  # the lockfiles exist: every later run changes nothing

        work = Path(tmp) / "direct"
        work.mkdir()
        peer: list[list[str | Path]] = []
        for name in tiers:
            tier = model.tier(name)
            inputs = work / f"{name}.in"
            inputs.write_text("".join(f"{r}\n" for r in model.closure_requirements(name)), encoding="utf-8")
            argv: list[str | Path] = [BIN / "uv", "pip", "compile", inputs, "-o", work / f"{name}.txt"]
            argv += ["--universal", "--generate-hashes", "--no-header", "--quiet", "--python-version", "3.11"]
            argv += ["--python", sys.executable, "--no-python-downloads", "--no-index", "--find-links", wheels]
            if tier.layered_on:
                argv += ["--constraints", work / f"{tier.layered_on}.txt"]
            peer.append(argv)
        for argv in peer:
            run(argv, cwd=project)  # previous outputs exist: no-change compiles

        def direct() -> None:
            for argv in peer:
                run(argv, cwd=project)

        ours_samples: list[float] = []
        peer_samples: list[float] = []
        for _ in range(repeat):  # interleaved, so a change in machine load hits both sides
            start = time.perf_counter()
            run(ours_argv)
            ours_samples.append(time.perf_counter() - start)
            start = time.perf_counter()
            direct()
            peer_samples.append(time.perf_counter() - start)
        ours, theirs = statistics.median(ours_samples), statistics.median(peer_samples)
        print(f"no-change lock of {len(tiers)} tiers ({', '.join(tiers)}):")
        print(f"tierlock lock:                 {ours * 1000:7.1f} ms (median of {repeat})")
        print(f"{len(peer)} uv pip compile, one by one: {theirs * 1000:7.1f} ms (median of {repeat})")
        print(f"ratio tierlock/uv:             {ours / theirs:7.2f}x (target <= 1.2x)")
        print(f"load average after: {load()}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--multi", action="store_true", help="only the no-change lock of four tiers")
    parser.add_argument("--baseline", type=Path, help="another tierlock's src folder, locked through beside this one")
    parser.add_argument("--repeat", type=int, default=9, help="timed runs of each command")
    args = parser.parse_args()
    if args.multi:
        multi_tier(args.repeat)
    else:
        main(args.baseline, args.repeat)
