"""Measure `tierlock validate` against `check-jsonschema` on large runtime configs.

Both tools run as command lines, side by side, on the same generated file
(10,000 and 20,000 commands) and the same schema (the shipped
runtime-config.schema.json): check-jsonschema checks structure only, tierlock
checks every rule, with the checkout (cwd folders exist on disk). Prints the
median wall time (and CPU time, steadier on a loaded machine) of each, the
ratio tierlock / check-jsonschema (target: at most 1.0), and the 20k / 10k
growth (target for tierlock: at most 2.2, linear).

Then the adversarial part: for each shape that once made a pattern quadratic
(``a-a-a-…`` took 12 s at 64 KiB), a config whose one argument is 1 MiB of that
shape, validated by both tools (target for tierlock: under 1 s each).

    .venv/bin/python benchmarks/bench_validate.py [--repeat N] [--only commands|adversarial]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
SIZES = (10_000, 20_000)
MIB = 1 << 20
#: Repeated units that make a backtracking pattern retry from every position (1 MiB of each).
ADVERSARIAL = (
    "a-",
    "a",
    "a:",
    "//a@",
    "//a:",
    "https://a:",
    "a@",
    "eyJ",
    "eyJaaaaaaaaaaa.",
    "ghp_",
    "github_pat_",
    "sk-",
    "xoxb-",
    "AKIA",
    "AIza",
    "-",
    "-----BEGIN ",
    "Bearer ",
    "basic abcd ",
    "authorization:",
    "A1b/",
    "a/",
    " ",
    "\ufeff",
    # The cloud shapes and the Basic credentials glued to more characters.
    "==",
    "Aa1+==",
    "AccountKey=",
    "sig=",
    "sig=A1a%",
    "SG.",
    "SK0",
    "AC0a",
    "hf_",
    "pypi-",
    '"private_key": "',
    "IBAAK",
    "MIIEvgIBADANBgkqhkiG9w0BAQEFAASC",
    "dd_api_key=",
    "twilio_auth_token=",
    "Basic dXNlcjpw",
    "basic O",
)


def make_config(folder: Path, commands: int) -> Path:
    """A valid config of *commands* verification commands in *folder* (a checkout with its cwd folders)."""
    (folder / "packages" / "app" / "tests").mkdir(parents=True, exist_ok=True)
    (folder / "lib-root" / "packages" / "lib" / "tests").mkdir(parents=True, exist_ok=True)
    verification = [
        {
            "key": f"check-{i}",
            "repositoryId": "app" if i % 2 else "lib",
            "command": "pytest",
            "args": ["-q", f"tests/test_{i}.py", "--maxfail=1"],
            "cwd": f"packages/{'app' if i % 2 else 'lib'}/tests",
            "env": {"PYTHONHASHSEED": "0", "FEATURE": f"f{i % 7}"},
            "timeoutMs": 600_000,
            "label": f"Check {i}",
            "policy": {"reuse": "snapshot-local", "inputs": ["src/**", f"tests/test_{i}.py"], "deterministic": True},
        }
        for i in range(commands)
    ]
    document = {
        "schemaVersion": 1,
        "repositories": [
            {"id": "app", "path": ".", "scope": ["packages/app"]},
            {"id": "lib", "path": "lib-root", "scope": ["packages/lib"]},
        ],
        "setup": [{"key": "arm", "repositoryId": "app", "command": "install-tier", "args": ["base"]}],
        "verification": verification,
    }
    path = folder / "tierlock.runtime.json"
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


def timed(argv: list[str], expect: int = 0) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one run of *argv* (*expect* -1: any exit code)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k != "PYTHONDONTWRITEBYTECODE" and not k.startswith(("PIP_", "UV_"))  # neither side reads them
    }
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if expect >= 0 and proc.returncode != expect:
        raise SystemExit(f"{argv[0]} exited {proc.returncode}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def adversarial(repeat: int) -> None:
    """One 1 MiB argument of each adversarial shape: tierlock validate vs check-jsonschema, wall time."""
    from tierlock.validators.schema import schema_text

    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        schema = Path(tmp) / "runtime-config.schema.json"
        schema.write_text(schema_text(), encoding="utf-8")
        for unit in ADVERSARIAL:
            argument = (unit * (MIB // len(unit) + 1))[:MIB]
            document = {"schemaVersion": 1, "verification": [{"key": "k", "command": "run", "args": [argument]}]}
            config = Path(tmp) / "adversarial.json"
            config.write_text(json.dumps(document), encoding="utf-8")
            ours_argv = [str(BIN / "tierlock"), "validate", str(config), "--no-checkout"]
            peer_argv = [str(BIN / "check-jsonschema"), "--schemafile", str(schema), str(config)]
            ours_runs = [timed(ours_argv, expect=-1) for _ in range(repeat)]
            peer_runs = [timed(peer_argv, expect=-1) for _ in range(repeat)]
            ours, ours_cpu = (statistics.median(t[i] for t in ours_runs) for i in (0, 1))
            peer, peer_cpu = (statistics.median(t[i] for t in peer_runs) for i in (0, 1))
            worst = max(worst, ours_cpu)
            print(
                f"1 MiB of {unit!r:<18} tierlock validate {ours:.2f} s wall, {ours_cpu:.2f} s CPU (target < 1 s); "
                f"check-jsonschema {peer:.2f} s wall, {peer_cpu:.2f} s CPU; CPU ratio {ours_cpu / peer_cpu:.2f}x",
                flush=True,
            )
    print(f"adversarial: slowest tierlock validate {worst:.2f} s CPU over {len(ADVERSARIAL)} shapes (target < 1 s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=("commands", "adversarial"))
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from tierlock.validators.schema import schema_text

    if args.only != "commands":
        adversarial(args.repeat)
    if args.only == "adversarial":
        return

    results: dict[int, tuple[float, float]] = {}
    cpu: dict[int, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        schema = Path(tmp) / "runtime-config.schema.json"
        schema.write_text(schema_text(), encoding="utf-8")
        for size in SIZES:
            folder = Path(tmp) / f"n{size}"
            folder.mkdir()
            config = make_config(folder, size)
            ours_argv = [str(BIN / "tierlock"), "validate", str(config), "--checkout", str(folder)]
            peer_argv = [str(BIN / "check-jsonschema"), "--schemafile", str(schema), str(config)]
            timed(ours_argv)  # warm the bytecode caches once
            ours, peer = [], []
            for _ in range(args.repeat):  # interleaved, so machine load hits both alike
                ours.append(timed(ours_argv))
                peer.append(timed(peer_argv))
            results[size] = (statistics.median(t[0] for t in ours), statistics.median(t[0] for t in peer))
            cpu[size] = (statistics.median(t[1] for t in ours), statistics.median(t[1] for t in peer))
            mib = config.stat().st_size / 2**20
            print(
                f"{size:>6} commands ({mib:.1f} MiB): tierlock validate {results[size][0]:.2f} s, "
                f"check-jsonschema {results[size][1]:.2f} s, ratio {results[size][0] / results[size][1]:.2f}x "
                f"(target <= 1.0x); CPU {cpu[size][0]:.2f} s vs {cpu[size][1]:.2f} s",
                flush=True,
            )
    small, large = SIZES
    print(
        f"growth {large // 1000}k / {small // 1000}k: tierlock {results[large][0] / results[small][0]:.2f}x "
        f"(target <= 2.2x), check-jsonschema {results[large][1] / results[small][1]:.2f}x; "
        f"in CPU time tierlock {cpu[large][0] / cpu[small][0]:.2f}x, "
        f"check-jsonschema {cpu[large][1] / cpu[small][1]:.2f}x"
    )


if __name__ == "__main__":
    main()
