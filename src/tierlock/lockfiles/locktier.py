"""Locking one tier: compile in a temporary folder, read back, verify, record its artifacts, write atomically.

A tier layered on another is compiled with the lower tier's pins as
constraints. The backend runs in the background while the previous lockfile
is read and the header is prepared. The result is rendered in the project's
format with tierlock's header, parsed back and verified; then the files each
pin may be installed from are recorded (natively in pylock, in the
``<tier>.artifacts.toml`` sidecar for the requirements format) and both files
are replaced. Nothing is written when anything fails.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import threading
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tierlock import fsutil, scratch
from tierlock.errors import BackendError
from tierlock.frozen import replace
from tierlock.lockfiles import origins, pylock, requirements
from tierlock.lockfiles.compiling import Compiling, start_compile
from tierlock.lockfiles.digest import body_digest, expected_inputs
from tierlock.lockfiles.fileread import ReadResult, read
from tierlock.lockfiles.locks import Lock, LockfileError, LockHeader
from tierlock.lockfiles.requirements import Parsed
from tierlock.lockfiles.resolvers import Backend, CompileRequest, IndexOptions, python_version_for
from tierlock.tiers import Project, Tier


@dataclass(frozen=True)
class LockOptions:
    upgrade: bool = False
    upgrade_packages: tuple[str, ...] = ()
    index: IndexOptions = field(default_factory=IndexOptions)


@dataclass(frozen=True)
class Locked:
    """What locking one tier did."""

    tier: str
    path: Path
    packages: int
    """Distinct packages pinned (each counted once)."""
    entries: int
    """Lock entries: a package forked under markers (two versions for two Pythons) has one per version."""
    changes: tuple[str, ...]
    """Pin changes against the previous lockfile: ``+scipy 1.14.1``, ``-six 1.16.0``, ``numpy 2.1.0 -> 2.2.0``."""
    created: bool
    reason: str
    """``requested``, or why a tier below a requested one was locked first."""
    artifacts: str = ""
    """Where the files each pin may be installed from are recorded, or why they are not."""
    sdist_only: tuple[str, ...] = ()
    """``name version`` of each pin that only an sdist installs (built from source wherever it is installed)."""

    @property
    def counted(self) -> str:
        """``4 package(s)``, or ``4 package(s) in 8 lock entries`` when versions fork under markers."""
        if self.entries == self.packages:
            return f"{self.packages} package(s)"
        return f"{self.packages} package(s) in {self.entries} lock entries"

    def to_dict(self, project: Project) -> dict[str, object]:
        return {
            "tier": self.tier,
            "lockfile": project.relpath(self.path),
            "packages": self.packages,
            "entries": self.entries,
            "created": self.created,
            "changes": list(self.changes),
            "reason": self.reason,
            "artifacts": self.artifacts,
            "sdist_only": list(self.sdist_only),
        }


def lock_tier(
    project: Project,
    tier: Tier,
    backend: Backend,
    options: LockOptions,
    *,
    reason: str = "requested",
    slots: threading.Semaphore | None = None,
    settled: Callable[[Lock | None], None] | None = None,
) -> Locked:
    """Compile *tier* and replace its lockfile (and artifact record) atomically; nothing is written on failure.

    *slots* bounds the backends running at once. *settled*, when given, is
    called with the lock of the tier below as compiled against, once the
    compile is done and before anything is written; what it raises ends the
    lock with nothing written.
    """
    from tierlock.lockfiles import recording
    from tierlock.lockfiles.pindiff import changes

    job = _Job(project, tier, backend, *expected_inputs(project, tier), _lower_lock(project, tier))
    had_lockfile = tier.lockfile.is_file()
    with scratch.scratch_dir(f"tierlock-lock-{os.getpid()}-") as work:  # (its process id: tierlock.earlysweep)
        request = job.request(options, work)
        if had_lockfile and not options.upgrade:
            shutil.copyfile(tier.lockfile, request.output_file)
        compiling = job.start(request, slots)
        try:  # meanwhile: what does not depend on the result
            previous = _read_bytes(tier.lockfile) if had_lockfile else None
            header = job.header()
        except BaseException:
            if compiling is not None:
                compiling.cancel()
            raise
        if compiling is not None:
            compiling.wait()
        if settled is not None:
            settled(job.lower)
        text, parsed = _render(project, tier, backend, _compiled(request.output_file, backend, tier), header)
        with slots if slots is not None else contextlib.nullcontext():  # (listing the artifacts runs uv again)
            record = recording.record(project, tier, backend=backend, request=request, text=text, parsed=parsed)
    recording.write(tier.lockfile, text, record)
    return Locked(
        tier=tier.name,
        path=tier.lockfile,
        packages=len({e.name for e in parsed.entries}),
        entries=len(parsed.entries),
        changes=tuple(changes(tier.lockfile, previous, parsed.body_digest, parsed.entries)),
        created=previous is None,
        reason=reason,
        artifacts=record.summary(project),
        sdist_only=record.sdist_only,
    )


def _lower_lock(project: Project, tier: Tier) -> Lock | None:
    """The lock of the tier *tier* is layered on (None when it is layered on nothing)."""
    if tier.layered_on is None:
        return None
    below = project.tier(tier.layered_on)
    result = _read_lower(below.lockfile)
    if result.problems:
        raise BackendError(
            f"cannot lock {tier.name}: the {below.name} lockfile it is layered on has problems",
            file=str(below.lockfile),
            remedy=f"tierlock lock {below.name}",
        )
    return result.lock


@dataclass(frozen=True)
class _Job:
    """One tier to lock: its inputs as locked now, and the lock of the tier below."""

    project: Project
    tier: Tier
    backend: Backend
    inputs: tuple[str, ...]
    digest: str
    lower: Lock | None

    def request(self, options: LockOptions, work: Path) -> CompileRequest:
        """The backend's request, with its input (and constraints) file written into *work*."""
        tier, lower = self.tier, self.lower
        input_file = work / f"{tier.name}.in"
        input_file.write_text("".join(f"{line}\n" for line in self.inputs), encoding="utf-8")
        constraints = None
        if lower is not None:
            constraints = work / f"{lower_name(tier)}.constraints.txt"
            constraints.write_text("".join(f"{requirements.entry_line(e)}\n" for e in lower.entries), encoding="utf-8")
        return CompileRequest(
            input_file=input_file,
            output_file=work / tier.lockfile.name,
            constraints=constraints,
            format=self.project.format,
            python_version=python_version_for(self.project.requires_python),
            upgrade=options.upgrade,
            upgrade_packages=options.upgrade_packages,
            index=options.index,
            # From the project folder, so the backend reads the user's own settings there
            # (uv.toml / [tool.uv], [tool.pip-tools]) as it would when run by hand.
            cwd=self.project.root,
        )

    def start(self, request: CompileRequest, slots: threading.Semaphore | None = None) -> Compiling | None:
        """Start the backend in the background, or write the known result (None) when there is nothing to resolve.

        Nothing to resolve: no requirements, or none beyond the tier below (its body is this one's).
        """
        project, lower = self.project, self.lower
        same_as_lower = lower is not None and expected_inputs(project, project.tier(lower_name(self.tier)))[0] == (
            self.inputs
        )
        if self.inputs and not same_as_lower:
            return start_compile(self.backend, request, self.tier.lockfile, slots)
        text_below = _read_bytes(lower.path) if lower is not None and same_as_lower else None
        known = text_below.decode("utf-8-sig") if text_below is not None else _empty_body(project)
        request.output_file.write_text(known, encoding="utf-8")
        return None

    def header(self) -> LockHeader:
        project, tier, backend, lower = self.project, self.tier, self.backend, self.lower
        return LockHeader(
            tier=tier.name,
            inputs=self.inputs,
            inputs_digest=self.digest,
            layered_on=tier.layered_on,
            layered_on_digest=lower.body_digest if lower is not None else None,
            body_digest="",
            backend=backend.name,
            backend_version=backend.version(),
            platform=backend.platform(),
            command=regenerate_command(project, tier, backend),
            requires_python=project.requires_python,
            include_groups=tier.include_groups,
        )


def _compiled(output: Path, backend: Backend, tier: Tier) -> str:
    try:
        return output.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise BackendError(f"{backend.name} reported success but wrote no lockfile for {tier.name}") from None


def _render(project: Project, tier: Tier, backend: Backend, compiled: str, header: LockHeader) -> tuple[str, Parsed]:
    """The lockfile text in the project's format with its header, parsed back; refused when it cannot be trusted."""
    from tierlock.lockfiles import projectpin

    if project.format == "pylock":
        compiled = projectpin.without_project_pylock(compiled, project.name)  # never pinned from the index
        document = tomllib.loads(compiled)
        text = pylock.render(compiled, replace(header, body_digest=pylock.body_digest(document)))
        parsed = pylock.parse(text)
    else:
        body = projectpin.without_project(_clean_body(compiled, tier), project.name)  # never pinned from the index
        text = requirements.render(replace(header, body_digest=body_digest(body)), body)
        parsed = requirements.parse(text)
    origins.refuse_foreign(project, tier, parsed.entries, backend.name)  # a wheelhouse outside the project
    if parsed.problems:
        lines = [f"line {p.line}: {p.detail}" if p.line else p.detail for p in parsed.problems]
        raise BackendError(
            f"{backend.name} produced a lockfile for {tier.name} that cannot be trusted; nothing was written",
            detail="\n".join(lines),
            remedy="pin the offending requirement to a released version from an index (no editable or VCS entries)",
            tier=tier.name,
        )
    return text, parsed


_LOWER: dict[tuple[str, int, int, int], ReadResult] = {}
_LOWER_GUARD = threading.Lock()


def _read_lower(path: Path) -> ReadResult:
    """The lockfile a tier is layered on, read once while it stays the same file (siblings share it)."""
    try:
        st = path.stat()
    except OSError:
        return read(path)
    key = (str(path), st.st_ino, st.st_mtime_ns, st.st_size)
    with _LOWER_GUARD:
        cached = _LOWER.get(key)
    if cached is None:
        cached = read(path)
        with _LOWER_GUARD:
            _LOWER.clear()  # one lower lock at a time is what a lock run needs
            _LOWER[key] = cached
    return cached


def _empty_body(project: Project) -> str:
    """The lock of a tier with no requirements at all, as the backend would write it."""
    if project.format != "pylock":
        return ""
    lines = ['lock-version = "1.0"', 'created-by = "uv"']
    if project.requires_python:
        lines.append(f"requires-python = {json.dumps(project.requires_python)}")
    return "\n".join([*lines, "packages = []", ""])


def regenerate_command(project: Project, tier: Tier, backend: Backend) -> str:
    """``tierlock lock TIER``, plus ``--backend`` when the configured choice would pick another backend."""
    command = f"tierlock lock {tier.name}"
    if backend.name == "pip-tools" and project.backend != "pip":
        command += " --backend pip"
    elif backend.name == "uv" and project.backend == "pip":
        command += " --backend uv"
    return command


def lower_name(tier: Tier) -> str:
    return tier.layered_on or "base"


def _clean_body(compiled: str, tier: Tier) -> list[str]:
    """The backend's body: no leading comment block, portable ``# via`` notes."""
    lines = requirements.split_lines(compiled)
    while lines and (not lines[0].strip() or lines[0].lstrip().startswith("#")):
        lines.pop(0)
    roots = re.compile(r"-r \S*" + re.escape(f"{tier.name}.in") + r"\b")
    constraints = re.compile(r"-c \S*" + re.escape(f"{lower_name(tier)}.constraints.txt") + r"\b")
    out = []
    for line in lines:
        if line.lstrip().startswith("#"):
            line = roots.sub(f"tier {tier.name} (pyproject.toml)", line)
            line = constraints.sub(f"{lower_name(tier)} lockfile", line)
        out.append(line.rstrip())
    return out


def _read_bytes(path: Path) -> bytes | None:
    try:
        return fsutil.read_bytes(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise LockfileError(f"cannot read {path}: {exc.strerror}", file=str(path)) from exc
