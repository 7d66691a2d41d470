"""Credentials without a fixed prefix: private keys, HTTP authorization, base64 keys, keys after their names.

Part of the one linear-time search of :mod:`tierlock.secretshapes` (which
documents the rules every pattern here keeps: bounded starts, each run
measured once, no nested or overlapping unbounded quantifiers).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator

_B64 = "A-Za-z0-9+/"
Span = tuple[int, int, str]
_RUNS: dict[str, re.Pattern[str]] = {}


class LazyPattern:
    """A regular expression compiled at its first use: most runs print no text with a credential's cue, and
    compiling every pattern of the search at import cost each command a few milliseconds."""

    __slots__ = ("_compiled", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        self._compiled: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.source)
        return self._compiled

    def search(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled().search(text, pos, endpos)

    def match(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled().match(text, pos, endpos)

    def fullmatch(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled().fullmatch(text, pos, endpos)

    def finditer(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        return self.compiled().finditer(text, pos, endpos)


_KINDS = {"u": LazyPattern("[A-Z]"), "l": LazyPattern("[a-z]"), "d": LazyPattern("[0-9]")}


def run_of(cls: str) -> re.Pattern[str]:
    pattern = _RUNS.get(cls)
    if pattern is None:
        pattern = _RUNS[cls] = re.compile(f"[{cls}]*")
    return pattern


def run_end(run: re.Pattern[str], text: str, at: int) -> int:
    """Where the run of *run*'s class that starts at *at* ends (a ``[...]*`` pattern always matches)."""
    m = run.match(text, at)
    return m.end() if m else at


def mixed(tail: str, need: str) -> bool:
    return all(_KINDS[kind].search(tail) for kind in need)


_KEY_HEADER = LazyPattern(r"-{3,5} ?BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?(?: ?-{3,5})?|PuTTY-User-Key-File-\d")
_KEY_FOOTER = LazyPattern(r"-{3,5} ?END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)? ?-{3,5}|Private-MAC: ?[0-9a-fA-F]*")


def private_keys(text: str) -> Iterator[Span]:
    m = _KEY_HEADER.search(text)
    while m is not None:
        footer = _KEY_FOOTER.search(text, m.end())
        end = footer.end() if footer else len(text)
        yield m.start(), end, "private key"
        if footer is None:
            return
        m = _KEY_HEADER.search(text, end)


#: The start of a private key's DER encoding in base64, without the PEM lines around it (a fixed-length
#: pattern each): RSA PKCS#8 and PKCS#1, EC PKCS#8, Ed25519/X25519 PKCS#8. The literal parts are the cues.
DER_CUES = ("IBADANBgkqhkiG9w0BAQEFAASC", "IBAAK", "AgEAMBMGByqGSM49AgEG", "MC4CAQAwBQYDK2V")
_DER = LazyPattern(
    "MI[A-Za-z0-9+/]{4}(?:IBADANBgkqhkiG9w0BAQEFAASC|IBAAK)|MI[A-Za-z0-9+/]{2}AgEAMBMGByqGSM49AgEG|MC4CAQAwBQYDK2V"
)
_DER_BODY = _B64 + "=\\\\\r\n"  # base64 lines, joined by newlines or by ``\n`` as a JSON string writes them


def der_keys(text: str) -> Iterator[Span]:
    """A PEM body without its BEGIN/END lines (a service-account JSON's key pasted bare)."""
    i = 0
    while (m := _DER.search(text, i)) is not None:
        end = run_end(run_of(_DER_BODY), text, m.end())
        yield m.start(), end, "private key"
        i = end


#: A service-account JSON's ``"private_key": "…"`` member (also JSON-escaped inside another string).
_JSON_PRIVATE_KEY = LazyPattern(r'\\?"private_key\\?"[ \t]{0,8}:[ \t]{0,8}\\?"')


def json_private_keys(text: str) -> Iterator[Span]:
    for m in _JSON_PRIVATE_KEY.finditer(text):
        close = text.find('"', m.end())
        end = len(text) if close < 0 else close - (text[close - 1] == "\\")
        if end - m.end() >= 16:
            yield m.end(), end, "private key"


#: Keys and tokens without a shape of their own, found after their usual names (``DD_API_KEY=…``).
_NAMED = (
    (
        LazyPattern(r"(?i:(?:datadog|dd)[_-]?(?:api|app(?:lication)?)[_-]?key)[\"':= \t]{0,5}([A-Za-z0-9]{32,40})"),
        "Datadog API or application key",
    ),
    (
        LazyPattern(r"(?i:twilio[_-]?(?:auth[_-]?token|api[_-]?secret))[\"':= \t]{0,5}([A-Za-z0-9]{32})"),
        "Twilio auth token",
    ),
)


def named(text: str) -> Iterator[Span]:
    for pattern, kind in _NAMED:
        for m in pattern.finditer(text):
            if mixed(m.group(1), "d"):
                yield m.start(1), m.end(1), kind


_TOKEN68 = "A-Za-z0-9._~+/-"
_AUTH_HEADER = LazyPattern(r"(?i:authorization)[ \t]*:[ \t]*(?=[^\s])")
_BEARER = LazyPattern(f"(?i:bearer)[ \\t]+([{_TOKEN68}]*=*)")
_BASIC = LazyPattern(r"(?i:basic)[ \t]+([A-Za-z0-9+/]*=*)")
_COLON_HINT = LazyPattern("[O6opqr]")
_LINE_END = LazyPattern(r"[\r\n]")
#: What may close a quoted argument or a list around a header value.
_CLOSING = "'\"`,;)]}"
#: A header value: an optional scheme (``Basic``, ``Bearer``, ``token``), then the credentials.
_AUTH_VALUE = LazyPattern(r"(?:[A-Za-z][A-Za-z0-9-]{0,20}[ \t]+)?(\S+)")


def _looks_issued(token: str) -> bool:
    """Not a word: a digit, both capitals and small letters, or base64 padding (``Authorization: header
    handling`` is prose; ``Bearer $TOKEN`` names a variable the shell or the runner expands)."""
    return mixed(token, "d") or mixed(token, "ul") or token.endswith("=")


def _basic_credentials(token: str) -> bool:
    """Whether *token* is base64 of ``user:password``, also with characters glued after it (``…ZktCx``).

    Its base64 characters (the ``=`` after them set aside: ``…ZktC9===`` is padded wrongly, not less a
    credential), and their longest prefix of whole 4-character groups: base64 decodes group by group,
    so the glued characters change only the bytes after the credentials.
    """
    data = token.rstrip("=")
    if len(data) < 4 or not _COLON_HINT.search(data):  # base64 of a ":" holds one of these, whatever its place
        return False
    whole = data[: len(data) - len(data) % 4]
    return any(":" in _b64_prefix(candidate) for candidate in dict.fromkeys((data, whole)))


def authorization(text: str) -> Iterator[Span]:
    """``Authorization: …`` header values, ``Bearer <token>`` and ``Basic <base64 of user:password>``."""
    m = _AUTH_HEADER.search(text)
    while m is not None:
        stop = _LINE_END.search(text, m.end())
        end = stop.start() if stop else len(text)
        value = _AUTH_VALUE.match(text, m.end(), end)
        token = value.group(1).rstrip(_CLOSING) if value else ""  # ``-H 'Authorization: … =='``: not the quote
        if not token.startswith("$") and len(token) >= 8 and _looks_issued(token):
            yield m.start(), end, "HTTP Authorization header"
        m = _AUTH_HEADER.search(text, max(end, m.end()))
    for m in _BEARER.finditer(text):
        token = m.group(1)
        if len(token) >= 16 and any(c.isdigit() for c in token):
            yield m.start(), m.end(), "bearer token"
    for m in _BASIC.finditer(text):
        if _basic_credentials(m.group(1)):
            yield m.start(), m.end(), "HTTP Basic credentials"


def _b64_prefix(value: str) -> str:
    """The longest printable text that *value*, decoded from base64, starts with ("" when it is no base64:
    a length of 4n+1 among them, which no padding makes whole)."""
    import binascii  # (loaded for a candidate only: every printed line passes here)

    try:
        raw = binascii.a2b_base64(value + "=" * (-len(value) % 4), strict_mode=True)
    except binascii.Error:
        return ""
    decoded = raw.decode("utf-8", errors="replace")
    end = next((i for i, c in enumerate(decoded) if c == "\ufffd" or not c.isprintable()), len(decoded))
    return decoded[:end]


def _b64_text(value: str) -> str | None:
    """*value* decoded from base64 when it is base64 of printable text, else None."""
    if len(value) < 4:
        return None
    import binascii

    try:
        raw = binascii.a2b_base64(value + "=" * (-len(value) % 4), strict_mode=True)
        decoded = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    return decoded if decoded.isprintable() else None


_AWS_SECRET = LazyPattern(r"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
_AWS_SECRET_NAMED = LazyPattern(r"(?i:secret_?access_?key)[\"':= \t]{0,5}([A-Za-z0-9/+]{40})")
_WORDY = LazyPattern(r"[A-Za-z]+[0-9]*|[0-9]+")


def _aws_secrets(text: str) -> Iterator[Span]:
    """An AWS secret access key: 40 base64 characters that look random.

    Found when the 40 characters stand alone (no letter, digit, ``/`` or ``+`` on either side: glued
    to those, they cannot be told from any longer identifier), or whatever follows them when they come
    right after ``secret_access_key``. Not a commit hash (hex has no capitals), not base64 of ordinary
    text (it decodes to printable text), not a path (every ``/`` segment a word).
    """
    for m in _AWS_SECRET_NAMED.finditer(text):
        yield m.start(1), m.end(1), "AWS secret access key"
    for m in _AWS_SECRET.finditer(text):
        value = m.group()
        if not mixed(value, "uld"):
            continue
        if "/" in value and all(_WORDY.fullmatch(part) for part in value.split("/")):
            continue
        if _b64_text(value) is not None:
            continue
        yield m.start(), m.end(), "AWS secret access key"


#: 64 random bytes in base64 (88 characters, the last two ``==``), glued on the left or not.
_AZURE_KEY = LazyPattern(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{86,}==")
_DIGEST_NAMES = ("sha512-", "sha512=", "sha512:", "SHA512-", "SHA512=", "SHA512:")


def _azure_keys(text: str) -> Iterator[Span]:
    """An Azure storage account key standing alone: 86 random base64 characters and ``==``.

    Not an SSH public key (its blob starts with a length and ``ssh-…``), not a SHA-512 digest written as one
    (``sha512-…``, as npm and Subresource Integrity write them), not base64 of ordinary text.
    """
    for m in _AZURE_KEY.finditer(text):
        key = m.group()[-88:]
        if _ssh_blob(m.group()) or text.endswith(_DIGEST_NAMES, 0, m.start()):
            continue
        if mixed(key, "uld") and _b64_text(key) is None:
            yield m.start(), m.end(), "Azure storage account key"


def _ssh_blob(run: str) -> bool:
    """Whether base64 *run* starts like an SSH public key: a 4-byte length, then its type's name."""
    import binascii

    try:
        raw = binascii.a2b_base64(run[:12])
    except binascii.Error:
        return False
    return raw[:3] == b"\0\0\0" and all(32 < c < 127 for c in raw[4:9])


_B64_RUN_40 = re.compile(r"[A-Za-z0-9/+]{40}")  # met by every string of 40 or more
#: The shortest text :func:`standalone` finds a key in.
STANDALONE_MIN = 40


def standalone(text: str) -> Iterator[Span]:
    """The base64 keys with no literal cue: AWS secret access keys and Azure storage account keys."""
    if len(text) >= STANDALONE_MIN and _B64_RUN_40.search(text):
        yield from _aws_secrets(text)
        if len(text) >= 88 and "==" in text:
            yield from _azure_keys(text)
