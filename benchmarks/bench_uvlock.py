"""A uv project read straight from uv.lock: tierlock's no-change paths beside plain uv's, on the same project.

* ``tierlock check`` (uv.lock against pyproject.toml, offline) vs ``uv lock --check --offline``;
* a no-op ``install-tier TIER`` (receipts and ``stat``) vs ``uv sync --inexact`` of the same selection
  and vs a plain exact ``uv sync`` of it (both with nothing to do).

By default the project is generated offline (the ~90-package project of the
lock benchmarks, with ``lock = "uv.lock"``); ``--project DIR --tier NAME``
measures a real uv project instead (uv then uses that project's index
settings). uv gets a cache of its own in a temporary folder, and the project's
environment is armed by ``install-tier`` before anything is timed. Medians of
``--repeat`` runs each, after a warm-up; the ratios are printed.
Targets: check within 2x of ``uv lock --check``; the no-op arm no slower than
``uv sync``'s no-op.

``--baseline SRC`` (another tierlock's ``src`` folder: ``git archive REV src | tar -x -C DIR``) also runs
the check and the no-op arm through that code, in turn with this checkout's (both started the same way,
``python -c`` with the ``src`` folder first on the path), and prints this code's time over that code's.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import _lockbench
from benchmarks._lockbench import BIN, interleaved, make_project, run, timed

REPO = Path(__file__).resolve().parents[1]
_START = (
    "import sys; sys.path.insert(0, sys.argv.pop(1)); sys.argv[0] = {0!r}; "
    "from tierlock._entry import {1}; sys.exit({1}())"
)


def _through(src: Path, script: str, *args: str | Path) -> list[str | Path]:
    """``tierlock``/``install-tier`` ARGS run from the sources in *src*."""
    entry = "tierlock" if script == "tierlock" else "install_tier"
    return [BIN / "python", "-c", _START.format(script, entry), src, *args]


def _paired(project: Path, tier: str, baseline: Path, repeat: int) -> None:
    for label, script, args in (
        ("tierlock check", "tierlock", ("--project", project, "check")),
        (f"install-tier {tier} (no-op)", "install-tier", ("--project", project, tier, "-q")),
    ):
        try:
            run(_through(baseline, script, *args))
        except SystemExit as exc:  # the baseline's answer is not this code's (a defect fixed since): no pair
            print(f"paired {label}: the baseline fails here, no pair: {str(exc).splitlines()[1:2]}")
            continue
        new, old = interleaved([_through(REPO / "src", script, *args), _through(baseline, script, *args)], None, repeat)
        print(f"paired {label}: this code {new * 1000:7.1f} ms, baseline {old * 1000:7.1f} ms, {new / old:5.2f}x")


def _generated(root: Path) -> tuple[Path, str]:
    project, _wheels, _count = make_project(root)
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace(
            "[tool.tierlock.tiers.brain]", '[tool.tierlock]\nlock = "uv.lock"\n\n[tool.tierlock.tiers.brain]'
        )
    )
    run([BIN / "uv", "lock", "--offline", "--quiet"], cwd=project)
    return project, "brain"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", type=Path, help="a real uv project (default: a generated one, offline)")
    parser.add_argument("--tier", default="brain", help="the tier to arm and sync (an extra of the project)")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--baseline", type=Path, help="another tierlock's src folder, run in turn with this one")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tierlock-bench-uvlock-") as tmp:
        os.environ["UV_CACHE_DIR"] = str(Path(tmp) / "uv-cache")  # never the user's cache
        base_env = _lockbench.env

        def env() -> dict[str, str]:
            return {**base_env(), "UV_CACHE_DIR": os.environ["UV_CACHE_DIR"]}

        _lockbench.env = env
        project, tier = (args.project.resolve(), args.tier) if args.project else _generated(Path(tmp))
        offline = [] if args.project else ["--offline"]
        run([BIN / "install-tier", "--project", project, tier, "-q"])
        selection = ["--no-default-groups", "--extra", tier, *offline, "--quiet"]
        run([BIN / "uv", "sync", "--inexact", *selection], cwd=project)  # both now agree: nothing to do
        check = timed([BIN / "tierlock", "--project", project, "check"], repeat=args.repeat)
        lock_check = timed([BIN / "uv", "lock", "--check", *offline, "--quiet"], cwd=project, repeat=args.repeat)
        arm = timed([BIN / "install-tier", "--project", project, tier, "-q"], repeat=args.repeat)
        inexact = timed([BIN / "uv", "sync", "--inexact", *selection], cwd=project, repeat=args.repeat)
        exact = timed([BIN / "uv", "sync", *selection], cwd=project, repeat=args.repeat)
        print(f"project: {project if args.project else 'generated, ~90 packages'}; tier {tier}")
        print(f"tierlock check:               {check * 1000:7.1f} ms (median)")
        print(f"uv lock --check:              {lock_check * 1000:7.1f} ms (median)")
        print(f"ratio:                        {check / lock_check:7.2f}x (target <= 2x)")
        print(f"install-tier {tier} (no-op):  {arm * 1000:7.1f} ms (median)")
        print(f"uv sync --inexact (no-op):    {inexact * 1000:7.1f} ms (median)  ratio {arm / inexact:5.2f}x")
        print(
            f"uv sync, exact (no-op):       {exact * 1000:7.1f} ms (median)  ratio {arm / exact:5.2f}x (target <= 1x)"
        )
        if args.baseline is not None:
            _paired(project, tier, args.baseline.resolve(), args.repeat)


if __name__ == "__main__":
    main()
