"""Probe speed: in-process ``tierlock.probe`` of a ~90-package tier against ``pytest.importorskip``.

Generates (offline) 90 small distributions -- each a package of 10 modules
plus one compiled-extension-named file -- installs them for real with uv into
a scratch folder, and writes a project whose ``big`` tier has 30 roots and a
lockfile pinning all 90 (its closure). Then it measures, warm file cache:

* ``tierlock.probe("big", project=...)`` in this process (every file of the
  roots and of the rest of the closure: 90 packages; ``closure=True`` is the
  same verdict), median of many runs, from the project path and from a loaded
  Project;
* ``pytest.importorskip(root)`` for the same 30 roots, each in a fresh
  process (what a gated suite pays per root without tierlock), summed;
* the floor: one ``os.stat`` of each file the probe checks (the least any
  files-based probe must do), and the probe's ratio to it (aim: within 1.5x;
  ``bench_probe_closure.py`` measures it with the variants alternating);

and prints the ratios. Run: ``.venv/bin/python benchmarks/bench_probe.py``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.binaries import loadable_stub  # noqa: E402
from tests.support.env import clean_env  # noqa: E402
from tests.support.wheels import build_wheel  # noqa: E402

PACKAGES = 90
ROOTS = 30
MODULES = 10
RUNS = 200


def generate(work: Path) -> tuple[Path, Path]:
    """Wheels installed into *work*/site and a project at *work*/project; returns (site, project)."""
    wheels = work / "wheels"
    names = [f"benchpkg{i:02d}" for i in range(PACKAGES)]
    for name in names:
        files: dict[str, bytes | str] = {f"{name}/__init__.py": "VALUE = 1\n"}
        for m in range(MODULES - 1):
            files[f"{name}/mod{m}.py"] = f"X = {m}\n" * 20
        files[f"{name}/_core.so"] = loadable_stub(4100)  # (an ELF header this interpreter's loader takes, and zeros)
        build_wheel(wheels, name, "1.0", files=files, extension=True)
    site = work / "site"
    uv = Path(sys.executable).parent / "uv"
    subprocess.run(
        [
            str(uv),
            "pip",
            "install",
            "--quiet",
            "--no-index",
            "--find-links",
            str(wheels),
            "--target",
            str(site),
            "--python",
            sys.executable,
            "--link-mode",
            "copy",
            *names,
        ],
        check=True,
        env=clean_env(),
    )
    project = work / "project"
    (project / "lockfiles").mkdir(parents=True)
    roots = ", ".join(f'"{n}"' for n in names[:ROOTS])
    (project / "pyproject.toml").write_text(
        f'[project]\nname = "bench"\nversion = "0"\ndependencies = []\n'
        f"[project.optional-dependencies]\nbig = [{roots}]\n"
        '[tool.tierlock.tiers.big]\ntests = ["tests/big/**"]\n'
    )
    fake = "--hash=sha256:" + "0" * 64
    (project / "lockfiles" / "big.txt").write_text("".join(f"{n}==1.0 {fake}\n" for n in names))
    return site, project


def timed_ms(fn: Callable[[], object], runs: int = RUNS) -> tuple[float, float]:
    """(median, min) in milliseconds after one warm-up call."""
    fn()  # warm the file cache and the imports
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000, min(samples) * 1000


def stat_floor(paths: list[str]) -> None:
    """The least any files-based probe must do: one stat per installed file."""
    for path in paths:
        os.stat(path)


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="tierlock-bench-probe-") as tmp:
        os.environ["TIERLOCK_CACHE_DIR"] = str(Path(tmp) / "kept")  # this machine's own cache left alone
        site, project = generate(Path(tmp))
        time.sleep(1.5)  # installed files older than the file system's clock tick: what the probe may remember
        sys.path.insert(0, str(site))
        import tierlock
        from tierlock.tiers import load_project

        loaded = load_project(project)
        result = tierlock.probe("big", project=project, closure=True)
        assert result.state == "present", [d.reasons for d in result.broken]
        packages = len(result.checked)
        files = result.files_checked

        full, full_min = timed_ms(lambda: tierlock.probe("big", project=project, closure=True))
        full_loaded, full_loaded_min = timed_ms(lambda: tierlock.probe("big", project=loaded, closure=True))
        default, default_min = timed_ms(lambda: tierlock.probe("big", project=loaded))
        paths = [f.path for d in result.checked for f in d.files]
        floor, floor_min = timed_ms(lambda: stat_floor(paths))

        env = clean_env({"PYTHONPATH": str(site)})
        roots = [f"benchpkg{i:02d}" for i in range(ROOTS)]
        start = time.perf_counter()
        for root in roots:
            subprocess.run([sys.executable, "-c", f"import pytest; pytest.importorskip({root!r})"], check=True, env=env)
        importorskip_ms = (time.perf_counter() - start) * 1000

        print(f"tier: {ROOTS} roots, {packages} packages with the closure, {files} files checked")
        print(f"tierlock.probe(closure=True), project path:    median {full:7.2f} ms (min {full_min:.2f}), {RUNS} runs")
        print(f"tierlock.probe(closure=True), loaded Project:  median {full_loaded:7.2f} ms")
        print(f"tierlock.probe() default,     loaded Project:  median {default:7.2f} ms (min {default_min:.2f})")
        print(f"floor: os.stat of the same {len(paths)} files:  median {floor:7.2f} ms (min {floor_min:.2f})")
        print(
            f"ratio probe(closure, loaded Project) / floor:   medians {full_loaded / floor:5.2f}x, "
            f"minimums {full_loaded_min / floor_min:5.2f}x (aim <= 1.5x)"
        )
        print(f"pytest.importorskip x {ROOTS} roots, fresh process each: {importorskip_ms:9.1f} ms")
        print(f"ratio importorskip / probe(closure, project path): {importorskip_ms / full:7.0f}x")
        print(f"ratio importorskip / probe() default:              {importorskip_ms / default:7.0f}x")
        print(f"(python {sys.version.split()[0]}, {os.cpu_count()} cpus)")


if __name__ == "__main__":
    main()
