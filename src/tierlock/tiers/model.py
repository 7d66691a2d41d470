"""The tier model: pure, frozen data read from pyproject.toml."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.requirements import Requirement
from packaging.utils import NormalizedName, canonicalize_name

from tierlock import _lazy
from tierlock.errors import UnknownTierError
from tierlock.frozen import Frozen
from tierlock.tiers.platforms import Platform

BASE: NormalizedName = canonicalize_name("base")

if TYPE_CHECKING:
    from typing import Literal, TypeAlias

    LockFormat: TypeAlias = Literal["requirements", "pylock"]
    BackendName: TypeAlias = Literal["auto", "uv", "pip"]

#: The values of the ``Literal`` aliases above, made by :func:`__getattr__` at run time.
_ALIASES: dict[str, tuple[str, ...]] = {"LockFormat": ("requirements", "pylock"), "BackendName": ("auto", "uv", "pip")}

__getattr__ = _lazy.literals(__name__, _ALIASES)


class Tier(Frozen):
    """One tier: its roots, where they come from, and what it gates.

    ``requirements`` are the tier's own roots (for an opt-in tier, not those of
    the tier it is layered on); :meth:`Project.closure_requirements` gives the
    union along the layering chain.
    """

    _fields = (
        "name",
        "source",
        "requirements",
        "layered_on",
        "probe",
        "import_roots",
        "tests",
        "lockfile",
        "ci_required",
        "include_groups",
    )

    name: NormalizedName
    source: str
    """``project.dependencies`` for base, else ``extra:NAME`` or ``group:NAME``."""
    requirements: tuple[Requirement, ...]
    layered_on: NormalizedName | None
    probe: tuple[NormalizedName, ...]
    """Distributions that must be consumable for the tier to count as present."""
    import_roots: Mapping[NormalizedName, tuple[str, ...]]
    tests: tuple[str, ...]
    """Path globs, relative to the project root, of test files that need the tier."""
    lockfile: Path
    ci_required: bool
    include_groups: tuple[str, ...]
    """Dependency groups pulled in through ``include-group`` (resolved)."""

    def __init__(  # noqa: PLR0917 (the signature it had as a dataclass)
        self,
        name: NormalizedName,
        source: str,
        requirements: tuple[Requirement, ...],
        layered_on: NormalizedName | None,
        probe: tuple[NormalizedName, ...],
        import_roots: Mapping[NormalizedName, tuple[str, ...]],
        tests: tuple[str, ...],
        lockfile: Path,
        ci_required: bool,
        include_groups: tuple[str, ...] = (),
    ) -> None:
        self._init(
            name, source, requirements, layered_on, probe, import_roots, tests, lockfile, ci_required, include_groups
        )

    @property
    def is_base(self) -> bool:
        return self.name == BASE

    @property
    def install_command(self) -> str:
        return f"install-tier {self.name}"


class Project(Frozen):
    """A project's declared tiers and the ``[tool.tierlock]`` settings."""

    _fields = (
        "root",
        "pyproject",
        "name",
        "requires_python",
        "tiers",
        "lock_dir",
        "format",
        "backend",
        "ci_require",
        "configured",
        "runtime",
        "conflicts",
        "venv",
        "lock",
        "package",
        "version",
        "platforms",
        "no_build",
    )

    root: Path
    pyproject: Path
    name: NormalizedName | None
    requires_python: str | None
    tiers: Mapping[NormalizedName, Tier]
    """Every tier, ``base`` first, then in declaration order."""
    lock_dir: Path
    format: LockFormat
    backend: BackendName
    ci_require: tuple[NormalizedName, ...]
    configured: bool
    """Whether pyproject.toml has a ``[tool.tierlock]`` table at all."""
    runtime: Mapping[str, object] | None
    """The raw ``[tool.tierlock.runtime]`` table, validated by tierlock.validators."""
    conflicts: tuple[frozenset[NormalizedName], ...]
    """Sets of tiers declared mutually exclusive (``[tool.tierlock].conflicts``): never armed together."""
    venv: str | None
    """``[tool.tierlock].venv``: the project's environment folder (relative to the root); None: ``.venv``."""
    lock: Path | None
    """``[tool.tierlock].lock``: the lock the project commits (uv.lock, a PEP 751 pylock) that every tier's
    closure comes from; None: tierlock's own lockfiles (one per tier)."""
    package: bool
    """Whether the project is a package (a ``[build-system]``, or ``[tool.uv].package``): ``install-tier``
    then installs it from its tree, editable, as ``uv sync`` does."""
    version: str | None
    """The project's static ``[project].version`` (None when dynamic)."""
    platforms: tuple[Platform, ...]
    """``[tool.tierlock].platforms``: the platforms the project supports (none declared: nothing to prove)."""
    no_build: tuple[NormalizedName, ...]
    """``[tool.tierlock].no-build``: the tiers that install from wheels only, never building from source."""

    def __init__(  # noqa: PLR0917 (the signature it had as a dataclass)
        self,
        root: Path,
        pyproject: Path,
        name: NormalizedName | None,
        requires_python: str | None,
        tiers: Mapping[NormalizedName, Tier],
        lock_dir: Path,
        format: LockFormat,
        backend: BackendName,
        ci_require: tuple[NormalizedName, ...],
        configured: bool,
        runtime: Mapping[str, object] | None = None,
        conflicts: tuple[frozenset[NormalizedName], ...] = (),
        venv: str | None = None,
        lock: Path | None = None,
        package: bool = False,
        version: str | None = None,
        platforms: tuple[Platform, ...] = (),
        no_build: tuple[NormalizedName, ...] = (BASE,),
    ) -> None:
        self._init(
            root,
            pyproject,
            name,
            requires_python,
            tiers,
            lock_dir,
            format,
            backend,
            ci_require,
            configured,
            runtime,
            conflicts,
            venv,
            lock,
            package,
            version,
            platforms,
            no_build,
        )

    def builds(self, name: str) -> bool:
        """Whether tier *name* may build packages from source (it is not in ``no-build``)."""
        return self.tier(name).name not in self.no_build

    def tier(self, name: str) -> Tier:
        """The tier called *name* (any spelling), or :class:`UnknownTierError`."""
        key = canonicalize_name(name)
        try:
            return self.tiers[key]
        except KeyError:
            raise UnknownTierError(name, self.tiers, file=str(self.pyproject)) from None

    def select(self, names: list[str] | tuple[str, ...] | None) -> list[Tier]:
        """The named tiers (all when *names* is empty or None), in project order."""
        if not names:
            return list(self.tiers.values())
        wanted = {self.tier(n).name for n in names}
        return [t for t in self.tiers.values() if t.name in wanted]

    def chain(self, name: str) -> list[Tier]:
        """The tier and everything it is layered on, bottom (base) first."""
        out: list[Tier] = []
        tier: Tier | None = self.tier(name)
        while tier is not None:
            out.append(tier)
            tier = self.tiers[tier.layered_on] if tier.layered_on else None
        return list(reversed(out))

    def with_layers(self, names: Iterable[str]) -> list[Tier]:
        """The named tiers and every tier they are layered on, in project order (base first)."""
        wanted = {t.name for name in names for t in self.chain(name)}
        return [t for t in self.tiers.values() if t.name in wanted]

    def closure_requirements(self, name: str) -> list[Requirement]:
        """The roots of the tier and of every tier below it, without duplicates."""
        seen: set[str] = set()
        out: list[Requirement] = []
        for tier in self.chain(name):
            for req in tier.requirements:
                key = str(req)
                if key not in seen:
                    seen.add(key)
                    out.append(req)
        return out

    def exclusive(self, a: str, b: str) -> bool:
        """Whether tiers *a* and *b* can never be armed together: a declared conflict between their layers."""
        below_a = {t.name for t in self.chain(a)}
        below_b = {t.name for t in self.chain(b)}
        return any(
            (x in below_a and y in below_b) or (y in below_a and x in below_b)
            for declared in self.conflicts
            for x in declared
            for y in declared
            if x != y
        )

    def relpath(self, path: Path) -> str:
        """*path* relative to the project root when it is inside it."""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)
