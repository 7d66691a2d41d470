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

import functools
import re
from collections.abc import Iterator

from tierlock.masking import MASK
from tierlock.secretkeys import (
    DER_CUES,
    LazyPattern,
    Span,
    authorization,
    der_keys,
    json_private_keys,
    mixed,
    named,
    private_keys,
    run_end,
    run_of,
    standalone,
)
from tierlock.secretnames import CUES as _NAME_CUES
from tierlock.secretnames import assigned

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
    Shape("GitHub token", r"gh[pousr]_", _ALNUM, 20, cues=("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    Shape("GitHub fine-grained token", r"github_pat_", _ALNUM + "_", 20, cues=("github_pat_",)),
    Shape("AWS access key id", r"A(?:KI|SI)A", "A-Z0-9", 16, fixed=True, cues=("AKIA", "ASIA")),
    Shape("Slack token", r"xox[A-Za-z]-|xapp-", _ALNUM + "-", 8, cues=("xox", "xapp-"), mixed="d"),
    Shape("GitLab token", r"gl(?:pat|dt|ptt|rt)-", _URLSAFE, 20, cues=("glpat-", "gldt-", "glptt-", "glrt-")),
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


@functools.cache
def _starts() -> list[tuple[Shape, re.Pattern[str], tuple[str, ...]]]:
    """Each shape's start pattern, compiled when a text first holds a cue (most runs print none)."""
    return [(s, _start(s), tuple(c.lower() for c in s.cues) if s.nocase else s.cues) for s in SHAPES]


def _prefixed(text: str) -> Iterator[Span]:
    lowered = ""
    for shape, start, cues in _starts():
        if shape.nocase:
            lowered = lowered or text.lower()
        if not any(cue in (lowered if shape.nocase else text) for cue in cues):
            continue
        if shape.fixed:
            for fixed in start.finditer(text):
                if not shape.mixed or mixed(fixed.group("tail"), shape.mixed):
                    yield fixed.start(), fixed.end(), shape.kind
            continue
        run = run_of(shape.tail)
        i = 0
        while (m := start.search(text, i)) is not None:
            p, t = m.start(), m.start("tail")
            end = run_end(run, text, m.end())
            if not shape.mixed or mixed(text[t:end], shape.mixed):
                yield p, end, shape.kind
                i = end
            else:
                # A later start inside the measured run has a shorter tail of the same class: it fails too.
                i = max(p + 1, end - (t - p) + 1)


def _jwts(text: str) -> Iterator[Span]:
    b64url = run_of(_URLSAFE)
    i = 0
    while (p := text.find("eyJ", i)) >= 0:
        first = run_end(b64url, text, p + 3)
        ok = first - p >= 11 and text.startswith(".eyJ", first)
        if ok:
            second = run_end(b64url, text, first + 4)
            ok = second - first - 1 >= 11 and text.startswith(".", second)
            if ok:
                end = run_end(b64url, text, second + 1)
                yield p, end, "JSON Web Token"
                i = end
                continue
        i = max(p + 1, first - 2)


_AUTHORITY = LazyPattern(r"//([^/?#\s:]*:[^/?#\s]*)@")


def _url_passwords(text: str) -> Iterator[Span]:
    """``//user:password@host`` with or without a scheme; the user part may hold ``@``."""
    for m in _AUTHORITY.finditer(text):  # the user part ends at the last '@' of the authority
        password = m.group(1).partition(":")[2]
        if password and password != MASK:  # ``user:****``: masked already
            yield m.start(1), m.end(1), "URL with a password"


#: Every detector's literal cue but the standalone base64 keys', in one pattern whose branches all start with
#: a literal character or a short class (the regular expression engine then skips to candidate positions in C).
#: Compiled at its first use (:func:`has_cue`): half a millisecond, more than a short output's lines cost with
#: the substring tests below.
_CUES = LazyPattern(
    "|".join(re.escape(cue) for shape in SHAPES if not shape.nocase for cue in shape.cues)
    + "|(?i:"
    + "|".join(re.escape(cue) for shape in SHAPES if shape.nocase for cue in shape.cues)
    + ")|eyJ|//|BEGIN|PuTTY|[Bb][Ee][Aa][Rr][Ee][Rr]|[Bb][Aa][Ss][Ii][Cc]"
    + "|[Aa][Uu][Tt][Hh][Oo][Rr][Ii][Zz][Aa][Tt][Ii][Oo][Nn]|private_key|"
    + "|".join(DER_CUES)
    + "|(?i:datadog|dd[_-]?ap|twilio)"
    + "|(?i:"
    + "|".join(re.escape(cue) for cue in _NAME_CUES)
    + ")"
)
#: :data:`_CUES` as substrings of an ASCII text: its case-sensitive branches, then (in the lowered text) the
#: others. On ASCII text a case-insensitive branch matches exactly where its lowered spelling is found.
_CASED = (
    *(cue for shape in SHAPES if not shape.nocase for cue in shape.cues),
    *("eyJ", "//", "BEGIN", "PuTTY", "private_key", *DER_CUES),
)
_UNCASED = (
    *(cue.lower() for shape in SHAPES if shape.nocase for cue in shape.cues),
    *("bearer", "basic", "authorization", "datadog", "ddap", "dd_ap", "dd-ap", "twilio"),
    *_NAME_CUES,
)


#: The characters beyond ASCII that a case-insensitive branch of :data:`_CUES` matches as an ASCII letter, or whose
#: lower case holds one (U+0130, U+0131, U+017F, U+212A: every one, checked over all of Unicode by the tests).
_FOLDING = ("\u0130", "\u0131", "\u017f", "\u212a")


def has_cue(text: str) -> bool:
    """Whether :data:`_CUES` is found in *text*: by substring tests when it holds none of :data:`_FOLDING` (each a
    search in C: on a long output about 4x faster than the pattern, whose case-insensitive branches give it no
    first characters to skip to; an ASCII run of the lowered text is the lowered run of the text), else by the
    pattern (compiled then: those letters need its case folding)."""
    # (``any(map(text.__contains__, ...))``: the same tests, iterated in C - every printed string is asked)
    if text.isascii() or not any(map(text.__contains__, _FOLDING)):
        if any(map(text.__contains__, _CASED)):
            return True
        return any(map(text.lower().__contains__, _UNCASED))
    return _CUES.search(text) is not None


def find(text: str) -> Iterator[Span]:
    """Credential-shaped parts of *text*, detector by detector (not in text order).

    Each detector runs only when the text holds its literal cue (``in`` is a fast
    substring search), so an ordinary string costs a handful of substring tests.
    """
    if not has_cue(text):  # most strings: one search, then only the standalone base64 keys are left
        yield from standalone(text)
        return
    yield from _prefixed(text)
    if "eyJ" in text:
        yield from _jwts(text)
    if "//" in text:
        yield from _url_passwords(text)
    if "BEGIN" in text or "PuTTY" in text:
        yield from private_keys(text)
    if any(cue in text for cue in DER_CUES):
        yield from der_keys(text)
    if "private_key" in text:
        yield from json_private_keys(text)
    lowered = text.lower()
    if "authorization" in lowered or "bearer" in lowered or "basic" in lowered:
        yield from authorization(text)
    if "datadog" in lowered or "dd" in lowered or "twilio" in lowered:
        yield from named(text)
    yield from standalone(text)
    if "=" in text or "-" in text:  # last: a value that is also of a known shape is named by its shape
        yield from assigned(text)
