"""The part of a command's log a person and a receipt see: its tail, safe to show and small.

A log is unbounded (a command may write 256 MiB without a newline); what is shown of it is
not. :func:`read` looks at a bounded window at the end of the log (the tail, and some lines
before it so a private key whose BEGIN line falls outside the tail is still seen whole), then:

1. strips terminal escape sequences and control characters (``ghp_\\x1b[1m...`` shows as the
   token it is, and no escape reaches a terminal); a carriage return keeps what a terminal
   would show, the text after it;
2. redacts, across lines, everything the credential redactor masks, the config's env values,
   and a private key whose END line is in the window but its BEGIN line is not;
3. caps each line at :data:`LINE_CHARS` and the whole tail at :data:`TAIL_LINES` lines and
   :data:`TAIL_CHARS` characters, and counts what was cut.

:func:`digest` reads the whole log once, in fixed-size chunks: its size, sha256 and line count.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

#: Lines of a failing command's log shown and recorded, at most.
TAIL_LINES = 20
#: Characters of one shown line, at most (the rest is cut, and counted).
LINE_CHARS = 400
#: Characters of the whole tail, at most (earlier lines are dropped, and counted).
TAIL_CHARS = 4000
#: Bytes read from the end of a log: the tail's share, and the look-back before it.
WINDOW = 32 * 1024
LOOKBACK = 32 * 1024
#: The chunk size of every full read of a log.
CHUNK = 1 << 20

#: Terminal escape sequences: CSI (colours, cursor moves, erasing), OSC (titles, hyperlinks), DCS/SOS/PM/APC
#: strings, any other escape, and the 8-bit CSI.
_ESCAPES = (
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"
    r"|\x1b[ -/]*[0-~]?"
    r"|\x9b[0-?]*[ -/]*[@-~]"
)
#: Control characters (but newline) and the invisible format characters that can split a token on screen.
_CONTROLS = (
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]"
)
_KEY_FOOTER = r"-{3,5} ?END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)? ?-{3,5}|Private-MAC: ?[0-9a-fA-F]*"
_KEY_HEADER = r"-{3,5} ?BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY|PuTTY-User-Key-File-\d"


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """*pattern* compiled once, when a tail is first read (a run that passes never needs it)."""
    return re.compile(pattern)


REDACTED_KEY = "[redacted: private key]"


@dataclass(frozen=True)
class Tail:
    """The shown lines, and how much of the log they leave out."""

    lines: tuple[str, ...]
    cut_lines: int
    """Lines of the log not shown at all."""
    cut_chars: int
    """Characters cut from the lines that are shown."""

    def cut(self) -> dict[str, int]:
        return {"lines": self.cut_lines, "characters": self.cut_chars}


EMPTY = Tail((), 0, 0)


def digest(path: Path) -> tuple[int, str, int]:
    """(size, sha256 hex, number of lines) of *path*, read in :data:`CHUNK`-sized pieces."""
    h = hashlib.sha256()
    size = newlines = 0
    last = b"\n"
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            size += len(chunk)
            newlines += chunk.count(b"\n")
            h.update(chunk)
            last = chunk[-1:]
    return size, h.hexdigest(), newlines + (last != b"\n")


def clean(text: str) -> str:
    """*text* without terminal escapes or control characters; of a line rewritten with ``\\r``, its last state."""
    text = _compiled(_ESCAPES).sub("", text.replace("\r\n", "\n"))
    if "\r" in text:
        text = "\n".join(line.rsplit("\r", 1)[-1] for line in text.split("\n"))
    return _compiled(_CONTROLS).sub("", text)


def redact_keys(text: str) -> str:
    """A private key's lines up to its END line, when its BEGIN line lies before *text*."""
    footer = _compiled(_KEY_FOOTER).search(text)
    if footer is None:
        return text
    header = _compiled(_KEY_HEADER).search(text, 0, footer.start())
    if header is not None:
        return text  # a whole key: the credential redactor takes it
    start = text.rfind("\n", 0, footer.start()) + 1
    while start > 0:  # back over the key's body: lines of base64 (or a PEM header line)
        before = text.rfind("\n", 0, start - 1) + 1
        line = text[before : start - 1]
        if not line or not _compiled(r"[A-Za-z0-9+/=]*|[A-Za-z-]+: .*").fullmatch(line):
            break
        start = before
    return text[:start] + REDACTED_KEY + text[footer.end() :]


def _window(path: Path, size: int) -> tuple[bytes, int]:
    """The last bytes of the log (at most WINDOW + LOOKBACK) and the length of the line they begin inside of."""
    start = max(0, size - WINDOW - LOOKBACK)
    with path.open("rb") as handle:
        handle.seek(start)
        data = handle.read(size - start)
        partial = 0
        if start > 0:
            handle.seek(start - 1)
            if handle.read(1) != b"\n":
                partial = _line_start_distance(handle, start)
    return data, partial


def _line_start_distance(handle: BinaryIO, end: int) -> int:
    """How many bytes before *end* the line holding byte ``end - 1`` begins (reads back in fixed chunks)."""
    pos = end
    while pos > 0:
        step = min(CHUNK, pos)
        handle.seek(pos - step)
        found = handle.read(step).rfind(b"\n")
        if found >= 0:
            return end - (pos - step + found + 1)
        pos -= step
    return end


def read(path: Path, mask: Callable[[str], str], *, size: int | None = None, lines: int | None = None) -> Tail:
    """The tail of the log at *path*, cleaned, redacted (*mask*: the credential and env redaction) and capped.

    *size* and *lines* are the log's, when the caller has counted them (:func:`digest`).
    """
    try:
        if size is None or lines is None:
            size, _, lines = digest(path)
        data, partial = _window(path, size)
    except OSError:
        return EMPTY
    text = redact_keys(mask(clean(data.decode("utf-8", errors="replace"))))
    pieces = text.split("\n")
    if pieces and pieces[-1] == "":
        pieces.pop()
    unread = 0
    if partial:  # the first piece is the end of a longer line: cut it at a space (a secret may straddle the cut)
        head, space, rest = pieces[0].partition(" ")
        unread = partial + len(head) + len(space)
        pieces[0] = rest
    shown, cut_chars = _cap(pieces[-TAIL_LINES:], first_cut=unread if len(pieces) <= TAIL_LINES else 0)
    return Tail(tuple(shown), max(0, lines - len(shown)), cut_chars)


def _cap(pieces: list[str], *, first_cut: int) -> tuple[list[str], int]:
    """Each line capped at LINE_CHARS, then earlier lines dropped to fit TAIL_CHARS; (lines, characters cut)."""
    capped: list[tuple[str, int]] = []
    for index, piece in enumerate(pieces):
        cut = first_cut if index == 0 else 0
        if len(piece) > LINE_CHARS:
            cut += len(piece) - LINE_CHARS
            piece = piece[:LINE_CHARS]
        if cut:
            piece = f"{piece} [... {cut} characters cut]" if piece else f"[... {cut} characters cut]"
        capped.append((piece, cut))
    total = sum(len(p) for p, _ in capped)
    while capped and total > TAIL_CHARS:
        total -= len(capped.pop(0)[0])
    return [p for p, _ in capped], sum(c for _, c in capped)
