"""A tier's :class:`~tierlock.lockfiles.locks.Lock` out of uv.lock: parse once, pick the tier's part.

uv.lock is read as TOML (:mod:`tierlock.lockfiles.uvlock`) and the tier's
closure picked out of it (:mod:`tierlock.lockfiles.uvselect`); uv is neither
imported nor started. The one exception is a lock whose schema ``version`` is
not the one this reader knows: uv's lockfile policy lets a new schema change what
any field means, so only a uv that writes it can read it. For that lock alone,
``uv export --frozen --format pylock.toml`` (with the tier's extras and groups,
``--no-default-groups``) turns the tier's part into a PEP 751 document, read as a
pylock; without a uv that can, the tier gets one problem naming the schema.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tierlock.lockfiles.fileread import ReadResult
from tierlock.lockfiles.locks import Lock, ReadProblem
from tierlock.lockfiles.uvlock import SCHEMA, UvLock, parse

_PARSED: dict[tuple[str, str], UvLock] = {}


def parsed(path: Path, text: str, digest: str) -> UvLock:
    """*text* parsed, remembered by its digest (every tier of a command reads the same file)."""
    key = (str(path), digest)
    found = _PARSED.get(key)
    if found is None:
        if len(_PARSED) > 8:
            _PARSED.clear()
        document = _cached(path.parent, digest)
        found = _PARSED[key] = parse(text, path, document)
        if document is None and found.version is not None:
            _remember(path.parent, digest, found.document)
    return found


#: Where the parsed uv.lock is kept between runs: pytest's cache layout, only when that folder exists.
CACHE = (".pytest_cache", "v", "tierlock", "uvlock")


def _cached(root: Path, digest: str) -> dict[str, Any] | None:
    """The TOML document of the uv.lock whose bytes have *digest*, from the cache (TOML is slow to parse; JSON
    is not), or None."""
    import json

    try:
        with open(root.joinpath(*CACHE), encoding="utf-8") as handle:
            kept = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(kept, dict) or kept.get("digest") != digest or not isinstance(kept.get("document"), dict):
        return None
    document: dict[str, Any] = kept["document"]
    return document


def _remember(root: Path, digest: str, document: object) -> None:
    """Keep the parsed document for the next run, when pytest's cache folder is there (never made here)."""
    import json
    import os
    import tempfile

    if not root.joinpath(*CACHE[:1]).is_dir():
        return
    folder = root.joinpath(*CACHE[:-1])
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=folder, prefix=".uvlock-", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump({"digest": digest, "document": document}, handle, default=str, separators=(",", ":"))
        os.replace(temporary, folder / CACHE[-1])
    except OSError:
        return  # a read-only checkout: read uncached


def read(
    path: Path, text: str, digest: str, *, root: str, extras: tuple[str, ...], groups: tuple[str, ...]
) -> ReadResult:
    """The part of uv.lock that ``uv sync --extra E.. --group G.. --no-default-groups`` installs."""
    from tierlock.lockfiles.requirements import duplicate_problems
    from tierlock.lockfiles.uvselect import select

    lock = parsed(path, text, digest)
    if lock.version is not None and lock.version != SCHEMA:
        return _exported(path, digest, lock, root=root, extras=extras, groups=groups)
    problems: list[ReadProblem] = list(lock.problems)
    selection = select(lock, root, extras, groups) if lock.packages or not problems else None
    entries = selection.entries if selection else ()
    if selection is not None:
        problems.extend(selection.problems)
    problems.extend(duplicate_problems(entries))
    result = Lock(
        path=path,
        format="uv",
        header=None,
        entries=entries,
        file_digest=digest,
        body_digest=f"sha256:{digest}",
        local=selection.local if selection else (),
        requires_python=lock.requires_python,
        environments=lock.supported_markers,
    )
    return ReadResult(result, tuple(problems))


def _exported(
    path: Path, digest: str, lock: UvLock, *, root: str, extras: tuple[str, ...], groups: tuple[str, ...]
) -> ReadResult:
    """A uv.lock of another schema, converted by uv itself (see the module docstring)."""
    from tierlock.frozen import replace
    from tierlock.lockfiles import foreignpylock

    text, why = export_pylock(path, extras, groups)
    if text is None:
        from tierlock.lockfiles.resolvers import _find

        uv = _find("uv")
        detail = (
            f"uv.lock schema version {lock.version}, but this tierlock reads version {SCHEMA} "
            f"and cannot convert it: {why}"
        )
        # `uv lock` is no fix: a uv that cannot read this schema refuses to rewrite the lock as well
        where = f"the uv tierlock runs ({uv})" if uv else "uv, next to tierlock or on PATH"
        remedy = (
            f"upgrade {where} to a release that reads uv.lock schema version {lock.version} (the uv that wrote "
            "it), then run: tierlock check"
        )
        empty = Lock(path, "uv", None, (), digest, f"sha256:{digest}", requires_python=lock.requires_python)
        return ReadResult(empty, (ReadProblem("integrity", 1, detail, remedy),))
    result = foreignpylock.read(path, text, digest, root=root, extras=(), groups=())
    converted = replace(result.lock, format="uv", file_digest=digest, body_digest=f"sha256:{digest}")
    return ReadResult(converted, result.problems)


def export_pylock(path: Path, extras: tuple[str, ...], groups: tuple[str, ...]) -> tuple[str | None, str]:
    """``uv export --frozen --format pylock.toml`` of the tier's part: (the text, "") or (None, why not)."""
    from tierlock import subproc
    from tierlock.errors import BackendError
    from tierlock.lockfiles.resolvers import _find

    uv = _find("uv")
    if uv is None:
        return None, "uv is not installed"
    argv: list[Any] = [uv, "export", "--frozen", "--no-default-groups", "--format", "pylock.toml", "--quiet"]
    argv += [f"--extra={e}" for e in extras] + [f"--group={g}" for g in groups]
    try:
        result = subproc.run(argv, what="uv export", cwd=path.parent, check=False)
    except BackendError as exc:
        return None, str(exc)
    if result.returncode != 0:
        return None, (result.stderr.strip().splitlines() or [f"uv export exited {result.returncode}"])[-1]
    return result.stdout, ""
