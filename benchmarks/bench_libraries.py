"""The shared-library check of the probe: its cost cold and warm, beside ``ldd`` (the loader itself asked).

Builds (offline, with the C compiler) a jax-sized set of extensions: 160 extension modules in six
package folders, each needing ``libstdc++``, ``libm``, ``libgcc_s``, ``libc`` and a library bundled
in its wheel's ``.libs`` folder (through ``$ORIGIN``), as jaxlib, numpy and scipy do. Or, with
``--site DIR``, takes every extension of an existing site folder (a real environment). Then it
measures, each in a new process as the CLI and the pytest plugin run:

* **cold**: no kept verdicts (the first probe after an install): every extension and library read;
* **warm**: the verdicts kept on disk by the run before (every later probe): one ``stat`` of each
  extension and of each library it relies on;
* **in-process warm**: the same process probing again (``admit`` of several tiers, a long-lived tool);
* the peer: ``ldd`` of every extension (the dynamic loader resolving each one), summed;
* the floor: one ``stat`` of each extension (what the file checks already pay).

``--baseline SRC`` also measures the cold and warm probes with another tierlock's sources (``git archive REV src |
tar -x -C DIR`` gives ``DIR/src``), the runs interleaved with this checkout's: a before/after in one run, with the
median of the round-by-round differences.

Run: ``.venv/bin/python benchmarks/bench_libraries.py [--site DIR] [--runs N] [--baseline DIR/src]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.support.env import clean_env  # noqa: E402

PACKAGES = ("jax", "jaxlib", "numpy", "scipy", "ml_dtypes", "opt_einsum")
EXTENSIONS = 160

MEASURE = r"""
import os, sys, time
site, files = sys.argv[1], sys.argv[2:]
from tierlock.probing import libraries
pairs = [(os.path.join(site, rel), rel) for rel in files]
class Owner: pass
start = time.perf_counter()
missing = libraries.unresolved(Owner(), [site], pairs)
first = time.perf_counter() - start
start = time.perf_counter()
libraries.unresolved(Owner(), [site], pairs)
again = time.perf_counter() - start
libraries.save_all()
print(f"{first * 1000:.3f} {again * 1000:.3f} {len(missing)}")
"""


def build(work: Path) -> tuple[Path, list[str]]:
    """The synthetic site folder and the relative paths of its extensions."""
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        raise SystemExit("no C compiler: pass --site DIR to measure an existing environment")
    (work / "src").mkdir(parents=True)
    (work / "src" / "common.c").write_text("int common(void) { return 1; }\n")
    (work / "src" / "ext.c").write_text("int common(void);\nint PyInit__ext(void) { return common(); }\n")
    site = work / "site"
    files: list[str] = []
    for index, package in enumerate(PACKAGES):
        libs = site / f"{package}.libs"
        libs.mkdir(parents=True)
        soname = f"libcommon-{index:08x}.so"
        subprocess.run(
            [
                compiler,
                "-shared",
                "-fPIC",
                f"-Wl,-soname,{soname}",
                "-o",
                str(libs / soname),
                str(work / "src" / "common.c"),
            ],
            check=True,
        )
        ext = work / f"_ext-{package}.so"
        link = [f"-Wl,--enable-new-dtags,-rpath,$ORIGIN/../{package}.libs", "-Wl,--no-as-needed"]
        system = ["-lstdc++", "-lm", "-lgcc_s", "-lc"]
        sources = [str(work / "src" / "ext.c"), str(libs / soname)]
        subprocess.run([compiler, "-shared", "-fPIC", "-o", str(ext), *sources, *link, *system], check=True)
        for number in range(EXTENSIONS // len(PACKAGES) + (index < EXTENSIONS % len(PACKAGES))):
            folder = site / package
            folder.mkdir(exist_ok=True)
            name = f"_ext{number:03d}.cpython-311-x86_64-linux-gnu.so"
            shutil.copyfile(ext, folder / name)
            files.append(f"{package}/{name}")
    return site, files


def existing(site: Path) -> list[str]:
    from tierlock.probing.libraries import is_extension

    out: list[str] = []
    for folder, _dirs, names in os.walk(site):
        for name in names:
            rel = os.path.relpath(os.path.join(folder, name), site).replace(os.sep, "/")
            if is_extension(rel):
                out.append(rel)
    return sorted(out)


def run(site: Path, files: list[str], cache: str, src: Path = REPO / "src") -> tuple[float, float, int]:
    env = clean_env({"TIERLOCK_CACHE_DIR": cache, "PYTHONPATH": str(src)})
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed for real: byte code written and used
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, str(site), *files], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    return float(out[0]), float(out[1]), int(out[2])


def ldd(site: Path, files: list[str]) -> float:
    start = time.perf_counter()
    for rel in files:
        subprocess.run(["ldd", str(site / rel)], capture_output=True, check=False)
    return (time.perf_counter() - start) * 1000


def stat_floor(site: Path, files: list[str]) -> float:
    paths = [str(site / rel) for rel in files]
    start = time.perf_counter()
    for path in paths:
        os.stat(path)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, help="measure the extensions of this site folder instead")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--baseline", type=Path, help="another tierlock's src folder, measured beside this one")
    args = parser.parse_args()
    base: dict[str, list[float]] = {"cold": [], "warm": []}
    with tempfile.TemporaryDirectory(prefix="bench-libraries-") as tmp:
        work = Path(tmp)
        site, files = (args.site, existing(args.site)) if args.site else build(work)
        cold, warm, again = [], [], []
        for _ in range(args.runs):
            cache = work / "cache"
            shutil.rmtree(cache, ignore_errors=True)
            first, second, missing = run(site, files, str(cache))  # no kept verdicts: cold
            cold.append(first)
            again.append(second)
            warm.append(run(site, files, str(cache))[0])  # the verdicts kept by the run before
            if args.baseline is not None:  # the same two runs with the baseline's sources, its own cache
                shutil.rmtree(cache, ignore_errors=True)
                base["cold"].append(run(site, files, str(cache), args.baseline)[0])
                base["warm"].append(run(site, files, str(cache), args.baseline)[0])
        peer = ldd(site, files) if shutil.which("ldd") else float("nan")
        floor = statistics.median(stat_floor(site, files) for _ in range(args.runs))
    median = statistics.median
    print(f"{len(files)} extensions in {site if args.site else 'a synthetic jax-sized set'}; {missing} missing")
    print(f"cold (new process, nothing kept):       {median(cold):8.2f} ms   (min {min(cold):.2f})")
    print(f"warm (new process, verdicts kept):      {median(warm):8.2f} ms   (min {min(warm):.2f})")
    print(f"in-process warm (the same process):     {median(again):8.2f} ms   (min {min(again):.2f})")
    print(f"floor: one stat of each extension:      {floor:8.2f} ms")
    print(f"peer: ldd of each extension, summed:    {peer:8.2f} ms   (cold is {peer / median(cold):.0f}x faster)")
    print(f"warm / cold: {median(warm) / median(cold):.2f}; warm over the floor: {median(warm) - floor:.2f} ms")
    if args.baseline is not None:
        for label, ours in (("cold", cold), ("warm", warm)):
            theirs = base[label]
            paired = median(a - b for a, b in zip(ours, theirs, strict=True))
            print(
                f"{label}: this checkout {median(ours):.2f} ms, baseline {median(theirs):.2f} ms "
                f"({median(ours) / median(theirs):.2f}x; paired median {paired:+.2f} ms)"
            )


if __name__ == "__main__":
    main()
