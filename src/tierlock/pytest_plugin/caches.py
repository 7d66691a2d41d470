"""pytest's cache as the plugin uses it: read before the cacheprovider exists, written without ever failing a run."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Protocol

import pytest


class Cache(Protocol):
    """What the plugin uses of pytest's ``config.cache``."""

    def get(self, key: str, default: Any) -> Any: ...

    def set(self, key: str, value: object) -> None: ...


def remember(cache: Cache | None, name: str, value: object) -> None:
    """Write the cache entry, best effort: a read-only checkout must not fail the run (or warn as an error)."""
    if cache is None:
        return
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cache.set(name, value)


class QuietCache:
    """A cache whose writes never fail or warn (:func:`remember`), for the census's per-file entry."""

    def __init__(self, cache: Cache) -> None:
        self.cache = cache

    def get(self, key: str, default: Any) -> Any:
        return self.cache.get(key, default)

    def set(self, key: str, value: object) -> None:
        remember(self.cache, key, value)


class EarlyCache:
    """pytest's cache folder read before the cacheprovider is configured (the gate decides before conftests).

    Reads ``<cache_dir>/v/<key>`` as pytest's cache does; writes are kept and
    handed to ``config.cache`` once it exists (:meth:`flush`), so the folder
    and its ``.gitignore`` are still made by pytest.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.pending: dict[str, object] = {}

    def get(self, key: str, default: Any) -> Any:
        import json

        try:
            with open(self.folder / "v" / key, encoding="utf-8") as handle:
                return json.load(handle)
        except (OSError, ValueError):
            return default

    def set(self, key: str, value: object) -> None:
        self.pending[key] = value

    def flush(self, cache: Cache | None) -> None:
        for key, value in self.pending.items():
            remember(cache, key, value)
        self.pending.clear()


def early_cache(config: pytest.Config) -> EarlyCache | None:
    """The cache pytest will use for this run, or None with ``-p no:cacheprovider``."""
    if not config.pluginmanager.has_plugin("cacheprovider"):
        return None
    try:
        value = str(config.getini("cache_dir"))
    except ValueError:
        return None
    folder = Path(os.path.expanduser(os.path.expandvars(value)))
    return EarlyCache(folder if folder.is_absolute() else config.rootpath / folder)
