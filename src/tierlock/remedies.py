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
    to take) is prose, and tools cannot run it: None. Only a bare ``&&`` joins two commands: a quoted one
    (``'&&'``, a folder of that name) is a word.
    """
    if not remedy:
        return None
    if remedy[0] != "'" and not _program(remedy.partition(" ")[0]):
        return None  # (its first word, written bare, names no program: prose, read without splitting it all)
    if _PLAIN.issuperset(remedy):  # no quote, escape or other whitespace: shlex.split's words are the spaces' words
        words = [(word, True) for word in remedy.split()]
    else:
        read = _words(remedy)
        if read is None:
            return None
        words = read
    parts: list[list[str]] = [[]]
    for word, bare in words:
        if bare and word == "&&":
            parts.append([])
        else:
            parts[-1].append(word)
    if not all(parts) or " && ".join(shell_join(p) for p in parts) != remedy:
        return None
    return parts if all(_program(p[0]) for p in parts) else None


def _words(text: str) -> list[tuple[str, bool]] | None:
    """The words of *text* as :func:`shell_join` writes them (split at spaces; ``'...'`` and ``"..."`` quote), each
    with whether it was written bare; None when a quote is not closed. What :func:`shlex.split` gives for every
    line :func:`shell_join` writes (:func:`argv_of` checks the line is one), without loading :mod:`shlex`."""
    words: list[tuple[str, bool]] = []
    at, end = 0, len(text)
    while at < end:
        if text[at] == " ":
            at += 1
            continue
        pieces: list[str] = []
        bare = True
        while at < end and text[at] != " ":
            char = text[at]
            if char in "'\"":
                close = text.find(char, at + 1)
                if close < 0:
                    return None
                pieces.append(text[at + 1 : close])
                bare = False
                at = close + 1
            else:
                pieces.append(char)
                at += 1
        words.append(("".join(pieces), bare))
    return words


#: The programs a remedy runs (a path to one counts too): anything else reads as words, not a command.
PROGRAMS = frozenset(
    {"tierlock", "install-tier", "uv", "pip", "pip3", "python", "python3", "apt-get", "apt", "dnf", "yum",
     "brew", "apk", "pacman", "zypper", "conda", "sudo", "git", "chmod", "chattr", "rm", "pre-commit"}
)  # fmt: skip


def _program(word: str) -> bool:
    if "/" in word or word in PROGRAMS:
        return True
    if not word.startswith("python3."):
        return False
    import re

    return re.fullmatch(r"python3\.\d+", word) is not None


#: The programs that act on a project (their ``--project DIR`` names it): the commands :func:`carried` gives it.
PROJECT_PROGRAMS = frozenset({"tierlock", INSTALL})

#: What precedes the command a remedy in words ends with (``fix X, then run: tierlock validate``, ``...: uv lock``).
THEN_RUN = ": "

#: Where a remedy starts in a line people read: everything after it to the end of the line.
FIX_MARK = "to fix: "


def carried(remedy: str, project: str | None) -> str:
    """*remedy* as run from the folder a command given ``--project PROJECT`` ran in: each ``tierlock`` and
    ``install-tier`` command of it names the project right after the program word (``tierlock --project DIR lock
    brain && install-tier --project DIR brain``), and so does uv's ``lock`` (:func:`with_project`); one that names
    a project already, another program's command (``python -m venv``, ``uv pip``) and prose are left as they are,
    but for the command that ends a remedy in words (``pin corelib in pyproject.toml; then run: tierlock lock
    brain``), and a command followed by words in brackets, at the start or at such an end (``tierlock census --fix
    (applies every census fix above)``, ``...: tierlock lock above (which locks broken first)``).
    *project* as the user wrote it (a relative path stays relative: the remedy runs from the same folder); None or
    empty: *remedy* itself."""
    if not project or not remedy:
        return remedy
    commands = argv_of(remedy)
    if commands is not None:
        return " && ".join(shell_join(with_project(argv, project)) for argv in commands)
    return _carried_from(remedy, 0, project)


def _carried_from(remedy: str, start: int, project: str) -> str:
    """*remedy* with the first command found :func:`carried`: at *start*, then at each tail after a ``: `` (words
    in brackets may follow it); *remedy* itself when there is none."""
    while True:
        word = remedy.find(" ", start)
        if remedy.startswith("'", start) or _program(remedy[start : word if word >= 0 else len(remedy)]):
            found = _command_first(remedy[start:], project)  # (read only where a command could start: once a line)
            if found is not None:
                return remedy[:start] + found
        at = remedy.find(THEN_RUN, start)
        if at < 0:
            return remedy
        start = at + len(THEN_RUN)


def _command_first(text: str, project: str) -> str | None:
    """*text* :func:`carried` when it is a command, or a command followed by words in brackets (``tierlock census
    --fix  (applies every census fix above)``); None when it is neither."""
    if argv_of(text) is not None:
        return carried(text, project)
    aside = text.rfind(" (") if text.endswith(")") else -1
    head = text[:aside].rstrip(" ") if aside > 0 else ""
    if head and argv_of(head) is not None:
        return carried(head, project) + text[len(head) :]
    return None


def carried_argv(commands: list[list[str]], project: str | None) -> list[list[str]]:
    """``remedy_argv`` as :func:`carried` changes its remedy:
    ``argv_of(carried(r, p)) == carried_argv(argv_of(r), p)``."""
    if not project:
        return commands
    return [with_project(argv, project) for argv in commands]


def with_project(argv: list[str], project: str) -> list[str]:
    """*argv* (one command) with ``--project PROJECT`` after its program word, when it is a ``tierlock`` or
    ``install-tier`` command that does not name a project yet; ``uv --project FOLDER lock`` for one of uv's
    commands that find the project from the working folder (:data:`UV_PROJECT_COMMANDS`; uv takes the folder:
    a ``pyproject.toml`` given is its folder). A *project* that starts with ``-`` is written ``--project=PROJECT``
    (it would read as an option)."""
    program = argv[0].rsplit("/", 1)[-1] if argv else ""
    if program in PROJECT_PROGRAMS and not names_project(argv[1:]):
        return [argv[0], *_option(project), *argv[1:]]
    if program == "uv" and argv[1:2] and argv[1] in UV_PROJECT_COMMANDS and not _uv_placed(argv[2:]):
        folder = (os.path.dirname(project) or ".") if os.path.basename(project) == "pyproject.toml" else project
        return [argv[0], *_option(folder), *argv[1:]]
    return list(argv)


#: uv's commands that act on the project they find from the working folder (``uv lock``, ``uv sync``).
UV_PROJECT_COMMANDS = frozenset({"lock", "sync", "export", "tree", "add", "remove", "run", "version"})


def _option(value: str) -> list[str]:
    return [f"--project={value}"] if value.startswith("-") else ["--project", value]


def _uv_placed(words: list[str]) -> bool:
    """Whether a uv command's *words* name its project or folder already (``--project``, ``--directory``)."""
    return any(w.partition("=")[0] in ("--project", "--directory") for w in words)


def names_project(words: Iterable[str]) -> bool:
    """Whether *words* (a command's arguments) name a project: ``--project DIR``, ``--project=DIR`` or an
    abbreviation argparse takes (``--proj DIR``), before a ``--``."""
    for word in words:
        if word == "--":
            return False
        name = word.partition("=")[0]
        if len(name) > 3 and "--project".startswith(name):
            return True
    return False


def carried_text(text: str, project: str | None) -> str:
    """*text* (lines people read) with the remedy of each ``to fix: REMEDY`` line (to the line's end)
    :func:`carried`, and in any other line the command a ``: `` introduces (``...; fix them all: tierlock census
    --fix``, ``next: review the table, then run: tierlock tiers && tierlock lock``); without *project*, or without
    such a line, *text* itself."""
    if not project or THEN_RUN not in text:
        return text
    lines = text.split("\n")
    for index, line in enumerate(lines):
        at = line.find(FIX_MARK)
        if at >= 0:
            start = at + len(FIX_MARK)
            lines[index] = line[:start] + carried(line[start:], project)
        elif THEN_RUN in line:  # (a line that names a command to run: from its first tail after a ": ")
            lines[index] = _carried_from(line, line.find(THEN_RUN) + len(THEN_RUN), project)
    return "\n".join(lines)


#: The fields of a JSON document that hold a remedy (a command as printed, or several).
REMEDY_FIELDS = frozenset({"remedy", "install_command", "remedies"})


def carried_document(document: object, project: str | None) -> object:
    """A ``--json`` document with every remedy :func:`carried`: each ``remedy`` (``install_command``,
    ``remedies``) field, its ``remedy_argv`` (:func:`argv_of` of the remedy as now printed), and each ``to fix:``
    line of any other text; the document itself without *project*."""
    if not project:
        return document
    if isinstance(document, dict):
        out: dict[object, object] = {}
        for key, value in document.items():
            if key in REMEDY_FIELDS and isinstance(value, str):
                out[key] = carried(value, project)
            elif key in REMEDY_FIELDS and isinstance(value, list):
                out[key] = [carried(v, project) if isinstance(v, str) else v for v in value]
            elif key == "remedy_argv" and isinstance(value, list) and _is_argv(value):
                out[key] = carried_argv(value, project)
            else:
                out[key] = carried_document(value, project)
        return out
    if isinstance(document, list):
        return [carried_document(v, project) for v in document]
    if isinstance(document, str):
        return carried_text(document, project)
    return document


def _is_argv(value: list[object]) -> bool:
    return all(isinstance(argv, list) and all(isinstance(w, str) for w in argv) for argv in value)
