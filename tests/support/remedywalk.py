"""The remedy walker: read the printed remedy, run it exactly as printed, repeat until the state is healthy.

A :class:`Scene` is one broken state: a copy of a locked project, a real venv
and the offline wheel folder the backends read through the user's own
configuration (``UV_FIND_LINKS`` / ``PIP_FIND_LINKS``). :func:`walk` asks the
real CLI (a subprocess, in the project folder, as a user types it), reads the
remedy twice (the ``to fix:`` line of the human output and ``remedy_argv`` of
``--json``), checks that both say the same command, runs it shlex-split (each
part of an ``&&`` chain in order, stopping at the first that fails), and asks
again; after at most :data:`STEPS` remedies the state must be healthy.

What the walk refuses, whatever the state:

* a remedy that tierlock itself refuses (a non-zero exit of a ``tierlock`` or
  ``install-tier`` step);
* an action (``install-tier``, ``remove``) that exits 0 while printing a remedy
  or ``"ok": false`` (a refusal dressed as success);
* a remedy that is prose rather than a command, or whose ``--json`` argv
  differs from the printed line.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.env import bin_dir, clean_env, site_packages

#: At most this many remedies reach the healthy state.
STEPS = 3

#: The commands a remedy may run; anything else is prose, not a remedy.
TOOLS = frozenset({"tierlock", "install-tier", "python", "uv", "pip", "chattr", "chmod", "rm"})

#: Subcommands that change the environment: exit 0 means it was done, never refused.
ACTIONS = frozenset({"install", "install-tier", "remove"})


@dataclass
class Scene:
    """One broken state: its project folder, its venv, and how to run commands as the user would."""

    name: str
    root: Path
    venv: Path
    wheels: Path
    cache: Path
    use_python: bool = True
    """Commands name the venv with ``--python`` (False: the project's own ``.venv``, found from the folder)."""
    log: list[str] = field(default_factory=list)

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def site(self) -> Path:
        return site_packages(self.venv)

    def env(self) -> dict[str, str]:
        links = str(self.wheels)
        extra = {
            "PATH": f"{bin_dir()}{os.pathsep}{os.environ.get('PATH', '')}",
            "UV_NO_INDEX": "1",
            "UV_FIND_LINKS": links,
            "UV_CACHE_DIR": str(self.cache),
            "PIP_NO_INDEX": "1",
            "PIP_FIND_LINKS": links,
            "NO_COLOR": "1",
        }
        return clean_env(extra)

    def run(self, argv: Sequence[str], *, check: bool = False) -> subprocess.CompletedProcess[str]:
        """Run *argv* in the project folder (console scripts of this tierlock first on PATH)."""
        done = subprocess.run(
            list(argv), cwd=self.root, env=self.env(), capture_output=True, text=True, check=False, timeout=300
        )
        self.log.append(f"$ {shlex.join(argv)}  -> {done.returncode}\n{done.stdout}{done.stderr}")
        if check and done.returncode != 0:
            raise AssertionError(f"{self.name}: {shlex.join(argv)} failed\n" + "\n".join(self.log[-3:]))
        return done

    def where(self) -> list[str]:
        return ["--python", str(self.python)] if self.use_python else []

    def tierlock(self, *args: str, check: bool = False) -> subprocess.CompletedProcess[str]:
        return self.run(["tierlock", *args, *self.where()], check=check)

    def arm(self, *tiers: str, flags: Sequence[str] = ()) -> None:
        self.run(["install-tier", *tiers, *self.where(), *flags], check=True)

    def uv_pip(self, *args: str) -> None:
        """``uv pip ...`` on the scene's venv: another tool changing the environment behind tierlock's back."""
        self.run(["uv", "pip", *args, "--python", str(self.python)], check=True)

    def receipt(self, tier: str) -> dict[str, Any] | None:
        path = self.venv / "tierlock" / "receipts" / f"{tier}.json"
        return json.loads(path.read_text()) if path.is_file() else None

    def installed(self) -> dict[str, str]:
        """name -> version of every distribution in the venv's site-packages."""
        out: dict[str, str] = {}
        for info in self.site.glob("*.dist-info"):
            name, _, version = info.name[: -len(".dist-info")].partition("-")
            out[name.replace("_", "-").lower()] = version
        return out

    def probe_state(self, tier: str) -> str:
        done = self.tierlock("probe", tier, "--json")
        document = json.loads(done.stdout)
        return str(document["tiers"][0]["state"])


@dataclass(frozen=True)
class Reading:
    """One question to the CLI, asked twice (human and ``--json``): its exit, output and the remedy it prints."""

    argv: tuple[str, ...]
    code: int
    text: str
    document: Any
    remedy: str | None
    remedy_argv: list[list[str]] | None


def remedy_lines(text: str) -> list[str]:
    return [line.split("to fix:", 1)[1].strip() for line in text.splitlines() if "to fix:" in line]


def json_remedies(document: Any) -> list[tuple[str | None, Any]]:
    """Every (remedy, remedy_argv) pair in a JSON document: an error's, each tier's, each finding's."""
    found: list[tuple[str | None, Any]] = []

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("remedy"):
                found.append((node["remedy"], node.get("remedy_argv", "missing")))
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(document)
    return found


def split_chain(remedy: str) -> list[list[str]]:
    """A printed remedy as the commands it runs: shlex-split, ``&&`` separating the parts."""
    out: list[list[str]] = [[]]
    for token in shlex.split(remedy):
        if token == "&&":
            out.append([])
        else:
            out[-1].append(token)
    return [part for part in out if part]


def read(scene: Scene, argv: Sequence[str]) -> Reading:
    """Ask *argv* (a tierlock command line) twice: as printed for people and as ``--json``."""
    human = scene.run([*argv])
    machine = scene.run([*argv, "--json"])
    assert machine.returncode == human.returncode, f"{scene.name}: {argv} exits differently with --json"
    try:
        document = json.loads(machine.stdout)
    except json.JSONDecodeError as exc:
        raise AssertionError(f"{scene.name}: {argv} --json is not one JSON document:\n{machine.stdout}") from exc
    lines = remedy_lines(human.stdout + human.stderr)
    pairs = json_remedies(document)
    assert len(pairs) >= len(lines), f"{scene.name}: {argv} prints {lines} but its --json carries {pairs}"
    for line, (text, carried) in zip(lines, pairs, strict=False):  # one per tier when several are reported
        assert text == line, f"{scene.name}: human `{line}` vs json `{text}`"
        assert carried == split_chain(line), f"{scene.name}: remedy_argv {carried!r} is not `{line}` split"
    remedy = lines[0] if lines else None
    argv_list = split_chain(remedy) if remedy is not None else None
    return Reading(tuple(argv), human.returncode, human.stdout + human.stderr, document, remedy, argv_list)


def refused_with_exit_0(reading: Reading) -> bool:
    """An action that says it did not do what it was asked while exiting 0."""
    action = any(a in ACTIONS for a in reading.argv[:2])
    ok = not (isinstance(reading.document, dict) and reading.document.get("ok") is False)
    return action and reading.code == 0 and (reading.remedy is not None or not ok)


def run_remedy(scene: Scene, commands: list[list[str]]) -> None:
    """Run each part of a remedy in order; a part tierlock refuses fails the walk."""
    for argv in commands:
        assert argv[0] in TOOLS, f"{scene.name}: remedy part {argv} is prose, not a command"
        done = scene.run(argv)
        assert done.returncode == 0, (
            f"{scene.name}: the remedy {shlex.join(argv)} was refused (exit {done.returncode}):\n"
            f"{done.stdout}{done.stderr}"
        )


Healthy = Callable[[Scene, Reading], bool]


def present(tier: str) -> Healthy:
    """Healthy: the probe says *tier* is present and the reading prints no remedy."""

    def check(scene: Scene, reading: Reading) -> bool:
        if reading.remedy is not None or reading.code != 0:
            return False
        rows = reading.document.get("tiers") if isinstance(reading.document, dict) else None
        if reading.argv[1] == "probe" and isinstance(rows, list) and len(rows) == 1:
            return bool(rows[0]["state"] == "present")  # the probe's own answer: no need to ask it again
        return scene.probe_state(tier) == "present"

    return check


def walk(scene: Scene, argv: Sequence[str], healthy: Healthy) -> int:
    """Read, run the remedy, repeat: the number of remedies it took (at most :data:`STEPS`)."""
    for step in range(STEPS + 1):
        reading = read(scene, argv)
        assert not refused_with_exit_0(reading), f"{scene.name}: {argv} exits 0 while refusing:\n{reading.text}"
        if healthy(scene, reading):
            return step
        assert reading.remedy_argv, f"{scene.name}: not healthy and no remedy printed:\n{reading.text}"
        if step == STEPS:
            break
        run_remedy(scene, reading.remedy_argv)
    raise AssertionError(f"{scene.name}: not healthy after {STEPS} remedies:\n" + "\n".join(scene.log))


def copy_tree(source: Path, dest: Path) -> Path:
    shutil.copytree(source, dest, symlinks=True)
    return dest


def command(scene: Scene, reader: Sequence[str]) -> list[str]:
    """The reader as a user types it: ``install-tier`` is its own script, the rest are ``tierlock`` commands."""
    head = [reader[0]] if reader[0] == "install-tier" else ["tierlock", reader[0]]
    return [*head, *reader[1:], *scene.where()]
