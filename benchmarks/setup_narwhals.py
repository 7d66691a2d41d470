"""Prepare the real-project measurement of ``bench_cli.py --project``: narwhals, 13 tiers, armed in a Python 3.12 venv.

Network needed: the package index (``tierlock lock`` resolves the 13 tiers with uv, ``install-tier`` and
``uv pip install`` download); offline the script says so and stops before changing anything. The source is a
git directory holding narwhals (a clone or a bare mirror of https://github.com/narwhals-dev/narwhals; ``--source``)
at ``--rev`` (the commit measured since 2026-12-01: 7880b36c4). Steps, each printed as it runs:

1. ``git archive REV`` into ``DIR/narwhals`` (a fresh folder);
2. ``tierlock init`` there (12 extras become tiers beside base; the dependency groups are left out as a
   non-interactive init leaves them), then the ``lock = "uv.lock"`` line it proposes (narwhals commits a uv.lock)
   taken out, so that the tiers are locked by tierlock into ``lockfiles/`` as the earlier measurements had them;
3. ``tierlock lock`` (13 lockfiles, uv, universal);
4. a venv of ``--target-python`` (Python 3.12.1 here) at ``DIR/venv``, the tiers that can be armed together armed by
   ``install-tier pandas pyarrow polars dask duckdb ibis sql`` (sqlframe's lock pins another sqlglot than ibis's,
   and ``[tool.uv].conflicts`` keeps modin from pandas), then the rest of what the earlier venv held, unpinned:
   ``pytest pytest-env hypothesis scikit-learn``, and ``modin sqlframe`` without their dependencies (their tiers
   are then partial, as before);
5. the four read-only commands run once, their exit codes printed (check 1, admit 1, probe 1, status 0: sibling
   conflicts, the census's findings, the absent pyspark, cudf and pyspark-connect tiers).

Then: ``bench_cli.py --project DIR/narwhals --python DIR/venv/bin/python --edited pyproject-deps``. The index moves:
a later run may lock newer versions than the figures in docs/benchmarks.md were taken with.

Run: ``.venv/bin/python benchmarks/setup_narwhals.py --source GITDIR [--rev REV] [--dir DIR] [--target-python PY]``.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._cliworld import BIN, online

REV = "7880b36c4"
ARMED = ("pandas", "pyarrow", "polars", "dask", "duckdb", "ibis", "sql")
EXTRA = ("pytest", "pytest-env", "hypothesis", "scikit-learn")
NO_DEPS = ("modin", "sqlframe")
#: The line ``tierlock init`` proposes for a project that commits a uv.lock (taken out: tierlock locks the tiers).
OWN_LOCK = 'lock = "uv.lock"\n'


def step(argv: list[str | Path], cwd: Path | None = None, *, quiet: bool = False) -> int:
    """Run *argv* (printed first); with *quiet*, its output is not shown and its exit code is the answer, else
    a failure stops the setup."""
    print("$", " ".join(str(a) for a in argv), flush=True)
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    out = subprocess.DEVNULL if quiet else None
    return subprocess.run([str(a) for a in argv], cwd=cwd, env=env, check=not quiet, stdout=out, stderr=out).returncode


def unpack(source: Path, rev: str, into: Path) -> None:
    print(f"$ git --git-dir {source} archive {rev} | tar -x -C {into}", flush=True)
    data = subprocess.run(["git", "--git-dir", str(source), "archive", rev], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        archive.extractall(into, filter="data")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--source", type=Path, required=True, help="a git directory holding narwhals (clone or mirror)")
    parser.add_argument("--rev", default=REV, help=f"the commit to measure (default {REV})")
    parser.add_argument("--dir", type=Path, default=Path("/tmp/nw"), help="where narwhals/ and venv/ are made")
    parser.add_argument("--target-python", type=Path, default=Path("/root/.pyenv/versions/3.12.1/bin/python"))
    args = parser.parse_args(argv)
    if not online():
        print("skipped: the setup locks and arms 13 tiers from the package index; pypi.org is not reachable")
        return 0
    source = args.source / ".git" if (args.source / ".git").is_dir() else args.source
    project, venv = args.dir / "narwhals", args.dir / "venv"
    for made in (project, venv):
        shutil.rmtree(made, ignore_errors=True)
    project.mkdir(parents=True)
    unpack(source, args.rev, project)
    step([BIN / "tierlock", "init"], cwd=project)
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    if OWN_LOCK in text:
        print(f"$ (the line {OWN_LOCK.strip()!r} taken out of [tool.tierlock])", flush=True)
        pyproject.write_text(text.replace(OWN_LOCK, "", 1), encoding="utf-8")
    step([BIN / "tierlock", "lock"], cwd=project)
    step([args.target_python, "-m", "venv", venv])
    python = venv / "bin" / "python"
    step([BIN / "install-tier", *ARMED, "--python", python], cwd=project)
    step([BIN / "uv", "pip", "install", "--python", python, *EXTRA])
    step([BIN / "uv", "pip", "install", "--python", python, "--no-deps", *NO_DEPS])
    for command in ("check", "admit", "probe", "status"):
        target: list[str | Path] = [] if command == "check" else ["--python", python]
        code = step([BIN / "tierlock", "--project", project, command, *target], quiet=True)
        print(f"  {command}: exit {code}")
    print(f"ready: bench_cli.py --project {project} --python {python} --edited pyproject-deps")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
