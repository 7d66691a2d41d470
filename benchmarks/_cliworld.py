"""Shared set-up of the CLI latency benchmarks: a 3-tier project, its wheels and an armed environment, offline.

The project has a base tier and two opt-in tiers (``brain``, with compiled-extension files, and ``viz``),
each locked with real hashes the way ``tierlock lock`` writes them, and one virtual environment with all
three tiers installed by ``install-tier`` (uv backend) from the local wheel folder.
"""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.binaries import loadable_stub  # noqa: E402
from tests.support.tierproject import write_lock  # noqa: E402
from tests.support.wheels import EXT_SUFFIX, build_wheel  # noqa: E402

BIN = Path(sys.executable).parent

PYPROJECT = """\
[project]
name = "app"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = [{base}]

[project.optional-dependencies]
brain = [{brain}]
viz = [{viz}]

[tool.tierlock]
lock-dir = "lockfiles"
ci-require = ["brain", "viz"]

[tool.tierlock.tiers.brain]
source = "extra:brain"
tests = ["tests/brain/**"]

[tool.tierlock.tiers.viz]
source = "extra:viz"
tests = ["tests/viz/**"]
"""

#: Packages per tier (the base tier's packages are in every closure).
SIZES = {"base": 3, "brain": 10, "viz": 6}


def environ(cache: Path, wheels: Path | None = None) -> dict[str, str]:
    """No PIP_*/UV_* of this machine, no pip configuration, uv's own cache; offline from *wheels* when given."""
    drop = {"VIRTUAL_ENV", "PYTHONDONTWRITEBYTECODE"}  # bytecode written and used, as installed for real
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_")) and k not in drop}
    env.update(
        {
            "PIP_CONFIG_FILE": os.devnull,
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "UV_NO_CONFIG": "1",
            "UV_CACHE_DIR": str(cache),
            "UV_NO_PROGRESS": "1",
            "TIERLOCK_CACHE_DIR": str(cache.parent / "tierlock-cache"),
        }
    )
    if wheels is not None:
        env.update(
            {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels), "UV_NO_INDEX": "1", "UV_FIND_LINKS": str(wheels)}
        )
    return env


def _pins(wheels: Path, tier: str) -> list[tuple[str, str, Path]]:
    pins = []
    for i in range(SIZES[tier]):
        name = f"{tier}pkg{i:02d}"
        files: dict[str, bytes | str] = {
            f"{name}/__init__.py": f"VALUE = {i}\n",
            f"{name}/util.py": "def f():\n    return 1\n" * 20,
        }
        if tier == "brain" and i % 3 == 0:
            files[f"{name}/_speed{EXT_SUFFIX}"] = loadable_stub(64) + bytes(range(256)) * 40
        pins.append((name, "1.0", build_wheel(wheels, name, "1.0", files=files)))
    return pins


def make_project(root: Path) -> tuple[Path, Path]:
    """Write the wheels and the locked 3-tier project; return (project folder, wheel folder)."""
    wheels = root / "wheels"
    pins = {tier: _pins(wheels, tier) for tier in SIZES}
    project = root / "proj"
    project.mkdir(parents=True, exist_ok=True)
    quoted = {tier: ", ".join(f'"{n}>=1"' for n, _, _ in pins[tier]) for tier in SIZES}
    (project / "pyproject.toml").write_text(PYPROJECT.format(**quoted), encoding="utf-8")
    for tier in ("brain", "viz"):  # a test file per tier, importing one of its roots (the census reads them)
        tests = project / "tests" / tier
        tests.mkdir(parents=True, exist_ok=True)
        (tests / f"test_{tier}.py").write_text(
            f"import {tier}pkg00\n\n\ndef test_it():\n    assert {tier}pkg00.VALUE == 0\n"
        )
    (project / "tests" / "test_plain.py").write_text("def test_plain():\n    assert True\n", encoding="utf-8")
    write_lock(project, "base", pins["base"])
    write_lock(project, "brain", [*pins["base"], *pins["brain"]])
    write_lock(project, "viz", [*pins["base"], *pins["viz"]])
    return project, wheels


def make_venv(path: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    return path / "bin" / "python"


def make_world(root: Path) -> tuple[Path, Path, Path, dict[str, str]]:
    """The project, its wheels, an environment with all three tiers armed, and the environment to run in."""
    project, wheels = make_project(root)
    env = environ(root / "uv-cache", wheels)
    python = make_venv(root / "venv")
    run([BIN / "install-tier", "--project", project, "--python", python, "base", "brain", "viz"], env)
    return project, wheels, python, env


def run(argv: Sequence[str | Path], env: dict[str, str], cwd: Path | None = None, expect: int = 0) -> float:
    """Run *argv*; its wall time in seconds. Exits naming the command when it does not exit *expect*."""
    started = time.perf_counter()
    proc = subprocess.run([str(a) for a in argv], env=env, cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if proc.returncode != expect:
        raise SystemExit(f"{' '.join(map(str, argv))} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    return elapsed


def interleaved(commands: dict[str, Callable[[], float]], runs: int) -> dict[str, float]:
    """Median seconds of each measurement, the runs interleaved so a change in load hits every side alike."""
    for measure in commands.values():  # warm-up
        measure()
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, measure in commands.items():
            samples[name].append(measure())
    return {name: statistics.median(values) for name, values in samples.items()}


def load() -> str:
    """The machine's load averages (1, 5, 15 minutes), as /proc/loadavg gives them."""
    try:
        with open("/proc/loadavg", encoding="ascii") as handle:
            return " ".join(handle.read().split()[:3])
    except OSError:
        return "unknown"


def ratio_line(label: str, ours: float, peer: float, peer_name: str, goal: str, *, within: bool) -> str:
    verdict = "met" if within else "NOT met"
    return (
        f"{label:<40} tierlock {ours * 1000:8.1f} ms   {peer_name:<22} {peer * 1000:8.1f} ms   "
        f"ratio {ours / peer:5.2f}x  (goal {goal}: {verdict})"
    )


def online(host: str = "pypi.org") -> bool:
    """Whether the package index answers (the benchmarks that need it say so and stop when not)."""
    try:
        with socket.create_connection((host, 443), timeout=3):
            return True
    except OSError:
        return False
