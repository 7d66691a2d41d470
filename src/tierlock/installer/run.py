"""Arming tiers: fail closed, plan, execute, verify, write the receipt.

The one orchestrating function, :func:`install`, and its twin :func:`remove`.
Everything they print goes through the UI; everything they start goes through
:mod:`tierlock.subproc`; the only files they write live in the target
environment (packages, ``tierlock/receipts/*.json``, ``tierlock/install.lock``).
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, Literal

from tierlock.errors import BackendError, UsageError
from tierlock.installer import fastpath, receipts
from tierlock.installer.plan import Plan

if TYPE_CHECKING:
    from packaging.utils import NormalizedName

    from tierlock import environment
    from tierlock.environment import Target
    from tierlock.lockfiles import ReadResult
    from tierlock.lockfiles.model import Lock, LockEntry
    from tierlock.output import UI
    from tierlock.probing import DistributionProbe
    from tierlock.tiers import Project, Tier

Result = Literal["installed", "repaired", "unchanged", "planned"]


@dataclass(frozen=True)
class Request:
    tiers: tuple[str, ...]
    python: str | None = None
    system: bool = False
    backend: str | None = None
    """``auto``, ``uv`` or ``pip``; None: the project's ``[tool.tierlock].backend``."""
    dry_run: bool = False
    index: tuple[str, ...] = ()
    """Index option lines (``--index-url URL``, ``--no-index``) put before the pins the backend reads."""
    replace_armed: bool = False
    """Replace packages another armed tier pins (its receipt is then marked stale)."""


@dataclass
class Outcome:
    tiers: list[str]
    result: Result
    prefix: str
    packages: int
    files_checked: int = 0
    plan: Plan | None = None
    backend: str | None = None
    backend_version: str | None = None
    duration: float = 0.0
    waited: bool = False
    receipts: list[str] = field(default_factory=list)
    noop: fastpath.NoOp | None = None
    """What the receipts vouched for, when they proved a no-op (no plan was made)."""

    def to_json(self) -> dict[str, Any]:
        if self.plan is None and self.noop is not None:
            document = fastpath.to_json(self.noop, self.duration)
            document["waited_for_lock"] = self.waited
            return document
        counts = self.plan.counts() if self.plan else {}
        return {
            "ok": True,
            "tier": " ".join(self.tiers),
            "tiers": self.tiers,
            "result": self.result,
            "target": self.prefix,
            "package_count": self.packages,
            "counts": counts,
            "packages": self.plan.to_dict() if self.plan else {},
            "files_checked": self.files_checked,
            "backend": self.backend,
            "backend_version": self.backend_version,
            "waited_for_lock": self.waited,
            "receipts": self.receipts,
            "duration_s": round(self.duration, 4),
        }


# -- the fast path (see fastpath.py) -----------------------------------------------


def executable_of(target: Target) -> str:
    return os.path.abspath(target.python)


def environment_of(target: Target) -> str:
    """The environment's one name (receipts and the fast path compare it): see installer/target.py."""
    from tierlock.installer.target import environment_key

    return environment_key(target.prefix)


# -- fail closed ---------------------------------------------------------------


def fail_closed(project: Project, tiers: Sequence[Tier]) -> dict[str, ReadResult | None]:
    """The offline drift check of the tiers and what they are layered on; any finding refuses the install.

    Returns the lockfiles the check read (tier -> result), so they are not read twice.
    """
    from tierlock.errors import CheckFailed, Problem
    from tierlock.lockfiles import check as lockcheck

    chain = project.with_layers(t.name for t in tiers)
    names = [str(t.name) for t in chain]
    read = lockcheck.read_locks(project, chain)
    report = lockcheck.findings(project, chain, read)
    if report.ok:
        return read
    first = report.findings[0]
    raise CheckFailed(
        f"the lockfiles of {', '.join(names)} do not match pyproject.toml "
        f"({len(report.findings)} problem(s)); nothing was installed",
        tier=first.tier,
        file=first.file,
        problems=[Problem(f"{f.tier}: {f.kind}: {f.detail}", file=f.file, line=f.line) for f in report.findings],
        remedy=" && ".join(lockcheck.merged_remedies(f.remedy for f in report.findings)),
    )


def load_locks(
    project: Project, tiers: Sequence[Tier], target: Target, read: Mapping[str, ReadResult | None] | None = None
) -> dict[NormalizedName, Lock]:
    """Each tier's lock (from *read* when the drift check read it), refusing a lock made for another platform."""
    from tierlock import lockfiles
    from tierlock.lockfiles.model import LockfileError

    locks: dict[NormalizedName, Lock] = {}
    for tier in tiers:
        if not tier.lockfile.is_file():
            raise UsageError(
                f"tier {tier.name!r} has no lockfile at {project.relpath(tier.lockfile)}; nothing was installed",
                tier=tier.name,
                file=str(tier.lockfile),
                remedy=f"tierlock lock {tier.name}",
            )
        known = (read or {}).get(tier.name)
        if known is None:
            lock = lockfiles.load(tier.lockfile)
        else:  # as lockfiles.load() judges it: every problem but a header's refuses
            problems = [p for p in known.problems if p.kind != "header"]
            if problems:
                raise LockfileError.from_problems(known.lock.path, problems)
            lock = known.lock
        mismatch = lockfiles.platform_mismatch(lock, target)
        if mismatch:
            raise UsageError(
                f"tier {tier.name!r} cannot be installed here: {mismatch}; nothing was installed",
                tier=tier.name,
                file=str(tier.lockfile),
                remedy=f"tierlock lock {tier.name} (on this platform)",
            )
        locks[tier.name] = lock
    return locks


def externally_managed_reason(marker: Path) -> str:
    """The distributor's ``Error`` text from a PEP 668 ``EXTERNALLY-MANAGED`` file ("" when it gives none)."""
    import configparser

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(marker, encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError):
        return ""
    return " ".join(parser.get("externally-managed", "Error", fallback="").split())


def refuse_target(target: Target, *, system: bool) -> None:
    if target.externally_managed:
        marker = target.stdlib / "EXTERNALLY-MANAGED"
        reason = externally_managed_reason(marker)
        raise UsageError(
            f"{target.python} is an externally managed Python (PEP 668: {marker}"
            f"{': ' + reason if reason else ''}); tierlock will not install into it, even with --system",
            remedy="python -m venv .venv && .venv/bin/install-tier TIER",
        )
    if not target.is_venv and not system:
        raise UsageError(
            f"{target.python} is not a virtual environment (prefix {target.prefix}); nothing was installed",
            remedy="activate a virtual environment or pass --python PATH to one (or --system to install anyway)",
        )


# -- the plan ------------------------------------------------------------------


def entries_for(
    locks: Mapping[NormalizedName, Lock], target: Target, request: Request | None = None
) -> list[LockEntry]:
    from tierlock.installer.plan import ConflictingPins, merge_entries

    chosen = [(str(name), selected(lock, target)) for name, lock in locks.items()]
    try:
        return merge_entries(chosen)
    except ConflictingPins as exc:
        from tierlock.installer.target import install_command, refuse_sibling_conflicts

        asked = request or Request(())
        refuse_sibling_conflicts(
            chosen, command=lambda t: install_command([t], asked.python, system=asked.system, backend=asked.backend)
        )
        raise UsageError(str(exc)) from exc  # not reached: every conflict is named above


def selected(lock: Lock, target: Target) -> list[LockEntry]:
    """The entries of *lock* to install into *target*.

    requirements format: the entries whose markers hold. pylock: what
    ``Pylock.select`` picks offline for the target's marker environment and
    tags (most preferred first); each entry then carries just that file and
    its hashes, so the backend can install nothing else.
    """
    if lock.pylock is None:
        return lock.applicable(target.marker_env)
    from dataclasses import replace

    from packaging.pylock import PylockSelectError
    from packaging.tags import Tag
    from packaging.utils import canonicalize_name

    tags = [Tag(*tag.split("-", 2)) for tag in target.ordered_tags]
    try:
        chosen = {
            canonicalize_name(package.name): _filename(file)
            for package, file in lock.pylock.select(environment=dict(target.marker_env), tags=tags)
        }
    except PylockSelectError as exc:
        raise UsageError(
            f"{lock.path.name}: {exc} (platform {target.platform}); nothing was installed",
            file=str(lock.path),
            remedy="lock on this platform (tierlock lock TIER) or use an interpreter the lock covers",
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


def import_roots(tiers: Sequence[Tier]) -> dict[NormalizedName, tuple[str, ...]]:
    out: dict[NormalizedName, tuple[str, ...]] = {}
    for tier in tiers:
        out.update({k: tuple(v) for k, v in tier.import_roots.items()})
    return out


def plan_for(entries: Sequence[LockEntry], target: Target, roots: Mapping[NormalizedName, Sequence[str]]) -> Plan:
    plan, _ = probe_and_plan(entries, target, roots)
    return plan


def probe_and_plan(
    entries: Sequence[LockEntry], target: Target, roots: Mapping[NormalizedName, Sequence[str]]
) -> tuple[Plan, dict[NormalizedName, DistributionProbe]]:
    """The plan, and the probes it was made from (one scan of the site folders, each RECORD read once)."""
    from tierlock.installer import inventory
    from tierlock.installer.plan import make_plan

    probes = inventory.probe_all(entries, target.site_paths, roots)
    return make_plan(entries, inventory.verdicts(probes)), probes


# -- interruption --------------------------------------------------------------


@contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """Turn SIGTERM into KeyboardInterrupt while the backend runs (it is then stopped, no receipt is written)."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


# -- the orchestration ---------------------------------------------------------


def install(
    project: Project,
    request: Request,
    ui: UI,
    *,
    progress: Callable[[str], None] | None = None,
    pending: environment.Pending | None = None,
) -> Outcome:
    """Arm *request.tiers* in the target environment; see docs/reference/install.md.

    The caller has tried the receipts' no-op fast path (:mod:`tierlock.installer.fastpath`)
    already; *pending* is the target's inspection when the caller started it
    (:func:`tierlock.environment.start`), so it overlaps loading the project.
    """
    from tierlock import environment

    say = progress or ui.note
    started = time.perf_counter()
    if not request.tiers:
        raise UsageError(
            f"name at least one tier to install; declared tiers: {', '.join(project.tiers)}",
            remedy="install-tier TIER",
        )
    tiers = [project.tier(n) for n in dict.fromkeys(request.tiers)]
    names: list[str] = [str(t.name) for t in tiers]
    from tierlock.installer import target as where

    location = where.locate(request.python, project)
    if pending is None:
        pending = environment.start(location.python)  # the target starts while the drift check runs
    with _phase(ui, f"checking the lockfiles of {', '.join(names)}"):
        read = fail_closed(project, tiers)

    if location.missing and location.folder is not None:
        if request.dry_run:
            raise UsageError(
                f"the project environment {project.relpath(Path(location.folder))} does not exist yet; "
                "a dry run creates nothing",
                remedy=f"install-tier {' '.join(names)} (creates it), or pass --python PATH",
            )
        where.create(location.folder, project=project, backend=request.backend or project.backend, note=ui.note)
    target = environment.resolve(location.python, pending=pending)
    refuse_target(target, system=request.system)
    locks = load_locks(project, tiers, target, read)
    entries = where.project_itself_left_out(entries_for(locks, target, request), project)
    roots = import_roots(tiers)

    if request.dry_run:
        plan = plan_for(entries, target, roots)
        return Outcome(names, "planned", str(target.prefix), len(entries), plan=plan, duration=_since(started))

    from tierlock.installer.locking import environment_lock

    with environment_lock(target.prefix, on_wait=ui.note) as waited:
        if waited:
            noop, _ = fastpath.check(names, target.prefix, environment_of(target), project.pyproject)
            if noop is not None:
                outcome = _unchanged(noop, started)
                outcome.waited = True
                return outcome
        say(f"planning {len(entries)} package(s) for {', '.join(names)} in {target.prefix}")
        with _phase(ui, f"probing {len(entries)} package(s) in {target.prefix}"):
            plan, probes = probe_and_plan(entries, target, roots)
        backend_name = backend_version = None
        replaced_armed: dict[str, list[tuple[str, str, str]]] = {}
        if not plan.is_noop:
            from tierlock.installer import backends

            command = where.install_command(names, request.python, system=request.system, backend=request.backend)
            where.refuse_self_harm(plan, target, command=command)
            replaced_armed = where.armed_conflicts_for(project, plan, target, tiers)
            if not request.replace_armed:
                where.refuse_armed_conflicts(replaced_armed, names, command=command)
            where.refuse_unwritable(target)
            backend = backends.choose(request.backend or project.backend, target)
            for other, rows in replaced_armed.items():  # before the backend changes anything, even if it fails
                where.mark_stale(target.prefix, other, by=names, packages=[name for name, _old, _new in rows])
                ui.note(f"{other}: marked stale - arming {', '.join(names)} replaces {', '.join(r[0] for r in rows)}")
            backend_name = backend.name
            counts = plan.counts()
            doing = (
                f"{backend.name}: installing {counts['install']}, replacing {counts['replace']}, "
                f"repairing {counts['repair']} of {len(plan.steps)} package(s)"
            )
            for step in plan.changes:  # on a terminal, every package that changes; elsewhere with -v
                if ui.fancy:
                    ui.line(f"  {step.action} {step.entry.pin}: {step.reason}")
                else:
                    ui.detail(f"  {step.action} {step.entry.pin}: {step.reason}")
            from tierlock.installer.plan import requirement_lines

            version = _background(backend.version)  # asked while the backend installs
            with sigterm_interrupts(), ui.status(doing):
                try:
                    backends.execute(
                        backend,
                        target,
                        [*request.index, *requirement_lines(plan.changes)],
                        reinstall=[s.name for s in plan.of("repair")],
                        log=ui.detail,
                    )
                except KeyboardInterrupt:
                    ui.note(
                        "interrupted: the backend was stopped and no receipt was written; "
                        f"run install-tier {' '.join(names)} again to finish (it repairs what is half-installed)"
                    )
                    raise
            backend_version = version()
            with _phase(ui, f"verifying {len(entries)} package(s) with the probe"):
                probes = verify(entries, target, roots, names)
        dists = inventory_dists(entries, probes, target)
        written = write_receipts(
            project,
            tiers=tiers,
            locks=locks,
            target=target,
            dists=dists,
            backend=backend_name,
            backend_version=backend_version,
        )
        result: Result = "unchanged"
        if plan.of("install") or plan.of("replace"):
            result = "installed"
        elif plan.of("repair"):
            result = "repaired"
        return Outcome(
            names,
            result,
            str(target.prefix),
            len(entries),
            sum(len(d.files) for d in dists),
            plan=plan,
            backend=backend_name,
            backend_version=backend_version,
            waited=waited,
            receipts=written,
            duration=_since(started),
        )


@contextmanager
def _phase(ui: UI, text: str) -> Iterator[None]:
    """A spinner naming the phase on a terminal; nothing elsewhere (plain output keeps its few lines)."""
    if ui.fancy and not ui.quiet:
        with ui.status(text):
            yield
    else:
        yield


def _background(work: Callable[[], str]) -> Callable[[], str | None]:
    """Run *work* in a thread now; the returned function waits for its result (None when it failed)."""
    import threading

    box: list[str] = []

    def run() -> None:
        with suppress(Exception):  # the version is recorded, never essential
            box.append(work())

    thread = threading.Thread(target=run, name="tierlock-backend-version", daemon=True)
    thread.start()

    def result() -> str | None:
        thread.join()
        return box[0] if box else None

    return result


def _unchanged(noop: fastpath.NoOp, started: float) -> Outcome:
    return Outcome(
        noop.tiers, "unchanged", str(noop.prefix), noop.packages, noop.files, duration=_since(started), noop=noop
    )


def verify(
    entries: Sequence[LockEntry],
    target: Target,
    roots: Mapping[NormalizedName, Sequence[str]],
    names: list[str],
) -> dict[NormalizedName, DistributionProbe]:
    """Probe every locked package again; anything not present fails the install (exit 3, no receipt).

    Returns the probes (the receipt is written from what they read).
    """
    after, probes = probe_and_plan(entries, target, roots)
    if after.is_noop:
        return probes
    wrong = [f"{s.entry.pin}: {s.action} needed - {s.reason}" for s in after.changes]
    from tierlock.errors import Problem

    raise BackendError(
        f"after installing, {len(wrong)} of {len(entries)} package(s) of {', '.join(names)} are still not present; "
        "no receipt was written",
        problems=[Problem(w) for w in wrong],
        remedy=f"run install-tier {' '.join(names)} again; if it persists, check the backend output with -v",
    )


def inventory_dists(
    entries: Sequence[LockEntry], probes: Mapping[NormalizedName, DistributionProbe], target: Target
) -> list[receipts.InstalledDist]:
    from tierlock.installer import inventory

    return inventory.dists_of(entries, probes, target.prefix)


def write_receipts(
    project: Project,
    *,
    tiers: Sequence[Tier],
    locks: Mapping[NormalizedName, Lock],
    target: Target,
    dists: Sequence[receipts.InstalledDist],
    backend: str | None,
    backend_version: str | None,
) -> list[str]:
    """One receipt per tier, unless an identical one (same lockfile, interpreter and files) is there already."""
    from tierlock._version import __version__

    written: list[str] = []
    executable = executable_of(target)
    environment_key = environment_of(target)
    pyproject = (str(project.pyproject), receipts.file_digest(project.pyproject))
    for tier in tiers:
        lock = locks[tier.name]
        chain = {str(t.name): (str(t.lockfile), receipts.file_digest(t.lockfile)) for t in project.chain(tier.name)}
        wanted = {e.name for e in lock.applicable(target.marker_env)}
        tier_dists = [d for d in dists if d.name in wanted]
        existing = receipts.load(receipts.receipt_path(target.prefix, tier.name))
        if existing is not None:
            current = [d.to_dict() for d in sorted(tier_dists, key=lambda d: d.name)]
            if (
                existing.lockfile_paths == chain
                and existing.pyproject == pyproject
                and existing.data.get("interpreter", {}).get("environment") == environment_key
                and "stale" not in existing.data
                and existing.data.get("tierlock_version") == __version__
                and existing.packages == current
            ):
                continue
        document = receipts.build(
            tier=tier.name,
            pyproject=pyproject,
            lockfiles=chain,
            packages=tier_dists,
            backend=backend or (str(existing.data.get("backend", {}).get("name")) if existing else "none"),
            backend_version=backend_version or "",
            interpreter={
                "executable": executable,
                "environment": environment_key,
                "prefix": str(target.prefix),
                "version": ".".join(str(v) for v in target.version),
                "platform": target.platform,
            },
            project=str(project.root),
            tierlock_version=__version__,
        )
        written.append(str(receipts.write(target.prefix, document)))
    return written


def _since(started: float) -> float:
    return time.perf_counter() - started


# -- status --------------------------------------------------------------------


@dataclass
class TierStatus:
    tier: str
    state: Literal["present", "partial", "absent", "no-lockfile"]
    packages: int
    satisfied: int
    problems: list[str]
    receipt: receipts.Receipt | None
    stale: bool
    """The receipt names another lockfile digest: installed from an older lock."""
    remedy: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "tier": self.tier,
            "state": self.state,
            "packages": self.packages,
            "satisfied": self.satisfied,
            "problems": self.problems,
            "receipt": str(self.receipt.path) if self.receipt else None,
            "installed_at": self.receipt.installed_at if self.receipt else None,
            "older_lock": self.stale,
            "remedy": self.remedy,
        }


def status(project: Project, names: Sequence[str], python: str | None) -> tuple[Target, list[TierStatus]]:
    """Per tier: present, partial (what is wrong), absent, or installed from an older lock."""
    from tierlock import lockfiles
    from tierlock.installer.target import project_itself_left_out, resolve_existing, stale_reason
    from tierlock.probing import Prober

    selected = project.select(list(names))
    target = resolve_existing(python, project, [t.name for t in selected])
    prober = Prober(project, target)
    out: list[TierStatus] = []
    for tier in selected:
        receipt = receipts.load(receipts.receipt_path(target.prefix, tier.name))
        if not tier.lockfile.is_file():
            out.append(TierStatus(tier.name, "no-lockfile", 0, 0, [], receipt, False, f"tierlock lock {tier.name}"))
            continue
        lock = lockfiles.load(tier.lockfile)
        entries = project_itself_left_out(lock.applicable(target.marker_env), project)
        plan = plan_for(entries, target, {k: tuple(v) for k, v in tier.import_roots.items()})
        satisfied = len(plan.of("satisfied"))
        stale = receipt is not None and receipt.lockfiles.get(tier.name) != receipts.file_digest(tier.lockfile)
        # The state is the probe's one verdict (the same as probe, admit and the pytest plugin).
        state: Literal["present", "partial", "absent"] = prober.probe(tier).state
        problems = [f"{s.entry.pin}: {s.reason}" for s in plan.changes if state != "absent"]
        marked = stale_reason(receipt)
        if marked is not None:  # another tier replaced its packages on purpose (--replace-armed)
            problems.insert(0, marked)
        remedy = None if plan.is_noop and state == "present" and not stale else tier.install_command
        out.append(TierStatus(tier.name, state, len(plan.steps), satisfied, problems, receipt, stale, remedy))
    return target, out


# -- remove --------------------------------------------------------------------


@dataclass
class Removal:
    tier: str
    prefix: str
    remove: list[str]
    keep: list[str]
    dry_run: bool
    backend: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": True,
            "tier": self.tier,
            "target": self.prefix,
            "removed" if not self.dry_run else "would_remove": self.remove,
            "kept": self.keep,
            "dry_run": self.dry_run,
            "backend": self.backend,
        }


#: Never uninstalled by ``tierlock remove``: the tools doing the work.
PROTECTED = frozenset({"tierlock", "pip", "uv"})


def remove(project: Project, tier_name: str, request: Request, ui: UI) -> Removal:
    """Uninstall the packages of a tier's closure that neither base nor another armed tier needs."""
    from tierlock import lockfiles
    from tierlock.installer import inventory
    from tierlock.installer.target import resolve_existing
    from tierlock.tiers.model import BASE

    tier = project.tier(tier_name)
    target = resolve_existing(request.python, project)
    refuse_target(target, system=request.system)
    all_receipts = receipts.load_all(target.prefix)
    own = all_receipts.get(tier.name)
    if own is not None:
        closure = own.package_names
    elif tier.lockfile.is_file():
        closure = {e.name for e in lockfiles.load(tier.lockfile).applicable(target.marker_env)}
    else:
        raise UsageError(
            f"tier {tier.name!r} has neither a receipt in {target.prefix} nor a lockfile; nothing to remove",
            tier=tier.name,
            remedy=f"tierlock lock {tier.name}",
        )
    needed: set[str] = set()
    for name, receipt in all_receipts.items():
        if name != tier.name:
            needed |= receipt.package_names
    base = project.tiers[BASE]
    if tier.name != BASE and base.lockfile.is_file():
        needed |= {e.name for e in lockfiles.load(base.lockfile).applicable(target.marker_env)}
    installed = inventory.installed_names(target.site_paths)
    from tierlock.installer.target import protected_names

    protected = PROTECTED | protected_names(target)  # never what tierlock itself imports, where it runs from
    if project.name is not None:
        protected |= {str(project.name)}  # the project's own install is never removed
    remove_names = sorted(n for n in closure if n not in needed and n not in protected and n in installed)
    keep = sorted(n for n in closure if n not in remove_names)
    removal = Removal(tier.name, str(target.prefix), remove_names, keep, request.dry_run)
    if request.dry_run:
        return removal
    from tierlock.installer.locking import environment_lock

    with environment_lock(target.prefix, on_wait=ui.note):
        if remove_names:
            from tierlock.installer import backends

            backend = backends.choose(request.backend or project.backend, target)
            removal.backend = backend.name
            with ui.status(f"{backend.name}: uninstalling {len(remove_names)} package(s) of {tier.name}"):
                backends.uninstall(backend, target, remove_names, log=ui.detail)
        receipts.remove(target.prefix, tier.name)
    return removal
