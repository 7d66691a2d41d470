"""Credentials in URLs, masked: the one function every output path uses.

A URL's credentials are everything between ``scheme://`` and the LAST ``@``
of the URL's token (a run of characters up to whitespace or a quote): a
password may itself hold ``@``, ``/`` or ``:`` when a user writes it
unencoded, and no byte of it may reach a message, a log line, a receipt or a
JSON document. ``https://alice:p@ss/w:rd@index.example/simple`` becomes
``https://alice:****@index.example/simple``; a user-only URL (a token,
``https://TOKEN@host``) becomes ``https://****@host``.

Version-control URLs (``git+``, ``hg+``, ``svn+``, ``bzr+``) also use ``@``
for a revision (``git+https://github.com/org/repo@v1``): there the
credentials end at the last ``@`` that is followed by a host and a ``/``
(else at the last ``@`` before the first ``/``; else there are none) - a
VCS URL always names a repository path after its host. When in doubt, more is
masked, never less. ``file:///`` URLs have no credentials.
"""

from __future__ import annotations

import re

MASK = "****"

# (the patterns are compiled at their first use, through re's own cache: most text holds no URL with an ``@``)
#: ``scheme://`` and the token after it (up to whitespace, a quote or angle brackets).
_URL = r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<rest>[^\s'\"`<>]*)"
_VCS = ("git+", "hg+", "svn+", "bzr+")
#: A host (a name, an IPv4 address or a bracketed IPv6 one), an optional port, then the path's first ``/``.
_HOST_THEN_PATH = r"(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d+)?/"


def _split(rest: str, scheme: str = "") -> tuple[str, str] | None:
    """(userinfo, what follows it) of a URL's token after ``scheme://``, or None without credentials."""
    at = rest.rfind("@")
    if at < 0:
        return None
    lowered = scheme.lower()
    if lowered.endswith("file://") and rest.startswith("/"):
        return None  # ``file:///home/me@corp/x``: no authority, a path
    if lowered.startswith(_VCS):
        for match in reversed(list(re.finditer("@", rest))):
            if re.compile(_HOST_THEN_PATH).match(rest, match.end()):
                return rest[: match.start()], rest[match.end() :]
        head = re.split(r"[/?#]", rest, maxsplit=1)[0]
        if "@" not in head:
            return None  # every ``@`` is a revision
        at = head.rfind("@")
    return rest[:at], rest[at + 1 :]


def _mask(match: re.Match[str]) -> str:
    scheme, rest = match.group("scheme"), match.group("rest")
    parts = _split(rest, scheme)
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
    return re.sub(_URL, _mask, text)


def has_credentials(text: str) -> bool:
    """Whether some URL in *text* carries credentials (a password or a user-only token)."""
    if "://" not in text or "@" not in text:
        return False
    return any(_split(m.group("rest"), m.group("scheme")) is not None for m in re.finditer(_URL, text))


def has_password(text: str) -> bool:
    """Whether some URL in *text* carries ``user:password`` credentials."""
    if "://" not in text or "@" not in text:
        return False
    # ``user:password``, where the user certainly is one (no ``/``, ``?`` or ``#`` before the first ``:``:
    # ``https://host/path:x@y`` is a path that holds an ``@``, not credentials).
    return any(
        ":" in parts[0] and not any(c in parts[0].partition(":")[0] for c in "/?#")
        for m in re.finditer(_URL, text)
        if (parts := _split(m.group("rest"), m.group("scheme"))) is not None
    )


def mask_json(value: object) -> object:
    """A JSON-shaped *value* with :func:`mask_credentials` applied to every string in it (keys too)."""
    if isinstance(value, str):
        return mask_credentials(value)
    if isinstance(value, dict):
        return {mask_credentials(str(k)): mask_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [mask_json(v) for v in value]
    return value
