"""Probe one installed distribution from its files, never importing it.

The verdict comes from the ``.dist-info`` folder alone: METADATA (name and
version), RECORD (read here with :mod:`csv`, because
``importlib.metadata.files()`` silently drops missing files on Python 3.12+),
``direct_url.json`` for editable installs, the import roots, and the folder
listing for pip's ``~`` leftovers. Every reason is collected; none stops the
others.
"""

from __future__ import annotations

import importlib.machinery
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

from tierlock.probing.site import DistInfoDir, SiteIndex, normalize, pip_leftover_of

# csv, json, urllib.parse, hashlib and base64 are imported where they are needed (quoted
# RECORDs, editable installs, --deep), and packaging.version only for versions that are more
# than a release number: the common path reads files with plain string work.
if TYPE_CHECKING:
    from packaging.version import Version

DistState = Literal["present", "present-editable", "partial", "absent"]
TierState = Literal["present", "partial", "absent"]

_EXT_SUFFIXES = tuple({*importlib.machinery.EXTENSION_SUFFIXES, ".pyd", ".dll", ".dylib"})
#: Parsed RECORD rows per path, kept while the file's size, mtime and inode are unchanged: a process that
#: probes again (admit's parts, a long-lived tool) stats RECORD instead of reading and splitting it. Read only.
_RECORDS: dict[tuple[str, bool], tuple[tuple[int, int, int], list[tuple[str, str, str]], bool]] = {}
_SO_RE = re.compile(r"\.so(\.[0-9]+)*$")
_RELEASE_RE = re.compile(r"[0-9]+(?:\.[0-9]+)*")
"""A PEP 440 version that is only a release number (``2.1.0``): compared without ``packaging``."""
_SHOWN = 3
"""How many file names a reason lists before saying 'and N more'."""


class InstalledFile(NamedTuple):
    """One file of RECORD that the probe checked."""

    path: str
    """Absolute path of the file."""
    record_path: str
    """The path as written in RECORD (relative to the site folder)."""
    size: int | None
    """The size RECORD gives, or None when RECORD gives none."""
    hash: str | None
    """RECORD's ``algorithm=urlsafe-b64-digest``, or None."""


@dataclass(frozen=True)
class DistributionProbe:
    """What the files say about one distribution."""

    name: str
    """PEP 503 normalized name."""
    state: DistState
    reasons: list[str] = field(default_factory=list)
    """Why the state is not ``present`` (every reason found); empty when present."""
    notes: list[str] = field(default_factory=list)
    """What the probe did not check and why (editable sources, no lockfile ...)."""
    version_text: str | None = None
    """The installed version, normalized (``str(Version(...))``); None when missing or invalid."""
    locked_text: str | None = None
    """The locked version compared with, normalized; None when none was given."""
    dist_info_dir: str | None = None
    """The ``.dist-info`` folder that was probed (the first on the path), as a string."""
    files_checked: int = 0
    records: tuple[tuple[str, str, int | None, str | None], ...] = ()
    """Plain tuples behind :attr:`files` (cheap to build on the fast path)."""
    editable_source: Path | None = None
    import_roots: tuple[str, ...] = ()
    missing_libraries: tuple[tuple[str, str, str | None], ...] = ()
    """(compiled artifact, library, the library that needs it or None) for each shared library an extension
    needs that the dynamic loader cannot find (each is also one of the reasons)."""

    @property
    def present(self) -> bool:
        return self.state in ("present", "present-editable")

    @property
    def version(self) -> Version | None:
        """The installed version (parsed on access)."""
        return _parse(self.version_text)

    @property
    def locked_version(self) -> Version | None:
        """The locked version the installed one was compared with."""
        return _parse(self.locked_text)

    @property
    def dist_info(self) -> Path | None:
        return Path(self.dist_info_dir) if self.dist_info_dir is not None else None

    @property
    def files(self) -> tuple[InstalledFile, ...]:
        """The installed files checked, with their recorded sizes (for the installer's no-op path)."""
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


def is_compiled(path: str) -> bool:
    """Whether *path* names a compiled artifact (extension module or shared library)."""
    return path.endswith(_EXT_SUFFIXES) or bool(_SO_RE.search(path))


def probe_distribution(
    name: str,
    *,
    paths: Sequence[Path] = (),
    locked_version: Version | str | None = None,
    import_roots: Sequence[str] = (),
    deep: bool = False,
    index: SiteIndex | None = None,
    compiled_only: bool = False,
) -> DistributionProbe:
    """Decide from files whether distribution *name* is consumable on *paths*.

    *paths* are the site folders to look in (``Target.site_paths``); pass a
    prebuilt *index* instead to probe many distributions with one scan.
    *import_roots* are the top-level import names to check (default: from
    ``top_level.txt`` or RECORD). *deep* also verifies RECORD hashes.
    *locked_version* is a ``packaging`` Version or a version string.
    With *compiled_only* (how a tier's closure beyond its roots is probed),
    only the compiled artifacts RECORD lists are stat-ed and the import roots
    are not looked for; METADATA, the version and RECORD are checked as ever.
    """
    if index is None:
        index = SiteIndex.scan(paths)
    key = normalize(name)
    locked = _normalized(str(locked_version)) if locked_version is not None else None
    found = index.find(key)
    if not found:
        where = ", ".join(index.sites) or "(no site folders)"
        return DistributionProbe(key, "absent", [f"no .dist-info for {key} on the path ({where})"], locked_text=locked)
    probe = _Probe(key, found=found, index=index, locked=locked, import_roots=tuple(import_roots), deep=deep)
    probe.compiled_only = compiled_only
    return probe.run()


def _parse(text: str | None) -> Version | None:
    if text is None:
        return None
    from packaging.version import Version

    return Version(text)


def _release(text: str) -> tuple[int, ...] | None:
    """A release-only version as numbers without trailing zeros (PEP 440 equality), else None."""
    if _RELEASE_RE.fullmatch(text) is None:
        return None
    parts = [int(p) for p in text.split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def _normalized(text: str) -> str:
    """``str(Version(text))`` (raises ``InvalidVersion`` for an invalid one), without packaging for a release."""
    if _RELEASE_RE.fullmatch(text) is not None:
        return ".".join(str(int(p)) for p in text.split("."))
    from packaging.version import Version

    return str(Version(text))


class _Probe:
    """The checks for one distribution; each adds reasons, none stops the others."""

    def __init__(
        self,
        name: str,
        *,
        found: Sequence[DistInfoDir],
        index: SiteIndex,
        locked: str | None,
        import_roots: tuple[str, ...],
        deep: bool,
    ) -> None:
        self.name = name
        self.found = found
        self.info = found[0]
        self.index = index
        self.locked = locked
        self.declared_roots = import_roots
        self.deep = deep
        self.reasons: list[str] = []
        self.notes: list[str] = []
        self.version: str | None = None
        self.files: list[tuple[str, str, int | None, str | None]] = []
        self.heads: dict[str, bool] = {}
        """First parts of RECORD's paths, in order -> whether they are folders."""
        self.alive: set[str] = set()
        """First path parts of the Python modules found on disk (``pkg`` or ``mod.py``)."""
        self.editable: Path | None = None
        self.roots: tuple[str, ...] = ()
        self.compiled_only = False
        """Stat only the compiled artifacts RECORD lists, and skip the import roots."""
        self.outside: list[str] = []
        """RECORD paths that leave the site folder (console scripts in ``bin/``, data files)."""
        self.record_lists_installer = False
        self.listing: set[str] | None = None
        """The names in the ``.dist-info`` folder (None when it cannot be listed)."""
        self.libraries: tuple[tuple[str, str, str | None], ...] = ()

    def run(self) -> DistributionProbe:
        if len(self.found) > 1:
            listed = ", ".join(d.path for d in self.found)
            self.reasons.append(
                f"{len(self.found)} .dist-info folders for {self.name} on the path ({listed}); "
                "which one Python uses depends on the path order"
            )
        self._metadata()
        try:  # one listing serves the editable check and the unfinished-install checks
            self.listing = set(os.listdir(self.info.path))
        except OSError:
            self.listing = None
        self._editable()
        record_rows = self._record()
        if record_rows is not None:
            self._files([r for r in record_rows if is_compiled(r[0])] if self.compiled_only else record_rows)
            from tierlock.probing import libraries  # what each extension needs, found as the dynamic loader would

            needs = libraries.unresolved(self.index, self.index.sites, [r[:2] for r in self.files], fresh=self.deep)
            self.reasons.extend(m.describe() for m in needs)
            self.libraries = tuple((m.artifact, m.library, m.via) for m in needs)
        if not self.compiled_only:
            self._import_roots(record_rows)
        self._leftovers(record_rows or [])
        self._finished(record_rows)
        if self.reasons:
            state: DistState = "partial"
        elif self.editable is not None:
            state = "present-editable"
        else:
            state = "present"
        return DistributionProbe(
            name=self.name,
            state=state,
            reasons=self.reasons,
            notes=self.notes,
            version_text=self.version,
            locked_text=self.locked,
            dist_info_dir=self.info.path,
            files_checked=len(self.files),
            records=tuple(self.files),
            editable_source=self.editable,
            import_roots=self.roots,
            missing_libraries=self.libraries,
        )

    # -- METADATA and version -------------------------------------------------
    def _metadata(self) -> None:
        path = os.path.join(self.info.path, "METADATA")
        try:
            raw_version = _metadata_version(path)
        except FileNotFoundError:
            present = sorted(os.listdir(self.info.path)) if os.path.isdir(self.info.path) else []
            only = f" (it holds only {', '.join(present)})" if present else " (it is empty)"
            self.reasons.append(f"METADATA missing in {self.info.path}{only}: a husk left by an interrupted install")
            return
        except OSError as exc:
            self.reasons.append(f"METADATA unreadable in {self.info.path}: {exc.strerror}")
            return
        if not raw_version:
            self.reasons.append(f"METADATA in {self.info.path} has no Version")
            return
        locked = self.locked
        installed = _release(raw_version)
        if installed is not None and (locked is None or _release(locked) is not None):
            # Release numbers only (the common case): PEP 440 equality without importing packaging.
            self.version = _normalized(raw_version)
            if locked is not None and installed != _release(locked):
                self.reasons.append(f"installed version {self.version} differs from the locked {locked}")
            return
        from packaging.version import InvalidVersion, Version

        try:
            version = Version(raw_version)
        except InvalidVersion:
            self.reasons.append(f"METADATA version {raw_version!r} is not a valid version")
            return
        self.version = str(version)
        if locked is not None and version != Version(locked):
            detail = ""
            if version.public == Version(locked).public:
                detail = " (the local version labels differ)"
            self.reasons.append(f"installed version {version} differs from the locked {locked}{detail}")

    # -- editable installs ----------------------------------------------------
    def _editable(self) -> None:
        path = os.path.join(self.info.path, "direct_url.json")
        if self.listing is not None and "direct_url.json" not in self.listing:
            return  # the common case, without the cost of a failed open
        import json
        from urllib.parse import unquote, urlparse

        try:
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, ValueError):
            return
        dir_info = data.get("dir_info") if isinstance(data, dict) else None
        if not (isinstance(dir_info, dict) and dir_info.get("editable")):
            return
        url = data.get("url", "")
        source = Path(unquote(urlparse(url).path)) if isinstance(url, str) and url.startswith("file:") else None
        if source is None:
            self.reasons.append(f"editable install with a source that is not a local folder: {url!r}")
            return
        self.editable = source
        if not source.is_dir():
            self.reasons.append(f"editable install whose source folder {source} is missing")
        self.notes.append(f"editable install from {source}: its sources are not RECORD-checked")

    # -- RECORD -----------------------------------------------------------------
    def _record(self) -> list[tuple[str, str, str]] | None:
        import csv

        path = os.path.join(self.info.path, "RECORD")
        try:
            st = os.stat(path)
            key = (st.st_size, st.st_mtime_ns, st.st_ino)
            # Only the compiled artifacts are wanted (and no leftover needs the other paths): the rows that
            # cannot name one are skipped before splitting them. is_compiled() decides on what is left.
            compiled_only = self.compiled_only and not self.index.leftovers.get(self.info.site)
            memo = _RECORDS.get((path, compiled_only))
            if memo is None or memo[0] != key:
                memo = (key, *self._parse_record(path, compiled_only=compiled_only))
                _RECORDS[(path, compiled_only)] = memo
            self.record_lists_installer = memo[2]
            return memo[1]
        except FileNotFoundError:
            self.reasons.append(f"RECORD missing in {self.info.path}: the installed files cannot be listed")
        except (OSError, csv.Error, UnicodeDecodeError) as exc:
            self.reasons.append(f"RECORD unreadable in {self.info.path}: {exc}")
        return None

    @staticmethod
    def _parse_record(path: str, *, compiled_only: bool = False) -> tuple[list[tuple[str, str, str]], bool]:
        """The rows of RECORD at *path* (only those that can name a compiled artifact, with *compiled_only*),
        and whether it lists INSTALLER (an installer's RECORD does; the wheel's own does not)."""
        import csv

        with open(path, "rb", buffering=0) as fh:
            text = fh.read().decode("utf-8")
        lists_installer = ".dist-info/INSTALLER," in text or '.dist-info/INSTALLER",' in text  # plain or quoted
        lines = text.splitlines()
        if compiled_only:
            lines = [n for n in lines if ".so" in n or ".pyd" in n or ".dll" in n or ".dylib" in n]
        if '"' not in text:
            # No quoting anywhere, so no field holds a comma: the last two commas split each row.
            rows: list[tuple[str, str, str]] = []
            for line in lines:
                if line:
                    parts = line.rsplit(",", 2)
                    parts += [""] * (3 - len(parts))
                    rows.append((parts[0], parts[1], parts[2]))
            return rows, lists_installer
        quoted = [(r[0], r[1] if len(r) > 1 else "", r[2] if len(r) > 2 else "") for r in csv.reader(lines) if r]
        return quoted, lists_installer

    def _files(self, rows: list[tuple[str, str, str]]) -> None:
        """Stat every file RECORD lists (one tight loop: this is the probe's hot path)."""
        site = self.info.site
        prefix = site if site.endswith(os.sep) else site + os.sep
        heads = self.heads
        alive = self.alive
        deep = self.deep
        files = self.files
        append = files.append
        missing: list[str] = []
        resized: list[str] = []
        mismatched: list[str] = []
        stat = os.stat
        for rel, recorded_hash, size_text in rows:
            if rel.endswith(".pyc"):
                continue  # byte-code caches are regenerated on import and often not installed at all
            if rel.startswith(("..", "/")) or "/../" in rel:
                full = _outside(site, rel)
                self.outside.append(rel)
            else:
                full = prefix + rel
            size = int(size_text) if size_text.isdigit() else None
            append((full, rel, size, recorded_hash or None))
            head, sep, _ = rel.partition("/")
            if sep or head not in heads:
                heads[head] = bool(sep)
            try:
                actual = stat(full).st_size
            except OSError:
                missing.append(rel)
                continue
            if rel.endswith(".py"):
                alive.add(head)
            if size is not None and actual != size:
                resized.append(f"{rel} ({actual} bytes, RECORD says {size})")
            elif deep and recorded_hash and not _hash_matches(full, recorded_hash):
                mismatched.append(rel)
        compiled = [rel for rel in missing if is_compiled(rel)]
        self.reasons.extend(f"compiled artifact {rel} is missing" for rel in compiled)
        missing = [rel for rel in missing if not is_compiled(rel)]
        _summarize(self.reasons, missing, "file listed in RECORD is missing", "files listed in RECORD are missing")
        _summarize(self.reasons, resized, "file has another size than RECORD says", "files have other sizes")
        _summarize(self.reasons, mismatched, "file does not match its RECORD hash", "files do not match their hashes")
        if deep:
            self.notes.append("hashes checked (--deep)")

    # -- import roots -----------------------------------------------------------
    def _import_roots(self, rows: list[tuple[str, str, str]] | None) -> None:
        roots = self.declared_roots
        declared = bool(roots)
        if not roots:
            roots = _roots_from_heads(self.heads) if rows is not None else self._roots_from_top_level()
        self.roots = roots
        if not roots:
            if self.editable is not None:
                self.notes.append("no import roots declared or recorded: only the source folder was checked")
            return
        places = [self.info.site]
        if self.editable is not None:
            places = [str(self.editable), str(self.editable / "src"), *self.index.sites]
        alive = self.alive if self.editable is None else set()
        kept: list[str] = []
        for root in roots:
            if root in alive or f"{root}.py" in alive:
                kept.append(root)
                continue  # a module file of it was just found on disk
            verdict = _find_root(root, places)
            if verdict != "ok" and not declared and self.heads.get(root) and not _records_a_module(self.files, root):
                continue  # a data folder RECORD lists at the top of the site folder, not an import root
            kept.append(root)
            if verdict == "ok":
                continue
            how = "declared" if declared else "recorded"
            if verdict == "missing":
                self.reasons.append(f"import root {root!r} ({how}) is missing from {places[0]}")
            else:
                self.reasons.append(f"import root {root!r} is an empty or namespace-only directory in {verdict}")
        self.roots = tuple(kept)

    def _roots_from_top_level(self) -> tuple[str, ...]:
        try:
            with open(os.path.join(self.info.path, "top_level.txt"), encoding="utf-8") as fh:
                names = [line.strip() for line in fh]
        except OSError:
            return ()
        return tuple(n for n in names if n and n.isidentifier())

    # -- installs that never finished ------------------------------------------------
    def _finished(self, rows: list[tuple[str, str, str]] | None) -> None:
        """An installer writes INSTALLER, the console scripts and its own RECORD last: each missing one is a
        sign that the install was killed before it finished (the files may all be there)."""
        names = self.listing
        if names is None or "METADATA" not in names:
            return  # a husk, reported already
        if "INSTALLER" not in names:
            self.reasons.append(
                f"INSTALLER missing in {self.info.path}: the install never finished (it was interrupted)"
            )
        elif rows is not None and not self.record_lists_installer:
            self.reasons.append(
                f"RECORD in {self.info.path} is the wheel's own, not the installer's (it does not list INSTALLER): "
                "the install never finished"
            )
        if "entry_points.txt" in names and rows is not None and not self.compiled_only:
            # (compiled-only probes of a closure read only the rows naming compiled files: scripts are not there)
            listed = {os.path.basename(rel) for rel in self.outside}
            missing = [
                script
                for script in _console_scripts(os.path.join(self.info.path, "entry_points.txt"))
                if script not in listed and f"{script}.exe" not in listed
            ]
            _summarize(
                self.reasons,
                missing,
                "console script of its entry points is not installed",
                "console scripts of its entry points are not installed",
            )

    # -- pip leftovers ------------------------------------------------------------
    def _leftovers(self, rows: list[tuple[str, str, str]]) -> None:
        tildes = self.index.leftovers.get(self.info.site, ())
        if not tildes:
            return
        tops = {os.path.basename(self.info.path), *self.roots}
        tops.update(row[0].partition("/")[0] for row in rows if not row[0].startswith(".."))
        for leftover in tildes:
            if any(pip_leftover_of(leftover, top) for top in tops):
                self.reasons.append(
                    f"leftover {leftover} beside it in {self.info.site}: an interrupted pip uninstall or upgrade"
                )


_HEAD = 8192


def _console_scripts(path: str) -> list[str]:
    """The script names of the ``[console_scripts]`` and ``[gui_scripts]`` sections of an entry_points.txt."""
    out: list[str] = []
    section = ""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for raw in fh:
                line = raw.strip()
                if not line or line.startswith(("#", ";")):
                    continue
                if line.startswith("["):
                    section = line.strip("[]").strip()
                elif section in ("console_scripts", "gui_scripts") and "=" in line:
                    out.append(line.partition("=")[0].strip())
    except OSError:
        return []
    return out


def _metadata_version(path: str) -> str | None:
    """The ``Version`` header of a METADATA file, reading no further than the headers need."""
    with open(path, "rb", buffering=0) as fh:
        data = fh.read(_HEAD)
        if len(data) == _HEAD:
            data = data[: data.rfind(b"\n") + 1]  # whole lines only; the rest is read below if needed
        found, done = _version_header(data)
        if not done:
            found, _ = _version_header(data + fh.read())
    return found


def _version_header(data: bytes) -> tuple[str | None, bool]:
    """(the Version value, whether the headers ended) in the RFC 822 style bytes *data*.

    *data* may stop after any line: the empty piece after its last newline is not the blank line that
    ends the headers.
    """
    *lines, last = data.split(b"\n")
    for line in lines:
        if not line.strip():
            return None, True  # end of the headers
        if line[:8].lower() == b"version:":
            return line[8:].decode("utf-8", "replace").strip() or None, True
    if last[:8].lower() == b"version:":  # the file's last line, without its newline
        return last[8:].decode("utf-8", "replace").strip() or None, True
    return None, False


def _roots_from_heads(heads: dict[str, bool]) -> tuple[str, ...]:
    """Import roots from the first parts of RECORD's paths (a folder when the flag is set)."""
    out: list[str] = []
    for head, folder in heads.items():
        if folder:
            name = head
            if name.endswith((".dist-info", ".data", ".libs")) or name in ("__pycache__", ".."):
                continue
        elif head.endswith(".py"):
            name = head[:-3]
        elif head.endswith(_EXT_SUFFIXES):
            name = head.split(".", 1)[0]
        else:
            continue
        if name.isidentifier() and name not in out:
            out.append(name)
    return tuple(out)


def _find_root(root: str, places: Sequence[str]) -> str:
    """``ok``, ``missing``, or the folder where *root* is empty or namespace-only."""
    hollow = ""
    for place in places:
        folder = os.path.join(place, root)
        if os.path.isdir(folder):
            if os.path.isfile(os.path.join(folder, "__init__.py")) or _has_module(folder):
                return "ok"
            hollow = hollow or folder
            continue
        if os.path.isfile(folder + ".py") or any(os.path.isfile(folder + s) for s in _EXT_SUFFIXES):
            return "ok"
    return hollow or "missing"


def _records_a_module(files: Sequence[tuple[str, str, int | None, str | None]], folder: str) -> bool:
    """Whether RECORD lists a Python module or an extension below the top-level *folder*."""
    prefix = folder + "/"
    return any(
        rel.startswith(prefix) and (rel.endswith(".py") or rel.endswith(_EXT_SUFFIXES)) for _, rel, _, _ in files
    )


def _outside(site: str, rel: str) -> str:
    """A RECORD path that leaves the site folder (``../../bin/tool``), made absolute."""
    return os.path.normpath(os.path.join(site, rel))


def _has_module(folder: str) -> bool:
    return any(any(n.endswith((".py", *_EXT_SUFFIXES)) for n in names) for _, _, names in os.walk(folder))


def _hash_matches(path: str, recorded: str) -> bool:
    import base64
    import hashlib

    algorithm, _, expected = recorded.partition("=")
    try:
        digest = hashlib.new(algorithm)
    except ValueError:
        return False
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode() == expected


def _summarize(reasons: list[str], items: list[str], one: str, many: str) -> None:
    if not items:
        return
    shown = ", ".join(items[:_SHOWN])
    more = f" and {len(items) - _SHOWN} more" if len(items) > _SHOWN else ""
    if len(items) == 1:
        reasons.append(f"{one}: {shown}")
    else:
        reasons.append(f"{len(items)} {many}: {shown}{more}")
