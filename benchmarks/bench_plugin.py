"""Plugin overhead: an empty pytest suite with the tierlock plugin and with ``-p no:tierlock``.

Generates (offline) a fresh project with a tier table -- a base tier and a
``brain`` tier with a root that is not installed and a ``tests`` glob -- and
an empty ``tests/`` folder. Runs ``python -m pytest`` on it alternately with
and without the plugin, many times, each a fresh process, both with pytest's
default plugins (the cacheprovider included, so the plugin's cached tier model
is used: one warm-up run of each side writes it and the byte-code caches, as
any second run of a real project has them), and prints the medians, the
minimums and the paired differences (the plugin's cost: import, tier model,
probe, header). It then times the plugin's own work inside fresh processes
that have imported pytest: with the cached model (the usual run) and without
it (the first run, or ``-p no:cacheprovider``). Last, the run-time backstop on a green run: a suite of
:data:`TESTS` passing tests in a project whose tier is present, with and without the plugin; the plugin's
cost per test is that difference less the empty suite's.
Run: ``.venv/bin/python benchmarks/bench_plugin.py``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = 21
GREEN_RUNS = 11
TESTS = 1000

#: The plugin's own work for one run, timed inside a fresh process after pytest is imported:
#: argv[1] the project folder, argv[2] "warm" (read the cache entry the pytest runs wrote) or "cold".
IN_PROCESS = """
import json, sys, time
from pathlib import Path
import pytest

class Cache:
    def __init__(self, folder):
        self.folder = folder
    def get(self, key, default):
        try:
            return json.loads((self.folder / key).read_text())
        except (OSError, ValueError):
            return default
    def set(self, key, value):
        pass

root = Path(sys.argv[1])
cache = Cache(root / ".pytest_cache" / "v") if sys.argv[2] == "warm" else None
start = time.perf_counter()
import tierlock.pytest_plugin
from tierlock.pytest_plugin.messages import header_lines
from tierlock.pytest_plugin.project_state import gate_for
pyproject = root / "pyproject.toml"
gate = gate_for(pyproject, pyproject.read_text(encoding="utf-8-sig"), cache, False, "not CI")
header_lines(gate)
elapsed = (time.perf_counter() - start) * 1000
loader = "tierlock.tiers.loader" in sys.modules
assert loader == (sys.argv[2] == "cold"), "the warm path must not load the tier model"
print(elapsed)
"""

PYPROJECT = """\
[project]
name = "bench-plugin"
version = "0"
dependencies = ["packaging", "pluggy", "iniconfig"]

[project.optional-dependencies]
brain = ["not-installed-anywhere"]

[tool.tierlock]
ci-require = ["brain"]

[tool.tierlock.tiers.brain]
tests = ["tests/brain/**"]

[tool.pytest.ini_options]
testpaths = ["tests"]
"""


#: No CI variables; byte-code caches allowed (``PYTHONDONTWRITEBYTECODE`` would recompile every
#: changed tierlock module on every run, which no ordinary install does).
ENV = {
    k: v
    for k, v in os.environ.items()
    if k not in {"CI", "TIERLOCK_STRICT", "PYTEST_ADDOPTS", "PYTHONDONTWRITEBYTECODE"}
}


#: A green run: the brain tier's root (packaging) is installed, and every test passes.
GREEN_PYPROJECT = PYPROJECT.replace('brain = ["not-installed-anywhere"]', 'brain = ["packaging"]')
GREEN_TEST = "import pytest\n\n\n@pytest.mark.parametrize('n', range({count}))\ndef test_green(n):\n    assert n >= 0\n"


def run_once(project: Path, *extra: str, expect: int = 5) -> float:
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", *extra]
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=project, env=ENV, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    assert proc.returncode == expect, proc.stdout + proc.stderr  # 5: no tests collected
    return elapsed * 1000


def paired(project: Path, runs: int, expect: int) -> tuple[list[float], list[float]]:
    """Alternating runs with and without the plugin (after one warm-up of each)."""
    run_once(project, expect=expect)
    run_once(project, "-p", "no:tierlock", expect=expect)
    with_plugin: list[float] = []
    without: list[float] = []
    for _ in range(runs):
        with_plugin.append(run_once(project, expect=expect))
        without.append(run_once(project, "-p", "no:tierlock", expect=expect))
    return with_plugin, without


def green_suite(folder: Path) -> Path:
    (folder / "pyproject.toml").write_text(GREEN_PYPROJECT)
    (folder / "tests").mkdir()
    for i in range(10):
        (folder / "tests" / f"test_green_{i}.py").write_text(GREEN_TEST.format(count=TESTS // 10))
    return folder


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="tierlock-bench-plugin-") as tmp:
        project = Path(tmp)
        (project / "pyproject.toml").write_text(PYPROJECT)
        (project / "tests" / "brain").mkdir(parents=True)
        with_plugin, without = paired(project, RUNS, 5)
        med_with, med_without = statistics.median(with_plugin), statistics.median(without)
        min_with, min_without = min(with_plugin), min(without)
        diffs = [a - b for a, b in zip(with_plugin, without, strict=True)]
        print(f"empty suite, {RUNS} alternating runs each, fresh process per run")
        print(f"with tierlock:        median {med_with:7.1f} ms   min {min_with:7.1f} ms")
        print(f"with -p no:tierlock:  median {med_without:7.1f} ms   min {min_without:7.1f} ms")
        print(
            f"plugin cost: median difference {med_with - med_without:+6.1f} ms, min difference "
            f"{min_with - min_without:+6.1f} ms, median of paired differences {statistics.median(diffs):+6.1f} ms"
        )
        print(f"ratio with/without (medians): {med_with / med_without:.3f}")
        for mode, what in (("warm", "cached tier model"), ("cold", "full load, no cache")):
            work = [
                float(
                    subprocess.run(
                        [sys.executable, "-c", IN_PROCESS, str(project), mode],
                        env=ENV,
                        capture_output=True,
                        text=True,
                        check=True,
                    ).stdout
                )
                for _ in range(RUNS)
            ]
            print(
                f"plugin work in a fresh process, {what} (import, tier model, probe, header): median "
                f"{statistics.median(work):6.1f} ms, min {min(work):6.1f} ms"
            )
        empty_cost = statistics.median(diffs)
    with tempfile.TemporaryDirectory(prefix="tierlock-bench-green-") as tmp:
        green_with, green_without = paired(green_suite(Path(tmp)), GREEN_RUNS, 0)
        green_diffs = [a - b for a, b in zip(green_with, green_without, strict=True)]
        green_cost = statistics.median(green_diffs)
        print(
            f"green suite of {TESTS} passing tests, {GREEN_RUNS} alternating runs each: with tierlock median "
            f"{statistics.median(green_with):7.1f} ms, without {statistics.median(green_without):7.1f} ms, "
            f"median of paired differences {green_cost:+6.1f} ms"
        )
        print(
            f"run-time cost beyond the empty suite's: {green_cost - empty_cost:+6.1f} ms for {TESTS} tests "
            f"({(green_cost - empty_cost) * 1000 / TESTS:+.1f} us per test)"
        )


if __name__ == "__main__":
    main()
