"""Measure the census of a generated 2,000-test-file tree (in-process and ``tierlock census``).

The tree has 2,000 test files in 40 folders: most import only pytest, one in
ten imports a tier root (inside a function or at module level), some use a
conftest fixture that imports the root, one in fifty calls
``pytest.importorskip``. Peer: ``python -c "import ast"`` start-up plus
reading every file (the floor of any static census). Target: under 1 s.
Measured without a cache (a fresh CI checkout) and with the per-file cache
that the census keeps in ``.pytest_cache`` (size and mtime per file).
"""

from __future__ import annotations

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
    main()
