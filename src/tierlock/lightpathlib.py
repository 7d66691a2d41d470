"""pathlib for a read-only command's full run, loaded without what it does not need there.

Before Python 3.13, :mod:`pathlib` imports :mod:`urllib.parse` at its start (and :mod:`ipaddress` with it: ~3 ms)
for ``Path.as_uri()`` alone, and loads :mod:`ntpath`, which tries Windows' own modules (``nt``, ``_winapi``) in
``try`` blocks: on any other system each of those imports fails only after every finder has searched every
folder of :data:`sys.path`. :func:`light_pathlib` spares both.
"""

from __future__ import annotations

import sys


def light_pathlib() -> None:
    """Import :mod:`pathlib` without :mod:`urllib.parse` (and the :mod:`ipaddress` it loads: ~3 ms of every
    read-only command that runs in full), as Python 3.13's pathlib does: before 3.13 it imports
    ``quote_from_bytes`` from there at its start, for ``Path.as_uri()`` alone. For the time of the import,
    ``urllib.parse`` is a stand-in whose ``quote_from_bytes`` imports the real module at its first call; then the
    stand-in is gone, and any ``import urllib.parse`` loads the real one. Called before the command starts any
    thread (none can meet the stand-in). Anything else (pathlib or urllib.parse already loaded, a pathlib that
    wants another name from there): the plain import."""
    modules = sys.modules
    if "pathlib" in modules or "urllib.parse" in modules:
        return
    stand_in = type(sys)("urllib.parse")
    stand_in.quote_from_bytes = _quote_from_bytes  # type: ignore[attr-defined]
    modules["urllib.parse"] = stand_in
    absent = _absent() if "ntpath" not in modules else ()
    try:
        import pathlib
    except ImportError:  # another shape of pathlib: imported again below, as it is
        pass
    finally:
        if modules.get("urllib.parse") is stand_in:
            del modules["urllib.parse"]
        for name in absent:
            if name in modules and modules[name] is None:
                del modules[name]
    import pathlib  # noqa: F401


#: What ``ntpath`` (which pathlib loads) tries to import from Windows' own modules, each in a ``try``.
_WINDOWS_ONLY = ("nt", "_winapi")


def _absent() -> tuple[str, ...]:
    """Off Windows, Windows' own modules marked absent in :data:`sys.modules` (an import of one fails at once,
    as it would after every finder had searched every folder of :data:`sys.path` for it): the names marked."""
    if sys.platform == "win32":
        return ()
    absent = tuple(name for name in _WINDOWS_ONLY if name not in sys.modules)
    for name in absent:
        sys.modules[name] = None  # type: ignore[assignment]
    return absent


def _quote_from_bytes(bs: bytes, safe: str = "/") -> str:
    """``urllib.parse.quote_from_bytes``, the real one imported at the first call (``Path.as_uri()``)."""
    from urllib.parse import quote_from_bytes

    return quote_from_bytes(bs, safe)
