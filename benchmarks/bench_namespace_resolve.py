"""The census's module index with and without the namespace-package fallback, interleaved in one run.

Loads ``tierlock.census.firstparty`` from this checkout and from main's (``git show main:...``), and resolves
3000 imports of 300 third-party names (none a project file: each one not found now also asks whether a folder of
that name holds modules) over an index of 2600 files, 21 rounds with the sides turned each round; prints each
side's median and their ratio. Run: ``.venv/bin/python benchmarks/bench_namespace_resolve.py``.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
MODULE = "src/tierlock/census/firstparty.py"
FILES = (
    [f"src/proj/sub{i // 20}/mod{i}.py" for i in range(2000)]
    + [f"src/proj/sub{i}/__init__.py" for i in range(100)]
    + [f"tests/test_{i}.py" for i in range(500)]
)
IMPORTS = [f"third{i % 300}.x" for i in range(3000)]


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _once(module: ModuleType) -> float:
    began = time.perf_counter()
    index = module.ModuleIndex(FILES, ("", "src"))
    for i, name in enumerate(IMPORTS):
        index.resolve(name, 0, (), f"tests/test_{i % 500}.py")
    return time.perf_counter() - began


def main() -> None:
    sys.path.insert(0, str(ROOT / "src"))
    with tempfile.TemporaryDirectory() as folder:
        old_path = Path(folder) / "firstparty_main.py"
        shown = subprocess.run(["git", "show", f"main:{MODULE}"], cwd=ROOT, capture_output=True, check=True)
        old_path.write_bytes(shown.stdout)
        sides = {"main": _load(old_path, "firstparty_main"), "this": _load(ROOT / MODULE, "firstparty_this")}
        times: dict[str, list[float]] = {"main": [], "this": []}
        for round_ in range(21):
            for label in ("main", "this") if round_ % 2 else ("this", "main"):
                times[label].append(_once(sides[label]))
    medians = {label: sorted(values)[len(values) // 2] * 1000 for label, values in times.items()}
    ratio = medians["this"] / medians["main"]
    print(f"main {medians['main']:.2f} ms, this {medians['this']:.2f} ms, ratio {ratio:.2f}")


if __name__ == "__main__":
    main()
