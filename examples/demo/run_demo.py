"""Narrate tierlock's main job on examples/demo (run by `make demo`).

Every step runs the real command line, shown as `$ ...`, in a scratch folder
(.demo/) so the committed example is never modified.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "demo"
BIN = Path(sys.executable).parent


def say(text: str) -> None:
    print(f"\n== {text}", flush=True)


def run(*argv: str, expect: int | None = 0, env: dict[str, str] | None = None) -> int:
    shown = " ".join(shlex.quote(a) for a in argv)
    shown = " ".join([*(f"{k}={shlex.quote(v)}" for k, v in (env or {}).items() if v not in ("", "false")), shown])
    print(f"$ {shown}", flush=True)
    exe = BIN / argv[0] if (BIN / argv[0]).exists() else Path(argv[0])
    proc = subprocess.run([str(exe), *argv[1:]], cwd=REPO, env={**os.environ, **(env or {})}, check=False)
    if expect is not None and proc.returncode != expect:
        print(f"demo: expected exit {expect}, got {proc.returncode}", file=sys.stderr)
        sys.exit(1)
    return proc.returncode


def main() -> None:
    say("The demo project declares a pure-Python base tier and a `brain` tier (numpy, compiled).")
    run("tierlock", "--project", "examples/demo", "tiers")
    check_locks()
    gate_tests_without_brain()
    arm_brain()
    gate_tests_with_brain()
    validate_runtime_config()


def validate_runtime_config() -> None:
    say("The runtime config lists the setup (install-tier brain) and verification commands: it validates.")
    run("tierlock", "validate", "examples/demo/tierlock.runtime.json")
    say("A broken copy: every error at once, with line and column, and no secret echoed (exit 1).")
    run("tierlock", "validate", "examples/demo/broken.runtime.json", expect=1)


#: The scratch environment the demo arms (never the repository's own .venv).
DEMO_VENV = REPO / ".demo" / "brain-venv"


def arm_brain() -> None:
    """install-tier: arm, run again (nothing changes), break numpy (a husk), repair."""
    import shutil

    shutil.rmtree(DEMO_VENV, ignore_errors=True)
    DEMO_VENV.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(DEMO_VENV)], check=True)
    python = str(DEMO_VENV.relative_to(REPO) / "bin" / "python")
    target = ("--project", "examples/demo")
    say("Arm the brain tier in a scratch venv: exact pins from the lockfile, --no-deps, hashes checked.")
    run("install-tier", *target, "brain", "--python", python)
    say("Run it again: the receipt and a stat of every installed file prove nothing is to do (no uv, no pip).")
    run("install-tier", *target, "brain", "--python", python)
    site = next((DEMO_VENV / "lib").glob("python3*/site-packages"))
    compiled = sorted((site / "numpy").rglob("_multiarray_umath*.so"))
    if not compiled:
        print("demo: numpy has no _multiarray_umath*.so here; skipping the husk step", flush=True)
        return
    compiled[0].unlink()
    say(f"Delete numpy's compiled {compiled[0].name}: .dist-info survives, `import numpy` fails - a husk.")
    print("   (uv sync, uv pip sync, pip install and pip-sync all report nothing to do here)", flush=True)
    run("tierlock", *target, "probe", "brain", "--python", python, expect=1)
    say("install-tier sees the husk and repairs just numpy (a forced reinstall of that one package).")
    run("install-tier", *target, "brain", "--python", python)
    run("tierlock", *target, "status", "--python", python)


#: A laptop: not CI (``CI=false`` wins over vendor variables) and no TIERLOCK_STRICT override (empty).
LAPTOP = {"CI": "false", "TIERLOCK_STRICT": ""}


def gate_tests_without_brain() -> None:
    """The demo's test run in this environment, where the brain tier (numpy) is not installed."""
    if run("tierlock", "--project", "examples/demo", "-q", "probe", "brain", expect=None) == 0:
        print("demo: numpy is installed in this environment; skipping the brain-absent test runs", flush=True)
        return
    say("Run the demo's tests without the brain tier: tests/brain is not collected (it imports numpy) and named.")
    run("pytest", "examples/demo", "-p", "no:cacheprovider", env=LAPTOP)
    say("The same run in CI: a ci-require tier is absent, so it fails closed before collection (exit 1).")
    run("pytest", "examples/demo", "-p", "no:cacheprovider", env={**LAPTOP, "CI": "true"}, expect=1)
    say("A base-only CI job says so on purpose, and passes.")
    run("pytest", "examples/demo", "-p", "no:cacheprovider", "--tierlock-lenient", env={**LAPTOP, "CI": "true"})


def gate_tests_with_brain() -> None:
    """The demo's test run inside the armed scratch venv: brain is present, every test runs, CI passes."""
    site = next((DEMO_VENV / "lib").glob("python3*/site-packages"), None)
    if site is None:
        return
    # The scratch venv holds only the tiers; borrow pytest and tierlock from the dev venv through a .pth file.
    tools = next((REPO / ".venv" / "lib").glob("python3*/site-packages"))
    (site / "_demo_tools.pth").write_text(f"{tools}\n{REPO / 'src'}\n", encoding="utf-8")
    python = str(DEMO_VENV.relative_to(REPO) / "bin" / "python")
    say("With brain armed, the same test run collects tests/brain, and CI passes because nothing is missing.")
    run(python, "-m", "pytest", "examples/demo", "-p", "no:cacheprovider", env={**LAPTOP, "CI": "true"})


def check_locks() -> None:
    say("Each tier has a committed lockfile (exact pins, hashes, a header); the offline check proves they match.")
    run("tierlock", "--project", "examples/demo", "check")


if __name__ == "__main__":
    main()
