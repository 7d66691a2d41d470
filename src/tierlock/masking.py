"""Credentials in URLs, masked: the one function every output path uses.

A URL's credentials are everything between ``scheme://`` and the LAST ``@``
of the URL's token (a run of characters up to whitespace or a quote): a
password may itself hold ``@``, ``/`` or ``:`` when a user writes it
unencoded, and no byte of it may reach a message, a log line, a receipt or a
JSON document. ``https://alice:p@ss/w:rd@index.example/simple`` becomes
``https://alice:****@index.example/simple``; a user-only URL (a token,
``https://TOKEN@host``) becomes ``https://****@host``.

An ``@`` that follows a plain host name (``git+https://github.com/org/repo@v1``:
a revision, not credentials) is kept: when the part after ``scheme://`` up to
the first ``/``, ``?`` or ``#`` holds no ``@`` and no ``:`` and is a dotted
host name or ``localhost``, the URL carries no credentials. Everything else
with an ``@`` is masked up to its last ``@``: when in doubt, mask.
"""

from __future__ import annotations

import re

MASK = "****"

#: ``scheme://`` and the token after it (up to whitespace, a quote or angle brackets).
_URL = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<rest>[^\s'\"`<>]*)")
_HOST = re.compile(r"(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+|localhost)")


def _split(rest: str) -> tuple[str, str] | None:
    """(userinfo, what follows the last ``@``) of a URL's token after ``scheme://``, or None without credentials."""
    at = rest.rfind("@")
    if at < 0:
        return None
    head = re.split(r"[/?#]", rest, maxsplit=1)[0]
    if "@" not in head and ":" not in head and _HOST.fullmatch(head):
        return None  # an ``@`` in the path (a VCS revision), after a plain host
    return rest[:at], rest[at + 1 :]


def _mask(match: re.Match[str]) -> str:
    scheme, rest = match.group("scheme"), match.group("rest")
    parts = _split(rest)
    if parts is None:
        return match.group(0)
    userinfo, after = parts
    user, colon, _password = userinfo.partition(":")
    # The user name stays readable only when it certainly is one (no ``@`` or ``/`` before the first ``:``).
    masked = f"{user}:{MASK}" if colon and not any(c in user for c in "@/?#") else MASK
    return f"{scheme}{masked}@{after}"


def mask_credentials(text: str) -> str:
    """*text* with the credentials of every URL in it masked (see the module docstring)."""
    if "://" not in text or "@" not in text:
        return text
    return _URL.sub(_mask, text)


def has_credentials(text: str) -> bool:
    """Whether some URL in *text* carries credentials (a password or a user-only token)."""
    if "://" not in text or "@" not in text:
        return False
    return any(_split(m.group("rest")) is not None for m in _URL.finditer(text))


def has_password(text: str) -> bool:
    """Whether some URL in *text* carries ``user:password`` credentials."""
    if "://" not in text or "@" not in text:
        return False
    return any(":" in parts[0] for m in _URL.finditer(text) if (parts := _split(m.group("rest"))) is not None)


def mask_json(value: object) -> object:
    """A JSON-shaped *value* with :func:`mask_credentials` applied to every string in it (keys too)."""
    if isinstance(value, str):
        return mask_credentials(value)
    if isinstance(value, dict):
        return {mask_credentials(str(k)): mask_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [mask_json(v) for v in value]
    return value
