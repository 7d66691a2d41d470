"""The pytest plugin's cached tier model: what the probe needs, without the loader.

Loading a project (``tierlock.tiers.load_project``: TOML, PEP 508
requirements, markers, the lockfiles) costs tens of milliseconds of imports on
every pytest start. The plugin therefore keeps the few facts the probe and the
gate need -- per tier its name, the probe roots whose markers hold on this
interpreter, import roots, test globs, install command, lockfile, the locked
versions of its roots and the rest of its locked closure that apply to this
interpreter -- in pytest's cache (``.pytest_cache/v/tierlock/``), keyed by
everything they are derived from:

* pyproject.toml's path and a digest of its text;
* each tier lockfile's path and a digest of its bytes (or its absence);
* the interpreter: ``sys.executable``, its prefixes, ``sys.version`` and the
  values behind the PEP 508 marker environment (``os.uname()`` ...), since the
  lockfile entries that apply depend on them;
* tierlock's version and :data:`SCHEMA`.

The cache holds the *model*, never a verdict: :func:`probe_facts` probes every
file of every root and of the rest of the closure on every run, and the project
itself when the closure needs it, exactly as :class:`~tierlock.probing.Prober`
does (:mod:`tierlock.probing.verdict`).
This module imports only :mod:`tierlock.probing.distprobe`,
:mod:`tierlock.probing.verdict` and :mod:`tierlock.probing.site`; its classes are plain classes, not dataclasses
(building a dataclass costs about a millisecond at import, on every run).
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tierlock._version import __version__
from tierlock.probing.distprobe import DistributionProbe
from tierlock.probing.site import SiteIndex, site_folders
from tierlock.probing.verdict import Memo, probe_parts, tier_verdict

if TYPE_CHECKING:
    from tierlock.probing.distprobe import TierState
    from tierlock.probing.tier import TierProbe
    from tierlock.tiers import Project, Tier

#: Bump when the cached shape or the meaning of a field changes.
SCHEMA = 3


class TierFacts:
    """One tier, as far as the probe and the pytest gate need it."""

    def __init__(
        self,
        *,
        name: str,
        probe: tuple[str, ...],
        import_roots: Mapping[str, tuple[str, ...]],
        tests: tuple[str, ...],
        install_command: str,
        lockfile: str,
        lock_used: bool,
        locked: Mapping[str, str | None],
        closure: Mapping[str, str | None],
        pins_project: bool = False,
    ) -> None:
        self.name = name
        self.probe = probe
        self.import_roots = import_roots
        """Probe root -> its declared import names (only roots with a declaration)."""
        self.tests = tests
        self.install_command = install_command
        self.lockfile = lockfile
        self.lock_used = lock_used
        """Whether the lockfile existed, so versions are compared."""
        self.locked = locked
        """Probe root -> the locked version that applies to this interpreter (None: not compared)."""
        self.closure = closure
        """The other lock entries that apply to this interpreter -> their locked versions."""
        self.pins_project = pins_project
        """Whether the lockfile pins the project itself (its closure may require it)."""


class ProjectFacts:
    """A project's tiers for the probe; ``configured`` is False without a ``[tool.tierlock]`` table."""

    def __init__(
        self,
        *,
        root: str,
        configured: bool,
        ci_require: tuple[str, ...],
        tiers: tuple[TierFacts, ...],
        stdlib: str,
        name: str | None = None,
        backend: str = "auto",
    ) -> None:
        self.root = root
        self.configured = configured
        self.ci_require = ci_require
        self.tiers = tiers
        self.stdlib = stdlib
        """This interpreter's stdlib folder (``sysconfig``), to tell site folders from the stdlib."""
        self.name = name
        """The project's normalized name (None without one)."""
        self.backend = backend
        """The project's installer backend (``auto``, ``uv``, ``pip``): for the command that installs it."""

    def tier(self, name: str) -> TierFacts:
        for tier in self.tiers:
            if tier.name == name:
                return tier
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "configured": self.configured,
            "ci_require": list(self.ci_require),
            "stdlib": self.stdlib,
            "name": self.name,
            "backend": self.backend,
            "tiers": [
                {
                    "name": t.name,
                    "probe": list(t.probe),
                    "import_roots": {k: list(v) for k, v in t.import_roots.items()},
                    "tests": list(t.tests),
                    "install_command": t.install_command,
                    "lockfile": t.lockfile,
                    "lock_used": t.lock_used,
                    "locked": dict(t.locked),
                    "closure": dict(t.closure),
                    "pins_project": t.pins_project,
                }
                for t in self.tiers
            ],
        }

    @classmethod
    def from_json(cls, data: object) -> ProjectFacts:
        """Rebuild from :meth:`to_json`; ``ValueError`` when anything is not the expected shape."""
        top = _dict(data)
        return cls(
            root=_str(top["root"]),
            configured=_bool(top["configured"]),
            ci_require=_strs(top["ci_require"]),
            stdlib=_str(top["stdlib"]),
            tiers=tuple(_tier_from_json(t) for t in _list(top["tiers"])),
            name=None if top["name"] is None else _str(top["name"]),
            backend=_str(top["backend"]),
        )


def _tier_from_json(data: object) -> TierFacts:
    tier = _dict(data)
    locked = {_str(k): (None if v is None else _str(v)) for k, v in _dict(tier["locked"]).items()}
    closure = {_str(k): (None if v is None else _str(v)) for k, v in _dict(tier["closure"]).items()}
    return TierFacts(
        name=_str(tier["name"]),
        probe=_strs(tier["probe"]),
        import_roots={_str(k): _strs(v) for k, v in _dict(tier["import_roots"]).items()},
        tests=_strs(tier["tests"]),
        install_command=_str(tier["install_command"]),
        lockfile=_str(tier["lockfile"]),
        lock_used=_bool(tier["lock_used"]),
        locked=locked,
        closure=closure,
        pins_project=_bool(tier["pins_project"]),
    )


def _dict(value: object) -> dict[Any, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"expected an object, got {type(value).__name__}")
    return value


def _list(value: object) -> list[Any]:
    if not isinstance(value, list):
        raise ValueError(f"expected a list, got {type(value).__name__}")
    return value


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected a string, got {type(value).__name__}")
    return value


def _bool(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected a boolean, got {type(value).__name__}")
    return value


def _strs(value: object) -> tuple[str, ...]:
    return tuple(_str(v) for v in _list(value))


# -- building the facts (cache miss: after the full load and probe) ------------------------
def facts_of(project: Project, results: Sequence[TierProbe]) -> ProjectFacts:
    """The facts of a loaded *project*, with the locked versions its full probe (*results*) used."""
    import sysconfig

    by_tier = {r.tier: r for r in results}
    tiers: list[TierFacts] = []
    for tier in project.tiers.values():
        result = by_tier[tier.name]
        locked = {d.name: d.locked_text for d in result.roots}
        probe = tuple(d.name for d in result.roots)  # the roots required on this interpreter (markers applied)
        tiers.append(
            TierFacts(
                name=str(tier.name),
                probe=probe,
                import_roots={str(k): tuple(v) for k, v in tier.import_roots.items() if k in probe},
                tests=tuple(tier.tests),
                install_command=result.install_command,
                lockfile=str(tier.lockfile),
                lock_used=result.lock_used,
                locked=locked,
                closure={d.name: d.locked_text for d in result.closure},
                pins_project=_pins_project(project, tier),
            )
        )
    return ProjectFacts(
        root=str(project.root),
        configured=project.configured,
        ci_require=tuple(str(t) for t in project.ci_require),
        tiers=tuple(tiers),
        stdlib=sysconfig.get_paths()["stdlib"],
        name=project.name,
        backend=project.backend,
    )


def _pins_project(project: Project, tier: Tier) -> bool:
    """Whether the tier's lockfile pins the project itself (read again: the probe remembers it while unchanged)."""
    from tierlock.probing.tier import pins_project

    return pins_project(project, tier)


def unconfigured(pyproject: Path) -> ProjectFacts:
    """The facts of a project whose pyproject.toml has no ``[tool.tierlock]`` table."""
    import sysconfig

    return ProjectFacts(
        root=str(pyproject.parent), configured=False, ci_require=(), tiers=(), stdlib=sysconfig.get_paths()["stdlib"]
    )


# -- probing from the facts (cache hit) -------------------------------------------------------
class TierVerdict:
    """What the pytest gate needs of a :class:`~tierlock.probing.TierProbe` (the same attributes)."""

    def __init__(
        self,
        tier: str,
        state: TierState,
        roots: tuple[DistributionProbe, ...],
        install_command: str,
        closure: tuple[DistributionProbe, ...] = (),
        *,
        project: DistributionProbe | None = None,
    ) -> None:
        self.tier = tier
        self.state: TierState = state
        self.roots = roots
        self.closure = closure
        self.install_command = install_command
        self.project = project

    @property
    def present(self) -> bool:
        return self.state == "present"

    @property
    def broken(self) -> list[DistributionProbe]:
        itself = (self.project,) if self.project is not None else ()
        return [d for d in (*self.roots, *self.closure, *itself) if not d.present]


def probe_facts(facts: ProjectFacts, paths: Sequence[Path] | None = None) -> list[TierVerdict]:
    """Probe every tier of *facts* from the files on *paths* (default: this interpreter's site folders).

    The same verdict as :meth:`tierlock.probing.Prober.probe` without ``deep``
    (one definition: :mod:`tierlock.probing.verdict`).
    """
    index = SiteIndex.scan(site_folders(facts.stdlib) if paths is None else paths)
    out: list[TierVerdict] = []
    memo: Memo = {}
    for tier in facts.tiers:
        roots, closure = probe_parts(
            index,
            [(name, tier.locked.get(name), tier.import_roots.get(name, ())) for name in tier.probe],
            list(tier.closure.items()),
            memo=memo,
        )
        itself, command = (None, None)
        if tier.pins_project and facts.name is not None:
            from tierlock.probing.project import in_running_interpreter

            itself, command = in_running_interpreter(
                facts.name,
                Path(facts.root),
                index,
                (*roots, *closure),
                backend=facts.backend,
                install=tier.install_command,
            )
        state = tier_verdict(roots, closure, itself)
        out.append(TierVerdict(tier.name, state, roots, command or tier.install_command, closure, project=itself))
    return out


# -- the cache entry ------------------------------------------------------------------------------
def cache_name(pyproject: Path) -> str:
    """The pytest cache key for this project and interpreter (one entry per interpreter)."""
    who = hashlib.sha256(f"{pyproject}\0{sys.executable}".encode()).hexdigest()[:16]
    return f"tierlock/tiers-{who}"


def interpreter_key() -> list[object]:
    """What the applicable lockfile entries depend on besides the lockfile: the interpreter."""
    if hasattr(os, "uname"):
        u = os.uname()
        machine = [u.sysname, u.release, u.version, u.machine]  # the marker values (not the host name)
    else:  # pragma: no cover - Windows: the marker values come from platform
        import platform

        p = platform.uname()
        machine = [p.system, p.release, p.version, p.machine]
    impl = sys.implementation
    return [
        sys.executable,
        sys.prefix,
        sys.base_prefix,
        sys.version,
        impl.name,
        list(impl.version),
        os.name,
        sys.platform,
        machine,
    ]


def file_stamp(path: str) -> list[object] | None:
    """A lockfile's size and digest, or None when there is no such file."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        return ["unreadable", exc.errno]
    return [len(data), hashlib.sha256(data).hexdigest()]


def base_key(pyproject: Path, text: str) -> list[object]:
    """The key of everything but the lockfiles (whose paths are only known from the model)."""
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return [SCHEMA, __version__, str(pyproject), digest, interpreter_key()]


def lock_stamps(lockfiles: Sequence[str]) -> dict[str, list[object] | None]:
    """:func:`file_stamp` of each lockfile: take them *before* the probe reads the lockfiles, so a
    lockfile edited in between leaves an entry that no longer matches (never facts newer than their key)."""
    return {path: file_stamp(path) for path in lockfiles}


def entry(key: list[object], stamps: Mapping[str, list[object] | None], facts: ProjectFacts) -> dict[str, Any]:
    """The cache value for *facts*, with the lockfile *stamps* taken before they were read."""
    return {"key": key, "lockfiles": dict(stamps), "facts": facts.to_json()}


def from_entry(value: object, key: list[object]) -> ProjectFacts | None:
    """The cached facts when *value* is a well-formed entry for *key* and no lockfile changed, else None."""
    if not isinstance(value, dict) or value.get("key") != key:
        return None
    stamps = value.get("lockfiles")
    if not isinstance(stamps, dict):
        return None
    try:
        facts = ProjectFacts.from_json(value.get("facts"))
    except (KeyError, ValueError):
        return None
    if set(stamps) != {t.lockfile for t in facts.tiers}:
        return None
    for path, stamp in stamps.items():
        if file_stamp(path) != stamp:
            return None
    return facts
