"""RECORD, read as installers write it: the installed files, their hashes and sizes.

Read here with plain string work (and :mod:`csv` only when a field is
quoted), because ``importlib.metadata.files()`` silently drops missing files
on Python 3.12+. The rows come back as three columns (paths, hashes, sizes),
split in C: a RECORD of thousands of rows costs one read, one ``splitlines``,
one comma count per row, one ``join`` and one ``split``, and no object per row
but its three strings.
Byte-code caches (``.pyc``) are left out: they are regenerated.
"""

from __future__ import annotations

from itertools import repeat

from tierlock.probing.regular import open_bytes


def _commas(lines: list[str]) -> set[int]:
    """How many commas the lines hold (one set for them all, counted in C)."""
    return set(map(str.count, lines, repeat(",")))


Row = tuple[str, str, str]
"""(path relative to the site folder, ``algorithm=digest`` or "", size or "")."""
Columns = tuple[list[str], list[str], list[str]]
"""RECORD's paths, hashes (or "") and sizes (or ""), row by row, ``.pyc`` rows left out."""


class Unreadable(ValueError):
    """A quoted RECORD that :mod:`csv` cannot read (its ``csv.Error``, as a ``ValueError``: the callers catch that
    without loading :mod:`csv`)."""


def read_rows(path: str) -> tuple[Columns, bool]:
    """The rows of the RECORD at *path* as columns, and whether it lists INSTALLER (an installer's RECORD does;
    the wheel's own does not). ``OSError``, ``UnicodeDecodeError`` or :class:`Unreadable` when it cannot be read."""
    with open_bytes(path, buffering=0) as fh:
        data = fh.read()
    return rows_in(data)


def rows_in(data: bytes) -> tuple[Columns, bool]:
    """:func:`read_rows` of RECORD's bytes *data* (read already). ``UnicodeDecodeError`` or :class:`Unreadable`
    (a row csv cannot read, a NUL byte)."""
    text = data.decode("utf-8")
    if "\x00" in text:  # (no path holds one: a RECORD overwritten, or cut by a crash that left zeros)
        raise Unreadable(f"line {text.count(chr(10), 0, text.index(chr(0))) + 1} holds a NUL byte, which no path can")
    lines = text.splitlines()
    if '"' not in text:
        lists_installer = text.rfind(".dist-info/INSTALLER,") >= 0  # searched from the end, where installers write it
        plain = _plain(text, lines)
        if plain is not None:
            return plain, lists_installer
        return _columns([_split(line) for line in lines if line]), lists_installer
    lists_installer = ".dist-info/INSTALLER," in text or '.dist-info/INSTALLER",' in text  # plain or quoted
    import csv

    try:
        quoted = [(r[0], r[1] if len(r) > 1 else "", r[2] if len(r) > 2 else "") for r in csv.reader(lines) if r]
    except csv.Error as exc:
        raise Unreadable(str(exc)) from exc
    return _columns(quoted), lists_installer


def _plain(text: str, lines: list[str]) -> Columns | None:
    """The columns of an unquoted RECORD whose every row has exactly three fields (the common case), split in
    C; None for any other shape (then each row is split on its last two commas)."""
    if _commas(lines) != {2}:
        return None  # a row with another number of fields, or an empty line: row by row
    if ".pyc," in text:
        lines = [line for line in lines if ".pyc," not in line or not line.rsplit(",", 2)[0].endswith(".pyc")]
    flat = ",".join(lines).split(",")
    return flat[0::3], flat[1::3], flat[2::3]


def _split(line: str) -> Row:
    """One unquoted row: no field holds a comma, so the last two commas split it (missing fields are "")."""
    parts = line.rsplit(",", 2)
    parts += [""] * (3 - len(parts))
    return parts[0], parts[1], parts[2]


def _columns(rows: list[Row]) -> Columns:
    kept = [row for row in rows if not row[0].endswith(".pyc")]
    return [r[0] for r in kept], [r[1] for r in kept], [r[2] for r in kept]
