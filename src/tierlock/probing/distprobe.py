"""What the files say about one installed distribution: the verdict :mod:`tierlock.probing.distribution` gives.

A plain value (a :class:`~tierlock.frozen.Frozen`): the state, every reason and note, the versions compared, the
folder probed and the files it checked. Kept apart from the probe itself so that what keeps a verdict
(:mod:`tierlock.probing.wholekept`) and what reads one (tiers, remedies, receipts) need not load the probe.
"""

from __future__ import annotations

from pathlib import Path

from tierlock import _lazy
from tierlock.frozen import Frozen
from tierlock.probing import metadata

# packaging.version only for versions that are more than a release number (metadata.parse).
TYPE_CHECKING = False  # (not typing's: the aliases below are the checker's alone)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Literal, TypeAlias

    from packaging.version import Version

    from tierlock.probing.installedfile import InstalledFile

    DistState: TypeAlias = Literal["present", "present-editable", "partial", "absent"]
    TierState: TypeAlias = Literal["present", "partial", "absent"]


#: The states of ``DistState`` and ``TierState`` (the ``Literal`` aliases), in their order.
_STATES: dict[str, tuple[str, ...]] = {
    "DistState": ("present", "present-editable", "partial", "absent"),
    "TierState": ("present", "partial", "absent"),
}
_literal = _lazy.literals(__name__, _STATES)


def __getattr__(name: str) -> object:
    """The names no run of a command looks at, made at their first use, the same values as when this module made
    them: :class:`~tierlock.probing.installedfile.InstalledFile` (a ``NamedTuple``, which compiles its source
    and each field's annotation when it is made) and the ``Literal`` aliases ``DistState`` and ``TierState``."""
    if name != "InstalledFile":
        return _literal(name)
    from tierlock.probing.installedfile import InstalledFile

    globals()[name] = InstalledFile
    return InstalledFile


class DistributionProbe(Frozen):
    """What the files say about one distribution."""

    _fields = (
        "name",
        "state",
        "reasons",
        "notes",
        "version_text",
        "locked_text",
        "dist_info_dir",
        "files_checked",
        "records",
        "editable_source",
        "import_roots",
        "missing_libraries",
        "record_size",
    )

    name: str
    """PEP 503 normalized name."""
    state: DistState
    reasons: list[str]
    """Why the state is not ``present`` (every reason found); empty when present."""
    notes: list[str]
    """What the probe did not check and why (editable sources, no lockfile ...)."""
    version_text: str | None = None
    """The installed version, normalized (``str(Version(...))``); None when missing or invalid."""
    locked_text: str | None = None
    """The locked version compared with, normalized; None when none was given."""
    dist_info_dir: str | None = None
    """The ``.dist-info`` folder that was probed (the first on the path), as a string."""
    files_checked: int = 0
    records: Sequence[tuple[str, str, int | None, str | None]] = ()
    """Plain tuples behind :attr:`files` (cheap to build on the fast path; kept facts read back from disk give them
    as :class:`~tierlock.probing.keptrows.Rows`, decoded when first looked into)."""
    editable_source: Path | None = None
    import_roots: tuple[str, ...] = ()
    missing_libraries: tuple[tuple[str, str, str | None], ...] = ()
    """(compiled artifact, library, the library that needs it or None) for each shared library an extension
    needs that the dynamic loader cannot find (each is also one of the reasons)."""
    record_size: int | None = None
    """RECORD's own size when the probe read it (RECORD gives none of its own; a receipt records it)."""

    def __init__(  # noqa: PLR0917 (the signature it had as a dataclass)
        self,
        name: str,
        state: DistState,
        reasons: list[str] | None = None,
        notes: list[str] | None = None,
        version_text: str | None = None,
        locked_text: str | None = None,
        dist_info_dir: str | None = None,
        files_checked: int = 0,
        records: Sequence[tuple[str, str, int | None, str | None]] = (),
        editable_source: Path | None = None,
        import_roots: tuple[str, ...] = (),
        missing_libraries: tuple[tuple[str, str, str | None], ...] = (),
        record_size: int | None = None,
    ) -> None:
        self._init(
            name,
            state,
            [] if reasons is None else reasons,  # (a list of its own, as the dataclass's default_factory gave)
            [] if notes is None else notes,
            version_text,
            locked_text,
            dist_info_dir,
            files_checked,
            records,
            editable_source,
            import_roots,
            missing_libraries,
            record_size,
        )

    @property
    def present(self) -> bool:
        return self.state in ("present", "present-editable")

    @property
    def version(self) -> Version | None:
        """The installed version (parsed on access)."""
        return metadata.parse(self.version_text)

    @property
    def locked_version(self) -> Version | None:
        """The locked version the installed one was compared with."""
        return metadata.parse(self.locked_text)

    @property
    def dist_info(self) -> Path | None:
        return Path(self.dist_info_dir) if self.dist_info_dir is not None else None

    @property
    def files(self) -> tuple[InstalledFile, ...]:
        """The installed files checked, with their recorded sizes (for the installer's no-op path)."""
        from tierlock.probing.installedfile import InstalledFile

        return tuple(InstalledFile(*r) for r in self.records)

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "state": self.state,
            "present": self.present,
            "version": self.version_text,
            "locked_version": self.locked_text,
            "dist_info": self.dist_info_dir,
            "editable_source": str(self.editable_source) if self.editable_source is not None else None,
            "import_roots": list(self.import_roots),
            "files_checked": self.files_checked,
            "reasons": list(self.reasons),
            "notes": list(self.notes),
            "missing_libraries": [
                {"artifact": a, "library": lib, "needed_by": via} for a, lib, via in self.missing_libraries
            ],
        }
