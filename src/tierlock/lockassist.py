"""What ``tierlock lock`` does around locking: check ``-P`` names, and the dry run that writes nothing.

The dry run locks a copy of the project whose lockfiles live in a temporary
folder (the backend still runs from the project folder, with the user's own
settings), then shows the unified diff between each real lockfile and the one
that would replace it.
"""

from __future__ import annotations

import difflib
import shutil
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from packaging.utils import canonicalize_name

from tierlock import scratch
from tierlock.errors import UsageError
from tierlock.frozen import replace
from tierlock.lockfiles.fileread import read
from tierlock.suggest import closest, corrected
from tierlock.tiers import Project


def known_packages(project: Project) -> set[str]:
    """Every package name in any lockfile of the project, and every root a tier declares (normalized)."""

    names: set[str] = set()
    for tier in project.tiers.values():
        names.update(canonicalize_name(r.name) for r in tier.requirements)
        if tier.lockfile.is_file():
            names.update(e.name for e in read(tier.lockfile).lock.entries)
    return names


def check_upgrade_names(project: Project, names: Sequence[str], argv: Sequence[str], prog: str = "tierlock") -> None:
    """A usage error for the first ``-P`` name that no lockfile and no tier knows, with the corrected command."""
    known = known_packages(project)
    for name in names:
        if canonicalize_name(name) in known:
            continue

        match = closest(canonicalize_name(name), sorted(known))
        where = "in no lockfile and no tier of this project"
        if match is None:
            raise UsageError(
                f"--upgrade-package {name!r}: {where}",
                package=name,
                remedy=f"see the locked packages: {prog} export",
            )
        index = _value_index(argv, name)
        remedy = corrected(prog, argv, index, match) if index is not None else f"{prog} lock -P {match}"
        raise UsageError(f"--upgrade-package {name!r}: {where} (did you mean {match!r}?)", package=name, remedy=remedy)


def _value_index(argv: Sequence[str], name: str) -> int | None:
    for index, token in enumerate(argv):
        if token == name and index > 0 and argv[index - 1] in ("-P", "--upgrade-package"):
            return index
    return None


@dataclass(frozen=True)
class Diff:
    tier: str
    lockfile: str
    """Relative to the project root."""
    diff: str
    """Unified diff from the current lockfile to the one that would be written ("" when equal)."""


@contextmanager
def scratch_copy(
    project: Project,
) -> Iterator[tuple[Project, Callable[[], list[Diff]], Callable[[str], str]]]:
    """A copy of *project* whose lockfiles are copies in a temporary folder, a function diffing them, and one
    that shows the real lockfile paths in a text naming the copies."""
    with scratch.scratch_dir("tierlock-dry-run-") as folder:
        tiers = {}
        originals: dict[str, Path] = {}
        for key, tier in project.tiers.items():
            copy = folder / project.relpath(tier.lockfile).replace("/", "__")
            if tier.lockfile.is_file():
                shutil.copyfile(tier.lockfile, copy)
            tiers[key] = replace(tier, lockfile=copy)
            originals[tier.name] = tier.lockfile
        copied = replace(project, tiers=tiers)

        def diffs() -> list[Diff]:
            out: list[Diff] = []
            for name, original in originals.items():
                new = copied.tiers[canonicalize_name(name)].lockfile
                if not new.is_file():
                    continue
                rel = project.relpath(original)
                before = original.read_text(encoding="utf-8").splitlines(keepends=True) if original.is_file() else []
                after = new.read_text(encoding="utf-8").splitlines(keepends=True)
                text = "".join(difflib.unified_diff(before, after, f"a/{rel}", f"b/{rel}"))
                out.append(Diff(name, rel, text))
            return out

        def real(text: str) -> str:
            for name, original in originals.items():
                copy = str(copied.tiers[canonicalize_name(name)].lockfile)
                text = text.replace(copy, project.relpath(original))
            return text

        yield copied, diffs, real
