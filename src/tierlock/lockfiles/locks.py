"""The lockfile data model shared by the reader, the check and the installer.

Pure frozen data; parsing lives in the format modules.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from packaging.markers import Marker
from packaging.utils import NormalizedName
from packaging.version import Version

from tierlock.errors import ConfigError, Problem
from tierlock.frozen import Frozen

LockFormatName = Literal["requirements", "pylock", "uv"]
ProblemKind = Literal["integrity", "header"]


class LockedFile(Frozen):
    """A wheel or sdist named by a pylock entry."""

    _fields = ("kind", "filename", "url", "path", "size", "hashes")

    kind: Literal["wheel", "sdist"]
    filename: str
    url: str | None
    path: str | None
    size: int | None
    hashes: Mapping[str, str]
    """Algorithm to hex digest, e.g. ``{"sha256": "..."}``."""

    def __init__(  # noqa: PLR0917 (the signature it had as a dataclass)
        self,
        kind: Literal["wheel", "sdist"],
        filename: str,
        url: str | None,
        path: str | None,
        size: int | None,
        hashes: Mapping[str, str],
    ) -> None:
        self._init(kind, filename, url, path, size, hashes)


class LockEntry(Frozen):
    """One pinned package of a lockfile."""

    _fields = ("name", "version", "marker", "hashes", "line", "files", "url", "index")

    name: NormalizedName
    version: Version
    marker: Marker | None
    hashes: tuple[str, ...]
    """``algorithm:hexdigest`` strings, e.g. ``sha256:...``."""
    line: int | None
    """1-based line of the entry in the lockfile (its first line)."""
    files: tuple[LockedFile, ...]
    """pylock only: the wheels and sdists with URLs, sizes and hashes."""
    url: str | None
    """For a direct reference (``name @ URL``): the URL; the version comes from its file name."""
    index: str | None
    """Where a project's own lock (uv.lock) says the files come from: a registry URL, or a folder of
    wheels (find-links) as an absolute path. None: wherever the installer is configured to look."""

    def __init__(  # noqa: PLR0917 (the signature it had as a dataclass)
        self,
        name: NormalizedName,
        version: Version,
        marker: Marker | None,
        hashes: tuple[str, ...],
        line: int | None = None,
        files: tuple[LockedFile, ...] = (),
        url: str | None = None,
        index: str | None = None,
    ) -> None:
        self._init(name, version, marker, hashes, line, files, url, index)

    def applies(self, environment: Mapping[str, str] | None = None) -> bool:
        """Whether the entry's marker holds in *environment* (default: this interpreter), as
        :func:`tierlock.lockfiles.markers.applies` decides for every part of tierlock."""
        if self.marker is None:
            return True
        from tierlock.lockfiles.markers import applies

        return applies(self.marker, environment)

    @property
    def pin(self) -> str:
        return f"{self.name}=={self.version}"


class LocalPackage(Frozen):
    """A package of the project's own tree (the project itself, a workspace member, a path dependency).

    It is built from its folder, never fetched from an index: ``install-tier``
    installs it the way ``uv sync`` does (editable when the lock says so), without
    its dependencies (they are entries of the same lock).
    """

    _fields = ("name", "version", "path", "editable", "marker")

    name: NormalizedName
    version: str | None
    """None when the version is dynamic (computed at build time)."""
    path: Path
    editable: bool
    marker: Marker | None
    """The environments it is installed in (None: every one): a path dependency or workspace member required only
    on some Pythons or platforms (``"tool ; python_version >= '3.11'"``) is left out elsewhere, as ``uv sync``
    leaves it out."""

    def __init__(
        self,
        name: NormalizedName,
        version: str | None,
        path: Path,
        editable: bool,
        marker: Marker | None = None,
    ) -> None:
        self._init(name, version, path, editable, marker)

    def applies(self, environment: Mapping[str, str] | None = None) -> bool:
        """Whether it is installed in *environment* (a target's marker environment; default: this interpreter)."""
        if self.marker is None:
            return True
        from tierlock.lockfiles.markers import applies

        return applies(self.marker, environment)


class LockHeader(Frozen):
    """What tierlock records about how a lockfile was made (see docs/reference/lockfile.md)."""

    _fields = (
        "tier",
        "inputs",
        "inputs_digest",
        "layered_on",
        "layered_on_digest",
        "body_digest",
        "backend",
        "backend_version",
        "platform",
        "command",
        "extra",
        "requires_python",
        "include_groups",
        "format_version",
    )

    tier: str
    inputs: tuple[str, ...]
    """The tier's input requirements as locked, canonical and sorted."""
    inputs_digest: str
    layered_on: str | None
    layered_on_digest: str | None
    """Body digest of the lockfile of the tier below (its pins), when this one was made."""
    body_digest: str
    backend: str
    backend_version: str
    platform: str | None
    """Set for single-platform (pip-tools) locks: the platform it was made on."""
    command: str
    """The exact command that regenerates the lockfile (``tierlock lock brain``)."""
    extra: Mapping[str, str]
    requires_python: str | None
    """The project's ``requires-python`` when the lock was made."""
    include_groups: tuple[str, ...]
    """Dependency groups pulled in through ``include-group`` (resolved) when the lock was made."""
    format_version: int

    def __init__(  # noqa: PLR0917 (the signature it had as a dataclass)
        self,
        tier: str,
        inputs: tuple[str, ...],
        inputs_digest: str,
        layered_on: str | None,
        layered_on_digest: str | None,
        body_digest: str,
        backend: str,
        backend_version: str,
        platform: str | None,
        command: str,
        extra: Mapping[str, str] | None = None,
        requires_python: str | None = None,
        include_groups: tuple[str, ...] = (),
        format_version: int = 1,
    ) -> None:
        self._init(
            tier,
            inputs,
            inputs_digest,
            layered_on,
            layered_on_digest,
            body_digest,
            backend,
            backend_version,
            platform,
            command,
            {} if extra is None else extra,
            requires_python,
            include_groups,
            format_version,
        )


class Lock(Frozen):
    """A parsed lockfile."""

    _fields = (
        "path",
        "format",
        "header",
        "entries",
        "file_digest",
        "body_digest",
        "pylock",
        "local",
        "requires_python",
        "environments",
    )

    path: Path
    format: LockFormatName
    header: LockHeader | None
    entries: tuple[LockEntry, ...]
    file_digest: str
    """sha256 of the whole file's bytes (what receipts record)."""
    body_digest: str
    """Digest of the body as read (``sha256:...``); differs from ``header.body_digest`` after a hand edit."""
    pylock: Any
    """pylock format: the validated :class:`packaging.pylock.Pylock`, whose ``select()`` picks the files
    (neither compared nor shown)."""
    local: tuple[LocalPackage, ...]
    """Packages of the project's own tree the tier needs (built from their folders, not pinned by hash)."""
    requires_python: str | None
    """The Python versions the lock was resolved for (a project's own lock records it; None: any)."""
    environments: tuple[str, ...]
    """The only environments the lock was resolved for (uv.lock's ``supported-markers``, from ``[tool.uv]
    environments``), as marker texts; empty: every one."""

    def __init__(  # noqa: PLR0917 (the signature it had as a dataclass)
        self,
        path: Path,
        format: LockFormatName,
        header: LockHeader | None,
        entries: tuple[LockEntry, ...],
        file_digest: str,
        body_digest: str = "",
        pylock: Any = None,
        local: tuple[LocalPackage, ...] = (),
        requires_python: str | None = None,
        environments: tuple[str, ...] = (),
    ) -> None:
        self._init(
            path, format, header, entries, file_digest, body_digest, pylock, local, requires_python, environments
        )

    def _values(self) -> tuple[object, ...]:  # the validated pylock is neither compared nor hashed
        return (
            self.path,
            self.format,
            self.header,
            self.entries,
            self.file_digest,
            self.body_digest,
            self.local,
            self.requires_python,
            self.environments,
        )

    def __repr__(self) -> str:  # nor shown
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields if name != "pylock")
        return f"Lock({shown})"

    @property
    def hand_edited(self) -> bool:
        """Whether the body no longer matches the digest its header recorded."""
        return self.header is not None and self.header.body_digest != self.body_digest

    @property
    def universal(self) -> bool:
        """Whether the lock holds markers for every platform (not a single-platform lock)."""
        return self.header is None or self.header.platform is None

    def applicable(self, environment: Mapping[str, str] | None = None) -> list[LockEntry]:
        """The entries whose markers hold in *environment*."""
        return [e for e in self.entries if e.applies(environment)]

    def get(self, name: str, environment: Mapping[str, str] | None = None) -> LockEntry | None:
        """The applicable entry for distribution *name* (normalized), if any."""
        for entry in self.entries:
            if entry.name == name and entry.applies(environment):
                return entry
        return None


class ReadProblem(Frozen):
    """One thing wrong inside a lockfile, with its line (1-based) when it has one.

    *remedy*: the fix of this problem when regenerating the lock is not it (a lock of a schema that only a newer
    tool reads: the tool that locks cannot rewrite it either); None: the lock's own remedy.
    """

    _fields = ("kind", "line", "detail", "remedy")

    kind: ProblemKind
    line: int | None
    detail: str
    remedy: str | None

    def __init__(self, kind: ProblemKind, line: int | None, detail: str, remedy: str | None = None) -> None:
        self._init(kind, line, detail, remedy)


class LockfileError(ConfigError):
    """A lockfile that cannot be used as it is: unreadable, or with integrity problems (exit 2)."""

    kind = "lockfile"

    @classmethod
    def from_problems(cls, path: Path, problems: list[ReadProblem], remedy: str | None = None) -> LockfileError:
        if len(problems) == 1:
            only = problems[0]
            message = f"{path}{f':{only.line}' if only.line else ''}: {only.detail}"
        else:
            message = f"{path}: {len(problems)} problems in the lockfile"
        return cls(
            message,
            file=str(path),
            line=problems[0].line if problems else None,
            problems=[Problem(p.detail, file=str(path), line=p.line) for p in problems],
            remedy=next((p.remedy for p in problems if p.remedy), None)
            or remedy
            or "regenerate it: tierlock lock TIER (then run tierlock check)",
        )
