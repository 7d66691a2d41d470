"""A command given ``--project DIR`` from outside the project prints remedies that work from there, as printed.

A CI step at a repository's root (``tierlock --project services/api status``), an editor or a monorepo script
stands outside the project. Every remedy tierlock printed was the command for someone standing inside it:
``to fix: install-tier brain --python ...`` run from the parent folder finds no pyproject.toml (or another
project's). Each ``tierlock`` and ``install-tier`` command of a printed remedy (the ``to fix:`` line, ``remedy``
and ``remedy_argv`` of ``--json``, every command of an ``A && B`` chain) now names the project as it was given
(a relative path stays relative: the remedy runs from the same folder).

The walker (:mod:`tests.support.remedywalk`) reads the remedy from both outputs, runs it exactly as printed from
the folder the command ran in, and asks again until the state is healthy; every spelling argparse takes is
walked (before and after the command name, ``--project DIR`` and ``--project=DIR``, relative and absolute).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support.env import bin_dir, clean_env
from tests.support.interpreters import interpreter, make_venv_with
from tests.support.kept import backdate, entries
from tests.support.remedyscene import Parts
from tests.support.remedystates import STATES, State, state_id
from tests.support.remedywalk import Scene, copy_tree, json_remedies, present, walk


@dataclass
class Outside(Scene):
    """A scene whose commands run in the folder above the project, naming it with ``--project``."""

    here: Path = field(default_factory=Path)
    """The folder every command runs in (the project's parent)."""
    given: tuple[str, ...] = ()
    """How the project is named (``--project project``, ``--project=/abs/project``)."""
    before: bool = True
    """The option before the command name (else after it)."""

    def run(self, argv: Sequence[str], *, check: bool = False) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            list(argv), cwd=self.here, env=self.env(), capture_output=True, text=True, check=False, timeout=300
        )
        self.log.append(f"$ {shlex.join(argv)}  -> {done.returncode}\n{done.stdout}{done.stderr}")
        if check and done.returncode != 0:
            raise AssertionError(f"{self.name}: {shlex.join(argv)} failed\n" + "\n".join(self.log[-3:]))
        return done

    def where(self) -> list[str]:
        """Setup and the walker's own probes name the project after the command, as options go."""
        return [*super().where(), *self.given]

    def reader(self, words: Sequence[str]) -> list[str]:
        """*words* (``status brain``, ``install-tier --armed``) as the user outside types them."""
        head = [words[0]] if words[0] == "install-tier" else ["tierlock", words[0]]
        if not self.before:
            return [*head, *words[1:], *self.where()]
        return [head[0], *self.given, *head[1:], *words[1:], *Scene.where(self)]


#: How the project is named: (before the command name?, the words, absolute?).
SPELLINGS = [
    (True, ("--project", "{rel}"), "before, relative"),
    (False, ("--project", "{abs}"), "after, absolute"),
    (True, ("--project={abs}",), "before, --project=ABS"),
    (False, ("--project={rel}",), "after, --project=REL"),
]

#: The states walked from outside: a missing tier (status, probe, admit), no lockfile (a ``tierlock lock &&
#: install-tier`` chain), the project's own .venv (no ``--python``), a sibling that replaced packages, no
#: project environment at all, a removal.
WALKED = (
    "never armed",
    "no lockfile",
    "husk read by probe",
    "husk read by admit",
    "husk in the project's .venv",
    "stale after --replace-armed",
    "no project environment, admit of one tier",
    "aggregate armed: remove a",
)


def outside_scene(state: State, tmp_path: Path, parts: Parts, spelling: int) -> Outside:
    before, words, label = SPELLINGS[spelling % len(SPELLINGS)]
    here = tmp_path / "ci"
    root = copy_tree(parts.layouts[state.layout], here / "services" / "api")
    given = tuple(w.format(rel="services/api", abs=str(root)) for w in words)
    where = root / ".venv" if state.project_venv else tmp_path / "venv"
    copy_tree(parts.venv, where)
    scene = Outside(
        f"{state.name} ({label})",
        root,
        where,
        parts.wheels,
        parts.cache,
        use_python=not state.project_venv,
        here=here,
        given=given,
        before=before,
    )
    state.setup(scene)
    return scene


@pytest.mark.parametrize(
    ("state", "spelling"),
    [(s, WALKED.index(s.name)) for s in STATES if s.name in WALKED],
    ids=lambda v: state_id(v) if isinstance(v, State) else str(v),
)
def test_a_remedy_printed_outside_the_project_runs_as_printed_from_there_and_heals_the_state(
    state: State, spelling: int, tmp_path: Path, walk_parts: Parts
) -> None:
    scene = outside_scene(state, tmp_path, walk_parts, spelling)
    reader = scene.reader(state.reader)
    setup = len(scene.log)
    steps = walk(scene, reader, state.healthy)
    assert steps >= 1, scene.log
    asked = (f"$ {shlex.join(reader)}  ", f"$ {shlex.join([*reader, '--json'])}  ")
    ran = [e.split("\n", 1)[0] for e in scene.log[setup:] if not e.startswith(asked) and " probe " not in e]
    named = f"--project {shlex.quote(scene.given[-1].removeprefix('--project='))} "  # as every remedy writes it
    assert ran, scene.log
    assert all(line.startswith(("$ tierlock ", "$ install-tier ")) and named in line for line in ran), ran


def test_a_chain_names_the_project_in_each_tierlock_command_and_runs_from_outside(
    tmp_path: Path, walk_parts: Parts
) -> None:
    """No lockfile: ``tierlock lock brain && install-tier brain``, each part naming the project."""
    state = next(s for s in STATES if s.name == "no lockfile")
    scene = outside_scene(state, tmp_path, walk_parts, 0)
    done = scene.run(scene.reader(("status", "brain")))
    fix = next(line for line in done.stdout.splitlines() if "to fix:" in line).split("to fix: ", 1)[1]
    python = shlex.quote(str(scene.python))
    assert fix == (
        f"tierlock --project services/api lock brain && install-tier --project services/api brain --python {python}"
    )
    document = json.loads(scene.run([*scene.reader(("status", "brain")), "--json"]).stdout)
    (row,) = [t for t in document["tiers"] if t["tier"] == "brain"]
    assert row["remedy"] == fix
    assert row["remedy_argv"] == [
        ["tierlock", "--project", "services/api", "lock", "brain"],
        ["install-tier", "--project", "services/api", "brain", "--python", str(scene.python)],
    ]


def test_an_error_of_the_project_model_names_the_project_in_its_remedy(tmp_path: Path, walk_parts: Parts) -> None:
    """``install-tier brain`` with brain's lockfile gone: the project model's error says ``tierlock lock``; run as
    printed from outside, it writes the lockfile, and the install then arms the tier."""
    state = next(s for s in STATES if s.name == "no lockfile")
    scene = outside_scene(state, tmp_path, walk_parts, 2)
    argv = scene.reader(("install-tier", "brain"))
    failed = scene.run([*argv, "--json"])
    assert failed.returncode != 0, failed.stdout + failed.stderr
    error = json.loads(failed.stdout)["error"]
    assert error["remedy_argv"], error
    value = scene.given[-1].removeprefix("--project=")
    assert all(
        cmd[1:3] == ["--project", value] for cmd in error["remedy_argv"] if cmd[0] in ("tierlock", "install-tier")
    )
    text = scene.run(argv)
    assert f"to fix: {error['remedy']}" in text.stderr, text.stderr
    for command in error["remedy_argv"]:
        assert scene.run(command).returncode == 0, scene.log[-1]
    assert scene.run(argv).returncode == 0, scene.log[-1]
    assert scene.probe_state("brain") == "present"


def test_a_target_on_another_python_is_healed_from_outside_by_the_remedy_as_printed(
    tmp_path: Path, walk_parts: Parts
) -> None:
    """tierlock on 3.11 acting on a 3.13 venv, from the project's parent folder: base's husk repaired."""
    python = interpreter("3.13.0").python
    here = tmp_path / "ci"
    root = copy_tree(walk_parts.layouts["single"], here / "services" / "api")
    make_venv_with(python, tmp_path / "venv")
    scene = Outside(
        "base husk on 3.13, outside",
        root,
        tmp_path / "venv",
        walk_parts.wheels,
        walk_parts.cache,
        here=here,
        given=("--project", "services/api"),
    )
    scene.arm("base")
    (scene.site / "basepkg" / "__init__.py").unlink()
    assert walk(scene, scene.reader(("status", "base")), present("base")) == 1
    assert any(line.startswith("$ install-tier --project services/api base") for line in scene.log), scene.log


def test_without_project_the_remedy_is_the_one_printed_inside_the_project(tmp_path: Path, walk_parts: Parts) -> None:
    """No ``--project``: byte for byte what it was (run from inside the project)."""
    state = next(s for s in STATES if s.name == "no lockfile")
    root = copy_tree(walk_parts.layouts[state.layout], tmp_path / "project")
    copy_tree(walk_parts.venv, tmp_path / "venv")
    scene = Scene(state.name, root, tmp_path / "venv", walk_parts.wheels, walk_parts.cache)
    state.setup(scene)
    done = scene.run(["tierlock", "status", "brain", "--python", str(scene.python)])
    python = shlex.quote(str(scene.python))
    assert f"  to fix: tierlock lock brain && install-tier brain --python {python}\n" in done.stdout, done.stdout


@pytest.mark.parametrize("command", ["status", "probe", "admit"])
def test_a_kept_answer_prints_the_remedy_of_the_command_line_that_replays_it(
    command: str, tmp_path: Path, walk_parts: Parts
) -> None:
    """A read-only command's answer is kept and given again (:mod:`tierlock.keptrun`): one kept inside the project
    replayed beside a run from outside with ``--project``, and the reverse, each print their own form."""
    here = tmp_path / "ci"
    root = copy_tree(walk_parts.layouts["single"], here / "services" / "api")
    copy_tree(walk_parts.venv, tmp_path / "venv")
    backdate(here, tmp_path / "venv")
    cache = tmp_path / "kept-cache"
    python = str(tmp_path / "venv" / "bin" / "python")
    words = [command, *(["--tier", "brain"] if command == "admit" else ["brain"]), "--python", python]
    path = f"{bin_dir()}{os.pathsep}{os.environ.get('PATH', '')}"
    env = clean_env({"TIERLOCK_CACHE_DIR": str(cache), "NO_COLOR": "1", "PATH": path})

    def fix(argv: list[str], cwd: Path) -> tuple[str, list[list[str]]]:
        text = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=120)
        document = json.loads(
            subprocess.run(
                [*argv, "--json"], cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=120
            ).stdout
        )
        lines = [
            line.split("to fix: ", 1)[1] for line in (text.stdout + text.stderr).splitlines() if "to fix: " in line
        ]
        ((remedy, argv_lists),) = {(r, json.dumps(a)) for r, a in json_remedies(document)}
        assert lines, (text.stdout, text.stderr)
        assert remedy is not None
        assert set(lines) == {remedy}, (text.stdout, text.stderr, document)
        return remedy, json.loads(argv_lists)

    inside = ["tierlock", *words]
    outside = ["tierlock", "--project", "services/api", *words]
    first_inside = fix(inside, root)
    first_outside = fix(outside, here)
    assert first_inside[0] == f"install-tier brain --python {python}"
    assert first_outside[0] == f"install-tier --project services/api brain --python {python}"
    assert first_outside[1] == [["install-tier", "--project", "services/api", "brain", "--python", python]]
    assert fix(inside, root) == first_inside  # (each command line's own answer kept by now)
    assert fix(outside, here) == first_outside
    kept = entries(cache)
    assert len(kept) >= 4, kept  # the two command lines, each as text and as --json
    for _ in range(2):  # replayed, in either order
        assert fix(outside, here) == first_outside
        assert fix(inside, root) == first_inside
    assert entries(cache) == kept  # every answer above was a kept one (a new record moves its entry)
