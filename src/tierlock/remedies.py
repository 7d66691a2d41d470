"""One remedy for several missing tiers: the shortest command that arms them all.

``install-tier polars pandas`` arms both tiers *and* every tier they are layered
on (each lockfile holds its whole closure), so a tier that another named tier
is layered on (directly or further down) is left out of the command. Every
message that tells the user how to arm tiers (``admit``, the pytest plugin's
header and summary, the skip reason of a test that needs several tiers) goes
through :func:`install_remedy`.

Pure and light: the pytest plugin imports it on every run that has something
to say.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping

#: The command that arms tiers (the twin of ``tierlock install``).
INSTALL = "install-tier"


def covering(tiers: Iterable[str], layers: Mapping[str, str | None]) -> list[str]:
    """*tiers* without those that another of them is layered on (first-seen order, no duplicates).

    *layers* maps a tier to the tier it is layered on (None or missing: none).
    """
    wanted = list(dict.fromkeys(tiers))
    below: set[str] = set()
    for tier in wanted:
        seen = {tier}
        lower = layers.get(tier)
        while lower is not None and lower not in seen:
            below.add(lower)
            seen.add(lower)
            lower = layers.get(lower)
    return [t for t in wanted if t not in below]


def install_remedy(
    tiers: Iterable[str],
    layers: Mapping[str, str | None],
    *,
    python: str | os.PathLike[str] | None = None,
    unlocked: Iterable[str] = (),
    exclusive: Callable[[str, str], bool] | None = None,
    system: bool = False,
    managed: bool = False,
) -> str | None:
    """``install-tier A B`` arming every tier in *tiers* with the fewest names; None when there are none.

    *python*: the environment that was looked at, as the caller named it (``--python X`` in the command).
    *unlocked*: tiers without a lockfile yet, locked first (``tierlock lock A && install-tier A``).
    *exclusive*: whether two tiers are declared in ``conflicts`` (never armed together: install-tier refuses
    them in one command); a tier exclusive with one named before it is left out.
    *system*: *python* is no virtual environment (a container's ``/usr/local/bin/python``): install-tier arms it
    only with ``--system``, so the command says it.
    *managed*: *python* is externally managed (PEP 668): install-tier never installs into it, even with
    ``--system``; the command makes a venv of it and arms that (:func:`venv_of`).
    """
    wanted = list(tiers)
    names = covering(wanted, layers)
    if exclusive is not None:
        kept: list[str] = []
        for name in names:
            if not any(exclusive(name, other) for other in kept):
                kept.append(name)
        names = kept
    if not names:
        return None
    command = f"{INSTALL} {' '.join(names)}"
    if python is not None and managed:
        command = venv_of(python, [INSTALL, *names])
    elif python is not None:
        command = shell_join([INSTALL, *names, "--python", os.fspath(python), *(["--system"] if system else [])])
    to_lock = [t for t in dict.fromkeys(unlocked) if t in wanted]
    return f"tierlock lock {' '.join(to_lock)} && {command}" if to_lock else command


#: The venv :func:`venv_of` makes, in the folder the command is run from.
MANAGED_VENV = ".venv"


def venv_of(python: str | os.PathLike[str], install: list[str]) -> str:
    """*install* (an ``install-tier`` command's words) run into a new venv of the externally managed *python*
    (PEP 668: nothing is installed into it): ``PYTHON -m venv --without-pip .venv && install-tier ... --python
    .venv/bin/python``. Without pip: a distribution may ship ``venv`` without ``ensurepip``."""
    made = shell_join([os.fspath(python), "-m", "venv", "--without-pip", MANAGED_VENV])
    return f"{made} && {shell_join([*install, '--python', f'{MANAGED_VENV}/bin/python'])}"


#: What a word may hold and still be written bare in a shell command: :func:`shlex.quote`'s own set.
_BARE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-")


#: A remedy of these characters only is split into words at its spaces alone (:func:`argv_of` without :mod:`shlex`).
_PLAIN = _BARE | frozenset(" &")


def shell_quote(word: str) -> str:
    """:func:`shlex.quote` (the same answer), without loading :mod:`shlex` and compiling its pattern (half a
    millisecond of every probe, which writes each tier's install command)."""
    if not word:
        return "''"
    if _BARE.issuperset(word):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"


def shell_join(words: Iterable[str]) -> str:
    """:func:`shlex.join`: *words* quoted with :func:`shell_quote`, joined by spaces."""
    return " ".join(shell_quote(word) for word in words)


def layers_of_project(project: object) -> dict[str, str | None]:
    """Tier -> the tier it is layered on, for a :class:`tierlock.tiers.Project`."""
    tiers = getattr(project, "tiers", {})
    return {str(name): (str(t.layered_on) if t.layered_on else None) for name, t in tiers.items()}


def layers_from_pyproject(data: Mapping[str, object]) -> dict[str, str | None]:
    """Tier -> the tier it is layered on, read from a parsed pyproject.toml (opt-in tiers default to base).

    Used by the pytest plugin, whose cached tier model does not carry the
    layering; names are normalised as in PEP 503.
    """
    import re

    def norm(name: str) -> str:
        return re.sub(r"[-_.]+", "-", name).lower()

    out: dict[str, str | None] = {"base": None}
    project = data.get("project")
    optional = project.get("optional-dependencies") if isinstance(project, dict) else None
    groups = data.get("dependency-groups")
    for table in (optional, groups):
        if isinstance(table, dict):
            for name in table:
                out.setdefault(norm(str(name)), "base")
    tool = data.get("tool")
    tierlock = tool.get("tierlock") if isinstance(tool, dict) else None
    declared = tierlock.get("tiers") if isinstance(tierlock, dict) else None
    if isinstance(declared, dict):
        for name, body in declared.items():
            key = norm(str(name))
            if key == "base":
                continue
            lower = body.get("layered-on", "base") if isinstance(body, dict) else "base"
            out[key] = norm(lower) if isinstance(lower, str) else "base"
    return out


def argv_of(remedy: str | None) -> list[list[str]] | None:
    """A printed remedy as the commands it runs (``--json``'s ``remedy_argv``), or None when it is prose.

    Each command is an argv list; a chain (``A && B``) is several, run in order, each only when the one before
    succeeded. A remedy is a command when it is exactly what :func:`shlex.join` prints for those lists, joined
    by `` && `` (every command tierlock prints is built that way); anything else (an edit to make, a choice
    to take) is prose, and tools cannot run it: None.
    """
    if not remedy:
        return None
    if _PLAIN.issuperset(remedy):  # no quote, escape or other whitespace: shlex.split's words are the spaces' words
        tokens = remedy.split()
    else:
        import shlex

        try:
            tokens = shlex.split(remedy)
        except ValueError:
            return None
    parts: list[list[str]] = [[]]
    for token in tokens:
        if token == "&&":
            parts.append([])
        else:
            parts[-1].append(token)
    if not all(parts) or " && ".join(shell_join(p) for p in parts) != remedy:
        return None
    return parts if all(_program(p[0]) for p in parts) else None


#: The programs a remedy runs (a path to one counts too): anything else reads as words, not a command.
PROGRAMS = frozenset(
    {"tierlock", "install-tier", "uv", "pip", "pip3", "python", "python3", "apt-get", "apt", "dnf", "yum",
     "brew", "apk", "pacman", "zypper", "conda", "sudo", "git", "chmod", "chattr", "rm", "pre-commit"}
)  # fmt: skip


def _program(word: str) -> bool:
    import re

    return "/" in word or word in PROGRAMS or re.fullmatch(r"python3\.\d+", word) is not None
