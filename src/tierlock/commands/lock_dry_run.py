"""``tierlock lock --dry-run``: lock into scratch copies and show the diff each lockfile would get."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tierlock.errors import EXIT_OK

if TYPE_CHECKING:
    from tierlock.cli import Context
    from tierlock.lockfiles.lock import LockOptions
    from tierlock.lockfiles.resolvers import Backend
    from tierlock.tiers import Project


def dry_run(project: Project, names: Sequence[str], backend: Backend, options: LockOptions, ctx: Context) -> int:
    from tierlock.lockassist import scratch_copy
    from tierlock.lockfiles.lock import lock_project

    with scratch_copy(project) as (scratch, diffs, real), ctx.ui.progress() as progress:
        done = lock_project(scratch, names, backend, options, progress=lambda text: progress(real(text)))
        locked = {d.tier for d in done}
        changes = [d for d in diffs() if d.tier in locked]
    if ctx.ui.json_mode:
        ctx.ui.emit_json(
            {
                "ok": True,
                "dry_run": True,
                "backend": backend.name,
                "locked": [
                    {
                        "tier": d.tier,
                        "lockfile": c.lockfile,
                        "packages": d.packages,
                        "created": d.created,
                        "changes": list(d.changes),
                        "diff": c.diff,
                    }
                    for d, c in zip(done, changes, strict=True)
                ],
            }
        )
        return EXIT_OK
    for d, c in zip(done, changes, strict=True):
        what = "would be created" if d.created else ("would change" if c.diff else "would not change")
        ctx.ui.line(f"{d.tier}: {c.lockfile}: {d.packages} package(s), {what}")
        for line in c.diff.splitlines():
            ctx.ui.line(line)
    ctx.ui.line(f"dry run: {len(done)} tier(s) locked with {backend.name}; nothing was written")
    return EXIT_OK
