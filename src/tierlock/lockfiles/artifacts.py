"""The artifact record: which files (wheels, an sdist) each locked package may be installed from.

A pylock lockfile keeps them natively (each package's ``wheels`` and
``sdist``). A requirements lockfile keeps only hashes, so ``tierlock lock``
writes a sidecar beside it, ``<tier>.artifacts.toml``::

    # The files each package of base.txt may be installed from, written by tierlock lock.
    artifacts-version = 1
    lockfile = "base.txt"
    body-digest = "sha256:..."      # the body of base.txt this record belongs to

    [[packages]]
    name = "numpy"
    version = "2.1.0"
    wheels = [
        { file = "numpy-2.1.0-cp311-cp311-win_amd64.whl", hash = "sha256:..." },
    ]
    sdist = { file = "numpy-2.1.0.tar.gz", hash = "sha256:..." }

A file counts only when its hash is among the lock entry's hashes: an
installer checking hashes can use no other. Reading needs no network and no
backend; an older lockfile without a record still reads (its record is
``absent``). Parsing and rendering are pure; :func:`record_of` is the edge
that reads the sidecar.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from tierlock.frozen import Frozen
from tierlock.fsutil import FileRefused, read_bytes
from tierlock.lockfiles import keptparse
from tierlock.lockfiles.digest import sha256_hex
from tierlock.lockfiles.locks import Lock, LockedFile, LockEntry

VERSION = 1
SUFFIX = ".artifacts.toml"
RecordState = Literal["recorded", "absent", "stale", "unreadable"]
Key = tuple[str, str]
"""(normalized name, version) of a lock entry."""


def key(entry: LockEntry) -> Key:
    return (str(entry.name), str(entry.version))


def sidecar_path(lockfile: Path) -> Path:
    """``lockfiles/base.txt`` -> ``lockfiles/base.artifacts.toml``."""
    return lockfile.with_name(lockfile.name.rsplit(".", 1)[0] + SUFFIX)


class Record(Frozen):
    """The files of every entry of one lock, and whether the record can be trusted."""

    _fields = ("state", "files", "path", "detail")

    state: RecordState
    files: Mapping[Key, tuple[LockedFile, ...]]
    path: Path | None
    """The sidecar (requirements format); None when the lockfile holds the files itself (pylock)."""
    detail: str
    """Why the record is stale or unreadable."""

    def __init__(
        self,
        state: RecordState,
        files: Mapping[Key, tuple[LockedFile, ...]] | None = None,
        path: Path | None = None,
        detail: str = "",
    ) -> None:
        self._init(state, {} if files is None else files, path, detail)

    @property
    def usable(self) -> bool:
        return self.state == "recorded"

    def files_for(self, entry: LockEntry) -> tuple[LockedFile, ...] | None:
        """The files *entry* may be installed from (hash among its hashes); None when the record does not say."""
        if entry.url is not None:
            return (_from_url(entry.url, entry.hashes),)
        if not self.usable:
            return None
        recorded = self.files.get(key(entry))
        if recorded is None:
            return None
        return tuple(f for f in recorded if _hashed(f, entry.hashes))


def _hashed(file: LockedFile, hashes: Sequence[str]) -> bool:
    """Whether *file* is one the entry installs from: its hash is the entry's, or it is a file in a local folder of
    wheels that the lock names without a hash (uv.lock's find-links folders), hashed where it lies at install."""
    if not file.hashes and file.path is not None:
        return True
    return any(f"{algorithm}:{digest}" in hashes for algorithm, digest in file.hashes.items())


def _from_url(url: str, hashes: Sequence[str]) -> LockedFile:
    filename = url.split("#", 1)[0].split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    kind: Literal["wheel", "sdist"] = "wheel" if filename.endswith(".whl") else "sdist"
    digests = dict(h.split(":", 1) for h in hashes if ":" in h)
    return LockedFile(kind, filename, url, None, None, digests)


def record_of(lock: Lock) -> Record:
    """The record of *lock*: its own files (pylock, uv.lock), else its sidecar's (requirements).

    A sidecar's parse is kept by the sha256 of its bytes (:mod:`tierlock.lockfiles.keptparse`, beside the
    lockfiles' own): every arming reads its tiers' records, and a large one (every wheel of every platform)
    costs milliseconds of TOML.
    """
    if lock.format in ("pylock", "uv"):  # each entry carries its wheels and sdist, as the lock names them
        return Record("recorded", {key(e): e.files for e in lock.entries})
    path = sidecar_path(lock.path)
    try:
        data = read_bytes(path)
    except FileNotFoundError:
        return Record("absent", path=path)
    except (OSError, FileRefused) as exc:  # (refused: not a regular file, or too large)
        return Record("unreadable", path=path, detail=str(exc))
    sha = sha256_hex(data)
    found = _kept(path, sha)
    if found is None:
        try:
            text = data.decode("utf-8-sig")
            found = _rendered(text, lock) or parse(text)
        except ValueError as exc:  # (UnicodeDecodeError is one)
            return Record("unreadable", path=path, detail=str(exc))
        keptparse.keep_form(str(path), sha, _KIND, _form(*found))
    digest, files = found
    if digest != lock.body_digest:
        return Record("stale", path=path, detail=f"it belongs to another body of {lock.path.name}")
    return Record("recorded", files, path)


def _rendered(text: str, lock: Lock) -> tuple[str, dict[Key, tuple[LockedFile, ...]]] | None:
    """What :func:`parse` gives *text*, read without a TOML parser (:func:`parse_rendered`) when *text* is exactly
    what :func:`render` writes for *lock*'s entries (as ``tierlock lock`` wrote it); None otherwise: another body,
    a hand edit, or a ``\\ud...`` escape (a surrogate the TOML parser refuses, which JSON's reader takes)."""
    if "\\ud" in text:
        return None
    try:
        quick = parse_rendered(text)
    except ValueError:  # an escape JSON's reader refuses: the TOML parser says what is wrong
        return None
    if quick is None or render(lock.path.name, quick[0], lock.entries, quick[1]) != text:
        return None
    return quick


#: What an artifact record is kept as (:func:`tierlock.lockfiles.keptparse.keep_form`).
_KIND = "artifacts"


def _form(digest: str, files: Mapping[Key, Sequence[LockedFile]]) -> tuple[str, list[Any]]:
    """A record's parse as plain data: its body digest, then each package's name, version and files (kind, file
    name, the hash's algorithm and digest), as :func:`parse` reads them."""
    return digest, [
        (name, version, [(f.kind, f.filename, *next(iter(f.hashes.items()))) for f in listed])
        for (name, version), listed in files.items()
    ]


def _kept(path: Path, sha: str) -> tuple[str, dict[Key, tuple[LockedFile, ...]]] | None:
    """The parse of the sidecar at *path* kept for bytes of sha256 *sha* (None: none, or not one :func:`_form`
    wrote)."""
    form = keptparse.find_form(str(path), sha, _KIND)
    try:
        digest, packages = form
        files = {
            (name, version): tuple(
                LockedFile(kind, filename, None, None, None, {algorithm: value})
                for kind, filename, algorithm, value in listed
            )
            for name, version, listed in packages
        }
    except (TypeError, ValueError):
        return None
    return (digest, files) if type(digest) is str else None


def parse(text: str) -> tuple[str, dict[Key, tuple[LockedFile, ...]]]:
    """The body digest a sidecar belongs to and its files; ValueError names what is wrong (and where)."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"invalid TOML: {exc}") from None
    if document.get("artifacts-version") != VERSION:
        raise ValueError(f"artifacts-version {document.get('artifacts-version')!r} is not {VERSION}")
    digest = document.get("body-digest")
    packages = document.get("packages", [])
    if not isinstance(digest, str) or not isinstance(packages, list):
        raise ValueError("body-digest must be a string and packages an array of tables")
    files: dict[Key, tuple[LockedFile, ...]] = {}
    for index, package in enumerate(packages):
        where = f"packages[{index}]"
        if not isinstance(package, dict) or not isinstance(package.get("name"), str):
            raise ValueError(f"{where}: a table with a name is needed")
        wheels = [_file(item, "wheel", f"{where}.wheels") for item in _list(package.get("wheels", []), where)]
        sdist = package.get("sdist")
        found = [*wheels, *([_file(sdist, "sdist", f"{where}.sdist")] if sdist is not None else [])]
        files[(str(package["name"]), str(package.get("version", "")))] = tuple(found)
    return digest, files


_STRING = r'"(?:[^"\\]|\\.)*"'
#: A file's line and a field's line of a rendered sidecar (compiled at the first sidecar read: check reads none
#: when every lockfile's own digest holds).
_FILE = rf"^\s*(sdist = )?\{{ file = ({_STRING}), hash = ({_STRING}) \}},?$"
_FIELD = rf"^(name|version|body-digest) = ({_STRING})$"
_PLAIN = ("# ", "artifacts-version = ", "lockfile = ", "[[packages]]", "wheels = [", "]")


def parse_rendered(text: str) -> tuple[str, dict[Key, tuple[LockedFile, ...]]] | None:
    """What :func:`parse` reads, for a sidecar laid out as :func:`render` writes it, without a TOML parser.

    None when a line is not one :func:`render` writes. The caller checks the
    result by rendering it again (it is exact only when that gives *text* back).
    """
    digest, name, version = "", "", ""
    files: dict[Key, list[LockedFile]] = {}
    file_line, field_line = re.compile(_FILE), re.compile(_FIELD)
    for line in text.splitlines():
        found, field_ = file_line.match(line), field_line.match(line)
        if found is not None:
            algorithm, _, value = json.loads(found[3]).partition(":")
            kind: Literal["wheel", "sdist"] = "sdist" if found[1] else "wheel"
            file = LockedFile(kind, json.loads(found[2]), None, None, None, {algorithm: value})
            files.setdefault((name, version), []).append(file)
        elif field_ is not None:
            value = json.loads(field_[2])
            if field_[1] == "body-digest":
                digest = value
            elif field_[1] == "name":
                name, version = value, ""
            else:
                version = value
                files[(name, version)] = []  # (a package named twice: the last one's files, as parse() keeps)
        elif line and not line.startswith(_PLAIN):
            return None
    return digest, {k: tuple(v) for k, v in files.items()}


def _list(value: object, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise ValueError(f"{where}.wheels must be an array")
    return value


def _file(item: object, kind: Literal["wheel", "sdist"], where: str) -> LockedFile:
    if not isinstance(item, dict) or not isinstance(item.get("file"), str) or not isinstance(item.get("hash"), str):
        raise ValueError(f"{where}: each file needs 'file' and 'hash' strings")
    algorithm, _, digest = item["hash"].partition(":")
    return LockedFile(kind, item["file"], None, None, None, {algorithm: digest})


def render(
    lockfile: str, body_digest: str, entries: Iterable[LockEntry], files: Mapping[Key, Sequence[LockedFile]]
) -> str:
    """The sidecar text for *entries* of the lockfile named *lockfile* (pure)."""
    lines = [
        f"# The files each package of {lockfile} may be installed from, written by tierlock lock.",
        "# tierlock check reads it offline to prove where a tier installs without building; do not edit it.",
        f"artifacts-version = {VERSION}",
        f"lockfile = {json.dumps(lockfile)}",
        f"body-digest = {json.dumps(body_digest)}",
    ]
    for entry in sorted(entries, key=lambda e: (e.name, e.version)):
        if entry.url is not None:
            continue  # a direct reference names its file itself
        found = files.get(key(entry), ())
        lines += [
            "",
            "[[packages]]",
            f"name = {json.dumps(str(entry.name))}",
            f"version = {json.dumps(str(entry.version))}",
        ]
        wheels = [f for f in found if f.kind == "wheel"]
        lines.append("wheels = [" + ("" if wheels else "]"))
        lines += [f"    {_inline(f)}," for f in sorted(wheels, key=lambda f: f.filename)]
        if wheels:
            lines.append("]")
        sdist = next((f for f in found if f.kind == "sdist"), None)
        if sdist is not None:
            lines.append(f"sdist = {_inline(sdist)}")
    return "\n".join(lines) + "\n"


def _inline(file: LockedFile) -> str:
    algorithm, digest = sorted(file.hashes.items())[0]
    return f"{{ file = {json.dumps(file.filename)}, hash = {json.dumps(f'{algorithm}:{digest}')} }}"


def from_listing(entries: Iterable[LockEntry], listing: str) -> dict[Key, tuple[LockedFile, ...]]:
    """Each entry's files, from a pylock listing of the same pins (kept: the files whose hash the entry has)."""
    from packaging.utils import canonicalize_name

    document = tomllib.loads(listing)
    listed: dict[Key, list[LockedFile]] = {}
    for package in document.get("packages", []):
        name, version = canonicalize_name(str(package.get("name", ""))), str(package.get("version", ""))
        files = listed.setdefault((str(name), version), [])
        files += [_listed(w, "wheel") for w in package.get("wheels", [])]
        if package.get("sdist"):
            files.append(_listed(package["sdist"], "sdist"))
    out: dict[Key, tuple[LockedFile, ...]] = {}
    for entry in entries:
        candidates = listed.get(key(entry), [])
        # The same file found twice (two find-links naming one folder) is one artifact, recorded once.
        unique: dict[tuple[str, str, tuple[tuple[str, str], ...]], LockedFile] = {}
        for file in candidates:
            unique.setdefault((file.kind, file.filename, tuple(sorted(file.hashes.items()))), file)
        out[key(entry)] = tuple(f for f in unique.values() if _hashed(f, entry.hashes))
    return out


def _listed(item: Mapping[str, Any], kind: Literal["wheel", "sdist"]) -> LockedFile:
    where = str(item.get("url") or item.get("path") or "")
    filename = str(item.get("name") or where.split("#", 1)[0].rstrip("/").rsplit("/", 1)[-1])
    hashes = {str(a): str(h).lower() for a, h in dict(item.get("hashes") or {}).items()}
    return LockedFile(kind, filename, item.get("url"), item.get("path"), item.get("size"), hashes)
