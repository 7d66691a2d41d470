"""Measure the census of a generated 2,000-test-file tree (in-process and ``tierlock census``).

The tree has 2,000 test files in 40 folders: most import only pytest, one in
ten imports a tier root (inside a function or at module level), some use a
conftest fixture that imports the root, one in fifty calls
``pytest.importorskip``. Peer: ``python -c "import ast"`` start-up plus
reading every file (the floor of any static census). Target: under 1 s.
Measured without a cache (a fresh CI checkout) and with the per-file cache
that the census keeps in ``.pytest_cache`` (size and mtime per file).

With ``--project CHECKOUT`` it times ``tierlock check`` on a real project
instead (copied to a temporary folder; ``tierlock init`` writes its table
there; target for narwhals' 13 tiers: under 0.5 s warm), against the same
floor (Python reading every test file and module of the copy); wall and CPU.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

BIN = Path(sys.executable).parent
FILES = 2000

PYPROJECT = """\
[project]
name = "big"
version = "0.1"
dependencies = []

[project.optional-dependencies]
arrow = ["pyarrow"]

[tool.tierlock.tiers.arrow]
tests = ["tests/arrow/**"]

[tool.pytest.ini_options]
testpaths = ["tests"]
"""

PLAIN = "import pytest\n\n\ndef helper(x):\n    return x * 2\n\n\n" + "".join(
    f"def test_{i}(tmp_path):\n    assert helper({i}) == {i * 2}\n\n\n" for i in range(12)
)


def make_tree(root: Path) -> None:
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    for folder in range(40):
        base = root / "tests" / f"pkg{folder}"
        base.mkdir(parents=True)
        (base / "conftest.py").write_text(
            "import pytest\n\n@pytest.fixture\ndef table():\n    import pyarrow\n    return pyarrow.table({})\n"
        )
    (root / "tests" / "arrow").mkdir()
    for i in range(FILES):
        where = root / "tests" / ("arrow" if i % 100 == 0 else f"pkg{i % 40}")
        text = PLAIN
        if i % 10 == 1:
            text += "def test_arrow():\n    import pyarrow.compute\n"
        if i % 10 == 2:
            text += "def test_fixture(table):\n    pass\n"
        if i % 50 == 3:
            text = "import pytest\npa = pytest.importorskip('pyarrow')\n" + text
        (where / f"test_mod{i}.py").write_text(text, encoding="utf-8")


def cpu_timed(command: list[str], runs: int = 7) -> tuple[float, float]:
    """(median wall, median CPU of the child: user + system) of *command*, after one warm-up run."""
    walls, cpus = [], []
    for _ in range(runs + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls[1:]), statistics.median(cpus[1:])


def real_project(checkout: Path) -> None:
    """``tierlock check`` on a copy of a real project after ``tierlock init``, warm (its .pytest_cache made)."""
    from tierlock.tiers import load_project

    with tempfile.TemporaryDirectory(prefix="tierlock-bench-check-") as tmp:
        root = Path(tmp) / checkout.name
        shutil.copytree(checkout, root, ignore=shutil.ignore_patterns(".git", ".venv", ".pytest_cache"))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_"))}
        subprocess.run(
            [str(BIN / "tierlock"), "--project", str(root), "-q", "init", "--no-groups"], check=True, env=env
        )
        (root / ".pytest_cache").mkdir()
        command = [str(BIN / "tierlock"), "--project", str(root), "check"]
        count = subprocess.run(command, capture_output=True, text=True, check=False).stdout.count("census-importer")
        tiers = len(load_project(root).tiers)
        wall, cpu = cpu_timed(command)
        code = "import pathlib\nfor p in pathlib.Path('.').rglob('*.py'): p.read_bytes()"
        floor = statistics.median([_clock([sys.executable, "-c", code], root) for _ in range(8)][1:])
        print(f"{checkout.name}: {tiers} tiers, {count} census finding(s) after init")
        print(
            f"tierlock check, warm:            {wall * 1000:7.1f} ms wall, {cpu * 1000:7.1f} ms CPU (target < 500 ms)"
        )
        print(f"floor (python + read all .py):   {floor * 1000:7.1f} ms (median)")
        print(f"ratio check/floor: {wall / floor:5.2f}x")


def _clock(command: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True)
    return time.perf_counter() - start


def timed(command: list[str], runs: int = 7) -> float:
    samples = []
    for _ in range(runs + 1):
        start = time.perf_counter()
        subprocess.run(command, check=False, stdout=subprocess.DEVNULL)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples[1:])


def main() -> None:
    from tierlock.census import project_census
    from tierlock.tiers import load_project

    with tempfile.TemporaryDirectory(prefix="tierlock-bench-census-") as tmp:
        root = Path(tmp)
        make_tree(root)
        project = load_project(root)
        samples = []
        for _ in range(6):
            start = time.perf_counter()
            result = project_census(project)
            samples.append(time.perf_counter() - start)
        inproc = statistics.median(samples[1:])
        arrow = result.tier("arrow")
        command = [str(BIN / "tierlock"), "--project", tmp, "census"]
        cold = timed(command)
        (root / ".pytest_cache").mkdir()  # pytest made it: the census keeps its per-file cache there
        warm = timed(command)
        cached = project_census(project)
        floor = _floor(root)
        print(f"files read: {result.files_read}, parsed: {result.files_parsed} (cold), cached: {cached.files_cached}")
        print(f"arrow: {len(arrow.covered)} covered, {len({u.file for u in arrow.outside})} importer files outside")
        print(f"census in-process, no cache:     {inproc * 1000:7.1f} ms (median; target < 1000 ms)")
        print(f"tierlock census, no cache:       {cold * 1000:7.1f} ms (median, whole process)")
        print(f"tierlock census, warm cache:     {warm * 1000:7.1f} ms (median, whole process)")
        print(f"floor (python + read all files): {floor * 1000:7.1f} ms (median)")
        print(f"ratio census/floor: cold {cold / floor:5.2f}x, warm {warm / floor:5.2f}x")


def _floor(root: Path) -> float:
    code = "import pathlib\nfor p in pathlib.Path('tests').rglob('*.py'): p.read_bytes()"
    samples = []
    for _ in range(8):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], cwd=root, check=True)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples[1:])


if __name__ == "__main__":
    if sys.argv[1:2] == ["--project"]:
        real_project(Path(sys.argv[2]))
    else:
        main()
