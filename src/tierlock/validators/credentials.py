"""What a credential looks like: names that hold one, and values that are one.

Both lists are documented in docs/reference/runtime-config.md. :func:`redact`
is the last line of defence of every report renderer: whatever a message was
built from, a credential-shaped string never reaches the output.

Detection finds a shape *anywhere* inside a string, glued to other word
characters or not (``-ughp_…``, ``_ghp_…``, ``9AKIA…``): no pattern relies on a
word boundary. Every scan is linear in the length of the text: a shape is found
by a short, fixed-length start (a literal prefix, found with ``str.find`` or a
bounded pattern), and its tail is measured once as a run of one character
class; a rejected candidate never makes the scan go back over the run it
measured. There is no pattern with nested or overlapping unbounded quantifiers.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Iterator
from dataclasses import dataclass

#: An env name containing one of these (case-insensitively, anywhere) is refused.
#: The first six are those of the specrails-core runtime config validator; the rest cannot be ordinary names either.
CREDENTIAL_WORDS = (
    "token",
    "secret",
    "password",
    "api_key",
    "apikey",
    "credential",
    "passwd",
    "passphrase",
    "private_key",
    "privatekey",
    "access_key",
    "accesskey",
    "auth_key",
    "authkey",
    "signing_key",
    "client_key",
    "session_key",
    "bearer",
)
_NAME_RE = re.compile("|".join(re.escape(w) for w in CREDENTIAL_WORDS), re.IGNORECASE)

#: Well-known variables that hold a password without saying "password" (whole names, case-insensitive).
PASSWORD_VARIABLES = frozenset({"SSHPASS", "MYSQL_PWD", "REDISCLI_AUTH", "NPM_CONFIG__AUTH", "PGPASS", "LDAPPASS"})
#: Name endings that mean "password" (``DB_PASS``, ``MYSQL_PWD``, ``GH_PAT``); ``PWD`` and ``OLDPWD`` are not.
PASSWORD_SUFFIXES = ("_PASS", "_PWD", "_PAT")

REDACTED = "[redacted]"

_ALNUM = "A-Za-z0-9"
_URLSAFE = "A-Za-z0-9_-"


@dataclass(frozen=True)
class Shape:
    """A credential that starts with a short fixed spelling and goes on with a run of one character class."""

    kind: str
    start: str
    """A pattern of bounded length (no unbounded quantifier) where the credential starts."""
    tail: str
    """The character class (without brackets) of what follows the start."""
    min_tail: int
    fixed: bool = False
    """The credential is exactly *min_tail* characters long after the start (longer runs are cut)."""
    cues: tuple[str, ...] = ()
    """Literal spellings one of which a text must contain to hold this shape (a fast test before any pattern)."""
    mixed: str = ""
    """Character kinds the tail must all contain (``u`` upper, ``l`` lower, ``d`` digit): for starts
    that are also ordinary word endings (``task-`` holds ``sk-``)."""


#: Prefix shapes, documented in the credential table of docs/reference/runtime-config.md.
SHAPES: tuple[Shape, ...] = (
    Shape("GitHub token", r"gh[pousr]_", _ALNUM, 20, cues=("gh",)),
    Shape("GitHub fine-grained token", r"github_pat_", _ALNUM + "_", 20, cues=("github_pat_",)),
    Shape("AWS access key id", r"A(?:KI|SI)A", "A-Z0-9", 16, fixed=True, cues=("AKIA", "ASIA")),
    Shape("Slack token", r"xox[A-Za-z]-|xapp-", _ALNUM + "-", 8, cues=("xox", "xapp-"), mixed="d"),
    Shape("GitLab token", r"gl(?:pat|dt|ptt|rt)-", _URLSAFE, 20, cues=("gl",)),
    Shape("npm token", r"npm_", _ALNUM, 36, fixed=True, cues=("npm_",)),
    Shape("PyPI token", r"pypi-AgE", _URLSAFE, 20, cues=("pypi-AgE",)),
    Shape("Google API key", r"AIza", _URLSAFE, 35, fixed=True, cues=("AIza",)),
    Shape("Stripe secret key", r"[sr]k_(?:live|test)_", _ALNUM, 16, cues=("k_live_", "k_test_")),
    Shape("OpenAI or Anthropic key", r"sk-(?:ant-|proj-)?", _URLSAFE, 20, cues=("sk-",), mixed="uld"),
    Shape("Hugging Face token", r"hf_", _ALNUM, 30, cues=("hf_",), mixed="ul"),
)

_STARTS = [(s, re.compile(f"(?:{s.start})(?P<tail>[{s.tail}]{{{s.min_tail}}})")) for s in SHAPES]
_RUNS: dict[str, re.Pattern[str]] = {}
_KINDS = {"u": re.compile("[A-Z]"), "l": re.compile("[a-z]"), "d": re.compile("[0-9]")}


def _run(cls: str) -> re.Pattern[str]:
    pattern = _RUNS.get(cls)
    if pattern is None:
        pattern = _RUNS[cls] = re.compile(f"[{cls}]*")
    return pattern


def _end(run: re.Pattern[str], text: str, at: int) -> int:
    """Where the run of *run*'s class that starts at *at* ends (a ``[...]*`` pattern always matches)."""
    m = run.match(text, at)
    return m.end() if m else at


def _mixed(tail: str, need: str) -> bool:
    return all(_KINDS[kind].search(tail) for kind in need)


Span = tuple[int, int, str]


def _prefixed(text: str) -> Iterator[Span]:
    for shape, start in _STARTS:
        if not any(cue in text for cue in shape.cues):
            continue
        if shape.fixed:
            for fixed in start.finditer(text):
                yield fixed.start(), fixed.end(), shape.kind
            continue
        run = _run(shape.tail)
        i = 0
        while (m := start.search(text, i)) is not None:
            p, t = m.start(), m.start("tail")
            end = _end(run, text, m.end())
            if not shape.mixed or _mixed(text[t:end], shape.mixed):
                yield p, end, shape.kind
                i = end
            else:
                # A later start inside the measured run has a shorter tail of the same class: it fails too.
                i = max(p + 1, end - (t - p) + 1)


_B64URL = _run(_URLSAFE)


def _jwts(text: str) -> Iterator[Span]:
    i = 0
    while (p := text.find("eyJ", i)) >= 0:
        first = _end(_B64URL, text, p + 3)
        ok = first - p >= 11 and text.startswith(".eyJ", first)
        if ok:
            second = _end(_B64URL, text, first + 4)
            ok = second - first - 1 >= 11 and text.startswith(".", second)
            if ok:
                end = _end(_B64URL, text, second + 1)
                yield p, end, "JSON Web Token"
                i = end
                continue
        i = max(p + 1, first - 2)


_AUTHORITY = re.compile(r"//([^/?#\s:]*:[^/?#\s]*)@")


def _url_passwords(text: str) -> Iterator[Span]:
    """``//user:password@host`` with or without a scheme; the user part may hold ``@``."""
    for m in _AUTHORITY.finditer(text):  # the user part ends at the last '@' of the authority
        if not m.group(1).endswith(":"):
            yield m.start(1), m.end(1), "URL with a password"


_KEY_HEADER = re.compile(r"-{3,5} ?BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?(?: ?-{3,5})?|PuTTY-User-Key-File-\d")
_KEY_FOOTER = re.compile(r"-{3,5} ?END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)? ?-{3,5}|Private-MAC: ?[0-9a-fA-F]*")


def _private_keys(text: str) -> Iterator[Span]:
    m = _KEY_HEADER.search(text)
    while m is not None:
        footer = _KEY_FOOTER.search(text, m.end())
        end = footer.end() if footer else len(text)
        yield m.start(), end, "private key"
        if footer is None:
            return
        m = _KEY_HEADER.search(text, end)


_TOKEN68 = "A-Za-z0-9._~+/-"
_AUTH_HEADER = re.compile(r"(?i:authorization)[ \t]*:[ \t]*(?=[^\s])")
_BEARER = re.compile(f"(?i:bearer)[ \\t]+([{_TOKEN68}]*=*)")
_BASIC = re.compile(r"(?i:basic)[ \t]+([A-Za-z0-9+/]*=*)")
_COLON_HINT = re.compile("[O6opqr]")
_LINE_END = re.compile(r"[\r\n]")
#: A header value: an optional scheme (``Basic``, ``Bearer``, ``token``), then the credentials.
_AUTH_VALUE = re.compile(r"(?:[A-Za-z][A-Za-z0-9-]{0,20}[ \t]+)?(\S+)")


def _looks_issued(token: str) -> bool:
    """Not a word: a digit, both capitals and small letters, or base64 padding (``Authorization: header
    handling`` is prose; ``Bearer $TOKEN`` names a variable the shell or the runner expands)."""
    return _mixed(token, "d") or _mixed(token, "ul") or token.endswith("=")


def _authorization(text: str) -> Iterator[Span]:
    """``Authorization: …`` header values, ``Bearer <token>`` and ``Basic <base64 of user:password>``."""
    i = 0
    while (m := _AUTH_HEADER.search(text, i)) is not None:
        stop = _LINE_END.search(text, m.end())
        end = stop.start() if stop else len(text)
        value = _AUTH_VALUE.match(text, m.end(), end)
        token = value.group(1) if value else ""
        if not token.startswith("$") and len(token) >= 8 and _looks_issued(token):
            yield m.start(), end, "HTTP Authorization header"
        i = max(end, m.end())
    for m in _BEARER.finditer(text):
        token = m.group(1)
        if len(token) >= 16 and any(c.isdigit() for c in token):
            yield m.start(), m.end(), "bearer token"
    for m in _BASIC.finditer(text):
        token = m.group(1)
        # base64 of a ':' holds one of these characters, whatever its alignment
        if len(token) % 4 != 1 and _COLON_HINT.search(token) and ":" in (_b64_text(token) or ""):
            yield m.start(), m.end(), "HTTP Basic credentials"


def _b64_text(value: str) -> str | None:
    """*value* decoded from base64 when it is base64 of printable text, else None."""
    if len(value) < 4:
        return None
    try:
        raw = binascii.a2b_base64(value + "=" * (-len(value) % 4), strict_mode=True)
        decoded = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    return decoded if decoded.isprintable() else None


_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
_AWS_SECRET_NAMED = re.compile(r"(?i:secret_?access_?key)[\"':= \t]{0,5}([A-Za-z0-9/+]{40})")
_WORDY = re.compile(r"[A-Za-z]+[0-9]*|[0-9]+")


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
        if not _mixed(value, "uld"):
            continue
        if "/" in value and all(_WORDY.fullmatch(part) for part in value.split("/")):
            continue
        if _b64_text(value) is not None:
            continue
        yield m.start(), m.end(), "AWS secret access key"


_B64_RUN_40 = re.compile(r"[A-Za-z0-9/+]{40}")
#: Every detector's literal cue but the AWS secret key's, in one pattern whose branches all start with a
#: literal character (the regular expression engine then skips to candidate positions in C).
_CUES = re.compile(
    "|".join(re.escape(cue) for shape in SHAPES for cue in shape.cues)
    + "|eyJ|//|BEGIN|PuTTY|[Bb][Ee][Aa][Rr][Ee][Rr]|[Bb][Aa][Ss][Ii][Cc]"
    + "|[Aa][Uu][Tt][Hh][Oo][Rr][Ii][Zz][Aa][Tt][Ii][Oo][Nn]"
)


def _find(text: str) -> Iterator[Span]:
    """Credential-shaped parts of *text*, detector by detector (not in text order).

    Each detector runs only when the text holds its literal cue (``in`` is a fast
    substring search), so an ordinary string costs a handful of substring tests.
    """
    if _CUES.search(text) is None:  # most strings: one search, then only the AWS secret key shape is left
        if len(text) >= 40 and _B64_RUN_40.search(text):
            yield from _aws_secrets(text)
        return
    yield from _prefixed(text)
    if "eyJ" in text:
        yield from _jwts(text)
    if "//" in text:
        yield from _url_passwords(text)
    if "BEGIN" in text or "PuTTY" in text:
        yield from _private_keys(text)
    lowered = text.lower()
    if "authorization" in lowered or "bearer" in lowered or "basic" in lowered:
        yield from _authorization(text)
    if len(text) >= 40 and _B64_RUN_40.search(text):
        yield from _aws_secrets(text)


def spans(text: str) -> list[Span]:
    """Every credential-shaped part of *text*: (start, end, kind), in text order."""
    return sorted(_find(text))


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


def credential_kind(value: str) -> str | None:
    """What kind of credential *value* holds (anywhere in it; the first detector's), or None."""
    first = next(_find(value), None)
    if first is not None:
        return first[2]
    from tierlock.masking import has_password  # the URL rule every output of tierlock masks with

    return "URL with a password" if has_password(value) else None


def redact(text: str) -> str:
    """*text* with every credential-shaped part replaced by ``[redacted]``."""
    from tierlock.masking import has_password, mask_credentials

    found = spans(text)
    if found:
        out: list[str] = []
        at = 0
        for start, end, _ in found:
            if start >= at:
                out.append(text[at:start])
                out.append(REDACTED)
            at = max(at, end)
        out.append(text[at:])
        text = "".join(out)
    # A URL password written in a way no shape above takes (``@``, ``/``, ``:`` inside it): masked as every
    # output of tierlock masks it.
    return mask_credentials(text) if has_password(text) else text
