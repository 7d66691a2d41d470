"""The one redaction: every line tierlock prints and every JSON field it writes passes :func:`redact`.

A URL's credentials are masked as :mod:`tierlock.masking` masks them
(``https://alice:****@host``); every other credential-shaped part of the text
(the shapes of :mod:`tierlock.secretshapes`, listed in
docs/reference/runtime-config.md) becomes ``[redacted]``. The runtime config
validator reports the same shapes (RC014) through :func:`credential_kind`.

Only ``re`` and ``binascii`` are imported: the fast paths print through it.
"""

from __future__ import annotations

from tierlock.masking import MASK, has_password, mask_credentials
from tierlock.secretkeys import STANDALONE_MIN, Span
from tierlock.secretshapes import find, has_cue

REDACTED = "[redacted]"


def spans(text: str) -> list[Span]:
    """Every credential-shaped part of *text*: (start, end, kind), in text order; a part found inside
    another (a PEM body inside its BEGIN and END lines) is not listed again."""
    out: list[Span] = []
    for span in sorted(find(text), key=lambda s: (s[0], -s[1])):
        if not out or span[1] > out[-1][1]:  # spans are never empty: one past the last also ends after it
            out.append(span)
    return out


def credential_kind(value: str) -> str | None:
    """What kind of credential *value* holds (anywhere in it; the first detector's), or None."""
    first = next(find(value), None)
    if first is not None:
        return first[2]
    return "URL with a password" if has_password(value) else None


def redact(text: str) -> str:
    """*text* with URL credentials masked (``user:****``) and every other credential-shaped part ``[redacted]``."""
    if len(text) < STANDALONE_MIN and not has_cue(text):
        return text  # (no cue, no ``//``: no URL to mask, and only a standalone key, none this short; most strings)
    text = mask_credentials(text)
    found = spans(text)
    if not found:
        return text
    out: list[str] = []
    at = 0
    for start, end, _ in found:
        if start >= at:
            out.append(text[at:start])
            out.append(REDACTED)
        at = max(at, end)
    out.append(text[at:])
    return "".join(out)


def redact_json(value: object) -> object:
    """A JSON-shaped *value* with :func:`redact` applied to every string in it, keys too."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact(str(k)): redact_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_json(v) for v in value]
    return value


__all__ = ["MASK", "REDACTED", "credential_kind", "redact", "redact_json", "spans"]
