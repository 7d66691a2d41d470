"""The remedy tour: every command that prints a remedy, read in turn, its remedy run as printed, until none has one.

:func:`tierlock.tests.support.remedywalk.walk` follows one command's remedy. A
tour asks several (``probe``, ``status``, ``admit`` and the pytest plugin, each
as text and ``--json``, on a laptop and under ``CI=true``) and runs the first
remedy any of them prints, again and again, recording the environment's
*fingerprint* (what the probe says of every tier, the versions installed, the
receipts' stale marks, the project's pyproject and lockfiles) after each. What
the tour refuses:

* a fingerprint seen before: the remedies loop (the classic: ``install-tier brain
  --replace-armed`` makes ``fast`` stale, whose remedy makes ``brain`` stale);
* a remedy that changes nothing and is not a read-only pointer;
* a remedy part that exits non-zero (tierlock refusing its own advice).

A remedy that is an edit (``remedy_argv`` null: a ``[tool.tierlock]``
change), or a read-only pointer to one (``tierlock check ...``, run as printed:
its own finding must name the edit), ends the tour as :data:`EDIT`, or the
tour applies that edit as a person would (:func:`apply_layering`) and goes on.

:func:`tour_state` tours a state of the walker's catalogue
(:mod:`tests.support.remedystates`) from its own command, led by another when
given: it must end as the state means healthy within the walker's bound.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import site
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.remedystates import State
from tests.support.remedywalk import (
    Reading,
    Scene,
    json_remedies,
    refused_with_exit_0,
    remedy_lines,
    run_remedy,
    split_chain,
)
from tierlock.remedies import argv_of

#: At most this many remedies end a tour.
STEPS = 6

#: The tour ended at a remedy that is an edit of the project (a ``[tool.tierlock]`` change).
EDIT = "edit"
#: The tour ended with no command printing a remedy.
HEALTHY = "healthy"

#: Commands that read the project alone (no environment: no ``--python``).
OFFLINE = frozenset({"check"})

#: Readers that only point to another reading: running them changes nothing by design.
POINTERS = (("tierlock", "check"),)


@dataclass(frozen=True)
class Reader:
    """One command a tour asks: its words after ``tierlock`` (``pytest`` for the plugin), and ``CI=true`` or not."""

    words: tuple[str, ...]
    ci: bool = False

    def __str__(self) -> str:
        return ("CI=true " if self.ci else "") + " ".join(self.words)


@dataclass
class Tour:
    """What a tour did: each reading that printed the remedy it ran, and how it ended."""

    steps: list[tuple[str, str]] = field(default_factory=list)
    """(reader, remedy) in the order run."""
    end: str = ""
    edit: str | None = None
    """The edit a pointer's finding named (:data:`EDIT`)."""
    last: Reading | None = None
    """The last reading asked when the tour ended :data:`HEALTHY` (the last reader's)."""


def env_for(scene: Scene, *, ci: bool) -> dict[str, str]:
    env = scene.env()
    env.pop("CI", None)  # (the suite itself may run under CI=true: a laptop reading must not)
    env.pop("GITHUB_ACTIONS", None)
    if ci:
        env["CI"] = "true"
    return env


def run_as(scene: Scene, argv: Sequence[str], *, ci: bool) -> tuple[int, str, str]:
    import subprocess

    done = subprocess.run(
        list(argv), cwd=scene.root, env=env_for(scene, ci=ci), capture_output=True, text=True, check=False, timeout=300
    )
    scene.log.append(
        f"$ {'CI=true ' if ci else ''}{shlex.join(argv)}  -> {done.returncode}\n{done.stdout}{done.stderr}"
    )
    return done.returncode, done.stdout, done.stderr


def read_cli(scene: Scene, reader: Reader) -> Reading:
    """A tierlock command asked as text and as ``--json``: both must carry the same remedies."""
    where = [] if reader.words[0] in OFFLINE else scene.where()
    argv = ["tierlock", *reader.words, *where]
    code, out, err = run_as(scene, argv, ci=reader.ci)
    jcode, jout, _ = run_as(scene, [*argv, "--json"], ci=reader.ci)
    assert jcode == code, f"{scene.name}: {reader} exits {code}, with --json {jcode}"
    document = json.loads(jout)
    lines = remedy_lines(err if out.lstrip().startswith("{") else out + err)  # (admit's document, when piped)
    carried = [(text, argv_) for text, argv_ in json_remedies(document)]
    for line in lines:
        assert any(text == line for text, _ in carried), f"{scene.name}: {reader}: `{line}` not in its --json"
    for text, argv_ in carried:
        if argv_ is not None:
            assert argv_ == split_chain(str(text)), f"{scene.name}: {reader}: remedy_argv {argv_} is not `{text}`"
    remedy = lines[0] if lines else None
    carried_argv = next((a for t, a in carried if t == remedy), None) if remedy else None
    reading = Reading(tuple(argv), code, out + err, document, remedy, carried_argv)
    assert not refused_with_exit_0(reading), f"{scene.name}: {reader} exits 0 while refusing:\n{reading.text}"
    return reading


def plugin_ready(scene: Scene) -> None:
    """pytest, packaging and this tierlock seen from the scene's venv through a ``.pth`` (its own site first)."""
    source = Path(sys.modules["tierlock"].__file__ or "").parents[1]
    (scene.site / "zz_outer.pth").write_text(f"{site.getsitepackages()[0]}\n{source}\n", encoding="utf-8")


def read_plugin(scene: Scene, reader: Reader) -> Reading:
    """pytest in the scene's venv: its ``to fix:`` lines are the plugin's remedies (no ``--json``)."""
    argv = [str(scene.python), "-m", "pytest", "-p", "no:cacheprovider", "-q", "tests"]
    code, out, err = run_as(scene, argv, ci=reader.ci)
    lines = remedy_lines(out + err)
    remedy = lines[0] if lines else None
    return Reading(tuple(argv), code, out + err, None, remedy, argv_of(remedy))


def read(scene: Scene, reader: Reader) -> Reading:
    return read_plugin(scene, reader) if reader.words[:1] == ("pytest",) else read_cli(scene, reader)


def fingerprint(scene: Scene) -> str:
    """The state a remedy can change: every tier's probe state, what is installed, which receipts are marked
    stale, and the project's declarations and locks (an edit changes those)."""
    code, out, _ = run_as(scene, ["tierlock", "probe", "--json", *scene.where()], ci=False)
    states = {t["tier"]: t["state"] for t in json.loads(out)["tiers"]} if code in (0, 1) else out
    receipts: dict[str, Any] = {}
    for path in sorted((scene.venv / "tierlock" / "receipts").glob("*.json")):
        try:
            document = json.loads(path.read_text())
        except ValueError:
            receipts[path.stem] = None
        else:  # what a re-arming changes: the lock it was armed from, the stale mark
            receipts[path.stem] = [document.get("lockfiles"), document.get("stale")]
    files = sorted([scene.root / "pyproject.toml", *(scene.root / "lockfiles").glob("*.txt")])
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in files if p.is_file())).hexdigest()
    return json.dumps([states, sorted(scene.installed().items()), receipts, digest], sort_keys=True)


def _pointer(argv: list[list[str]]) -> bool:
    return all(tuple(part[:2]) in POINTERS for part in argv)


def follow_pointer(scene: Scene, commands: list[list[str]], *, ci: bool) -> str:
    """Run a read-only pointer as printed: it must exit 1 with a finding whose remedy is an edit; that edit."""
    for argv in commands:
        code, out, err = run_as(scene, argv, ci=ci)
        assert code == 1, f"{scene.name}: the pointer {shlex.join(argv)} found nothing to say (exit {code})"
        jcode, jout, _ = run_as(scene, [*argv, "--json"], ci=ci)
        assert jcode == 1
        edits = [text for text, carried in json_remedies(json.loads(jout)) if carried is None]
        assert edits, f"{scene.name}: {shlex.join(argv)} names no edit:\n{out}{err}"
        return str(edits[0])
    raise AssertionError("an empty pointer")


Healthy = Callable[[Scene, Reading], bool]


def tour(
    scene: Scene,
    readers: Sequence[Reader],
    *,
    edit: Callable[[Scene, str], bool] | None = None,
) -> Tour:
    """Ask every reader; run the first remedy any prints; repeat (see the module's docstring).

    *edit*: applies the edit a pointer's finding names (True: applied, the tour goes on)."""
    before = fingerprint(scene)
    seen = {before}
    done = Tour()
    for _ in range(STEPS):
        reading, reader = _first_remedy(scene, readers)
        if reading.remedy is None or reader is None:
            done.end, done.last = HEALTHY, reading
            return done
        assert reading.remedy is not None
        done.steps.append((str(reader), reading.remedy))
        if reading.remedy_argv is None or _pointer(reading.remedy_argv):  # an edit, or the command that names it
            said = reading.remedy
            if reading.remedy_argv is not None:
                said = follow_pointer(scene, reading.remedy_argv, ci=reader.ci)
            if edit is None or not edit(scene, said):
                done.end, done.edit = EDIT, said
                return done
        else:
            run_remedy(scene, reading.remedy_argv)
        after = fingerprint(scene)
        assert after != before, f"{scene.name}: {reader}'s remedy `{reading.remedy}` changed nothing\n" + _log(scene)
        assert after not in seen, (
            f"{scene.name}: the remedies loop: after `{reading.remedy}` ({reader}) the state is one seen before\n"
            + "\n".join(f"  {r}: {m}" for r, m in done.steps)
            + "\n"
            + _log(scene)
        )
        seen.add(after)
        before = after
    raise AssertionError(f"{scene.name}: still a remedy after {STEPS} steps: {done.steps}\n" + _log(scene))


def _first_remedy(scene: Scene, readers: Sequence[Reader]) -> tuple[Reading, Reader | None]:
    """The first reading that prints a remedy and its reader; else the last reading and None."""
    for reader in readers:
        reading = read(scene, reader)
        if reading.remedy is not None:
            return reading, reader
    return reading, None


def _log(scene: Scene) -> str:
    return "\n".join(scene.log[-8:])


def apply_layering(scene: Scene, said: str) -> bool:
    """The edit ``sibling-conflict`` names first (``set layered-on = "LOWER" in [tool.tierlock.tiers.UPPER], then
    run: tierlock lock UPPER``), made as a person would, and the lock it names run as printed."""
    found = re.search(
        r'set layered-on = "([^"]+)" in \[tool\.tierlock\.tiers\.([^\]]+)\], then run: (tierlock lock \S+)', said
    )
    if found is None:
        return False
    lower, upper, lock = found.groups()
    pyproject = scene.root / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    header = f"[tool.tierlock.tiers.{upper}]\n"
    assert header in text, text
    pyproject.write_text(text.replace(header, f'{header}layered-on = "{lower}"\n'), encoding="utf-8")
    run_remedy(scene, [shlex.split(lock)])
    return True


def every_tier_present(scene: Scene) -> bool:
    code, out, _ = run_as(scene, ["tierlock", "probe", "--json", *scene.where()], ci=False)
    document: Any = json.loads(out)
    return code == 0 and all(t["state"] == "present" for t in document["tiers"])


#: The walker's bound: a state of one tier reaches its healthy state in at most this many remedies.
WALK_STEPS = 3


def own_reader(state: State) -> Reader:
    """The state's own command as a tour reader (``admit``, the CI gate, as in CI)."""
    return Reader(state.reader, ci=state.reader[0] == "admit")


def tour_state(scene: Scene, state: State, lead: Reader | None = None) -> Tour:
    """*state*'s scene toured from its own command, *lead* asked first when given: it ends with no remedy left, as
    the state means healthy (its command exits 0 and the tier is present), in at most :data:`WALK_STEPS`
    remedies."""
    own = own_reader(state)
    done = tour(scene, [lead, own] if lead is not None and lead != own else [own])
    assert done.end == HEALTHY, done
    assert done.last is not None
    assert state.healthy(scene, done.last), f"{scene.name}: no remedy left, yet not healthy:\n{done.last.text}"
    assert len(done.steps) <= WALK_STEPS, f"{scene.name}: {len(done.steps)} remedies: {done.steps}"
    return done
