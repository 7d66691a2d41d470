"""The decision at start-up: probe the tiers, read the selection, and say whether a strict run stops now.

Made in the earliest hook the plugin gets, before any conftest is imported.
A strict run stops before collection (exit 6) when:

* a required tier is **damaged** (whatever the run selects: damage is never
  intended), or
* the selection, read exactly (:attr:`Selection.exact`), holds test files of
  a required tier that is not present: files its globs match, or files the
  census finds needing it.

Anything the static reading cannot see is left to the run-time backstop
(:mod:`.backstop`). In a matrix job (``TIERLOCK_TIERS``) the required tiers
are the job's own; every other tier's tests are not collected.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pytest

from tierlock.pytest_plugin.caches import Cache, QuietCache
from tierlock.pytest_plugin.decision import Gate
from tierlock.pytest_plugin.needs import needing_files
from tierlock.pytest_plugin.project_state import gate_for, outside_here, remedy_python, restrict_owners
from tierlock.pytest_plugin.selection import Selection
from tierlock.pytest_plugin.strictness import job_tiers, strictness


def decide(config: pytest.Config, cache: Cache | None, file_or_dir: Sequence[str]) -> Gate | None:
    """Probe the tiers of the project at the rootdir and weigh them against the run's selection.

    None when the project has no tier table. *file_or_dir* are the run's
    positional arguments (empty: ``testpaths``, else the invocation folder).
    """
    found = _project(config, file_or_dir)
    if found is None:
        return None
    pyproject, text = found
    strict, why = strictness(_flag(config, "tierlock_strict"), _flag(config, "tierlock_lenient"), os.environ)
    gate = gate_for(pyproject, text, cache, strict, why)
    if gate is None:
        return gate
    _layers_and_job(gate, text, pyproject)
    if any(state != "present" for state in gate.states.values()) or gate.damaged:
        gate.python = remedy_python(gate.root, text)
        gate.outside = outside_here(text)
    gate.project = given_project(Path(config.invocation_params.dir), pyproject)
    weigh(gate, Selection(config, file_or_dir), QuietCache(cache) if cache is not None else None)
    return gate


def given_project(here: Path, pyproject: Path) -> str | None:
    """The ``--project`` a remedy run from *here* (pytest's invocation folder) must name to reach the project of
    *pyproject*: None when the nearest ``pyproject.toml`` at or above *here* is that one (tierlock finds it
    alone); else the project's folder relative to *here* when it is below it, else absolute."""
    folder = pyproject.parent.resolve()
    start = here.resolve()
    for near in (start, *start.parents):
        if os.path.lexists(near / "pyproject.toml"):
            if near == folder:
                return None
            break
    try:
        return str(folder.relative_to(start))
    except ValueError:
        return str(folder)


def _read(pyproject: Path) -> str | None:
    try:
        return pyproject.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return None


def _project(config: pytest.Config, file_or_dir: Sequence[str]) -> tuple[Path, str] | None:
    """The project's ``pyproject.toml`` and its text: the rootdir's; when the rootdir holds none that names tierlock
    (``pytest -c ci/pytest.ini`` makes ``ci/`` the rootdir; a monorepo's ``pytest.ini`` sits above the project), the
    nearest ``pyproject.toml`` at or above the selected paths (else the invocation folder), when it has a tier table
    and every selected path agrees on it. None: no project to gate."""
    pyproject = config.rootpath / "pyproject.toml"
    text = _read(pyproject)
    if text is not None and "tierlock" in text:
        return pyproject, text
    here = Path(config.invocation_params.dir)
    starts = [here / str(a).split("::", 1)[0] for a in file_or_dir] or [here]
    texts: dict[Path, str | None] = {}
    found: dict[Path, str] = {}
    for start in starts:
        for folder in (start, *start.parents):
            if folder not in texts:
                texts[folder] = _read(folder / "pyproject.toml")
            near = texts[folder]
            if near is not None:
                if "[tool.tierlock" in near:
                    found[folder / "pyproject.toml"] = near
                break
    return next(iter(found.items())) if len(found) == 1 else None


def _flag(config: pytest.Config, name: str) -> bool:
    namespace = getattr(config, "known_args_namespace", None)
    value = getattr(namespace, name, None)
    if value is None:
        value = config.getoption(name, False)
    return bool(value)


def _layers_and_job(gate: Gate, text: str, pyproject: Path) -> None:
    """The tiers' layering (for the shortest remedy), and a matrix job's tiers, required and alone collected;
    outside a matrix job, the tiers kept apart from a present one (:func:`_apart`)."""
    import tomllib

    from tierlock.remedies import layers_from_pyproject

    try:
        gate.layers = layers_from_pyproject(tomllib.loads(text))
    except tomllib.TOMLDecodeError:
        gate.layers = {}
    job = job_tiers(os.environ, list(gate.states), gate.layers)
    if job is None:
        _apart(gate, text, pyproject)
        return
    gate.job = job
    gate.required = [t for t in gate.states if t in job]
    for tier, globs in gate.globs.items():
        if tier not in job:
            gate.gated[tier] = list(globs)  # another job runs them, present here or not
    for tier in list(gate.damaged):
        if tier not in job and tier in gate.version_only:
            del gate.damaged[tier]  # another job's pin of a shared package: intended
    restrict_owners(gate, {t for t, state in gate.states.items() if state != "present" or t not in job})


def _apart(gate: Gate, text: str, pyproject: Path) -> None:
    """Each tier not present that is declared in conflict with a present one: this environment holds the other.

    Its remedy is then never a plain install (which the armed tier's receipt refuses, or which would undo a
    required tier); the version its conflicting tier pins is intended, not damage. The full tier model is
    loaded only here, when a tier is missing and the project declares conflicts.
    """
    present = [t for t, state in gate.states.items() if state == "present"]
    missing = [t for t, state in gate.states.items() if state != "present"]
    if not present or not missing or "conflicts" not in text:
        return
    from tierlock.errors import TierlockError
    from tierlock.tiers import load_project

    try:
        project = load_project(pyproject)
    except TierlockError:
        return  # the plain remedies stand; tierlock check names what is wrong with the project
    for tier in missing:
        other = next((p for p in present if project.exclusive(tier, p)), None)
        if other is not None:
            gate.apart[tier] = other
            if tier in gate.version_only:
                gate.damaged.pop(tier, None)  # the other tier's pin of a shared package: intended


def weigh(gate: Gate, selection: Selection, cache: QuietCache | None = None) -> None:
    """Fill *gate*'s counts for this run's selection, and the tiers a strict run fails closed on now."""
    root = Path(gate.root)
    gate.selection = list(selection.paths)
    missing = [t for t in gate.states if t in gate.roots]
    if missing:
        found, gate.tests_needing = needing_files(
            root, {t: gate.roots[t] for t in missing}, gate.globs, selection, cache
        )
        gate.needed = {t: len(files) for t, files in found.items()}
        gate.needing = {t: sorted(f.replace(os.sep, "/") for f in files) for t, files in found.items() if files}
        for tier, files in found.items():
            if gate.outside_job(tier) and files:
                gate.gated[tier] = [*gate.gated.get(tier, []), *sorted(files)]  # another job runs them whole
                gate.globs[tier] = [*gate.globs.get(tier, []), *sorted(files)]
    kept_out: set[str] = set()
    reached: dict[str, set[str]] = {t: {str(root / f) for f in files} for t, files in found.items()} if missing else {}
    for tier, globs in gate.globs.items():
        counted, named = _selected(_globbed(root, globs, selection), selection)
        reached.setdefault(tier, set()).update(counted)
        gate.globbed[tier] = len(counted) + named
        if tier in gate.gated:
            kept_out |= counted
            gate.named += named
    gate.expected = len(kept_out)  # a file two gated tiers share is one file
    if selection.doctest and missing:  # (a module collected for its doctests, left out by a computed collect_ignore)
        selection.read_conftests_above()
    gate.exact = selection.exact
    damaged = [t for t in gate.states if t in gate.damaged and (t in gate.required or t in gate.ci_require)]
    gate.failing = damaged if gate.strict else []
    for tier in gate.required:
        needed = gate.globbed.get(tier) or gate.needed.get(tier)
        if not (needed and gate.fails_closed_on(tier)) or tier in gate.failing:
            continue
        # (a conftest computing collect_ignore: a file no branch of it can leave out is still known now)
        if gate.exact or any(selection.surely_collected(f) for f in reached.get(tier, ())):
            gate.failing.append(tier)


def _selected(files: set[str], selection: Selection) -> tuple[set[str], int]:
    """(the files the run collects whole or in part, the node ids naming tests in files it reaches only so)."""
    counted: set[str] = set()
    named = 0
    for path in files:
        if not selection.selects(path):
            continue
        only = selection.named_count(path)
        if only:
            named += only
        elif not selection.narrows(path) or selection.kept_items(path):
            counted.add(path)
    return counted, named


def _globbed(root: Path, globs: Sequence[str], selection: Selection) -> set[str]:
    """Files pytest would collect that *globs* match, walking only below the globs' folders."""
    import re

    from tierlock.tiers.globs import matches

    found: set[str] = set()
    for glob_text in globs:
        stem = re.split(r"[*?\[]", re.sub(r"^(?:\./)+", "", glob_text.replace("\\", "/").strip()), maxsplit=1)[0]
        start = root / stem.rstrip("/")
        while not start.exists() and start != root:
            start = start.parent
        candidates = [start] if start.is_file() else selection.files(start)
        for path in candidates:
            if selection.collects(path.name) and matches(path.relative_to(root).as_posix(), globs):
                found.add(str(path))
    return found
