"""install-tier against plain uv and pip, side by side, on a ~90-package tier (offline).

Generates ~90 wheels (some with compiled-extension-named files) into a local
folder, a project whose ``brain`` tier locks all of them (with real hashes),
and empty virtual environments. Then, each command in a fresh process, median
wall time over several runs (tierlock's and the peer's runs interleaved, so a
change in machine load affects both sides alike):

* **no-op**: ``install-tier brain`` on an armed environment (it also verifies
  every installed file against the receipt) vs ``uv pip install --no-deps
  --require-hashes -r brain.txt`` and vs the same ``pip install``;
* **no-op floor**: the same no-op against the least any tool can do to prove
  it, a bare interpreter start in the target plus one ``stat`` of each file the
  receipt records (goal: within 1.25x);
* **arming** from a warm cache into a fresh environment: ``install-tier brain
  --backend uv`` vs plain ``uv pip install --no-deps -r brain.txt``, and
  ``install-tier brain --backend pip`` vs ``pip install --no-deps
  --require-hashes -r brain.txt`` (goals: 1.3x and 1.05x). Both backends'
  armings start warm: two armings of each before the timed ones (the first
  asks the venv's interpreter, the second keeps the plan its backend is then
  started early from).

With ``--registry`` the same comparison runs on a real closure locked from
the package index (numpy, scipy, rich, jsonschema, httpx and what they need:
compiled wheels of real size) instead of the generated wheels; it needs the
network for the lock and the first download, then runs from a warm cache.

``--baseline SRC`` also runs ``install-tier`` through another tierlock's sources (``git archive REV src | tar -x -C
DIR`` gives ``DIR/src``) and through this checkout's, both by ``python -c`` on ``PYTHONPATH``, interleaved with the
rest (no-op and both armings): a before/after of tierlock's own cost in one run.

Beside each arming ratio it prints tierlock's own time: the arming's wall time less its backend's as tierlock saw it
(``backend_s`` of ``--json``), median and spread (``benchmarks/_armtime.py``): the backend's time moves with the disk
by more than tierlock's own.

Run: ``.venv/bin/python benchmarks/bench_install.py [--runs N] [--registry] [--baseline DIR/src]``.
"""

from __future__ import annotations

import argparse
import itertools
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.binaries import loadable_stub  # noqa: E402
from tests.support.tierproject import write_lock, write_pyproject  # noqa: E402
from tests.support.wheels import EXT_SUFFIX, build_wheel  # noqa: E402

from benchmarks._armtime import overhead_lines, timed  # noqa: E402

BIN = Path(sys.executable).parent
PACKAGES = 90
BASE = 10


def make_world(root: Path) -> tuple[Path, Path, Path]:
    """Wheels, a project with base (10) and brain (90 with base) locked, and an empty venv."""
    wheels = root / "wheels"
    pins: list[tuple[str, str, Path]] = []
    for i in range(PACKAGES):
        name = f"bpkg{i:02d}"
        files: dict[str, bytes | str] = {
            f"{name}/__init__.py": f"VALUE = {i}\n",
            f"{name}/util.py": "def f():\n    return 1\n" * 20,
        }
        if i % 6 == 0:
            files[f"{name}/_speed{EXT_SUFFIX}"] = loadable_stub(64) + bytes(range(256)) * 40
        pins.append((name, "1.0", build_wheel(wheels, name, "1.0", files=files)))
    project = root / "proj"
    write_pyproject(project, base=[f"{n}>=1" for n, _, _ in pins[:BASE]], brain=[f"{n}>=1" for n, _, _ in pins[BASE:]])
    write_lock(project, "base", pins[:BASE])
    write_lock(project, "brain", pins)
    empty = root / "empty-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(empty)], check=True)
    return project, wheels, empty


#: The real closure of the --registry variant (its brain tier).
REGISTRY_BRAIN = ["numpy>=2", "scipy>=1.13", "rich>=13", "jsonschema>=4.20", "httpx>=0.27"]


def make_registry_world(root: Path, env: dict[str, str]) -> tuple[Path, Path]:
    """A project whose brain tier is a real closure, locked from the package index; and an empty venv."""
    project = root / "proj"
    write_pyproject(project, base=["tabulate>=0.9"], brain=REGISTRY_BRAIN)
    run([BIN / "tierlock", "--project", project, "-q", "lock", "--backend", "uv"], env)
    empty = root / "empty-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(empty)], check=True)
    return project, empty


def environ(wheels: Path | None, cache: Path) -> dict[str, str]:
    """No PIP_*/UV_* from this machine; offline from *wheels* when given, else the default index."""
    # As installed for real: bytecode caches are written and used (this machine sets PYTHONDONTWRITEBYTECODE).
    drop = {"VIRTUAL_ENV", "PYTHONDONTWRITEBYTECODE"}
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_")) and k not in drop}
    env.update(
        {
            "PIP_CONFIG_FILE": os.devnull,
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "UV_NO_CONFIG": "1",
            "UV_CACHE_DIR": str(cache),
            "UV_NO_PROGRESS": "1",
            "TIERLOCK_CACHE_DIR": str(cache.parent / "tierlock-cache"),  # tierlock's own, as uv has its own
        }
    )
    if wheels is not None:
        env.update(
            {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels), "UV_NO_INDEX": "1", "UV_FIND_LINKS": str(wheels)}
        )
    return env


def run(argv: Sequence[str | Path], env: dict[str, str]) -> float:
    started = time.perf_counter()
    proc = subprocess.run([str(a) for a in argv], env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, argv))} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    return elapsed


def machine_load() -> str:
    """The machine's 1, 5 and 15 minute load averages (the figures mean little without them)."""
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def fresh(empty: Path, dest: Path) -> Path:
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(empty, dest, symlinks=True)
    return dest / "bin" / "python"


#: The floor of a no-op: start the target's interpreter (with ``site``, as a console script does) and stat
#: every file the receipts record, read from a file of NUL-separated paths.
FLOOR = "import os\nst = os.stat\nfor p in open({list!r}, encoding='utf-8').read().split('\\0'):\n    st(p)\n"


def floor_command(armed: Path, listing: Path) -> list[str | Path]:
    """The floor process for the environment of *armed* (its receipts name the files)."""
    from tierlock.installer import receipts

    prefix = armed.parent.parent
    paths = sorted(receipts.recorded_paths(prefix, receipts.load_all(prefix).values()))
    listing.write_text("\0".join(paths), encoding="utf-8")
    return [armed, "-c", FLOOR.format(list=str(listing))]


def compare(label: str, ours: float, peer: float, peer_name: str, target: float) -> str:
    ratio = ours / peer
    verdict = "within" if ratio <= target else "over"
    return (
        f"{label:<44} tierlock {ours * 1000:8.1f} ms   {peer_name} {peer * 1000:8.1f} ms   "
        f"ratio {ratio:5.2f}x  (target <= {target}x: {verdict})"
    )


Argv = list[str | Path]


#: ``install-tier`` through ``python -c``: the first argument is the src folder to import tierlock from.
_ENTRY = "import sys; sys.path.insert(0, sys.argv.pop(1)); from tierlock._entry import install_tier; install_tier()"


def _noop(
    root: Path,
    empty: Path,
    env: dict[str, str],
    runs: int,
    *,
    tier: Argv,
    uv: Argv,
    pip: Argv,
    lock: Path,
    sides: dict[str, Argv],
) -> tuple[list[float], list[float], list[float], list[float], dict[str, list[float]]]:
    """The no-op on an armed environment: install-tier, its floor, uv and pip (samples interleaved, so a change
    in machine load hits every side); and each of *sides* (another install-tier) on the same environment."""
    armed = fresh(empty, root / "armed")
    run([*tier, "--python", armed], env)
    floor = floor_command(armed, root / "recorded.txt")
    noop_tier: list[float] = []
    noop_floor: list[float] = []
    noop_uv: list[float] = []
    noop_pip: list[float] = []
    noop_sides: dict[str, list[float]] = {name: [] for name in sides}
    pip_runs = max(3, runs // 3)
    for i in range(runs):
        noop_tier.append(run([*tier, "--python", armed], env))
        for name, side in sides.items():
            noop_sides[name].append(run([*side, "--python", armed], env))
        noop_floor.append(run(floor, env))
        noop_uv.append(run([*uv, "--require-hashes", "--python", armed, "-r", lock], env))
        if i < pip_runs:
            noop_pip.append(run([*pip, "--python", armed, "install", "--no-deps", "--require-hashes", "-r", lock], env))
    return noop_tier, noop_floor, noop_uv, noop_pip, noop_sides


def _with(side: Argv, backend: str) -> Callable[[Path], Argv]:
    """The command of *side* arming the environment of an interpreter with *backend*."""
    return lambda p: [*side, "--backend", backend, "--python", p]


def _arming(
    root: Path,
    empty: Path,
    env: dict[str, str],
    runs: int,
    *,
    tier: Argv,
    uv: Argv,
    pip: Argv,
    lock: Path,
    sides: dict[str, Argv],
) -> tuple[dict[str, list[float]], dict[str, list[float | None]]]:
    """Arming a fresh environment from a warm cache: each of the four (and of *sides*, with each backend),
    interleaved, *runs* rounds, their order turned by one each round (no side always first after another); and
    the backend's own seconds of each tierlock arming (``--json``)."""
    commands: dict[str, Callable[[Path], Argv]] = {
        "tier_uv": lambda p: [*tier, "--backend", "uv", "--json", "--python", p],
        "uv": lambda p: [*uv, "--python", p, "-r", lock],
        "tier_pip": lambda p: [*tier, "--backend", "pip", "--json", "--python", p],
        "pip": lambda p: [*pip, "--python", p, "install", "--no-deps", "--require-hashes", "-r", lock],
    }
    for name, side in sides.items():
        for backend in ("uv", "pip"):
            commands[f"{name}_{backend}"] = _with(side, backend)
    arming: dict[str, list[float]] = {name: [] for name in commands}
    backends: dict[str, list[float | None]] = {name: [] for name in commands}
    for i in range(runs):
        order = list(commands.items())
        order = order[i % len(order) :] + order[: i % len(order)]  # the sides turned by one each round
        for name, command in order:
            target = fresh(empty, root / f"arm-{name}-{i}")
            elapsed, spent = timed(command(target), env)
            arming[name].append(elapsed)
            backends[name].append(spent)
    return arming, backends


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=15, help="runs per no-op measurement (arming uses a third)")
    parser.add_argument("--registry", action="store_true", help="a real closure from the package index (network)")
    parser.add_argument("--baseline", type=Path, help="another tierlock's src folder, run beside this one")
    args = parser.parse_args(argv)
    before = machine_load()
    with tempfile.TemporaryDirectory(prefix="tierlock-bench-install-") as tmp:
        root = Path(tmp)
        if args.registry:
            env = environ(None, root / "uv-cache")
            project, empty = make_registry_world(root, env)
            what = f"a real closure from the index ({', '.join(REGISTRY_BRAIN)})"
        else:
            project, wheels, empty = make_world(root)
            env = environ(wheels, root / "uv-cache")
            what = "generated wheels from a local folder"
        lock = project / "lockfiles" / "brain.txt"
        from tierlock.lockfiles import load

        packages = len(load(lock).applicable())
        tier: list[str | Path] = [BIN / "install-tier", "--project", project, "brain"]
        uv: list[str | Path] = [BIN / "uv", "pip", "install", "--no-deps"]
        pip: list[str | Path] = [sys.executable, "-m", "pip"]

        # Warm the uv, pip and tierlock caches once.
        python = fresh(empty, root / "warm")
        run([*uv, "--python", python, "-r", lock], env)
        time.sleep(2.1)  # an arming keeps no plan resting on a file modified within two seconds (all just made)
        for backend in ("uv", "pip"):  # what it keeps of a venv, then the arming's plan (with --json), each backend's
            for warm in ("warm-tier", "warm-tier-2"):
                run([*tier, "--backend", backend, "--json", "--python", fresh(empty, root / f"{warm}-{backend}")], env)
        run([*pip, "--python", fresh(empty, root / "warm-pip"), "install", "--no-deps", "-r", lock], env)
        sides: dict[str, Argv] = {}
        if args.baseline is not None:
            for label, src in (("new", REPO / "src"), ("old", args.baseline)):
                sides[label] = [sys.executable, "-c", _ENTRY, str(src), *tier[1:]]
                for backend, warm in itertools.product(("uv", "pip"), ("a", "b")):  # as the console script: its
                    # target known, and the arming's plan kept (a baseline that keeps none for pip: its own path)
                    venv = fresh(empty, root / f"warm-{label}-{backend}-{warm}")
                    run([*sides[label], "--backend", backend, "--python", venv], env)

        noop_tier, noop_floor, noop_uv, noop_pip, noop_sides = _noop(
            root, empty, env, args.runs, tier=tier, uv=uv, pip=pip, lock=lock, sides=sides
        )

        arm_runs = max(3, args.runs // 3)
        arming, backends = _arming(root, empty, env, arm_runs, tier=tier, uv=uv, pip=pip, lock=lock, sides=sides)
        arm_tier_uv, arm_uv, arm_tier_pip, arm_pip = (arming[n] for n in ("tier_uv", "uv", "tier_pip", "pip"))

    print(f"install benchmark: {packages} packages, {what}")
    after = machine_load()
    print(f"medians of {args.runs} (no-op) / {arm_runs} (arming) runs; load average before {before}, after {after}")
    print(compare("no-op: install-tier vs uv --require-hashes", median(noop_tier), median(noop_uv), "uv ", 1.0))
    print(compare("no-op: install-tier vs pip --require-hashes", median(noop_tier), median(noop_pip), "pip", 0.1))
    print(compare("no-op: install-tier vs its floor", median(noop_tier), median(noop_floor), "floor", 1.25))
    print(compare("arming (warm cache): --backend uv vs uv", median(arm_tier_uv), median(arm_uv), "uv ", 1.3))
    print(compare("arming: --backend pip vs pip --require-hashes", median(arm_tier_pip), median(arm_pip), "pip", 1.05))
    for label, mine, theirs in (("uv", arm_tier_uv, arm_uv), ("pip", arm_tier_pip, arm_pip)):
        # each round's own ratio (the sides of a round ran one after the other): the backend's run-to-run noise, a
        # few hundred ms for pip here, is in both medians above but cancels within a round
        rounds = [a / b for a, b in zip(mine, theirs, strict=True)]
        print(f"  arming --backend {label}: rounds' own ratios, median {median(rounds):.3f}x ({len(rounds)} rounds)")
    rows = (("--backend uv", "tier_uv", arm_uv, "uv"), ("--backend pip", "tier_pip", arm_pip, "pip"))
    for label, ours, peer, name in rows:
        for line in overhead_lines(f"arming {label}", arming[ours], backends[ours], peer, name):
            print(line)
    if sides:
        _before_after(noop_sides, noop_uv, arming)


def _before_after(noop: dict[str, list[float]], noop_uv: list[float], arming: dict[str, list[float]]) -> None:
    """This checkout's sources against the baseline's (both through ``python -c``): medians, and the paired
    medians (each round's own difference) against the peer and against each other."""

    def paired(ours: list[float], theirs: list[float]) -> float:
        return statistics.median(a - b for a, b in zip(ours, theirs, strict=False)) * 1000

    print("before/after (both through python -c, PYTHONPATH to each src); paired medians in ms")
    rows = [("no-op", noop["new"], noop["old"], noop_uv, "uv")]
    for backend in ("uv", "pip"):
        rows.append(
            (
                f"arming --backend {backend}",
                arming[f"new_{backend}"],
                arming[f"old_{backend}"],
                arming[backend],
                backend,
            )
        )
    for label, new, old, peer, name in rows:
        print(
            f"  {label:<22} this checkout {median(new) * 1000:7.1f} ms ({median(new) / median(peer):.2f}x {name}), "
            f"baseline {median(old) * 1000:7.1f} ms ({median(old) / median(peer):.2f}x); "
            f"this checkout - baseline {paired(new, old):+.1f}; this checkout - {name} {paired(new, peer):+.1f}; "
            f"baseline - {name} {paired(old, peer):+.1f}"
        )


if __name__ == "__main__":
    main()
