"""Where a tier's closure comes from, read for that tier: the one reader API of installers and probes.

A tier's closure comes from tierlock's own lockfile for it
(``lockfiles/<tier>.txt``, ``lockfiles/pylock.<tier>.toml``), or, with
``[tool.tierlock].lock``, from the lock the project already commits: a
``uv.lock`` (:mod:`tierlock.lockfiles.uvlock`) or a PEP 751 ``pylock.toml``
written by another tool (:mod:`tierlock.lockfiles.foreignpylock`). Such a lock
holds every extra and group at once; the tier's part is picked out by the
extras and dependency groups of the tier and of every tier below it, and
handed on as the same :class:`~tierlock.lockfiles.locks.Lock` a tierlock
lockfile gives, so everything downstream works unchanged.

:func:`read_tier` is lenient (every problem, for ``tierlock check``),
:func:`load_tier` strict (raises on any integrity problem). A parsed project
lock is remembered while its file is unchanged (size and mtime), so the tiers of
one command read it once. Light: no rich, jsonschema, pip or uv.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tierlock import fsutil
from tierlock.lockfiles.digest import sha256_hex
from tierlock.lockfiles.fileread import ReadResult, load, read
from tierlock.lockfiles.locks import Lock, LockedFile, LockEntry, LockfileError, ReadProblem

if TYPE_CHECKING:
    from tierlock.tiers import Project, Tier

_MEMO: dict[tuple[str, str, str], Any] = {}


def scope(project: Project, tier: Tier) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The extras and dependency groups the tier and the tiers below it bring in."""
    extras: list[str] = []
    groups: list[str] = []
    for member in project.chain(tier.name):
        kind, _, name = member.source.partition(":")
        if kind == "extra":
            extras.append(name)
        elif kind == "group":
            groups.append(name)
    return tuple(dict.fromkeys(extras)), tuple(dict.fromkeys(groups))


def project_lock(project: Project) -> Path | None:
    """The lock the project commits and names in ``[tool.tierlock].lock`` (None: tierlock's own lockfiles)."""
    return project.lock


def remedy(project: Project, tier: Tier | None = None) -> str:
    """The command that regenerates what a tier's closure is read from."""
    path = project_lock(project)
    if path is None:
        return f"tierlock lock {tier.name}" if tier is not None else "tierlock lock"
    return "uv lock" if path.name == "uv.lock" else f"regenerate {project.relpath(path)} with the tool that wrote it"


def read_tier(project: Project, tier: Tier) -> ReadResult:
    """The tier's lock, read leniently (every problem with its line); LockfileError when the file is missing."""
    path = project_lock(project)
    if path is None:
        return _with_itself(project, read(tier.lockfile))
    data = _bytes(path, project)
    extras, groups = scope(project, tier)
    key = (str(path), sha256_hex(data), f"{project.name}|{','.join(extras)}|{','.join(groups)}")
    found: ReadResult | None = _MEMO.get(key)
    if found is None:
        if len(_MEMO) > 64:
            _MEMO.clear()
        found = _MEMO[key] = _read_project_lock(project, path, data, extras, groups)
        if path.name != "uv.lock":  # uv.lock says itself whether the project is installed (editable or virtual)
            found = _MEMO[key] = _with_itself(project, found)
    return found


def load_tier(project: Project, tier: Tier) -> Lock:
    """The tier's lock for installing: LockfileError naming every integrity problem (headers aside)."""
    if project_lock(project) is None:
        return _with_itself(project, ReadResult(load(tier.lockfile), ())).lock
    result = read_tier(project, tier)
    problems = [p for p in result.problems if p.kind != "header"]
    if problems:
        raise LockfileError.from_problems(result.lock.path, problems, remedy(project, tier))
    return result.lock


def _with_itself(project: Project, result: ReadResult) -> ReadResult:
    """*result* with the project itself among its local packages when the project is a package."""
    from tierlock.frozen import replace
    from tierlock.lockfiles.locks import LocalPackage

    lock = result.lock
    if not project.package or project.name is None or any(p.name == project.name for p in lock.local):
        return result
    itself = LocalPackage(project.name, project.version, project.root, editable=True)
    return ReadResult(replace(lock, local=(*lock.local, itself)), result.problems)


def _bytes(path: Path, project: Project) -> bytes:
    try:
        return fsutil.read_bytes(path)  # a FIFO or /dev/zero is refused (exit 2), never waited on or read
    except FileNotFoundError:
        raise LockfileError(
            f"no lock at {project.relpath(path)} ([tool.tierlock].lock names it)",
            file=str(path),
            remedy=remedy(project),
        ) from None
    except OSError as exc:
        raise LockfileError(f"cannot read {path}: {exc.strerror}", file=str(path)) from exc


def _read_project_lock(
    project: Project, path: Path, data: bytes, extras: tuple[str, ...], groups: tuple[str, ...]
) -> ReadResult:
    digest = sha256_hex(data)
    try:
        text = fsutil.utf8_text(data)
    except UnicodeDecodeError as exc:
        problem = ReadProblem("integrity", None, f"not UTF-8 text ({exc.reason} at byte {exc.start})")
        empty = Lock(path, "uv" if path.name == "uv.lock" else "pylock", None, (), digest, f"sha256:{digest}")
        return ReadResult(empty, (problem,))
    root = str(project.name or "")
    if path.name == "uv.lock":
        from tierlock.lockfiles import uvread

        return uvread.read(path, text, digest, root=root, extras=extras, groups=groups)
    from tierlock.lockfiles import foreignpylock

    return foreignpylock.read(path, text, digest, root=root, extras=extras, groups=groups)


def with_file_hashes(entries: Iterable[LockEntry]) -> list[LockEntry]:
    """*entries*, each file in a local folder that the lock names without a hash given its sha256.

    uv.lock records no hash for the wheels of a local folder of wheels (a
    find-links registry): uv trusts the folder. tierlock installs with hash
    checking, so it hashes the very file the lock names, once, at install time.
    A file that is not there is a LockfileError naming it.
    """
    from tierlock.frozen import replace

    out: list[LockEntry] = []
    for entry in entries:
        if not any(f.path and not f.hashes for f in entry.files):
            out.append(entry)
            continue
        files = tuple(
            LockedFile(f.kind, f.filename, f.url, f.path, f.size, {"sha256": _sha256_of(f.path)})
            if f.path and not f.hashes
            else f
            for f in entry.files
        )
        hashes = tuple(
            dict.fromkeys([*entry.hashes, *(f"sha256:{f.hashes['sha256']}" for f in files if "sha256" in f.hashes)])
        )
        out.append(replace(entry, files=files, hashes=hashes))
    return out


def _sha256_of(path: str) -> str:
    try:
        with fsutil.open_regular(path) as handle:  # a FIFO is refused, never waited on
            import hashlib

            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError as exc:
        raise LockfileError(
            f"the lock names {path}, which cannot be read ({exc.strerror}): the folder of wheels it was locked from "
            "is gone or moved",
            file=path,
            remedy="restore that folder, or lock again against what is there: uv lock",
        ) from exc


def refuse_locking(project: Project, *, upgrade: bool = False, packages: Iterable[str] = ()) -> None:
    """``tierlock lock`` on a project whose tiers read the lock it commits: UsageError naming the tool that locks.

    tierlock never writes that file; ``uv lock`` (with the same upgrade flags) does.
    """
    from tierlock.errors import UsageError

    path = project_lock(project)
    if path is None:
        return
    where = project.relpath(path)
    if path.name == "uv.lock":
        command = ["uv", "lock", *(["--upgrade"] if upgrade else [])]
        for name in packages:
            command += ["--upgrade-package", name]
        fix = " ".join(command)
    else:
        fix = f"regenerate {where} with the tool that wrote it (its own lock command)"
    raise UsageError(
        f"this project's tiers take their closures from {where} ([tool.tierlock].lock); tierlock reads it and "
        "never writes it, so there is nothing for tierlock lock to do",
        file=str(project.pyproject),
        remedy=fix,
    )
