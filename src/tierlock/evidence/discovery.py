"""Where a runtime config is found: in a folder on disk, and at a git ref by the same rules.

The folders looked in are the project's (the nearest ``pyproject.toml`` at or above
the start), then the start folder itself; in each, first found wins:
``tierlock.runtime.json``, ``tierlock.runtime.toml``, then ``pyproject.toml`` with a
``[tool.tierlock.runtime]`` table (the discovery of :mod:`tierlock.validators.source`; a test
keeps the names equal). ``--config-from REF`` finds the base's config at ``REF`` by exactly these
rules, whatever file the working tree uses. Only the standard library: ``tierlock verified``
imports it on its fast path.
"""

from __future__ import annotations

import os

from tierlock.evidence.gitcall import run_git

#: The file names discovery tries first, in order; then :data:`PYPROJECT` with a runtime table.
NAMES = ("tierlock.runtime.json", "tierlock.runtime.toml")
PYPROJECT = "pyproject.toml"


def folders(start: str) -> list[str]:
    """The folders discovery looks in from *start* (a folder or a file in one): the project's, then *start*."""
    here = os.path.abspath(start)
    if os.path.isfile(here):
        here = os.path.dirname(here)
    folder = here
    while True:
        if os.path.isfile(os.path.join(folder, PYPROJECT)):
            return [folder] if folder == here else [folder, here]
        parent = os.path.dirname(folder)
        if parent == folder:
            return [here]
        folder = parent


def runtime_table(text: str) -> bool:
    """Whether the pyproject.toml text holds a ``[tool.tierlock.runtime]`` table.

    Broken TOML that names the table counts: validating it then says where it breaks.
    """
    import tomllib

    try:
        data = tomllib.loads(text.removeprefix("\ufeff"))
    except (tomllib.TOMLDecodeError, ValueError, RecursionError):
        import re

        return re.search(r"^[ \t]*\[\[?[ \t]*tool\.tierlock\.runtime\b", text, re.MULTILINE) is not None
    tool = data.get("tool")
    table = tool.get("tierlock") if isinstance(tool, dict) else None
    return isinstance(table, dict) and "runtime" in table


def on_disk(start: str) -> str | None:
    """The runtime config discovered from *start*, or None."""
    for folder in folders(start):
        for name in NAMES:
            if os.path.isfile(os.path.join(folder, name)):
                return os.path.join(folder, name)
        pyproject = os.path.join(folder, PYPROJECT)
        if os.path.isfile(pyproject) and _pyproject_has_table(pyproject):
            return pyproject
    return None


def _pyproject_has_table(path: str) -> bool:
    try:
        with open(path, encoding="utf-8-sig") as handle:
            return runtime_table(handle.read(64 << 20))
    except (OSError, UnicodeDecodeError):
        return False


def in_tree(top: str, start: str) -> list[str]:
    """The discovery folders of *start*, relative to the checkout *top* (``""`` for the top), inside it only."""
    root = os.path.realpath(top)
    out: list[str] = []
    for folder in folders(start):
        real = os.path.realpath(folder)
        if real == root:
            out.append("")
        elif real.startswith(root.rstrip(os.sep) + os.sep):
            out.append(os.path.relpath(real, root).replace(os.sep, "/"))
    return out


def ref_folders(top: str, ref: str, start: str) -> list[str]:
    """The discovery folders of *start* as *ref*'s tree has them, then those of the working tree (:func:`in_tree`).

    At *ref* the project folder is the nearest one at or above *start* holding a ``pyproject.toml`` *at ref*: a
    branch that moved the project (into ``app/``, say) is still held to the config the base keeps at its own
    project folder. Raises :class:`LookupError` when *ref* does not name a commit.
    """
    here = in_tree(top, start)
    if not here:
        return here
    rel = here[-1]  # the start folder itself (the last of the folders, inside the checkout)
    chain = [rel]
    while chain[-1]:
        chain.append(chain[-1].rpartition("/")[0])
    status, out, _ = run_git(top, "ls-tree", "-z", "--name-only", f"{ref}^{{commit}}", "--", *map(_pyproject, chain))
    if status != 0:
        raise LookupError(ref)
    present = set(out.decode("utf-8", "surrogateescape").split("\0"))
    project = next((folder for folder in chain if _pyproject(folder) in present), rel)
    return list(dict.fromkeys([project, rel, *here]))


def _pyproject(folder: str) -> str:
    return _join(folder, PYPROJECT)


def at_ref(top: str, ref: str, rel_folders: list[str]) -> tuple[str, str] | None:
    """(path, blob id) of the runtime config that *ref* holds, found by the rules above, or None.

    *rel_folders* are the discovery folders relative to *top* (:func:`ref_folders`). A config that is a symlink in
    *ref*'s tree is followed there (the path is the file it names, as on disk). Raises :class:`LookupError` when
    *ref* does not name a commit, :class:`BaseUnclear` when a symlink leads nowhere in *ref*'s tree.
    """
    candidates = [_join(folder, name) for folder in rel_folders for name in (*NAMES, PYPROJECT)]
    status, out, _ = run_git(top, "ls-tree", "-z", f"{ref}^{{commit}}", "--", *candidates)
    if status != 0:
        raise LookupError(ref)
    blobs = _entries(out)
    for folder in rel_folders:
        for name in NAMES:
            if _join(folder, name) in blobs:
                return follow(top, ref, _join(folder, name), blobs[_join(folder, name)])
        pyproject = _join(folder, PYPROJECT)
        if pyproject in blobs:
            path, blob = follow(top, ref, pyproject, blobs[pyproject])
            if _blob_has_table(top, blob):
                return path, blob
    return None


def _entries(out: bytes) -> dict[str, tuple[str, str]]:
    """path -> (mode, blob id) of the blobs (files and symlinks) in ``git ls-tree -z`` output."""
    entries: dict[str, tuple[str, str]] = {}
    for entry in out.decode("utf-8", "surrogateescape").split("\0"):
        meta, _, path = entry.partition("\t")
        parts = meta.split(" ")
        if len(parts) == 3 and parts[1] == "blob":
            entries[path] = (parts[0], parts[2])
    return entries


def _blob_has_table(top: str, blob: str) -> bool:
    """Whether the ``pyproject.toml`` git names *blob* (an id, or ``REF:PATH``) has a runtime table."""
    status, data, _ = run_git(top, "cat-file", "blob", blob)
    return status == 0 and runtime_table(data.decode("utf-8", "replace"))


#: A mode of a symlink in a git tree; how many links in a row are followed.
LINK_MODE = "120000"
MAX_LINKS = 8


class BaseUnclear(Exception):
    """The base's config at a ref cannot be found unambiguously: nothing may run, and the gate never passes.

    *fix* is the path at the ref that ``--config-from REF:PATH`` may name (None when no one path can be offered).
    """

    def __init__(self, ref: str, message: str, fix: str | None = None) -> None:
        super().__init__(message)
        self.ref = ref
        self.message = message
        self.fix = fix


def follow(top: str, ref: str, path: str, entry: tuple[str, str]) -> tuple[str, str]:
    """(path, blob id) of the file *path* (whose ls-tree *entry* is given) names in *ref*'s tree: itself, or where
    its symlinks lead there. Raises :class:`BaseUnclear` for a link that leaves the tree or leads nowhere in it."""
    import posixpath

    mode, blob = entry
    seen = [path]
    while mode == LINK_MODE:
        status, data, _ = run_git(top, "cat-file", "blob", blob)
        target = data.decode("utf-8", "surrogateescape") if status == 0 else ""
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
        where = f"{ref}:{seen[0]} is a symlink to {target}"
        if not target or posixpath.isabs(target) or resolved == ".." or resolved.startswith("../"):
            raise BaseUnclear(ref, f"{where}, which leaves the repository: the base's config cannot be read")
        status, out, _ = run_git(top, "ls-tree", "-z", f"{ref}^{{commit}}", "--", resolved)
        found = _entries(out).get(resolved) if status == 0 else None
        if found is None or len(seen) > MAX_LINKS:
            raise BaseUnclear(ref, f"{where}, which {ref} does not hold as a file: the base's config cannot be read")
        path, (mode, blob) = resolved, found
        seen.append(path)
    return path, blob


def named(top: str, ref: str, path: str) -> tuple[str, str]:
    """(path, blob id) of the file *path* at *ref* (``--config-from REF:PATH``), symlinks followed there.

    Raises :class:`LookupError` when *ref* names no commit, :class:`BaseUnclear` when it holds no such file."""
    path = path.strip("/")
    inside = path not in ("", ".", "..") and not path.startswith("../") and "/../" not in path
    status, out, _ = run_git(top, "ls-tree", "-z", f"{ref}^{{commit}}", "--", path if inside else ".")
    if status != 0:
        raise LookupError(ref)
    entry = _entries(out).get(path) if inside else None
    if entry is None:
        raise BaseUnclear(
            ref,
            f"--config-from {ref}:{path}: {ref} holds no file {path}",
            next(iter(configs_at(top, ref)), None),
        )
    return follow(top, ref, path, entry)


def split(value: str) -> tuple[str, str | None]:
    """``REF`` or ``REF:PATH`` (git's spelling of a file at a ref; a ref name never holds a colon): (REF, PATH)."""
    ref, colon, path = value.partition(":")
    return (ref, path.strip("/") or None) if colon and ref else (value, None)


def base_at_ref(top: str, ref: str, start: str) -> tuple[list[str], tuple[str, str] | None]:
    """The discovery folders of *start* at *ref* (:func:`ref_folders`) and the config *ref* holds for it.

    *ref* may be ``REF:PATH`` (:func:`split`): then the config is that file. Else it is the one *ref* holds in those
    folders; when it holds none there, the base's config went elsewhere on the branch: the configs *ref* holds in a
    folder git sees moved into the working tree's discovery folders (:func:`moved_from`), and those *ref* holds that
    the working tree no longer has (:func:`vanished`: moved or rewritten past git's rename detection, deleted, or a
    project split or merged). One such config is the base's; none: *ref* has no gate for this project (None); more
    than one: :class:`BaseUnclear`, naming them. Raises :class:`LookupError` when *ref* does not name a commit.
    """
    ref, path = split(ref)
    if path is not None:
        return [], named(top, ref, path)
    rel_folders = ref_folders(top, ref, start)
    found = at_ref(top, ref, rel_folders)
    if found is not None:
        return rel_folders, found
    moved = moved_from(top, ref, in_tree(top, start))
    renamed = at_ref(top, ref, moved) if moved else None
    gone = dict.fromkeys([*([renamed] if renamed else []), *vanished(top, ref)])
    if len(gone) > 1:
        looked = [_join(folder, name) for folder in rel_folders for name in (*NAMES, PYPROJECT)]
        paths = [p for p, _ in gone]
        raise BaseUnclear(
            ref,
            f"--config-from {ref}: the base's config cannot be told: {ref} holds no runtime config where this "
            f"project's is looked for ({', '.join(looked)}), and {len(paths)} that this branch no longer has "
            f"({', '.join(paths)}): nothing was run; name the base's with --config-from {ref}:PATH",
            paths[0],
        )
    return rel_folders, next(iter(gone), None)


def configs_at(top: str, ref: str) -> dict[str, tuple[str, str]]:
    """path -> (mode, blob id) of every runtime config *ref* holds, one per folder by the rules above (a symlink
    not followed). Raises :class:`LookupError` when *ref* does not name a commit."""
    status, out, _ = run_git(top, "ls-tree", "-r", "-z", f"{ref}^{{commit}}")
    if status != 0:
        raise LookupError(ref)
    entries = _entries(out)
    folders: dict[str, list[str]] = {}
    for path in entries:
        folder, _, name = path.rpartition("/")
        if name in (*NAMES, PYPROJECT):
            folders.setdefault(folder, []).append(name)
    tables = _pyprojects_with_table(top, ref) if any(PYPROJECT in names for names in folders.values()) else set()
    found: dict[str, tuple[str, str]] = {}
    for folder, names in sorted(folders.items()):
        chosen = next((n for n in NAMES if n in names), None)
        if chosen is None and _join(folder, PYPROJECT) in tables:
            chosen = PYPROJECT
        if chosen is not None:
            found[_join(folder, chosen)] = entries[_join(folder, chosen)]
    return found


def _pyprojects_with_table(top: str, ref: str) -> set[str]:
    """The ``pyproject.toml`` files at *ref* with a ``[tool.tierlock.runtime]`` table (one ``git grep`` picks the
    ones that name tierlock; only they are read)."""
    status, out, _ = run_git(
        top, "grep", "-l", "-z", "-I", "-e", "tierlock", f"{ref}^{{commit}}", "--", "*" + PYPROJECT
    )
    if status != 0:
        return set()
    found: set[str] = set()
    for hit in out.decode("utf-8", "surrogateescape").split("\0"):
        path = hit.partition(":")[2]
        if path.rpartition("/")[2] == PYPROJECT and _blob_has_table(top, f"{ref}^{{commit}}:{path}"):
            found.add(path)
    return found


def vanished(top: str, ref: str) -> list[tuple[str, str]]:
    """(path, blob id) of each runtime config *ref* holds that the working tree no longer holds at that path: the
    file gone, not committed (an ignored copy left on disk is no config of the branch's: a fresh checkout has
    none), or a ``pyproject.toml`` without its runtime table now."""
    configs = configs_at(top, ref)
    if not configs:
        return []
    status, out, _ = run_git(top, "ls-tree", "-z", "--name-only", "HEAD", "--", *configs)
    committed = set(out.decode("utf-8", "surrogateescape").split("\0")) if status == 0 else set()
    found: list[tuple[str, str]] = []
    for path, entry in configs.items():
        here = os.path.join(top, path)
        kept = path in committed and os.path.isfile(here)
        if not kept or (path.rpartition("/")[2] == PYPROJECT and not _pyproject_has_table(here)):
            found.append(follow(top, ref, path, entry))
    return found


def moved_from(top: str, ref: str, rel_folders: list[str]) -> list[str]:
    """The folders at *ref* whose runtime config or ``pyproject.toml`` git sees moved since *ref* into one of
    *rel_folders* (the working tree's discovery folders, relative to *top*), in the order found."""
    status, out, _ = run_git(top, "diff", "-z", "-M", "--name-status", "--diff-filter=R", f"{ref}^{{commit}}", "--")
    if status != 0:
        return []
    words = out.decode("utf-8", "surrogateescape").split("\0")
    wanted = set(rel_folders)
    found: list[str] = []
    for kind, old, new in zip(words[0::3], words[1::3], words[2::3], strict=False):
        folder, _, name = new.rpartition("/")
        if kind.startswith("R") and folder in wanted and name in (*NAMES, PYPROJECT):
            found.append(old.rpartition("/")[0])
    return list(dict.fromkeys(found))


def unknown_ref(top: str, value: str) -> tuple[str, str | None, str | None]:
    """What to say when ``--config-from VALUE`` (``REF`` or ``REF:PATH``) names no commit: (the message, the
    ``--config-from`` value the checkout has instead (:func:`remote_twin`, its path kept), the fetch that brings
    it (:func:`fetch_remedy`, asked only without such a value))."""
    ref, path = split(value)
    message = f"--config-from {ref}: no such branch, tag or commit in {top}"
    twin = remote_twin(top, ref)
    if twin is not None:
        return f"{message} (did you mean {twin}?)", f"{twin}:{path}" if path else twin, None
    return message, None, fetch_remedy(top, ref)


def fetch_remedy(top: str, ref: str) -> str | None:
    """The one ``git fetch`` that brings *ref* (``REMOTE/BRANCH``, a remote-tracking branch not fetched: a CI
    checkout of the branch alone) into the checkout *top*, or None when *ref* names no remote. One commit deep in a
    shallow clone (a tree is all ``--config-from`` reads), never making a full clone shallow."""
    from tierlock.evidence.answer import quote  # not shlex's: it imports re, and this is the gate's fast path

    status, out, _ = run_git(top, "remote")
    remotes = out.decode("utf-8", "surrogateescape").split() if status == 0 else []
    remote = max((r for r in remotes if ref.startswith(f"{r}/") and len(ref) > len(r) + 1), key=len, default=None)
    if remote is None:
        return None
    branch = ref[len(remote) + 1 :]
    _, shallow, _ = run_git(top, "rev-parse", "--is-shallow-repository")
    depth = ["--depth=1"] if shallow.strip() == b"true" else []
    words = ["git", "-C", top, "fetch", *depth, remote, f"+refs/heads/{branch}:refs/remotes/{remote}/{branch}"]
    return " ".join(quote(word) for word in words)


def remote_twin(top: str, ref: str) -> str | None:
    """``REMOTE/REF`` when *ref* is a bare branch name the checkout *top* has only as a remote-tracking branch
    (``main`` in a CI checkout that fetched ``origin/main``), the first remote in ``git remote``'s order; else None."""
    status, out, _ = run_git(top, "remote")
    for remote in out.decode("utf-8", "surrogateescape").split() if status == 0 else []:
        twin = f"{remote}/{ref}"
        if run_git(top, "rev-parse", "--verify", "--quiet", f"refs/remotes/{twin}^{{commit}}")[0] == 0:
            return twin
    return None


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name
