"""What a credential looks like in text, found anywhere in a string in one linear-time search.

Detection finds a shape *anywhere* inside a string, glued to other word
characters or not (``-ughp_…``, ``_ghp_…``, ``9AKIA…``): no pattern relies on a
word boundary. Every scan is linear in the length of the text: a shape is found
by a short, fixed-length start (a literal prefix, found with ``str.find`` or a
bounded pattern), and its tail is measured once as a run of one character
class; a rejected candidate never makes the scan go back over the run it
measured. There is no pattern with nested or overlapping unbounded quantifiers.

The shapes are documented in the credential table of
docs/reference/runtime-config.md; :mod:`tierlock.redaction` redacts them.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Iterator

from tierlock.masking import MASK

_ALNUM = "A-Za-z0-9"
_URLSAFE = "A-Za-z0-9_-"
_B64 = "A-Za-z0-9+/"
_HEX = "0-9a-f"


class Shape:
    """A credential that starts with a short fixed spelling and goes on with a run of one character class.

    *start*: a pattern of bounded length (no unbounded quantifier) where the credential starts.
    *tail*: the character class (without brackets) of what follows the start, at least *min_tail* long.
    *fixed*: the credential is exactly *min_tail* characters long after the start (longer runs are cut).
    *cues*: literal spellings one of which a text must contain to hold this shape (a fast test first).
    *mixed*: character kinds the tail must all contain (``u`` upper, ``l`` lower, ``d`` digit): for
    starts that are also ordinary word endings (``task-`` holds ``sk-``).
    *nocase*: the start and the cues are spelled in any case (``AccountKey=``, ``accountkey=``).
    """

    __slots__ = ("cues", "fixed", "kind", "min_tail", "mixed", "nocase", "start", "tail")

    def __init__(
        self,
        kind: str,
        start: str,
        tail: str,
        min_tail: int,
        *,
        fixed: bool = False,
        cues: tuple[str, ...] = (),
        mixed: str = "",
        nocase: bool = False,
    ) -> None:
        self.kind = kind
        self.start = start
        self.tail = tail
        self.min_tail = min_tail
        self.fixed = fixed
        self.cues = cues
        self.mixed = mixed
        self.nocase = nocase

    def __repr__(self) -> str:
        return f"Shape({self.kind!r}, {self.start!r})"


#: Prefix shapes, documented in the credential table of docs/reference/runtime-config.md.
SHAPES: tuple[Shape, ...] = (
    Shape("GitHub token", r"gh[pousr]_", _ALNUM, 20, cues=("gh",)),
    Shape("GitHub fine-grained token", r"github_pat_", _ALNUM + "_", 20, cues=("github_pat_",)),
    Shape("AWS access key id", r"A(?:KI|SI)A", "A-Z0-9", 16, fixed=True, cues=("AKIA", "ASIA")),
    Shape("Slack token", r"xox[A-Za-z]-|xapp-", _ALNUM + "-", 8, cues=("xox", "xapp-"), mixed="d"),
    Shape("GitLab token", r"gl(?:pat|dt|ptt|rt)-", _URLSAFE, 20, cues=("gl",)),
    Shape("npm token", r"npm_", _ALNUM, 36, fixed=True, cues=("npm_",)),
    Shape("PyPI token", r"pypi-AgE", _URLSAFE, 20, cues=("pypi-AgE",)),
    Shape("PyPI token", r"pypi-", _URLSAFE, 50, cues=("pypi-",), mixed="uld"),
    Shape("Google API key", r"AIza", _URLSAFE, 35, fixed=True, cues=("AIza",)),
    Shape("Stripe secret key", r"[sr]k_(?:live|test)_", _ALNUM, 16, cues=("k_live_", "k_test_")),
    Shape("OpenAI or Anthropic key", r"sk-(?:ant-|proj-)?", _URLSAFE, 20, cues=("sk-",), mixed="uld"),
    Shape("Hugging Face token", r"hf_", _ALNUM, 30, cues=("hf_",), mixed="ul"),
    Shape("SendGrid API key", r"SG\.[A-Za-z0-9_-]{22}\.", _URLSAFE, 43, fixed=True, cues=("SG.",)),
    Shape("Twilio API key", r"SK", _HEX, 32, fixed=True, cues=("SK",), mixed="ld"),
    Shape("Twilio account id", r"AC", _HEX, 32, fixed=True, cues=("AC",), mixed="ld"),
    Shape(
        "Azure account or shared access key",
        r"(?i:accountkey|sharedaccesskey)=",
        _B64 + "=",
        20,
        cues=("AccountKey=", "SharedAccessKey="),
        nocase=True,
    ),
    Shape("Azure shared access signature", r"sig=", _ALNUM + "%+/=", 40, cues=("sig=",), mixed="uld"),
)


def _start(shape: Shape) -> re.Pattern[str]:
    return re.compile(f"(?:{shape.start})(?P<tail>[{shape.tail}]{{{shape.min_tail}}})")


_STARTS = [(s, _start(s), tuple(c.lower() for c in s.cues) if s.nocase else s.cues) for s in SHAPES]
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
    lowered = ""
    for shape, start, cues in _STARTS:
        if shape.nocase:
            lowered = lowered or text.lower()
        if not any(cue in (lowered if shape.nocase else text) for cue in cues):
            continue
        if shape.fixed:
            for fixed in start.finditer(text):
                if not shape.mixed or _mixed(fixed.group("tail"), shape.mixed):
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
        password = m.group(1).partition(":")[2]
        if password and password != MASK:  # ``user:****``: masked already
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


#: The start of a private key's DER encoding in base64, without the PEM lines around it (a fixed-length
#: pattern each): RSA PKCS#8 and PKCS#1, EC PKCS#8, Ed25519/X25519 PKCS#8. The literal parts are the cues.
_DER_CUES = ("IBADANBgkqhkiG9w0BAQEFAASC", "IBAAK", "AgEAMBMGByqGSM49AgEG", "MC4CAQAwBQYDK2V")
_DER = re.compile(
    "MI[A-Za-z0-9+/]{4}(?:IBADANBgkqhkiG9w0BAQEFAASC|IBAAK)|MI[A-Za-z0-9+/]{2}AgEAMBMGByqGSM49AgEG|MC4CAQAwBQYDK2V"
)
_DER_BODY = _run(_B64 + "=\\\\\r\n")  # base64 lines, joined by newlines or by ``\n`` as a JSON string writes them


def _der_keys(text: str) -> Iterator[Span]:
    """A PEM body without its BEGIN/END lines (a service-account JSON's key pasted bare)."""
    i = 0
    while (m := _DER.search(text, i)) is not None:
        end = _end(_DER_BODY, text, m.end())
        yield m.start(), end, "private key"
        i = end


#: A service-account JSON's ``"private_key": "…"`` member (also JSON-escaped inside another string).
_JSON_PRIVATE_KEY = re.compile(r'\\?"private_key\\?"[ \t]{0,8}:[ \t]{0,8}\\?"')


def _json_private_keys(text: str) -> Iterator[Span]:
    for m in _JSON_PRIVATE_KEY.finditer(text):
        close = text.find('"', m.end())
        end = len(text) if close < 0 else close - (text[close - 1] == "\\")
        if end - m.end() >= 16:
            yield m.end(), end, "private key"


#: Keys and tokens without a shape of their own, found after their usual names (``DD_API_KEY=…``).
_NAMED = (
    (
        re.compile(r"(?i:(?:datadog|dd)[_-]?(?:api|app(?:lication)?)[_-]?key)[\"':= \t]{0,5}([A-Za-z0-9]{32,40})"),
        "Datadog API or application key",
    ),
    (
        re.compile(r"(?i:twilio[_-]?(?:auth[_-]?token|api[_-]?secret))[\"':= \t]{0,5}([A-Za-z0-9]{32})"),
        "Twilio auth token",
    ),
)


def _named(text: str) -> Iterator[Span]:
    for pattern, kind in _NAMED:
        for m in pattern.finditer(text):
            if _mixed(m.group(1), "d"):
                yield m.start(1), m.end(1), kind


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


def _basic_credentials(token: str) -> bool:
    """Whether *token* is base64 of ``user:password``, also with characters glued after it (``…ZktCx``).

    The token as written, and its longest prefix of whole 4-character groups: base64 decodes group by
    group, so the glued characters change only the bytes after the credentials.
    """
    if len(token) < 4 or not _COLON_HINT.search(token):  # base64 of a ':' holds one of these, whatever its place
        return False
    whole = token[: len(token) - len(token) % 4]
    return any(":" in _b64_prefix(candidate) for candidate in dict.fromkeys((token, whole)))


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
        if _basic_credentials(m.group(1)):
            yield m.start(), m.end(), "HTTP Basic credentials"


def _b64_prefix(value: str) -> str:
    """The longest printable text that *value*, decoded from base64, starts with ("" when it is no base64)."""
    if len(value) % 4 == 1:
        return ""
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


#: 64 random bytes in base64 (88 characters, the last two ``==``), glued on the left or not.
_AZURE_KEY = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{86,}==")
_DIGEST_NAMES = ("sha512-", "sha512=", "sha512:")


def _azure_keys(text: str) -> Iterator[Span]:
    """An Azure storage account key standing alone: 86 random base64 characters and ``==``.

    Not an SSH public key (its blob starts with a length and ``ssh-…``), not a SHA-512 digest written as one
    (``sha512-…``, as npm and Subresource Integrity write them), not base64 of ordinary text.
    """
    for m in _AZURE_KEY.finditer(text):
        key = m.group()[-88:]
        if _ssh_blob(m.group()) or text[max(0, m.start() - 7) : m.start()].lower() in _DIGEST_NAMES:
            continue
        if _mixed(key, "uld") and _b64_text(key) is None:
            yield m.start(), m.end(), "Azure storage account key"


def _ssh_blob(run: str) -> bool:
    """Whether base64 *run* starts like an SSH public key: a 4-byte length, then its type's name."""
    try:
        raw = binascii.a2b_base64(run[:12])
    except binascii.Error:
        return False
    return raw[:3] == b"\0\0\0" and all(32 < c < 127 for c in raw[4:9])


_B64_RUN_40 = re.compile(r"[A-Za-z0-9/+]{40}")
#: Every detector's literal cue but the standalone base64 keys', in one pattern whose branches all start with
#: a literal character or a short class (the regular expression engine then skips to candidate positions in C).
_CUES = re.compile(
    "|".join(re.escape(cue) for shape in SHAPES if not shape.nocase for cue in shape.cues)
    + "|(?i:"
    + "|".join(re.escape(cue) for shape in SHAPES if shape.nocase for cue in shape.cues)
    + ")|eyJ|//|BEGIN|PuTTY|[Bb][Ee][Aa][Rr][Ee][Rr]|[Bb][Aa][Ss][Ii][Cc]"
    + "|[Aa][Uu][Tt][Hh][Oo][Rr][Ii][Zz][Aa][Tt][Ii][Oo][Nn]|private_key|"
    + "|".join(_DER_CUES)
    + "|(?i:datadog|dd[_-]?ap|twilio)"
)


def _standalone(text: str) -> Iterator[Span]:
    """The base64 keys with no literal cue: AWS secret access keys and Azure storage account keys."""
    if len(text) >= 40 and _B64_RUN_40.search(text):
        yield from _aws_secrets(text)
        if len(text) >= 88 and "==" in text:
            yield from _azure_keys(text)


def find(text: str) -> Iterator[Span]:
    """Credential-shaped parts of *text*, detector by detector (not in text order).

    Each detector runs only when the text holds its literal cue (``in`` is a fast
    substring search), so an ordinary string costs a handful of substring tests.
    """
    if _CUES.search(text) is None:  # most strings: one search, then only the standalone base64 keys are left
        yield from _standalone(text)
        return
    yield from _prefixed(text)
    if "eyJ" in text:
        yield from _jwts(text)
    if "//" in text:
        yield from _url_passwords(text)
    if "BEGIN" in text or "PuTTY" in text:
        yield from _private_keys(text)
    if any(cue in text for cue in _DER_CUES):
        yield from _der_keys(text)
    if "private_key" in text:
        yield from _json_private_keys(text)
    lowered = text.lower()
    if "authorization" in lowered or "bearer" in lowered or "basic" in lowered:
        yield from _authorization(text)
    if "datadog" in lowered or "dd" in lowered or "twilio" in lowered:
        yield from _named(text)
    yield from _standalone(text)
