"""Plugin overhead: an empty pytest suite with the tierlock plugin and with ``-p no:tierlock``.

Generates (offline) a project with a tier table -- a base tier and a ``brain``
tier with a root that is not installed and a ``tests`` glob -- and an empty
``tests/`` folder. Runs ``python -m pytest`` on it alternately with and
without the plugin, many times, each a fresh process, and prints the medians,
the minimums and the difference (the plugin's cost: import, tier table,
probe, header). Run: ``.venv/bin/python benchmarks/bench_plugin.py``.
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

#: The plugin's own work for one run, timed inside a fresh process after pytest is imported.
IN_PROCESS = """
import sys, time
import pytest
start = time.perf_counter()
import tierlock.pytest_plugin as plugin
from tierlock.probing import probe_tiers
from tierlock.tiers import load_project
project = load_project(sys.argv[1])
results = probe_tiers(None, project)
gate = plugin._gate(project, results, False, "not CI")
plugin.header_lines(gate)
print((time.perf_counter() - start) * 1000)
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


def run_once(project: Path, *extra: str) -> float:
    env = {k: v for k, v in os.environ.items() if k not in {"CI", "TIERLOCK_STRICT", "PYTEST_ADDOPTS"}}
    argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *extra]
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    assert proc.returncode == 5, proc.stdout + proc.stderr  # 5: no tests collected
    if not extra:
        assert "tierlock: base present · brain absent" in proc.stdout, proc.stdout
    return elapsed * 1000


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="tierlock-bench-plugin-") as tmp:
        project = Path(tmp)
        (project / "pyproject.toml").write_text(PYPROJECT)
        (project / "tests" / "brain").mkdir(parents=True)
        with_plugin: list[float] = []
        without: list[float] = []
        run_once(project)  # warm the file cache
        for _ in range(RUNS):
            with_plugin.append(run_once(project))
            without.append(run_once(project, "-p", "no:tierlock"))
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
        work = [
            float(
                subprocess.run(
                    [sys.executable, "-c", IN_PROCESS, str(project)], capture_output=True, text=True, check=True
                ).stdout
            )
            for _ in range(RUNS)
        ]
        print(
            f"plugin work in a fresh process (import, tier table, probe, header): median "
            f"{statistics.median(work):6.1f} ms, min {min(work):6.1f} ms"
        )


if __name__ == "__main__":
    main()
