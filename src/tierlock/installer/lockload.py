"""Loading the locks of an install: the offline drift check, each tier's lock, the entries for the target.

Every refusal here happens before anything changes in the target (exit 1 for
drift, exit 2 for a missing lockfile, another platform or conflicting pins).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tierlock.errors import TierlockError, UsageError

if TYPE_CHECKING:
    from packaging.utils import NormalizedName

    from tierlock.environment import Target
    from tierlock.installer.run import Request
    from tierlock.lockfiles import ReadResult
    from tierlock.lockfiles.locks import Lock, LockEntry
    from tierlock.tiers import Project, Tier


def fail_closed(project: Project, tiers: Sequence[Tier]) -> dict[str, ReadResult | None]:
    """The offline drift check of the tiers and what they are layered on; any finding refuses the install.

    Returns the lockfiles the check read (tier -> result), so they are not read twice.
    """
    from tierlock.errors import CheckFailed, Problem
    from tierlock.lockfiles.check import findings, one_remedy, read_locks

    chain = project.with_layers(t.name for t in tiers)
    names = [str(t.name) for t in chain]
    read = read_locks(project, chain)
    report = findings(project, chain, read)
    if report.ok:
        return read
    first = report.findings[0]
    raise CheckFailed(
        f"the lockfiles of {', '.join(names)} do not match pyproject.toml "
        f"({len(report.findings)} problem(s)); nothing was installed",
        tier=first.tier,
        file=first.file,
        problems=[Problem(f"{f.tier}: {f.kind}: {f.detail}", file=f.file, line=f.line) for f in report.findings],
        remedy=one_remedy((f.remedy for f in report.findings), [str(t.name) for t in tiers]),
    )


def load_locks(
    project: Project,
    tiers: Sequence[Tier],
    target: Target,
    read: Mapping[str, ReadResult | None] | None = None,
    again: str | None = None,
) -> dict[NormalizedName, Lock]:
    """Each tier's lock (from *read* when the drift check read it), refusing a lock made for another platform
    (*again*: the install's command, printed after the fix of a uv.lock resolved for other environments)."""
    from tierlock import lockfiles
    from tierlock.lockfiles.locks import LockfileError
    from tierlock.lockfiles.sources import remedy as relock

    locks: dict[NormalizedName, Lock] = {}
    for tier in tiers:
        if not tier.lockfile.is_file():
            raise UsageError(
                f"tier {tier.name!r} has no lockfile at {project.relpath(tier.lockfile)}; nothing was installed",
                tier=tier.name,
                file=str(tier.lockfile),
                remedy=relock(project, tier),
            )
        known = (read or {}).get(tier.name)
        if known is None:
            lock = lockfiles.load_tier(project, tier)
        else:  # as lockfiles.load() judges it: every problem but a header's refuses
            problems = [p for p in known.problems if p.kind != "header"]
            if problems:
                raise LockfileError.from_problems(known.lock.path, problems, relock(project, tier))
            lock = known.lock
        mismatch = lockfiles.platform_mismatch(lock, target)
        if mismatch:
            raise UsageError(
                f"tier {tier.name!r} cannot be installed here: {mismatch}; nothing was installed",
                tier=tier.name,
                file=str(tier.lockfile),
                remedy=universal_relock(project, tiers, target)
                if project.lock is None
                else "install-tier --python PYTHON "
                f"{tier.name} (an interpreter {project.relpath(lock.path)} was resolved for)",
            )
        _refuse_other_environments(project, tier, lock, target, again)
        locks[tier.name] = lock
    return locks


def universal_relock(project: Project, tiers: Sequence[Tier], target: Target) -> str:
    """The one command that makes *tiers* installable into *target* when a lock among them (or below them) was made
    by pip-tools for another platform: a universal lock (``--backend uv``: locking again with pip-tools, the
    project's backend, makes tierlock's own Python's platform's lock again) of every such tier and of every one
    layered on it, up to *tiers* (a lock records the digest of the one below, and a tier locked alone is resolved
    against the pins of the one below: a single-platform lock there fails or narrows it)."""
    from tierlock import lockfiles

    def foreign(tier: Tier) -> bool:
        try:
            return lockfiles.platform_mismatch(lockfiles.load_tier(project, tier), target) is not None
        except (OSError, ValueError, TierlockError):  # a lock that cannot be read is refused on its own
            return False

    chains: list[list[Tier]] = []  # each tier asked for, then the ones it is layered on, down to the bottom
    for tier in tiers:
        chain = [tier]
        while (
            chain[-1].layered_on is not None
            and chain[-1].layered_on in project.tiers
            and len(chain) <= len(project.tiers)
        ):
            chain.append(project.tiers[chain[-1].layered_on])
        chains.append(chain)
    chosen: set[str] = set()
    for chain in chains:
        for place, tier in enumerate(chain):
            if foreign(tier):
                chosen.update(str(t.name) for t in chain[: place + 1])
    names = [str(name) for name in project.tiers if name in chosen] or [str(t.name) for t in tiers]
    return f"tierlock lock {' '.join(names)} --backend uv"


def _refuse_other_environments(project: Project, tier: Tier, lock: Lock, target: Target, again: str | None) -> None:
    """Refuse (exit 2) a target that none of the environments uv.lock was resolved for holds, naming the one to add
    to ``[tool.uv] environments`` (in the pyproject.toml beside the lock: the workspace's) and ``uv lock``."""
    from tierlock.lockfiles.lockplatform import environment_to_add, outside_environments

    why = outside_environments(lock, target) if lock.format == "uv" else None  # (a pylock's: packaging's select())
    if why is None:
        return
    declared = project.relpath(lock.path.parent / "pyproject.toml")
    edit = f'add "{environment_to_add(lock, target)}" to [tool.uv] environments in {declared}'
    raise UsageError(
        f"tier {tier.name!r} cannot be installed into {target.prefix}: {why}; nothing was installed",
        tier=tier.name,
        file=str(lock.path),
        remedy=f"{edit}, then run: uv lock && {again or f'install-tier {tier.name}'}",
    )


def entries_for(
    locks: Mapping[NormalizedName, Lock], target: Target, request: Request | None = None
) -> list[LockEntry]:
    from tierlock.installer.plan import ConflictingPins, merge_entries

    chosen = [(str(name), selected(lock, target)) for name, lock in locks.items()]
    try:
        return merge_entries(chosen)
    except ConflictingPins as exc:
        from tierlock.installer.target import refuse_sibling_conflicts

        refuse_sibling_conflicts(chosen, command=lambda a, b: way_out(a, b, target, request))
        raise UsageError(str(exc)) from exc  # not reached: every conflict is named above


def way_out(first: str, second: str, target: Target, request: Request | None) -> str:
    """The command that gets past two tiers whose locks disagree: arm the first one alone; with ``--armed``
    (both hold receipts), remove one of them first (the one marked stale, else one not named), then re-arm."""
    import shlex

    from tierlock.installer import receipts
    from tierlock.installer.target import install_command

    if request is None or not request.armed:
        python, system, backend = (request.python, request.system, request.backend) if request else (None, False, None)
        return install_command([first], python, system=system, backend=backend)
    stale = [t for t in (first, second) if "stale" in getattr(receipts.load_tier(target.prefix, t), "data", {})]
    unnamed = [t for t in (second, first) if t not in request.tiers]
    drop = (stale or unnamed or [second])[0]
    where = (["--python", request.python] if request.python else []) + (["--system"] if request.system else [])
    again = request.command([t for t in request.tiers if t != drop])
    return f"{shlex.join(['tierlock', 'remove', drop, *where])} && {again}"


def selected(lock: Lock, target: Target) -> list[LockEntry]:
    """The entries of *lock* to install into *target*.

    requirements format: the entries whose markers hold. pylock: what
    ``Pylock.select`` picks offline for the target's marker environment and
    tags (most preferred first); each entry then carries just that file and
    its hashes, so the backend can install nothing else.
    """
    if lock.pylock is None:
        if lock.format == "uv":  # a folder of wheels uv.lock names without hashes: hashed here, once
            from tierlock.lockfiles.sources import with_file_hashes

            return with_file_hashes(lock.applicable(target.marker_env))
        return lock.applicable(target.marker_env)
    from packaging.pylock import PylockSelectError
    from packaging.tags import Tag
    from packaging.utils import canonicalize_name

    from tierlock.frozen import replace

    tags = [Tag(*tag.split("-", 2)) for tag in target.ordered_tags]
    try:
        chosen = {
            canonicalize_name(package.name): _filename(file)
            for package, file in lock.pylock.select(environment=dict(target.marker_env), tags=tags)
        }
    except PylockSelectError as exc:
        raise UsageError(
            f"{lock.path.name}: {exc} (platform {target.platform}); nothing was installed "
            "(lock it again on this platform, or use an interpreter the lock covers)",
            file=str(lock.path),
            remedy=f"tierlock lock {lock.header.tier}" if lock.header else "tierlock lock",
        ) from exc
    out: list[LockEntry] = []
    for entry in lock.applicable(target.marker_env):
        name = chosen.get(entry.name)
        files = tuple(f for f in entry.files if f.filename == name)
        if not files:
            continue  # Pylock.select leaves it out for this environment
        hashes = tuple(h for h in entry.hashes if h.partition(":")[2] in files[0].hashes.values())
        out.append(replace(entry, files=files, hashes=hashes))
    return out


def _filename(file: Any) -> str | None:
    """The file name of what ``Pylock.select`` chose (a wheel, an sdist or an archive)."""
    name = getattr(file, "filename", None)
    if isinstance(name, str):
        return name
    where = getattr(file, "url", None) or getattr(file, "path", None) or ""
    return str(where).split("#", 1)[0].rstrip("/").rsplit("/", 1)[-1] or None


#: The index a lock that names PyPI means: whatever the installer is configured with (PyPI by default).
_PYPI = ("https://pypi.org/simple", "https://pypi.org/simple/")


def index_lines(entries: Sequence[LockEntry]) -> tuple[str, ...]:
    """Option lines that point the backend at the registries a project's lock names for *entries*.

    A registry other than PyPI becomes ``--extra-index-url`` (the user's own index
    configuration stays first; hashes pin every file), a local folder of wheels
    ``--find-links``; when every registry named is a local folder, ``--no-index``
    too (nothing comes from an index). Entries without a registry (tierlock's own
    lockfiles) add nothing: the installer's configuration decides, as always.
    """
    named = [e.index for e in entries if e.index is not None]
    if not named:
        return ()
    lines: list[str] = []
    for where in dict.fromkeys(named):
        if "://" not in where:
            lines.append(f"--find-links {where}")
        elif where not in _PYPI:
            lines.append(f"--extra-index-url {where}")
    needs_index = any(e.index is None and e.url is None for e in entries) or any("://" in i for i in named)
    return tuple(lines if needs_index else ["--no-index", *lines])


def import_roots(tiers: Sequence[Tier]) -> dict[NormalizedName, tuple[str, ...]]:
    out: dict[NormalizedName, tuple[str, ...]] = {}
    for tier in tiers:
        out.update({k: tuple(v) for k, v in tier.import_roots.items()})
    return out
