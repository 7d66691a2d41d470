"""Credential-shaped values anywhere in the document (RC014) and the narrow allowance for them (RC018).

Every string of the document is scanned, keys included: ``key``, ``label``,
``cwd``, ``command``, ``args``, ``env`` names and values, ``policy`` lists,
``repositories``, ``$schema`` and ``x-*`` extension values alike.

A value that is credential-shaped on purpose (the public jwt.io example token
passed to a verification command) is accepted only through an entry of
``acceptedCredentials``: a JSON Pointer to one ``args`` entry or ``env`` value
that holds a credential, and a reason. Never by value or by pattern: an
allowance for one place accepts nothing anywhere else, and an allowance that
points at no credential is itself an error. Accepted values are reported as
accepted exceptions, and, like every value, never echoed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from tierlock import secretargs
from tierlock.validators.credentials import credential_kind
from tierlock.validators.jsonpos import MAX_DEPTH, JsonPath
from tierlock.validators.results import Finding, dotted
from tierlock.validators.rules import LISTS as _LISTS
from tierlock.validators.rules import NEVER_SAVED
from tierlock.validators.text import js_trim

ALLOWANCES = "acceptedCredentials"


@dataclass(frozen=True)
class Accepted:
    """A credential-shaped value accepted on purpose: where, what kind, and why (the reason as written)."""

    path: JsonPath
    kind: str
    reason: str
    allowance: int
    """The index of the entry in ``acceptedCredentials`` that accepts it."""


def parse_pointer(pointer: str, document: Any) -> JsonPath | None:
    """The path a JSON Pointer (RFC 6901) names in *document*, or None when it names no value."""
    if not pointer.startswith("/"):
        return None
    node = document
    path: list[str | int] = []
    for raw in pointer[1:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            path.append(part)
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and (part == "0" or not part.startswith("0")):
            index = int(part)
            if index >= len(node):
                return None
            path.append(index)
            node = node[index]
        else:
            return None
    return tuple(path)


def _value(document: Any, path: JsonPath) -> Any:
    node = document
    for part in path:
        node = node[part]
    return node


def _acceptable(path: JsonPath) -> bool:
    """Only an ``args`` entry or an ``env`` value of a command can be accepted."""
    if len(path) != 4 or path[0] not in _LISTS or not isinstance(path[1], int):
        return False
    return (path[2] == "args" and isinstance(path[3], int)) or (path[2] == "env" and isinstance(path[3], str))


def allowances(
    document: Any, out: list[Finding], by_option: frozenset[JsonPath] = frozenset()
) -> dict[JsonPath, tuple[int, str]]:
    """The paths accepted by ``acceptedCredentials`` (with the entry index and reason); RC018 findings to *out*.
    *by_option*: the arguments that hold a credential by their option (:func:`by_their_option`)."""
    accepted: dict[JsonPath, tuple[int, str]] = {}
    entries = document.get(ALLOWANCES) if isinstance(document, dict) else None
    if not isinstance(entries, list):
        return accepted
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            continue
        pointer, reason = entry.get("path"), entry.get("reason")
        base: JsonPath = (ALLOWANCES, index)
        if not isinstance(pointer, str) or not isinstance(reason, str) or not js_trim(reason):
            continue  # the schema reports it; an allowance without a reason accepts nothing
        path = parse_pointer(pointer, document)
        if path is None:
            out.append(Finding("RC018", (*base, "path"), "points at no value of this document"))
        elif not _acceptable(path):
            out.append(
                Finding(
                    "RC018",
                    (*base, "path"),
                    f"points at {dotted(path)}: only an args entry or an env value of a command can be accepted",
                )
            )
        elif path in accepted:
            first = accepted[path][0]
            out.append(
                Finding(
                    "RC018",
                    (*base, "path"),
                    f"accepts {dotted(path)} a second time (first at {ALLOWANCES}[{first}])",
                    related=(ALLOWANCES, first, "path"),
                )
            )
        elif path not in by_option and (
            not isinstance(value := _value(document, path), str) or credential_kind(value) is None
        ):
            out.append(
                Finding(
                    "RC018",
                    (*base, "path"),
                    f"points at {dotted(path)}, which holds no credential",
                    hint=f"remove {ALLOWANCES}[{index}]",
                )
            )
        else:
            accepted[path] = (index, reason)
    return accepted


def _what(path: JsonPath) -> str:
    if len(path) >= 3 and path[0] in _LISTS:
        field = path[2]
        if field == "args":
            return "argument"
        if field == "env":
            return "env value"
        if field in ("command", "cwd", "label", "key", "repositoryId"):
            return str(field)
    return "value"


def check(document: Any) -> tuple[list[Finding], list[Accepted]]:
    """RC014 for every credential-shaped string (keys too), RC018 for bad allowances, and what was accepted."""
    out: list[Finding] = []
    by_option = by_their_option(document)
    allowed = allowances(document, out, frozenset(by_option))
    accepted: list[Accepted] = []
    for path, kind, at_key in (*_credentials(document), *((p, secretargs.KIND, False) for p in by_option)):
        if at_key:
            name = "env name" if len(path) == 4 and path[2] == "env" else "key"
            out.append(Finding("RC014", path, f"{name} is a credential ({kind}): {NEVER_SAVED}", at_key=True))
        elif path in allowed:
            index, reason = allowed[path]
            accepted.append(Accepted(path, kind, reason, index))
        else:
            out.append(Finding("RC014", path, f"{_what(path)} holds a credential ({kind}): {NEVER_SAVED}"))
    accepted.sort(key=lambda a: a.allowance)
    return out, accepted


def by_their_option(document: Any) -> list[JsonPath]:
    """The ``args`` entries of every command that hold a credential by the option before them
    (:mod:`tierlock.secretargs`: ``["--password", "hunter2"]``) and not by their own shape."""
    out: list[JsonPath] = []
    for name in _LISTS:
        commands = document.get(name) if isinstance(document, dict) else None
        for index, command in enumerate(commands if isinstance(commands, list) else ()):
            args = command.get("args") if isinstance(command, dict) else None
            if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
                continue
            head = command.get("command")
            words = [head if isinstance(head, str) else "", *args]
            found = (i - 1 for i in secretargs.found(words) if i)
            out.extend((name, index, "args", i) for i in found if credential_kind(args[i]) is None)
    return out


def _credentials(document: Any) -> Iterator[tuple[JsonPath, str, bool]]:
    """Each credential-shaped key or string of *document*: its path, its kind, and whether it is a key."""
    if isinstance(document, str) and (kind := credential_kind(document)) is not None:
        yield (), kind, False
    # Containers only on the stack; a leaf string's path is built only when it holds a credential.
    stack: list[tuple[Any, JsonPath]] = [(document, ())] if isinstance(document, dict | list) else []
    while stack:
        node, path = stack.pop()
        if len(path) > MAX_DEPTH:
            continue  # deeper than any document tierlock parses (a mapping handed to the library)
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, child in items:
            if isinstance(key, str) and (kind := credential_kind(key)) is not None:
                yield (*path, key), kind, True
            if isinstance(child, str):
                if (kind := credential_kind(child)) is not None:
                    yield (*path, key), kind, False
            elif isinstance(child, dict | list):
                stack.append((child, (*path, key)))
