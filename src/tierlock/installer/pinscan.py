"""The pins of a lockfile, read with string work alone: what the no-op fast path compares a receipt with.

The fast path (:mod:`tierlock.installer.fastpath`) must not load a TOML or
requirements parser (milliseconds of imports), yet a receipt may only vouch
for a tier when its packages are exactly what the tier's lockfile pins. So the
lockfile's bytes, read anyway for their digest, are scanned here for
``name==version`` lines (requirements format, as tierlock, uv and pip-compile
write it) or ``[[packages]]`` tables with ``name = "..."`` and ``version =
"..."`` lines (PEP 751, as uv writes it; uv.lock's ``[[package]]`` tables the
same way). Anything else - another layout, a
line this scan does not know - returns None and the full path decides.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

Pins = dict[str, set[str | None]]
"""Normalized name -> the versions pinned (None: a direct reference, whose version the line does not say)."""


def scan(path: str, text: str, canonical: Callable[[str], str]) -> Pins | None:
    """The pins of the lockfile at *path* (its *text*), names made canonical by *canonical*; None when unsure.

    A ``uv.lock`` gives every package it locks, for every extra and group (:func:`whole_lock`).
    """
    if path.endswith(".toml"):
        return _pylock(text, canonical)
    if whole_lock(path):
        return _tables(text, canonical, "[[package]]")
    return _requirements(text, canonical)


def whole_lock(path: str) -> bool:
    """Whether the lock at *path* pins more than one tier's packages (``uv.lock``: the whole workspace)."""
    return path.replace("\\", "/").rsplit("/", 1)[-1] == "uv.lock"


def _requirements(text: str, canonical: Callable[[str], str]) -> Pins | None:
    pins: Pins = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#-":
            continue  # comments, hash and option lines
        spec = line.rstrip("\\").split(";", 1)[0].strip()
        if " @ " in spec:
            name, version = spec.split(" @ ", 1)[0], None
        else:
            name, equal, pinned = spec.split(" ", 1)[0].partition("==")  # options may follow: --hash=...
            if not equal or not pinned or "," in pinned:
                return None  # no exact pin
            version = pinned
        name = name.split("[", 1)[0].strip()
        if not name:
            return None
        pins.setdefault(canonical(name), set()).add(version)
    return pins


def _pylock(text: str, canonical: Callable[[str], str]) -> Pins | None:
    return _tables(text, canonical, "[[packages]]")


def _tables(text: str, canonical: Callable[[str], str], header: str) -> Pins | None:
    """The ``name``/``version`` keys of every *header* table (``[[packages]]``, uv.lock's ``[[package]]``)."""
    pins: Pins = {}
    current: dict[str, str] | None = None
    entries: list[dict[str, str]] = []
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            current = {} if line == header else None
            if current is not None:
                entries.append(current)
            continue
        if current is None or "=" not in line or line.startswith("#"):
            continue
        key, _, value = line.partition("=")
        value = value.strip()
        if key.strip() in ("name", "version") and len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            current[key.strip()] = value[1:-1]
    for entry in entries:
        if "name" not in entry:
            return None
        pins.setdefault(canonical(entry["name"]), set()).add(entry.get("version"))
    return pins if entries else None
