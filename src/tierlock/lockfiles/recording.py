"""Recording a new lock's artifacts, and writing the lockfile with its record (the edge of ``tierlock lock``).

pylock keeps each pin's files itself. For the requirements format, uv lists
the files of the exact pins (``uv pip compile --no-deps --format pylock.toml``
on the new lockfile, so the same index settings and the user's own uv
configuration apply, and uv's cache answers what the lock just fetched); the
files whose hash the lock carries are written to ``<tier>.artifacts.toml``.
When the new body is the one the record already written belongs to and that
record names a file for every hash of every entry, the listing could only find
those same files (a file is known by its hash, and the body carries every hash
uv found for each pin), so the record is rendered from them without starting
uv a second time: a lock that changes no pin runs the resolver once per tier.
Without uv (a pip-tools lock on a machine without it) no record is written
and any old one is removed, so nothing stale is ever read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tierlock.lockfiles import artifacts
from tierlock.lockfiles.locks import LockedFile, LockEntry
from tierlock.lockfiles.requirements import Parsed
from tierlock.lockfiles.resolvers import Backend, CompileRequest, list_files, uv_executable
from tierlock.scratch import write_atomic
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
    kept = kept_files(sidecar, tier.lockfile.name, parsed) if any(e.url is None for e in entries) else None
    if kept is not None:
        listed = kept
    elif any(e.url is None for e in entries):
        if uv is None:
            return Recorded(sidecar, None, False, missing=NO_UV)
        pinned = request.input_file.with_name(f"{tier.name}.pinned.txt")
        pinned.write_text(text, encoding="utf-8")
        listed = artifacts.from_listing(entries, list_files(uv, pinned, request, log=getattr(backend, "log", None)))
    sidecar_text = artifacts.render(tier.lockfile.name, parsed.body_digest, entries, listed)
    return Recorded(sidecar, sidecar_text, False, sdist_only(entries, listed))


def kept_files(sidecar: Path, lockfile: str, parsed: Parsed) -> dict[artifacts.Key, tuple[LockedFile, ...]] | None:
    """The files the record at *sidecar* (of *lockfile*) gives each entry of *parsed*, when listing again would
    find just those.

    That is: the record belongs to this very body and, for every entry not
    named by URL, holds one file for each of the entry's hashes and no other.
    None otherwise (no record, unreadable, stale, or a hash without its file).
    """
    try:
        text = sidecar.read_text(encoding="utf-8-sig")
        quick = artifacts.parse_rendered(text)  # the record as written by lock: no TOML parser needed
        kept = _covering(*quick, parsed) if quick is not None else None
        if kept is not None and artifacts.render(lockfile, parsed.body_digest, parsed.entries, kept) == text:
            return kept
        return _covering(*artifacts.parse(text), parsed)
    except (OSError, ValueError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return None


def _covering(
    digest: str, files: dict[artifacts.Key, tuple[LockedFile, ...]], parsed: Parsed
) -> dict[artifacts.Key, tuple[LockedFile, ...]] | None:
    """*files* of each entry of *parsed*, when they belong to its body and carry each of its hashes once."""
    if digest != parsed.body_digest:
        return None
    kept: dict[artifacts.Key, tuple[LockedFile, ...]] = {}
    for entry in parsed.entries:
        if entry.url is not None:
            continue
        found = files.get(artifacts.key(entry), ())
        hashes = [f"{algorithm}:{value}" for f in found for algorithm, value in f.hashes.items()]
        if len(hashes) != len(found) or sorted(hashes) != sorted(set(entry.hashes)):
            return None
        kept[artifacts.key(entry)] = found
    return kept


def sdist_only(entries: list[LockEntry], files: dict[artifacts.Key, tuple[LockedFile, ...]]) -> tuple[str, ...]:
    """``name version`` of each entry whose only recorded file is an sdist."""
    out: list[str] = []
    for entry in entries:
        found = files.get(artifacts.key(entry), ())
        if found and all(f.kind == "sdist" for f in found):
            out.append(f"{entry.name} {entry.version}")
    return tuple(dict.fromkeys(out))


def write(lockfile: Path, text: str, recorded: Recorded) -> None:
    """Replace the record, then the lockfile (a record left newer than its lockfile reads as stale, never as true).

    A file whose bytes are already these is left as it is: a lock that changes
    nothing touches nothing (what watches the files, or caches them by their
    identity, sees no change).
    """
    if recorded.sidecar is not None:
        if recorded.text is not None:
            _replace(recorded.sidecar, recorded.text.encode("utf-8"))
        else:
            recorded.sidecar.unlink(missing_ok=True)
    _replace(lockfile, text.encode("utf-8"))


def _replace(path: Path, data: bytes) -> None:
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass  # missing or unreadable: written anew
    path.parent.mkdir(parents=True, exist_ok=True)  # only when writing: a lock that changes nothing makes nothing
    write_atomic(path, data)
