"""Narrate tierlock's main job on examples/demo (run by `make demo`).

Every step runs the real command line, shown as `$ ...`. Installs go into a
scratch virtual environment under .demo/ (never the repository's .venv), and
the committed example is never modified. Arming the tiers downloads tabulate
and numpy from the package index the first time.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "demo"
BIN = Path(sys.executable).parent
#: The scratch environment the demo arms.
DEMO_VENV = REPO / ".demo" / "venv"
PYTHON = str(DEMO_VENV.relative_to(REPO) / "bin" / "python")
PROJECT = ("--project", "examples/demo")
#: A laptop: not CI (``CI=false`` wins over vendor variables) and no TIERLOCK_STRICT override (empty).
LAPTOP = {"CI": "false", "TIERLOCK_STRICT": ""}
CI = {**LAPTOP, "CI": "true"}


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
    say("The demo project declares a pure-Python base tier (tabulate) and a `brain` tier (numpy, compiled).")
    run("tierlock", *PROJECT, "tiers")
    say("Each tier has a committed lockfile (exact pins, hashes, a header); the offline check proves they match.")
    run("tierlock", *PROJECT, "check")
    make_scratch_venv()
    say("A fresh environment gets the fast base install: exact pins from lockfiles/base.txt, hashes checked.")
    run("install-tier", *PROJECT, "base", "--python", PYTHON)
    gate_tests_without_brain()
    arm_brain()
    gate_tests_with_brain()
    validate_runtime_config()
    verify_and_gate()


def make_scratch_venv() -> None:
    shutil.rmtree(DEMO_VENV, ignore_errors=True)
    DEMO_VENV.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(DEMO_VENV)], check=True)
    # The scratch venv holds only the demo's tiers; it borrows pytest and tierlock from the dev venv.
    site = next((DEMO_VENV / "lib").glob("python3*/site-packages"))
    tools = next((REPO / ".venv" / "lib").glob("python3*/site-packages"))
    (site / "_demo_tools.pth").write_text(f"{tools}\n{REPO / 'src'}\n", encoding="utf-8")


def gate_tests_without_brain() -> None:
    say("Run the demo's tests without the brain tier: tests/brain is not collected (it imports numpy) and named.")
    run(PYTHON, "-m", "pytest", "examples/demo", "-p", "no:cacheprovider", env=LAPTOP)
    say(
        "The same run in CI: brain is in ci-require and absent, so it fails closed before collection "
        "(exit 6, the plugin's own code)."
    )
    run(PYTHON, "-m", "pytest", "examples/demo", "-p", "no:cacheprovider", env=CI, expect=6)
    say("A base-only CI job says so on purpose, and passes.")
    run(PYTHON, "-m", "pytest", "examples/demo", "-p", "no:cacheprovider", "--tierlock-lenient", env=CI)


def arm_brain() -> None:
    """install-tier: arm, run again (nothing changes), break numpy (a husk), repair."""
    say("Arm the brain tier: exact pins from lockfiles/brain.txt, --no-deps, hashes checked, then verified.")
    run("install-tier", *PROJECT, "brain", "--python", PYTHON)
    say("Run it again: the receipt and a stat of every installed file prove nothing is to do (no uv, no pip).")
    run("install-tier", *PROJECT, "brain", "--python", PYTHON)
    site = next((DEMO_VENV / "lib").glob("python3*/site-packages"))
    compiled = sorted((site / "numpy").rglob("_multiarray_umath*.so"))
    if not compiled:
        print("demo: numpy has no _multiarray_umath*.so here; skipping the husk step", flush=True)
        return
    compiled[0].unlink()
    say(f"Delete numpy's compiled {compiled[0].name}: .dist-info survives, `import numpy` fails - a husk.")
    print("   (uv sync, uv pip sync, pip install and pip-sync all report nothing to do here)", flush=True)
    run("tierlock", *PROJECT, "probe", "brain", "--python", PYTHON, expect=1)
    say("install-tier sees the husk and repairs just numpy (a forced reinstall of that one package).")
    run("install-tier", *PROJECT, "brain", "--python", PYTHON)
    run("tierlock", *PROJECT, "status", "--python", PYTHON)


def gate_tests_with_brain() -> None:
    say("With brain armed, the same CI run collects tests/brain and passes: nothing required is missing.")
    run(PYTHON, "-m", "pytest", "examples/demo", "-p", "no:cacheprovider", env=CI)


def validate_runtime_config() -> None:
    say("The runtime config lists the setup (install-tier brain) and verification commands: it validates.")
    run("tierlock", "validate", "examples/demo/tierlock.runtime.json")
    say("A broken copy: every error at once, with line and column, and no secret echoed (exit 1).")
    run("tierlock", "validate", "examples/demo/broken.runtime.json", expect=1)


#: A scratch git checkout of the demo for `tierlock verify` (evidence binds to a commit and its tree).
CHECKOUT = REPO / ".demo" / "checkout"
GIT_IDENTITY = {"GIT_AUTHOR_NAME": "Demo", "GIT_AUTHOR_EMAIL": "demo@example.invalid"}
GIT_IDENTITY |= {"GIT_COMMITTER_NAME": "Demo", "GIT_COMMITTER_EMAIL": "demo@example.invalid"}


def verify_and_gate() -> None:
    """tierlock verify runs the config's setup and checks as evidence; tierlock verified is the gate."""
    shutil.rmtree(CHECKOUT, ignore_errors=True)
    shutil.copytree(DEMO, CHECKOUT, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    (CHECKOUT / ".gitignore").write_text("__pycache__/\n.pytest_cache/\n", encoding="utf-8")
    # The scratch venv is the active one: install-tier arms it, and verify runs every command with it
    # activated (its bin first on PATH), so the checks' pytest is its own.
    pytest_script = DEMO_VENV / "bin" / "pytest"
    pytest_script.write_text(f"#!{DEMO_VENV / 'bin' / 'python'}\nimport sys, pytest\nsys.exit(pytest.console_main())\n")
    pytest_script.chmod(0o755)
    env = {**os.environ, **LAPTOP, **GIT_IDENTITY, "VIRTUAL_ENV": str(DEMO_VENV)}
    env["PATH"] = os.pathsep.join([str(BIN), env.get("PATH", "")])
    for argv in (("init", "-q", "-b", "main"), ("add", "-A"), ("commit", "-q", "-m", "demo")):
        subprocess.run(["git", "-C", str(CHECKOUT), *argv], check=True, env=env)
    at = ("--project", str(CHECKOUT.relative_to(REPO)))

    def step(*argv: str, expect: int = 0) -> None:
        print(f"$ {' '.join(shlex.quote(a) for a in argv)}", flush=True)
        exe = str(BIN / argv[0]) if (BIN / argv[0]).exists() else argv[0]
        proc = subprocess.run([exe, *argv[1:]], cwd=REPO, env=env, check=False)
        if proc.returncode != expect:
            print(f"demo: expected exit {expect}, got {proc.returncode}", file=sys.stderr)
            sys.exit(1)

    say("A git checkout of the demo: `tierlock verify` runs the setup, then every check, each logged.")
    print("   (the receipt is bound to the commit and its tree, and kept in .git/tierlock/evidence)", flush=True)
    step("tierlock", *at, "verify")
    say("The gate a pre-push hook calls: a passing, clean receipt for exactly this tree (exit 0).")
    step("tierlock", *at, "verified")
    scores = CHECKOUT / "src" / "demo_app" / "__init__.py"
    scores.write_text(scores.read_text(encoding="utf-8") + "\n# a later change\n", encoding="utf-8")
    subprocess.run(["git", "-C", str(CHECKOUT), "commit", "-q", "-am", "a later change"], check=True, env=env)
    say("Commit a change: the receipt is stale, the gate names the file and the command to run (exit 1).")
    step("tierlock", *at, "verified", expect=1)
    say("For a program: one JSON line at the end (here, the gate's).")
    step("tierlock", *at, "verified", "--json", expect=1)
    say("Run the printed remedy as printed; the gate passes again.")
    step("tierlock", *at, "verify", "--quiet")
    step("tierlock", *at, "verified")


if __name__ == "__main__":
    main()
