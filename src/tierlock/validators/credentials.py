"""What a credential looks like: names that hold one (here), and values that are one.

The value shapes live in :mod:`tierlock.secretshapes` and are redacted by
:func:`tierlock.redaction.redact`, the one redaction of every output of tierlock
(re-exported here). Both lists are documented in docs/reference/runtime-config.md.
"""

from __future__ import annotations

import re

from tierlock.redaction import REDACTED, credential_kind, redact, spans
from tierlock.secretnames import WORDS
from tierlock.secretshapes import SHAPES, Shape

#: An env name containing one of these (case-insensitively, anywhere) is refused.
#: The first six are those of the specrails-core runtime config validator; the rest cannot be ordinary names either.
CREDENTIAL_WORDS = (*WORDS, "bearer")
_NAME_RE = re.compile("|".join(re.escape(w) for w in CREDENTIAL_WORDS), re.IGNORECASE)

#: Well-known variables that hold a password without saying "password" (whole names, in any case:
#: ``sshpass`` and ``npm_config__auth`` are the same variables to the tools that read them).
PASSWORD_VARIABLES = frozenset({"SSHPASS", "MYSQL_PWD", "REDISCLI_AUTH", "NPM_CONFIG__AUTH", "PGPASS", "LDAPPASS"})
#: Name endings that mean "password" (``DB_PASS``, ``MYSQL_PWD``, ``GH_PAT``); ``PWD`` and ``OLDPWD`` are not.
PASSWORD_SUFFIXES = ("_PASS", "_PWD", "_PAT")


def credential_name(name: str) -> str | None:
    """Why the env *name* holds a credential (``contains 'token'``, ...), or None."""
    m = _NAME_RE.search(name)
    if m:
        return f"contains {m.group().lower()!r}"
    upper = name.upper()
    if upper in PASSWORD_VARIABLES:
        return "is a well-known password variable"
    for suffix in PASSWORD_SUFFIXES:
        if upper.endswith(suffix):
            return f"ends in {suffix!r}, as password variables do"
    return None


__all__ = [
    "CREDENTIAL_WORDS",
    "PASSWORD_SUFFIXES",
    "PASSWORD_VARIABLES",
    "REDACTED",
    "SHAPES",
    "Shape",
    "credential_kind",
    "credential_name",
    "redact",
    "spans",
]
