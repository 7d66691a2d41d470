"""The command that makes a probed tier present in the environment that was probed, run exactly as printed.

Split from :mod:`tierlock.probing.tier` (which decides the verdict): this decides the fix.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tierlock.environment import Target
    from tierlock.tiers import Project, Tier


def tier_remedy(
    project: Project,
    tier: Tier,
    target: Target,
    *,
    python: str | Path | None,
    deep: bool,
    locked: bool,
    notes: list[str],
) -> str:
    """:func:`install_remedy` for *tier* in *target* (*python*: as the caller named it). A venv whose Python the
    project's ``requires-python`` excludes is made again with one that satisfies it first (install-tier alone
    fails there, its locks being resolved for other Pythons), with ``--python`` then naming the venv's folder
    (the old interpreter's name is gone); why is added to *notes*."""
    from tierlock.outsidepython import outside

    relock = _relock(project, tier)
    found = outside(target, project.requires_python)
    if found is None:
        return install_remedy(
            tier,
            python=python,
            deep=deep,
            locked=locked,
            relock=relock,
            system=not target.is_venv,
            managed=target.externally_managed,
        )
    notes.append(found.why)
    if found.remake is None:  # no venv, or no Python that satisfies it here: the plain command, with the why
        return install_remedy(tier, python=python, deep=deep, locked=locked, relock=relock, system=not target.is_venv)
    named = None if python is None else found.prefix
    install = install_remedy(tier, python=named, deep=deep, locked=True)
    return f"{found.remake} && {install}" if locked else f"{relock} && {found.remake} && {install}"


def _relock(project: Project, tier: Tier) -> str:
    from tierlock.lockfiles.sources import remedy

    return remedy(project, tier)


def install_remedy(
    tier: Tier,
    *,
    python: str | Path | None,
    deep: bool,
    locked: bool,
    relock: str | None = None,
    system: bool = False,
    managed: bool = False,
) -> str:
    """The command that makes *tier* present in the environment that was probed, run exactly as printed.

    It names the interpreter when the probe was given one (with ``--system`` when that interpreter is no
    virtual environment: install-tier refuses it otherwise; a venv of it made first when it is externally
    managed: install-tier never installs into that), repairs hash mismatches when the probe was deep, and locks
    first when the tier has no lockfile yet.
    """
    from tierlock.remedies import shell_join, venv_of

    command = ["install-tier", str(tier.name), *(["--deep"] if deep else [])]
    if python is not None and managed:
        install = venv_of(python, command)
    else:
        if python is not None:
            command[2:2] = ["--python", str(python), *(["--system"] if system else [])]
        install = shell_join(command)
    return install if locked else f"{relock or f'tierlock lock {tier.name}'} && {install}"
