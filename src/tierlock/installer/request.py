"""What ``install-tier`` is asked (:class:`Request`) and what it did (:class:`Outcome`, its ``--json`` document).

Both are :mod:`tierlock.frozen` values, as every class an arming loads beside its backend: building a dataclass
runs ``exec`` for each method it writes and loads :mod:`inspect`, CPU taken from the backend's cores.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from tierlock.frozen import Fields, Frozen
from tierlock.installer import fastpath

if TYPE_CHECKING:
    from tierlock.installer.plan import Plan
    from tierlock.installer.projecttree import LocalStep

Result = Literal["installed", "repaired", "unchanged", "planned"]


class Request(Frozen):
    """What ``install-tier`` (or ``remove``) is asked."""

    _fields = (
        "tiers",
        "python",
        "system",
        "backend",
        "dry_run",
        "deep",
        "reinstall",
        "reinstall_packages",
        "armed",
        "index",
        "replace_armed",
        "install_project",
    )

    tiers: tuple[str, ...]
    python: str | None
    system: bool
    backend: str | None
    """``auto``, ``uv`` or ``pip``; None: the project's ``[tool.tierlock].backend``."""
    dry_run: bool
    deep: bool
    """Also compare every installed file with its RECORD hash, and repair what differs."""
    reinstall: bool
    """Reinstall every package of the tiers, whole or not."""
    reinstall_packages: tuple[str, ...]
    armed: bool
    """Also every tier that has a receipt in the target (``--armed``)."""
    index: tuple[str, ...]
    """Index option lines (``--index-url URL``, ``--no-index``) put before the pins the backend reads."""
    replace_armed: bool
    """Replace packages another armed tier pins (its receipt is then marked stale)."""
    install_project: bool
    """Also arm the project itself from its tree (editable), as ``uv sync`` does (``--no-install-project``: not)."""

    def __init__(  # noqa: PLR0917 (the signature it had as a dataclass)
        self,
        tiers: tuple[str, ...],
        python: str | None = None,
        system: bool = False,
        backend: str | None = None,
        dry_run: bool = False,
        deep: bool = False,
        reinstall: bool = False,
        reinstall_packages: tuple[str, ...] = (),
        armed: bool = False,
        index: tuple[str, ...] = (),
        replace_armed: bool = False,
        install_project: bool = True,
    ) -> None:
        self._init(
            tiers,
            python,
            system,
            backend,
            dry_run,
            deep,
            reinstall,
            reinstall_packages,
            armed,
            index,
            replace_armed,
            install_project,
        )

    def command(self, tiers: Sequence[str]) -> str:
        """The ``install-tier`` command line that repeats this request for *tiers* (printed in remedies)."""
        import shlex

        parts = ["install-tier", *tiers]
        if self.python is not None:
            parts += ["--python", self.python]
        if self.system:
            parts.append("--system")
        if self.backend is not None:
            parts += ["--backend", self.backend]
        if self.deep:
            parts.append("--deep")
        if not self.install_project:
            parts.append("--no-install-project")
        if self.replace_armed:  # the same request again: what it was allowed to replace, it still may
            parts.append("--replace-armed")
        if self.armed:
            parts.append("--armed")
        return shlex.join(parts)


class Outcome(Fields):
    """What an install did (changed in place: :attr:`waited` is set after it is made; unhashable, as the plain
    dataclass it was)."""

    _fields = (
        "tiers",
        "result",
        "prefix",
        "packages",
        "files_checked",
        "plan",
        "backend",
        "backend_version",
        "backend_seconds",
        "duration",
        "waited",
        "receipts",
        "noop",
        "cleared",
        "local",
    )

    def __init__(  # noqa: PLR0917 (the signature it had as a dataclass)
        self,
        tiers: list[str],
        result: Result,
        prefix: str,
        packages: int,
        files_checked: int = 0,
        plan: Plan | None = None,
        backend: str | None = None,
        backend_version: str | None = None,
        backend_seconds: float | None = None,
        duration: float = 0.0,
        waited: bool = False,
        receipts: list[str] | None = None,
        noop: fastpath.NoOp | None = None,
        cleared: list[str] | None = None,
        local: list[LocalStep] | None = None,
    ) -> None:
        self.tiers = tiers
        self.result = result
        self.prefix = prefix
        self.packages = packages
        self.files_checked = files_checked
        self.plan = plan
        self.backend = backend
        self.backend_version = backend_version
        self.backend_seconds = backend_seconds
        """The backend's wall time when it ran (:class:`tierlock.installer.backendrun.Ran`)."""
        self.duration = duration
        self.waited = waited
        self.receipts: list[str] = [] if receipts is None else receipts
        self.noop = noop
        """What the receipts vouched for, when they proved a no-op (no plan was made)."""
        self.cleared: list[str] = [] if cleared is None else cleared
        """pip leftovers (``~name`` folders) of the repaired packages that were deleted."""
        self.local: list[LocalStep] = [] if local is None else local
        """The packages of the project's own tree (the project itself, workspace members): armed or already there."""

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
            "backend_s": None if self.backend_seconds is None else round(self.backend_seconds, 4),
            "waited_for_lock": self.waited,
            "receipts": self.receipts,
            "leftovers_cleared": self.cleared,
            "local_packages": [s.to_dict() for s in self.local],
            "duration_s": round(self.duration, 4),
        }
