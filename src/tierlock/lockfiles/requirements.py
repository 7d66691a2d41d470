"""The requirements lockfile format (pip-tools style), read and written (pure).

A body line is ``name==version`` (or ``name===version``, or ``name @ URL``),
an optional ``; marker``, and one ``--hash=ALGO:HEX`` option per file,
continued over lines with ``\\``. ``pip install --no-deps --require-hashes -r``
accepts the same file. The parser collects every problem with its line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import InvalidVersion, Version

from tierlock.lockfiles.digest import body_digest
from tierlock.lockfiles.header import parse_comment, render_comment
from tierlock.lockfiles.locks import LockEntry, LockHeader, ReadProblem

#: Hash algorithms pip accepts with --require-hashes, and their hex lengths.
HASH_LENGTHS = {"sha256": 64, "sha384": 96, "sha512": 128}
#: File-wide option lines pip understands that a lockfile may carry.
KNOWN_OPTIONS = {
    "-i",
    "--index-url",
    "--extra-index-url",
    "-f",
    "--find-links",
    "--no-index",
    "--trusted-host",
    "--prefer-binary",
    "--only-binary",
    "--no-binary",
}
#: The hexadecimal digits, either case (a hash is hexadecimal when stripping them leaves nothing).
_HEXDIGITS = "0123456789abcdefABCDEF"
#: A comment: ``#`` at the start of the line or after whitespace, to the end (the pattern is compiled only for a
#: line with a line break inside: :func:`_without_comment` tells the others by hand).
_INLINE_COMMENT = r"(^|\s+)#.*$"


def _is_hex(text: str) -> bool:
    """Whether *text* is one or more hexadecimal digits (``[0-9a-fA-F]+`` in full)."""
    return bool(text) and not text.strip(_HEXDIGITS)


def _without_comment(raw: str) -> str:
    """``re.sub(_INLINE_COMMENT, "", raw)``: the line cut where its comment starts, with the whitespace before it."""
    if "\n" in raw:
        return re.sub(_INLINE_COMMENT, "", raw)
    at = raw.find("#")
    while at > 0 and not raw[at - 1].isspace():
        at = raw.find("#", at + 1)
    if at < 0:
        return raw
    while at > 0 and raw[at - 1].isspace():
        at -= 1
    return raw[:at]


def _option_parts(text: str) -> list[str]:
    """``re.split(r"\\s+(?=--)", text)``: *text* split at each run of whitespace that an option (``--``) follows."""
    parts: list[str] = []
    start = 0
    at = text.find("--")
    while at >= 0:
        run = at
        while run > start and text[run - 1].isspace():
            run -= 1
        if run < at:
            parts.append(text[start:run])
            start = at
        at = text.find("--", at + 1)
    parts.append(text[start:])
    return parts


class Parsed:
    """What the parser found: the header, the entries, and every problem with its line."""

    header: LockHeader | None
    entries: list[LockEntry]
    problems: list[ReadProblem]
    body_digest: str
    options: list[tuple[int, str]]
    pylock: Any
    """pylock format: the validated :class:`packaging.pylock.Pylock` (for ``Pylock.select``)."""

    def __init__(  # noqa: PLR0917 (the signature it had as a dataclass)
        self,
        header: LockHeader | None,
        entries: list[LockEntry] | None = None,
        problems: list[ReadProblem] | None = None,
        body_digest: str = "",
        options: list[tuple[int, str]] | None = None,
        pylock: Any = None,
    ) -> None:
        self.header = header
        self.entries = [] if entries is None else entries
        self.problems = [] if problems is None else problems
        self.body_digest = body_digest
        self.options = [] if options is None else options
        self.pylock = pylock


def split_lines(text: str) -> list[str]:
    """Lines of *text*, a BOM and CRLF/CR line endings read fine."""
    return text.removeprefix("\ufeff").splitlines()


def parse(text: str) -> Parsed:
    """Parse a requirements lockfile's text."""
    lines = split_lines(text)
    if not any(line.strip() for line in lines):
        return Parsed(None, problems=[ReadProblem("integrity", None, "the lockfile is empty")])
    header, header_end, problems = parse_comment(lines)
    body = lines[header_end:]
    parsed = Parsed(header, problems=list(problems), body_digest=body_digest(body))
    for number, logical in _logical_lines(body, header_end + 1, parsed.problems):
        _parse_line(logical, number, parsed)
    return parsed


def _logical_lines(body: Sequence[str], first: int, problems: list[ReadProblem]) -> list[tuple[int, str]]:
    """Join ``\\`` continuations; drop comments. Yields (first line number, text)."""
    out: list[tuple[int, str]] = []
    pending: list[str] = []
    start = first
    for offset, raw in enumerate(body):
        number = first + offset
        if not pending:
            start = number
        if raw.lstrip().startswith("#") and pending:
            continue  # a comment inside a continuation does not break it (pip-tools writes none, but be kind)
        line = _without_comment(raw).rstrip() if "#" in raw else raw.rstrip()
        if line.endswith("\\"):
            pending.append(line[:-1].strip())
            continue
        pending.append(line.strip())
        text = " ".join(p for p in pending if p)
        pending = []
        if text:
            out.append((start, text))
    if pending:
        text = " ".join(p for p in pending if p)
        problems.append(ReadProblem("integrity", start, f"the file ends inside a continued line: {text!r}"))
        if text:
            out.append((start, text))
    return out


def _parse_line(text: str, number: int, parsed: Parsed) -> None:
    problems = parsed.problems
    if text.startswith("-"):
        _option_line(text, number, parsed)
        return
    req_text, hashes, bad = _split_options(text)
    for option in bad:
        problems.append(ReadProblem("integrity", number, f"unknown option {option!r} on a requirement line"))
    try:
        req = Requirement(req_text)
    except InvalidRequirement as exc:
        problems.append(ReadProblem("integrity", number, f"syntax error: {_first_line(str(exc))}"))
        return
    name = canonicalize_name(req.name)
    good_hashes = _good_hashes(hashes, name, number, problems)
    if not hashes:
        what = "a URL entry" if req.url else "an entry"
        problems.append(ReadProblem("integrity", number, f"{name}: {what} without hashes (--hash=sha256:...)"))
    version = _version(req, name, number, problems)
    if version is None:
        return
    parsed.entries.append(
        LockEntry(
            name=name,
            version=version,
            marker=req.marker,
            hashes=tuple(good_hashes),
            line=number,
            url=req.url,
        )
    )


#: Why an option line cannot stand in a lockfile, by the option.
_REFUSED_OPTIONS = {
    **dict.fromkeys(("-e", "--editable"), "an editable entry cannot be locked with hashes: {text!r}"),
    **dict.fromkeys(
        ("-r", "--requirement", "-c", "--constraint"), "a lockfile must be self-contained, not include files: {text!r}"
    ),
    "--hash": "a --hash line that belongs to no requirement (is the '\\' at the end of the line above missing?)",
}


def _option_line(text: str, number: int, parsed: Parsed) -> None:
    """A line that starts with ``-``: kept when pip knows the option and a lockfile may hold it."""
    option = re.split(r"[\s=]", text, maxsplit=1)[0]
    if option in _REFUSED_OPTIONS:
        parsed.problems.append(ReadProblem("integrity", number, _REFUSED_OPTIONS[option].format(text=text)))
    elif option in KNOWN_OPTIONS:
        parsed.options.append((number, text))
    else:
        parsed.problems.append(ReadProblem("integrity", number, f"unknown option line {option!r}"))


def _good_hashes(hashes: Sequence[str], name: str, number: int, problems: list[ReadProblem]) -> list[str]:
    """The well-formed hashes, normalised to lower case; a problem for each of the others."""
    good: list[str] = []
    for value in hashes:
        error = _hash_problem(value)
        if error:
            problems.append(ReadProblem("integrity", number, f"{name}: {error}"))
        else:
            algorithm, _, hexdigest = value.partition(":")
            good.append(f"{algorithm.lower()}:{hexdigest.lower()}")
    return good


def _split_options(text: str) -> tuple[str, list[str], list[str]]:
    """Split ``req --hash=a --hash b`` into the requirement, the hash values and other options."""
    parts = _option_parts(text)
    req = parts[0]
    hashes: list[str] = []
    bad: list[str] = []
    for part in parts[1:]:
        option, sep, value = part.partition("=")
        if not sep:
            option, _, value = part.partition(" ")
        if option == "--hash":
            hashes.append(value.strip())
        else:
            bad.append(option)
    return req.strip(), hashes, bad


def _hash_problem(value: str) -> str | None:
    if len(value) == 71 and value.startswith("sha256:") and _is_hex(value[7:]):
        return None  # the common case, fast
    algorithm, sep, hexdigest = value.partition(":")
    if not sep:
        return f"a hash must be ALGORITHM:HEX, not {value!r}"
    expected = HASH_LENGTHS.get(algorithm.lower())
    if expected is None:
        return f"hash algorithm {algorithm!r} is not accepted (use sha256)"
    if not _is_hex(hexdigest):
        return f"{algorithm} hash {hexdigest!r} is not hexadecimal"
    if len(hexdigest) != expected:
        return f"truncated {algorithm} hash ({len(hexdigest)} hex digits, {expected} needed): {hexdigest}"
    return None


def _version(req: Requirement, name: str, number: int, problems: list[ReadProblem]) -> Version | None:
    if req.url:
        filename = req.url.split("#", 1)[0].split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
        try:
            if filename.endswith(".whl"):
                return parse_wheel_filename(filename)[1]
            return parse_sdist_filename(filename)[1]
        except (InvalidWheelFilename, InvalidSdistFilename, InvalidVersion):
            problems.append(
                ReadProblem("integrity", number, f"{name}: the version of URL entry {req.url!r} cannot be known")
            )
            return None
    specs = list(req.specifier)
    if len(specs) != 1 or specs[0].operator not in ("==", "===") or specs[0].version.endswith(".*"):
        shown = str(req.specifier) or "no version"
        problems.append(ReadProblem("integrity", number, f"{name}: {shown} is not an exact pin (== or ===)"))
        return None
    try:
        return Version(specs[0].version)
    except InvalidVersion:
        problems.append(ReadProblem("integrity", number, f"{name}: {specs[0].version!r} is not a valid version"))
        return None


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text


def render(header: LockHeader, body: Sequence[str]) -> str:
    """The whole lockfile text: the header comment block, then the body lines."""
    lines = [*render_comment(header), *body]
    return "\n".join(lines).rstrip("\n") + "\n"


def entry_line(entry: LockEntry) -> str:
    """A constraint line for *entry* (``name==version ; marker``), without hashes."""
    text = f"{entry.name} @ {entry.url}" if entry.url else f"{entry.name}=={entry.version}"
    if entry.marker is not None:
        text += f" ; {entry.marker}"
    return text


def overlapping_duplicates(entries: Sequence[LockEntry]) -> list[tuple[LockEntry, LockEntry]]:
    """Pairs of entries for one name whose markers can hold together."""
    from tierlock.lockfiles.markers import overlap

    by_name: dict[str, list[LockEntry]] = {}
    for entry in entries:
        by_name.setdefault(entry.name, []).append(entry)
    out: list[tuple[LockEntry, LockEntry]] = []
    for group in by_name.values():
        for i, first in enumerate(group):
            for second in group[i + 1 :]:
                if overlap(first.marker, second.marker):
                    out.append((first, second))
    return out


def duplicate_problems(entries: Sequence[LockEntry]) -> list[ReadProblem]:
    return [
        ReadProblem(
            "integrity",
            second.line,
            f"{second.name} appears twice with overlapping markers (lines {first.line} and {second.line})",
        )
        for first, second in overlapping_duplicates(entries)
    ]
