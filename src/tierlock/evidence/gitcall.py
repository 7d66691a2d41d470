"""Run git without :mod:`subprocess`: ``posix_spawnp`` and pipes, for the gate's fast path.

``git -C TOP ARGS`` with stdin from /dev/null, without the optional index
lock (``GIT_OPTIONAL_LOCKS=0``), so two runs on one checkout never trip over
each other's ``git status``.
"""

from __future__ import annotations

import os
import select


def run_git(top: str, *args: str) -> tuple[int, bytes, bytes]:
    """(exit status, stdout, stderr) of ``git -C TOP ARGS``; status 127 when git cannot be started."""
    env = dict(os.environ)
    env["GIT_OPTIONAL_LOCKS"] = "0"
    env.setdefault("LC_ALL", "C")
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    try:
        pid = os.posix_spawnp(
            "git",
            ["git", "-C", top, *args],
            env,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, out_w, 1),
                (os.POSIX_SPAWN_DUP2, err_w, 2),
            ],
        )
    except OSError as exc:
        for fd in (out_r, out_w, err_r, err_w):
            os.close(fd)
        return 127, b"", str(exc).encode()
    os.close(out_w)
    os.close(err_w)
    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    poller = select.poll()
    for fd in chunks:
        poller.register(fd, select.POLLIN)
    open_fds = set(chunks)
    while open_fds:
        for fd, _ in poller.poll():
            data = os.read(fd, 65536)
            if data:
                chunks[fd].append(data)
            else:
                poller.unregister(fd)
                open_fds.discard(fd)
    os.close(out_r)
    os.close(err_r)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), b"".join(chunks[out_r]), b"".join(chunks[err_r])


#: What tierlock writes in an evidence folder, as glob pathspecs below it: the validator's record (and its
#: temporary file while it is replaced) and the run folders (``20261204T205030.982283Z-PID-HEX``).
WRITTEN = (".validated.json", "..validated.json.*.tmp", "[0-9]*Z-*/**")


def evidence_pathspec(not_checked: list[str] | None) -> list[str]:
    """The pathspec of the whole tree but what tierlock writes in the evidence folders *not_checked* (relative
    to the top). Nothing else in such a folder is left out: ``--evidence-dir src`` keeps every file of ``src``
    in the tree check, tracked or not."""
    if not not_checked:
        return []
    spec = ["--", "."]
    for rel in not_checked:
        folder = "".join("\\" + c if c in "*?[\\" else c for c in rel)  # literal in a glob pathspec
        spec.extend(f":(exclude,glob){folder}/{written}" for written in WRITTEN)
    return spec


#: ``git status`` as every tree check runs it. ``--ignore-submodules=none``: a submodule whose own files were
#: edited (or hold an untracked file) is a change, as its checked-out commit moving is: the content tested is
#: not what the commit records.
STATUS = ("status", "--porcelain=v2", "--branch", "-z", "--untracked-files=normal", "--ignore-submodules=none")


def parse_status(out: str) -> tuple[str | None, list[str], list[str]]:
    """(HEAD's commit, the paths that differ from it, the submodules among them: a file in it edited or
    untracked, its commit moved, or another commit staged for it) of ``git status`` (:data:`STATUS`) output."""
    commit: str | None = None
    paths: list[str] = []
    submodules: list[str] = []
    entries = out.split("\0")
    i = 0
    while i < len(entries):
        entry = entries[i]
        i += 1
        kind = entry[:2]
        if entry.startswith("# branch.oid "):
            oid = entry[len("# branch.oid ") :]
            commit = oid if len(oid) >= 40 and all(c in "0123456789abcdef" for c in oid) else None
        elif kind in ("1 ", "u "):  # ordinary or unmerged: the path is the last of 8 or 10 fields
            fields = entry.split(" ", 8 if kind == "1 " else 10)
            paths.append(fields[-1])
            sub = fields[2]  # N... for a file; S<commit moved><modified><untracked> for a submodule
            if sub[:1] == "S":  # listed: its checkout, or the commit staged for it, differs
                submodules.append(fields[-1])
        elif kind == "2 ":  # renamed or copied: the path, then its origin as the next entry
            paths.append(entry.split(" ", 9)[-1])
            i += 1
        elif kind == "? ":
            paths.append(entry[2:])
    return commit, paths, submodules


def remedy(top: str, spec: list[str], submodules: list[str]) -> list[list[str]]:
    """The git commands that bring the tree back to HEAD (but what *spec* leaves out). The top's stash leaves
    submodules as they are: with *submodules*, the edits inside each are stashed there first, the commit staged
    for each is unstaged, and each is checked out again at the commit HEAD records (its own commits stay)."""
    stash = ["git", "-C", top, "stash", "push", "--include-untracked", *spec]
    if not submodules:
        return [stash]
    inside = ["git", "-C", top, "submodule", "foreach", "--recursive", "git stash push --include-untracked"]
    unstage = ["git", "-C", top, "reset", "-q", "--", *submodules]
    return [inside, stash, unstage, ["git", "-C", top, "submodule", "update", "--recursive"]]
