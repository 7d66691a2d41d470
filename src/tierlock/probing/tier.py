"""Probe a tier: its roots, every file of the rest of its locked closure, and the project when the closure needs it.

What is probed and how the verdict is reached is defined once, in
:mod:`tierlock.probing.verdict`; which roots and lock entries apply to the
target environment, in :mod:`tierlock.probing.required`; the project itself,
in :mod:`tierlock.probing.project`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from tierlock.frozen import Frozen
from tierlock.probing.distprobe import DistributionProbe
from tierlock.probing.site import SiteIndex
from tierlock.probing.verdict import Member, Memo, Root, probe_parts, tier_verdict
from tierlock.remedies import argv_of

if TYPE_CHECKING:
    from tierlock.environment import Target
    from tierlock.lockfiles.locks import Lock
    from tierlock.probing.distprobe import TierState
    from tierlock.tiers import Project, Tier


class TierProbe(Frozen):
    """The verdict for one tier in one environment."""

    _fields = (
        "tier",
        "state",
        "roots",
        "closure",
        "lockfile",
        "lock_used",
        "notes",
        "python",
        "install_command",
        "project",
        "project_command",
    )

    tier: str
    state: TierState
    roots: tuple[DistributionProbe, ...]
    """One result per root distribution (the tier's ``probe`` list), in declaration order."""
    closure: tuple[DistributionProbe, ...] = ()
    """The other locked packages that apply to the environment, probed like the roots."""
    lockfile: Path | None = None
    lock_used: bool = False
    """Whether installed versions were compared with the lockfile."""
    notes: tuple[str, ...] = ()
    python: Path | None = None
    install_command: str = ""
    """The one command that makes the tier present (it installs the project first when that is missing)."""
    project: DistributionProbe | None = None
    """The project itself, when a package of the closure requires it, or when the tier's lock arms it and its
    install from the project's folder is not whole (None otherwise)."""
    project_command: str | None = None
    """The command that installs the project, when :attr:`project` is not present."""

    def __init__(  # noqa: PLR0917 (the signature it had as a dataclass)
        self,
        tier: str,
        state: TierState,
        roots: tuple[DistributionProbe, ...],
        closure: tuple[DistributionProbe, ...] = (),
        lockfile: Path | None = None,
        lock_used: bool = False,
        notes: tuple[str, ...] = (),
        python: Path | None = None,
        install_command: str = "",
        project: DistributionProbe | None = None,
        project_command: str | None = None,
    ) -> None:
        self._init(
            tier, state, roots, closure, lockfile, lock_used, notes, python, install_command, project, project_command
        )

    @property
    def present(self) -> bool:
        return self.state == "present"

    @property
    def checked(self) -> tuple[DistributionProbe, ...]:
        return self.roots + self.closure + ((self.project,) if self.project is not None else ())

    @property
    def needs_install(self) -> bool:
        """Whether ``install-tier`` has work: a root or closure package is not present."""
        return any(not d.present for d in (*self.roots, *self.closure))

    @property
    def files_checked(self) -> int:
        return sum(d.files_checked for d in self.checked)

    @property
    def broken(self) -> list[DistributionProbe]:
        """The probed distributions that are not present."""
        return [d for d in self.checked if not d.present]

    def to_dict(self) -> dict[str, object]:
        return {
            "tier": self.tier,
            "state": self.state,
            "present": self.present,
            "python": str(self.python) if self.python else None,
            "lockfile": str(self.lockfile) if self.lockfile else None,
            "lock_used": self.lock_used,
            "packages_checked": len(self.checked),
            "files_checked": self.files_checked,
            "notes": list(self.notes),
            "install_command": self.install_command,
            "remedy": None if self.present else self.install_command,
            "remedy_argv": None if self.present else argv_of(self.install_command),
            "roots": [d.to_dict() for d in self.roots],
            "closure": [d.to_dict() for d in self.closure],
            "project": self.project.to_dict() if self.project is not None else None,
        }


_T = TypeVar("_T")
_MEMO: dict[tuple[str, str, int, int], Any] = {}


def _while_unchanged(kind: str, path: Path, load: Callable[[Path], _T]) -> _T:
    """``load(path)``, remembered while the file is unchanged (its size and mtime): the result is frozen data."""
    st = path.stat()
    key = (kind, str(path), st.st_mtime_ns, st.st_size)
    value: _T | None = _MEMO.get(key)
    if value is None:
        if len(_MEMO) > 64:
            _MEMO.clear()
        value = _MEMO[key] = load(path)
    return value


def _load_lock(path: Path) -> Lock:
    """``tierlock.lockfiles.load``, remembered while the file is unchanged."""
    from tierlock.lockfiles import load

    return _while_unchanged("lock", path, load)


def tier_lock(project: Project, tier: Tier) -> Lock:
    """The lock of a tier whose lockfile is there: its part of the project's own lock (uv.lock, pylock) when the
    project names one, else its own lockfile (remembered while unchanged)."""
    if project.lock is not None:
        from tierlock.lockfiles import load_tier

        return load_tier(project, tier)
    return _load_lock(tier.lockfile)


def pins_project(project: Project, tier: Tier) -> bool:
    """Whether the closure of *tier* reaches the project itself (its lock pins it or says it left the pin out)."""
    if project.name is None or not tier.lockfile.is_file():
        return False
    return _reaches_project(tier_lock(project, tier), project.name)


class Prober:
    """Probes tiers of one project in one environment, scanning the site folders once."""

    def __init__(self, project: Project, target: Target, *, python: str | Path | None = None) -> None:
        self.project = project
        self.target = target
        self.python = python
        """The interpreter as the caller named it (None: the running one); remedies name it the same way."""
        self.index = SiteIndex.of(target)
        self.index.checked = {}  # each folder's files stat-ed once for all this prober's tiers
        self.memo: Memo = {}
        """Distributions probed so far with this index (tiers share most of their closures)."""

    def lock(self, tier: Tier) -> tuple[Lock | None, str | None]:
        """The tier's lock, or None with the note saying why versions are not compared."""
        from tierlock.lockfiles.sources import remedy

        where = self.project.relpath(tier.lockfile)
        if not tier.lockfile.is_file():
            return None, f"no lockfile at {where}: installed versions were not compared ({remedy(self.project, tier)})"
        return tier_lock(self.project, tier), None

    def probe(self, tier: Tier, *, closure: bool = False, deep: bool = False) -> TierProbe:
        """The tier's verdict (:mod:`tierlock.probing.verdict`): every file of its closure; *deep* also
        verifies RECORD hashes. *closure* (``probe --closure``) is the default now; it still needs a lockfile."""
        from tierlock.probing.libremedy import system_remedy
        from tierlock.probing.tierremedy import tier_remedy

        lock, note = self.lock(tier)
        notes: list[str] = [note] if note else []
        if closure and lock is None:
            from tierlock.errors import UsageError
            from tierlock.lockfiles.sources import remedy

            raise UsageError(
                f"--closure needs the lockfile of tier {tier.name}, but {note}",
                tier=tier.name,
                remedy=remedy(self.project, tier),
            )
        roots, others, said = _members(self.project, tier, self.target.marker_env, lock)
        notes.extend(said)
        probed_roots, probed_closure = probe_parts(self.index, roots, others, deep=deep, memo=self.memo)
        itself = self._project(probed_roots + probed_closure, _reaches_project(lock, self.project.name), deep)
        if itself is None and self._arms_itself(lock):
            from tierlock.probing.project import own_install

            itself = own_install(str(self.project.name), self.project.root, self.index, deep=deep)
        state = tier_verdict(probed_roots, probed_closure, itself)
        # Only a shared library the system lacks is wrong: no reinstall helps, the library does.
        install = system_remedy((*probed_roots, *probed_closure)) or tier_remedy(
            self.project,
            tier,
            self.target,
            python=self.python,
            deep=deep,
            locked=lock is not None,
            notes=notes if state != "present" else [],  # (why the Python is outside, said when it matters)
        )
        fix = self._project_command() if itself is not None and not itself.present else None
        broken = any(not d.present for d in (*probed_roots, *probed_closure))
        return TierProbe(
            tier=tier.name,
            state=state,
            roots=probed_roots,
            closure=probed_closure,
            lockfile=tier.lockfile,
            lock_used=lock is not None,
            notes=tuple(notes),
            python=self.target.python,
            install_command=(f"{fix} && {install}" if broken else fix) if fix else install,
            project=itself,
            project_command=fix,
        )

    def _arms_itself(self, lock: Lock | None) -> bool:
        """Whether arming the tier installs the project itself (a package: every tier's install does, as ``uv sync``
        does; a uv.lock says so by listing it among its local packages)."""
        name = self.project.name
        if lock is None or name is None:
            return False
        return any(p.name == name for p in lock.local) if self.project.lock is not None else self.project.package

    def _project(self, probed: Sequence[DistributionProbe], pinned: bool, deep: bool) -> DistributionProbe | None:
        """The project itself, when its lock pins it and an installed package of the closure requires it."""
        name = self.project.name
        if not pinned or name is None:
            return None
        from tierlock.probing.project import needs_of, project_probe

        needs = needs_of(name, probed, self.target.marker_env)
        return project_probe(name, self.project.root, self.index, needs, deep=deep) if needs else None

    def _project_command(self) -> str:
        from tierlock.probing.project import install_command

        python = self.target.python
        return install_command(
            python, self.project.root, self.project.backend, self.target.site_paths, self.target.version
        )


_Members = tuple[list[Root], list[Member], list[str]]
_MEMBERS: dict[tuple[int, int, int], tuple[Project, Tier, Lock | None, dict[str, str], _Members]] = {}


def _members(project: Project, tier: Tier, environment: Mapping[str, str], lock: Lock | None) -> _Members:
    """The roots and the other closure packages to probe, and the notes on what was left out: worked out once per
    project, tier, lock (all frozen data; an unchanged lockfile is the same lock) and marker environment."""
    key = (id(project), id(tier), id(lock))
    kept = _MEMBERS.get(key)
    if kept is not None and kept[0] is project and kept[1] is tier and kept[2] is lock and kept[3] == environment:
        return kept[4]
    from tierlock.probing.required import required

    needs = required(project, tier, environment, lock)
    notes = list(needs.marked_away)
    pins = {e.name: e for e in needs.entries}
    roots: list[Root] = []
    for name in needs.roots:
        entry = pins.get(name)
        if lock is not None and entry is None and name not in {p.name for p in lock.local}:
            notes.append(f"{name} is not in {project.relpath(tier.lockfile)}: its version was not compared")
        roots.append((name, str(entry.version) if entry else None, tier.import_roots.get(name, ())))
    skip = {*needs.roots, project.name}
    others: list[Member] = [(e.name, str(e.version)) for e in pins.values() if e.name not in skip]
    notes.extend(_empty_notes(tier, bool(needs.roots), bool(others)))
    if len(_MEMBERS) > 64:
        _MEMBERS.clear()
    members = (roots, others, notes)
    _MEMBERS[key] = (project, tier, lock, dict(environment), members)  # held: their ids stay theirs
    return members


def _reaches_project(lock: Lock | None, name: str | None) -> bool:
    """Whether the tier's lockfile pins the project or says it left the pin out (read once per unchanged file)."""
    if lock is None or name is None:
        return False
    from tierlock.lockfiles.projectpin import reaches_project

    return _while_unchanged(f"itself:{name}", lock.path, lambda _path: reaches_project(lock, name))


def _empty_notes(tier: Tier, has_roots: bool, has_others: bool) -> list[str]:
    """Why a tier without roots that apply here has the verdict it has."""
    if has_roots:
        return []
    if has_others:
        why = "has no roots to probe" if not tier.probe else "has no roots that apply to this environment"
        return [f"tier {tier.name} {why}: its verdict comes from its locked closure"]
    if not tier.probe:
        return [f"tier {tier.name} has no roots to probe: present by definition"]
    return [f"nothing of tier {tier.name} applies to this environment: present with 0 packages"]


def resolve_target(python: str | Path | Target | None) -> Target:
    """*python* described (a :class:`~tierlock.environment.Target` is taken as it is); None: the running interpreter."""
    from tierlock import environment

    if isinstance(python, environment.Target):
        return python
    return environment.current() if python is None else environment.inspect(python)


def resolve_project(project: Project | str | Path | None) -> Project:
    """The project, loaded once per unchanged pyproject.toml (the model is frozen data)."""
    from tierlock.tiers import Project, find_pyproject, load_project

    if isinstance(project, Project):
        return project
    if project is not None and not isinstance(project, str | os.PathLike):
        return project  # a Project of another import of this module (pytest's in-process runs re-import it)
    pyproject = find_pyproject(Path(project if project is not None else "."))
    return _while_unchanged("project", pyproject, load_project)


def probe(
    tier: str | Tier,
    project: Project | str | Path | None = None,
    python: str | Path | Target | None = None,
    closure: bool = False,
    *,
    deep: bool = False,
) -> TierProbe:
    """Whether *tier* of *project* is consumable in the environment of *python*.

    *project* is a :class:`~tierlock.tiers.Project`, a folder or a
    pyproject.toml (default: the nearest one upward from the working folder);
    *python* an interpreter, or a :class:`~tierlock.environment.Target`
    (default: this one, probed in-process). The
    roots are probed in full and every other package of the tier's lockfile
    that applies to the environment for its compiled artifacts; with
    *closure*, every file of those too. *deep* verifies RECORD hashes.
    """
    proj = resolve_project(project)
    the_tier = proj.tier(tier) if isinstance(tier, str) else tier
    return Prober(proj, resolve_target(python), python=_named(python)).probe(the_tier, closure=closure, deep=deep)


def probe_tiers(
    names: Sequence[str] | None,
    project: Project | str | Path | None = None,
    python: str | Path | Target | None = None,
    *,
    closure: bool = False,
    deep: bool = False,
) -> list[TierProbe]:
    """:func:`probe` for several tiers (all when *names* is empty), scanning the site folders once."""
    proj = resolve_project(project)
    prober = Prober(proj, resolve_target(python), python=_named(python))
    return [prober.probe(t, closure=closure, deep=deep) for t in proj.select(list(names or ()))]


def _named(python: str | Path | Target | None) -> str | Path | None:
    """How remedies name the environment: as the caller named it (a described Target: as install-tier finds it)."""
    from tierlock import environment

    return None if isinstance(python, environment.Target) else python
