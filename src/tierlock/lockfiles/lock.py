"""``tierlock lock``: compile each tier's exact closure through a backend and write it atomically.

A tier layered on another is compiled from its closure roots with the lower
tier's pins as constraints, so shared packages carry identical pins; its
lockfile holds the full closure. The lower tier is locked first when its
lockfile is missing or stale. The backend works in a temporary folder; the
lockfile is replaced only once the result has been read back and verified.
"""

from __future__ import annotations

import json
import re
import shutil
import threading
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from packaging.version import Version

from tierlock import fsutil
from tierlock.errors import BackendError, Problem
from tierlock.fsutil import write_atomic
from tierlock.lockfiles import header as headers
from tierlock.lockfiles import pylock as pylock_format
from tierlock.lockfiles import requirements as req_format
from tierlock.lockfiles.backends import Backend, CompileRequest, IndexOptions, python_version_for
from tierlock.lockfiles.digest import body_digest, expected_inputs
from tierlock.lockfiles.model import Lock, LockEntry, LockfileError, LockHeader
from tierlock.lockfiles.reader import ReadResult, format_of, read
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
        }


@dataclass(frozen=True)
class NotLocked:
    """A tier whose lock failed (or could not start because a tier below it failed); its lockfile is untouched."""

    tier: str
    message: str
    detail: str | None
    remedy: str

    def to_dict(self) -> dict[str, object]:
        return {"tier": self.tier, "message": self.message, "detail": self.detail, "remedy": self.remedy}


class LockFailed(BackendError):
    """Some tiers could not be locked; every other tier was locked (exit 3).

    ``locked`` holds what succeeded, ``failures`` one entry (with its one remedy) per tier not locked.
    """

    def __init__(self, locked: Sequence[Locked], failures: Sequence[NotLocked]) -> None:
        names = ", ".join(f.tier for f in failures)
        super().__init__(
            f"{len(failures)} tier(s) not locked: {names}; {len(locked)} tier(s) locked",
            problems=[Problem(f"{f.message}; to fix: {f.remedy}", f.tier) for f in failures],
            detail="\n".join(f"{f.tier}: {f.detail}" for f in failures if f.detail) or None,
        )
        self.locked = tuple(locked)
        self.failures = tuple(failures)


def plan(project: Project, names: Sequence[str] | None) -> list[tuple[Tier, str]]:
    """The tiers to lock, lower tiers first: the requested ones, plus any missing or stale tier below them."""
    requested = project.select(list(names) if names else None)
    wanted = {t.name for t in requested}
    order: list[tuple[Tier, str]] = []
    seen: set[str] = set()
    for tier in requested:
        for member in project.chain(tier.name):
            if member.name in seen:
                continue
            if member.name in wanted:
                seen.add(member.name)
                order.append((member, "requested"))
                continue
            from tierlock.lockfiles.check import findings, read_locks

            stale = findings(project, [member], read_locks(project, [member])).findings
            if stale or any(r in {m.name for m, _ in order} for r in _below(project, member)):
                seen.add(member.name)
                order.append((member, f"{stale[0].kind} below {tier.name}" if stale else f"below {tier.name}"))
    return order


def _below(project: Project, tier: Tier) -> list[str]:
    return [t.name for t in project.chain(tier.name)[:-1]]


def lock_project(
    project: Project,
    names: Sequence[str] | None,
    backend: Backend,
    options: LockOptions,
    *,
    progress: Callable[[str], None] | None = None,
) -> list[Locked]:
    """Lock the named tiers (all when none) and whatever below them needs it."""
    if project.format == "pylock" and not backend.universal:
        from tierlock.errors import UsageError

        raise UsageError(
            "pip-tools cannot write the pylock format",
            remedy='lock with uv (tierlock lock --backend uv) or set format = "requirements" in [tool.tierlock]',
        )
    order = plan(project, names)
    from tierlock.tiers.reach import project_local, unlockable

    local = project_local(project)
    results: dict[str, Locked] = {}
    failures: dict[str, NotLocked] = {}
    pending = list(order)
    while pending:
        # A wave: every tier whose lower tiers in this plan are settled; siblings compile side by side.
        planned = {t.name for t, _ in pending}
        wave = [(t, r) for t, r in pending if not planned.intersection(_below(project, t))]
        pending = [item for item in pending if item not in wave]
        runnable = []
        for tier, reason in wave:
            failed_below = next((failures[b] for b in _below(project, tier) if b in failures), None)
            reach = unlockable(project, tier, local) if failed_below is None else None
            if reach is not None:  # an index would not have it, or worse, a published namesake: no backend call
                failures[tier.name] = NotLocked(tier.name, f"cannot be locked: {reach.reason}", None, reach.remedy)
                continue
            if failed_below is None:
                runnable.append((tier, reason))
                continue
            failures[tier.name] = NotLocked(
                tier.name,
                f"not locked: the {failed_below.tier} lock it is layered on failed",
                None,
                f"fix {failed_below.tier} as its remedy says, then run: tierlock lock {tier.name} "
                f"(which locks {failed_below.tier} first)",
            )
        for tier, outcome in _lock_wave(project, runnable, backend, options, progress):
            if isinstance(outcome, Locked):
                results[tier.name] = outcome
            else:
                failures[tier.name] = _failure(project, tier, outcome)
    done = [results[t.name] for t, _ in order if t.name in results]
    if failures:
        raise LockFailed(done, [failures[t.name] for t, _ in order if t.name in failures])
    return done


#: Sibling tiers locked at once (each is one backend process, mostly waiting on its index).
PARALLEL = 4


def _lock_wave(
    project: Project,
    wave: Sequence[tuple[Tier, str]],
    backend: Backend,
    options: LockOptions,
    progress: Callable[[str], None] | None,
) -> list[tuple[Tier, Locked | BackendError | LockfileError]]:
    """Lock the tiers of *wave* (none layered on another), side by side; each outcome in order."""

    def one(item: tuple[Tier, str]) -> Locked | BackendError | LockfileError:
        tier, reason = item
        if progress is not None:
            progress(f"locking {tier.name} with {backend.name} ({project.relpath(tier.lockfile)})")
        try:
            return lock_tier(project, tier, backend, options, reason=reason)
        except (BackendError, LockfileError) as exc:
            return exc

    if len(wave) <= 1:
        return [(item[0], one(item)) for item in wave]
    # Plain threads (concurrent.futures would import logging, ~20 ms, for nothing).
    outcomes: list[Locked | BackendError | LockfileError | None] = [None] * len(wave)
    errors: list[BaseException] = []

    def work(indexes: Sequence[int]) -> None:
        try:
            for i in indexes:
                outcomes[i] = one(wave[i])
        except BaseException as exc:  # handed to the waiting thread
            errors.append(exc)

    lanes = min(PARALLEL, len(wave))
    threads = [
        threading.Thread(target=work, args=(range(lane, len(wave), lanes),), name="tierlock-lock", daemon=True)
        for lane in range(lanes)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return [(tier, outcome) for (tier, _), outcome in zip(wave, outcomes, strict=True) if outcome is not None]


def _failure(project: Project, tier: Tier, exc: BackendError | LockfileError) -> NotLocked:
    """What failed for *tier* and its one remedy."""
    remedy = exc.remedy or f"tierlock lock {tier.name}"
    return NotLocked(tier.name, exc.message, exc.detail, remedy)


def lock_tier(
    project: Project, tier: Tier, backend: Backend, options: LockOptions, *, reason: str = "requested"
) -> Locked:
    """Compile *tier* and replace its lockfile atomically (nothing is written when anything fails).

    The backend runs in the background while the previous lockfile is read and
    the header is prepared; its result is then read back and verified.
    """
    inputs, digest = expected_inputs(project, tier)
    lower: Lock | None = None
    if tier.layered_on is not None:
        below = project.tier(tier.layered_on)
        result = _read_lower(below.lockfile)
        if result.problems:
            raise BackendError(
                f"cannot lock {tier.name}: the {below.name} lockfile it is layered on has problems",
                file=str(below.lockfile),
                remedy=f"tierlock lock {below.name}",
            )
        lower = result.lock
    had_lockfile = tier.lockfile.is_file()
    with fsutil.scratch_dir("tierlock-lock-") as work:
        input_file = work / f"{tier.name}.in"
        input_file.write_text("".join(f"{line}\n" for line in inputs), encoding="utf-8")
        constraints = None
        if lower is not None:
            constraints = work / f"{lower_name(tier)}.constraints.txt"
            constraints.write_text("".join(f"{req_format.entry_line(e)}\n" for e in lower.entries), encoding="utf-8")
        output = work / tier.lockfile.name
        if had_lockfile and not options.upgrade:
            shutil.copyfile(tier.lockfile, output)
        request = CompileRequest(
            input_file=input_file,
            output_file=output,
            constraints=constraints,
            format=project.format,
            python_version=python_version_for(project.requires_python),
            upgrade=options.upgrade,
            upgrade_packages=options.upgrade_packages,
            index=options.index,
            # From the project folder, so the backend reads the user's own settings there
            # (uv.toml / [tool.uv], [tool.pip-tools]) as it would when run by hand.
            cwd=project.root,
        )
        # Nothing to resolve (no requirements, or none beyond the tier below): no backend call.
        same_as_lower = lower is not None and expected_inputs(project, project.tier(lower_name(tier)))[0] == inputs
        compiling = _Background(backend.compile, request) if inputs and not same_as_lower else None
        if compiling is None:
            text_below = _read_bytes(lower.path) if lower is not None and same_as_lower else None
            known = text_below.decode("utf-8-sig") if text_below is not None else _empty_body(project)
            output.write_text(known, encoding="utf-8")
        try:  # meanwhile: what does not depend on the result
            previous = _read_bytes(tier.lockfile) if had_lockfile else None
            header = LockHeader(
                tier=tier.name,
                inputs=inputs,
                inputs_digest=digest,
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
        finally:
            if compiling is not None:
                compiling.wait()
        try:
            compiled = output.read_text(encoding="utf-8-sig")
        except FileNotFoundError:
            raise BackendError(f"{backend.name} reported success but wrote no lockfile for {tier.name}") from None
    from tierlock.lockfiles import itself

    if project.format == "pylock":
        compiled = itself.without_project_pylock(compiled, project.name)  # never pinned from the index
        document = tomllib.loads(compiled)
        text = pylock_format.render(compiled, replace(header, body_digest=pylock_format.body_digest(document)))
        parsed = pylock_format.parse(text)
    else:
        body = itself.without_project(_clean_body(compiled, tier), project.name)  # never pinned from the index
        text = req_format.render(replace(header, body_digest=body_digest(body)), body)
        parsed = req_format.parse(text)
    if parsed.problems:
        lines = [f"line {p.line}: {p.detail}" if p.line else p.detail for p in parsed.problems]
        raise BackendError(
            f"{backend.name} produced a lockfile for {tier.name} that cannot be trusted; nothing was written",
            detail="\n".join(lines),
            remedy="pin the offending requirement to a released version from an index (no editable or VCS entries)",
            tier=tier.name,
        )
    tier.lockfile.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(tier.lockfile, text.encode("utf-8"))
    return Locked(
        tier=tier.name,
        path=tier.lockfile,
        packages=len({e.name for e in parsed.entries}),
        entries=len(parsed.entries),
        changes=tuple(_changes(tier.lockfile, previous, parsed.body_digest, parsed.entries)),
        created=previous is None,
        reason=reason,
    )


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


class _Background:
    """Run ``call(argument)`` in a thread; :meth:`wait` joins it and re-raises what it raised."""

    def __init__(self, call: Callable[[CompileRequest], None], argument: CompileRequest) -> None:
        self._error: BaseException | None = None

        def target() -> None:
            try:
                call(argument)
            except BaseException as exc:  # handed to the waiting thread
                self._error = exc

        self._thread = threading.Thread(target=target, name="tierlock-backend", daemon=True)
        self._thread.start()

    def wait(self) -> None:
        self._thread.join()
        if self._error is not None:
            error, self._error = self._error, None
            raise error


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
    lines = req_format.split_lines(compiled)
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
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise LockfileError(f"cannot read {path}: {exc.strerror}", file=str(path)) from exc


def _changes(path: Path, previous: bytes | None, body: str, entries: Sequence[LockEntry]) -> list[str]:
    """The pin changes against the *previous* file's bytes (not parsed when its body digest equals *body*)."""
    if previous is None:
        return pin_changes(None, entries)
    try:
        text = previous.decode("utf-8-sig")
    except UnicodeDecodeError:
        return pin_changes(None, entries)
    if format_of(path) == "pylock":
        return _pin_diff(pylock_format.parse(text).entries, entries)
    lines = req_format.split_lines(text)
    if body_digest(lines[headers.parse_comment(lines)[1] :]) == body:
        return []  # the same body: the same pins
    return _pin_diff(req_format.parse(text).entries, entries)


def pin_changes(previous: Lock | None, entries: Sequence[LockEntry]) -> list[str]:
    """The pin changes from *previous* to *entries*: ``+name v``, ``-name v``, ``name a -> b``."""
    return _pin_diff(previous.entries if previous is not None else (), entries)


def _pin_diff(before_entries: Sequence[LockEntry], entries: Sequence[LockEntry]) -> list[str]:
    def pins(items: Sequence[LockEntry]) -> dict[str, list[str]]:
        out: dict[str, set[Version]] = {}
        for entry in items:
            out.setdefault(entry.name, set()).add(entry.version)
        return {name: [str(v) for v in sorted(versions)] for name, versions in out.items()}

    new = pins(entries)
    old = pins(before_entries)
    changes: list[str] = []
    for name in sorted(set(old) | set(new)):
        before, after = old.get(name), new.get(name)
        if before == after:
            continue
        if before is None:
            changes.append(f"+{name} {', '.join(after or ())}")
        elif after is None:
            changes.append(f"-{name} {', '.join(before)}")
        else:
            changes.append(f"{name} {', '.join(before)} -> {', '.join(after)}")
    return changes
