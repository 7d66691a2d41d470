"""Recording a new lock's artifacts, and writing the lockfile with its record (the edge of ``tierlock lock``).

pylock keeps each pin's files itself. For the requirements format, uv lists
the files of the exact pins (``uv pip compile --no-deps --format pylock.toml``
on the new lockfile, so the same index settings and the user's own uv
configuration apply, and uv's cache answers what the lock just fetched); the
files whose hash the lock carries are written to ``<tier>.artifacts.toml``.
Without uv (a pip-tools lock on a machine without it) no record is written
and any old one is removed, so nothing stale is ever read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tierlock.fsutil import write_atomic
from tierlock.lockfiles import artifacts
from tierlock.lockfiles.locks import LockedFile, LockEntry
from tierlock.lockfiles.requirements import Parsed
from tierlock.lockfiles.resolvers import Backend, CompileRequest, list_files, uv_executable
from tierlock.tiers import Project, Tier

NO_UV = "not recorded: listing each pin's files needs uv (pip install uv), then run tierlock lock again"
SINGLE_PLATFORM = (
    "not recorded: a single-platform lock (pip-tools) cannot prove other platforms; "
    "a universal lock records them (tierlock lock --backend uv)"
)


@dataclass(frozen=True)
class Recorded:
    """The artifact record of a new lock: its sidecar text (requirements format), or why there is none."""

    sidecar: Path | None
    text: str | None
    """The sidecar's new text; None: none is written (pylock keeps its files, or uv is missing)."""
    native: bool
    sdist_only: tuple[str, ...] = ()
    missing: str | None = None

    def summary(self, project: Project) -> str:
        if self.native:
            return "in the lockfile"
        if self.text is not None and self.sidecar is not None:
            return f"recorded in {project.relpath(self.sidecar)}"
        return self.missing or NO_UV


def record(
    project: Project, tier: Tier, *, backend: Backend, request: CompileRequest, text: str, parsed: Parsed
) -> Recorded:
    """The record of the lock *text* (parsed as *parsed*) of *tier*."""
    entries = parsed.entries
    if project.format == "pylock":
        return Recorded(None, None, True, sdist_only(entries, {artifacts.key(e): e.files for e in entries}))
    sidecar = artifacts.sidecar_path(tier.lockfile)
    if not backend.universal:
        return Recorded(sidecar, None, False, missing=SINGLE_PLATFORM)
    uv = uv_executable(backend)
    listed: dict[artifacts.Key, tuple[LockedFile, ...]] = {}
    if any(e.url is None for e in entries):
        if uv is None:
            return Recorded(sidecar, None, False, missing=NO_UV)
        pinned = request.input_file.with_name(f"{tier.name}.pinned.txt")
        pinned.write_text(text, encoding="utf-8")
        listed = artifacts.from_listing(entries, list_files(uv, pinned, request, log=getattr(backend, "log", None)))
    sidecar_text = artifacts.render(tier.lockfile.name, parsed.body_digest, entries, listed)
    return Recorded(sidecar, sidecar_text, False, sdist_only(entries, listed))


def sdist_only(entries: list[LockEntry], files: dict[artifacts.Key, tuple[LockedFile, ...]]) -> tuple[str, ...]:
    """``name version`` of each entry whose only recorded file is an sdist."""
    out: list[str] = []
    for entry in entries:
        found = files.get(artifacts.key(entry), ())
        if found and all(f.kind == "sdist" for f in found):
            out.append(f"{entry.name} {entry.version}")
    return tuple(dict.fromkeys(out))


def write(lockfile: Path, text: str, recorded: Recorded) -> None:
    """Replace the record, then the lockfile (a record left newer than its lockfile reads as stale, never as true)."""
    lockfile.parent.mkdir(parents=True, exist_ok=True)
    if recorded.sidecar is not None:
        if recorded.text is not None:
            write_atomic(recorded.sidecar, recorded.text.encode("utf-8"))
        else:
            recorded.sidecar.unlink(missing_ok=True)
    write_atomic(lockfile, text.encode("utf-8"))
