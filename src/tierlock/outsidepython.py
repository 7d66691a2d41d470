"""A target whose Python the project's ``requires-python`` excludes, and the command that makes its venv again
with a Python that satisfies it.

Its locks were resolved for other Pythons: a pylock refuses it, a wheel for none of its tags fails in the backend,
and locking again resolves for the same Pythons. So ``install-tier`` alone is no fix there, and every command
that prints one (``install-tier`` itself, ``probe``, ``status``, ``admit``) prints this one first.

Light: nothing is imported unless the project declares ``requires-python`` (and :mod:`packaging` then only).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from tierlock.environment import Target


class Outside(NamedTuple):
    """Why the target's Python is outside, and the command that remakes its venv (None: no venv, or no Python
    found that satisfies the specifier), which leaves the venv at :attr:`prefix`."""

    why: str
    remake: str | None
    prefix: str


def outside(target: Target, requires_python: str | None) -> Outside | None:
    """Why *target*'s Python is outside *requires_python* and the command that remakes its venv; None inside."""
    return outside_of(target.version, str(target.prefix), target.is_venv, requires_python)


def outside_of(
    version: tuple[int, int, int], prefix: str, is_venv: bool, requires_python: str | None
) -> Outside | None:
    """:func:`outside` of the environment at *prefix* whose Python is *version* (*is_venv*: a venv, which can be
    made again): the pytest plugin asks it of the interpreter it runs in, which is the target."""
    if not requires_python:
        return None
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    text = ".".join(str(v) for v in version)
    try:
        if SpecifierSet(requires_python).contains(text, prereleases=True):
            return None
    except InvalidSpecifier:
        return None  # (the project's own check reports it)
    why = (
        f"the target {prefix} runs Python {text}, which the project's requires-python "
        f"{requires_python!r} excludes (its locks were resolved for other Pythons)"
    )
    return Outside(why, remake_command(version, prefix, is_venv, requires_python), prefix)


def remake_command(version: tuple[int, int, int], prefix: str, is_venv: bool, requires_python: str) -> str | None:
    """The venv at *prefix* (of Python *version*) made again (system site packages kept) with a Python satisfying
    *requires_python*: its interpreter links removed first (``python -m venv`` keeps a link it finds). None when
    it is no venv or no such Python is found."""
    if not is_venv:
        return None
    from tierlock.installer.creation import choose_interpreter

    chosen = choose_interpreter(requires_python)
    if chosen is None:
        return None
    import os

    from tierlock.remedies import shell_join
    from tierlock.venvbase import includes_system_site

    folder = os.path.join(prefix, "Scripts" if os.name == "nt" else "bin")
    names = dict.fromkeys(["python", "python3", f"python{version[0]}.{version[1]}"])
    gone = shell_join(["rm", "-f", *(os.path.join(folder, name) for name in names)])
    system = ["--system-site-packages"] if includes_system_site(prefix) else []
    return f"{gone} && {shell_join([chosen, '-m', 'venv', *system, prefix])}"
