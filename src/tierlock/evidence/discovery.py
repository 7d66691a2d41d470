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

    *rel_folders* are the discovery folders relative to *top* (:func:`ref_folders`). Raises
    :class:`LookupError` when *ref* does not name a commit.
    """
    candidates = [_join(folder, name) for folder in rel_folders for name in (*NAMES, PYPROJECT)]
    status, out, _ = run_git(top, "ls-tree", "-z", f"{ref}^{{commit}}", "--", *candidates)
    if status != 0:
        raise LookupError(ref)
    blobs: dict[str, str] = {}
    for entry in out.decode("utf-8", "surrogateescape").split("\0"):
        meta, _, path = entry.partition("\t")
        parts = meta.split(" ")
        if len(parts) == 3 and parts[1] == "blob":
            blobs[path] = parts[2]
    for folder in rel_folders:
        for name in NAMES:
            if _join(folder, name) in blobs:
                return _join(folder, name), blobs[_join(folder, name)]
        pyproject = _join(folder, PYPROJECT)
        if pyproject in blobs:
            status, data, _ = run_git(top, "cat-file", "blob", blobs[pyproject])
            if status == 0 and runtime_table(data.decode("utf-8", "replace")):
                return pyproject, blobs[pyproject]
    return None


def base_at_ref(top: str, ref: str, start: str) -> tuple[list[str], tuple[str, str] | None]:
    """The discovery folders of *start* at *ref* (:func:`ref_folders`) and the config *ref* holds there
    (:func:`at_ref`); when it holds none there, the one it holds in a folder the branch moved to where the working
    tree's discovery looks (:func:`moved_from`: a project moved up, or sideways). Raises :class:`LookupError`
    when *ref* does not name a commit."""
    rel_folders = ref_folders(top, ref, start)
    found = at_ref(top, ref, rel_folders)
    if found is None:
        moved = moved_from(top, ref, in_tree(top, start))
        found = at_ref(top, ref, moved) if moved else None
    return rel_folders, found


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


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name
