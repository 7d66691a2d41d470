"""A credential written as an option's own argument: ``["--password", "hunter2"]``, ``curl -u user:pass``.

:mod:`tierlock.secretshapes` reads each argument of a command on its own; a password written as the
argument after its option is a credential only by its neighbour. Found, in a command's words (the
command, then its arguments):

* after an option whose name ends in a credential word (``--password``, ``--api-key``, ``-token``: the
  names of :func:`tierlock.secretnames.credential_option`; not a switch such as ``--ask-pass``), an
  argument that is a value (:func:`tierlock.secretnames.option_value`: not another option, a reference
  such as ``$TOKEN`` or ``@file``, a metavariable or a ``key=value`` specification); but not after the
  ``--password`` of the mysql, PostgreSQL and MongoDB clients, a switch that makes them ask;
* the short options of well-known tools that take a password: ``curl -u``/``--user``/``-U``/``--proxy-user``
  ``USER:PASSWORD`` (attached too: ``-uUSER:PASSWORD``), ``sshpass -p PASSWORD`` (and ``-pPASSWORD``),
  ``mysql -pPASSWORD`` (the mysql and mariadb clients; a separate ``-p`` asks for the password), and
  ``-p PASSWORD`` after ``login`` for the container tools (``docker login -p``, ``podman``, ``helm registry``).

A tool is known by the base name of any earlier word (``sudo docker login -p x``, ``uv run curl -u a:b``).
A word with spaces is read as a shell script too (``["bash", "-c", "curl -u a:b https://..."]``): the whole
word holds the credential when its own words (split as a POSIX shell splits them) hold one.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from tierlock.redaction import REDACTED
from tierlock.secretnames import credential_option, option_value

KIND = "password given as an option's argument"

_CURL_USER = frozenset({"-u", "--user", "-U", "--proxy-user"})
_MYSQL = frozenset(
    {"mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlshow", "mysqlcheck", "mysqlpump", "mysqlslap"}
    | {"mariadb", "mariadb-dump", "mariadb-admin", "mariadb-import", "mariadb-show", "mariadb-check"}
)
_LOGIN = frozenset({"docker", "podman", "nerdctl", "buildah", "skopeo", "helm", "oras"})
#: Tools whose ``--password`` is a switch that makes them ask (``mysql --password DB``, ``psql --password DB``).
_ASKING = _MYSQL | {"psql", "pg_dump", "pg_dumpall", "pg_restore", "pg_basebackup", "pgbench", "createdb", "dropdb"}
_ASKING |= {"createuser", "dropuser", "vacuumdb", "reindexdb", "clusterdb", "mongosh", "mongo"}
#: The tools whose own options are read (by their base name).
TOOLS = _ASKING | _LOGIN | {"curl", "sshpass"}


def _tool(word: str) -> str | None:
    base = word.replace("\\", "/").rsplit("/", 1)[-1].lower().removesuffix(".exe")
    return base if base in TOOLS else None


def _user_password(value: str) -> bool:
    """Whether curl's ``USER:PASSWORD`` holds a password (``USER`` alone makes curl ask for it)."""
    return option_value(value.partition(":")[2]) if ":" in value else False


def _attached(tool: str | None, word: str) -> bool:
    """Whether *word* is a short option with its password attached (``-pPASSWORD``, ``-uUSER:PASSWORD``)."""
    if tool in _MYSQL or tool == "sshpass":
        return word.startswith("-p") and not word.startswith("--") and option_value(word[2:])
    return tool == "curl" and word[:2] in ("-u", "-U") and _user_password(word[2:])


def _takes_password(tool: str | None, login: bool, word: str, value: str) -> bool:
    """Whether *value*, the word after the option *word*, is a password by that option."""
    if credential_option(word):
        return option_value(value) and not (tool in _ASKING and word.lstrip("-") == "password")
    if tool == "curl" and word in _CURL_USER:
        return _user_password(value)
    if word == "-p" and (tool == "sshpass" or (tool in _LOGIN and login)):
        return option_value(value)
    return False


def _in_script(word: str) -> bool:
    """Whether *word* is a shell script (``bash -c "curl -u a:b ..."``) whose own words hold one."""
    import shlex

    try:
        return any(found(shlex.split(word)))
    except ValueError:  # (an unclosed quote: not a script shlex reads)
        return False


def found(words: Sequence[str]) -> Iterator[int]:
    """The index of each word of *words* (a command, then its arguments) that is a credential by its option, or
    a script (a word with spaces) whose words hold one."""
    tool: str | None = None
    login = False
    after_option = False
    for i, word in enumerate(words):
        if after_option:
            after_option = False
            yield i
            continue
        if " " in word and _in_script(word):
            yield i
        elif (known := _tool(word)) is not None:
            tool, login = known, False
        elif word == "login":
            login = True
        elif _attached(tool, word):
            yield i
        elif i + 1 < len(words) and _takes_password(tool, login, word, words[i + 1]):
            after_option = True


def redacted(words: Sequence[str]) -> list[str]:
    """*words* with each one :func:`found` replaced by ``[redacted]``."""
    out = list(words)
    for i in found(words):
        out[i] = REDACTED
    return out
