"""RECORD, read as installers write it: the installed files, their hashes and sizes.

Read here with plain string work (and :mod:`csv` only when a field is
quoted), because ``importlib.metadata.files()`` silently drops missing files
on Python 3.12+.
"""

from __future__ import annotations

Row = tuple[str, str, str]
"""(path relative to the site folder, ``algorithm=digest`` or "", size or "")."""


def read_rows(path: str) -> tuple[list[Row], bool]:
    """The rows of the RECORD at *path*, and whether it lists INSTALLER (an installer's RECORD does; the
    wheel's own does not). ``OSError``, ``UnicodeDecodeError`` or ``csv.Error`` when it cannot be read."""
    with open(path, "rb", buffering=0) as fh:
        text = fh.read().decode("utf-8")
    lists_installer = ".dist-info/INSTALLER," in text or '.dist-info/INSTALLER",' in text  # plain or quoted
    lines = text.splitlines()
    if '"' not in text:
        # No quoting anywhere, so no field holds a comma: the last two commas split each row.
        rows: list[Row] = []
        for line in lines:
            if line:
                parts = line.rsplit(",", 2)
                parts += [""] * (3 - len(parts))
                rows.append((parts[0], parts[1], parts[2]))
        return rows, lists_installer
    import csv

    quoted = [(r[0], r[1] if len(r) > 1 else "", r[2] if len(r) > 2 else "") for r in csv.reader(lines) if r]
    return quoted, lists_installer
