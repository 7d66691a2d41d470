"""The census's per-file memory: facts by size and mtime, so an unchanged file is neither read nor parsed again.

The census never stores anything itself: it reads an earlier entry through a
:class:`Memo` and hands back the new entry (:meth:`Memo.entry`); the caller
keeps it in a :class:`CensusCache` (pytest's cache, or :class:`FolderCache`
under ``.pytest_cache``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from tierlock.census.filefacts import FileFacts

#: The cache key (pytest's cache layout: ``.pytest_cache/v/tierlock/census``).
CACHE_KEY = "tierlock/census"
#: 5: flag functions (``def has_x(): try: import x ...``) are facts; 6: a flag bound in a try's else:; 7: unittest's
#: ``skipIf``/``skipUnless`` and ``skipTest``/``SkipTest`` skip, a ``TestCase`` subclass of any name holds tests;
#: 9: flag tables (``HAS = {name: find_spec(name) is not None for name in (...)}``, read as ``HAS["x"]``), flags set
#: by ``importlib.import_module("x")`` and functions returning ``find_spec("x") is not None``; 10: an import under a
#: ``try`` whose ``except ImportError`` skips is needed there, not guarded; 12: flags computed from flags (``NO_X =
#: not HAS_X``), a flag maker's module by any argument (``needs(reason, module)``, ``*modules``), string conditions.
_SCHEMA = 13
#: Kinds of file, each filtered by its own words (conftests are always parsed).
KINDS = ("tests", "sources")


class CensusCache(Protocol):
    def get(self, key: str, default: Any) -> Any: ...

    def set(self, key: str, value: object) -> None: ...


def _valid(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("schema") == _SCHEMA
        and isinstance(value.get("files"), dict)
        and isinstance(value.get("words"), dict)
    )


class Memo:
    """Per file: [size, mtime] and its facts (None: its text named none of the words of its kind, so unparsed)."""

    def __init__(self, value: Any = None) -> None:
        ok = _valid(value)
        self.old: dict[str, Any] = value["files"] if ok else {}
        self.old_words: dict[str, Any] = value["words"] if ok else {}
        self.words: dict[str, set[str]] = {}
        self.new: dict[str, Any] = {}
        self.parsed: set[str] = set()
        """Files parsed in this run."""
        self.reused: set[str] = set()
        """Files whose entry was taken from the cache."""
        self.changed = not ok

    def facts(
        self,
        rel: str,
        stamp: list[int],
        read: Callable[[str], str | None],
        words: Sequence[str] | None = None,
        kind: str = "tests",
    ) -> FileFacts | None:
        """The facts of *rel* (None when its text names none of *words*; *words* None: always parse).

        The facts' readers are imported here: a census answered from its kept result asks for none."""
        from tierlock.census.filefacts import FileFacts, read_file
        from tierlock.census.summary import names_any

        if words is not None:
            self.words.setdefault(kind, set()).update(words)
        old = self.old.get(rel)
        if isinstance(old, list) and len(old) == 2 and old[0] == stamp and self._still(old[1], words, kind):
            try:
                facts = None if old[1] is None else FileFacts.from_json(old[1])
            except (TypeError, ValueError, KeyError, IndexError, AttributeError):
                pass
            else:
                self.new[rel] = old
                self.reused.add(rel)
                return facts
        self.changed = True
        text = read(rel)
        if text is None:
            return None
        if words is not None and not names_any(text, words):
            self.new[rel] = [stamp, None]
            return None
        self.parsed.add(rel)
        self.reused.discard(rel)
        facts = read_file(text, rel)
        self.new[rel] = [stamp, facts.to_json()]
        return facts

    def _still(self, facts: Any, words: Sequence[str] | None, kind: str) -> bool:
        """Whether a cached entry still answers: facts always; "names none" only if no word is new since."""
        if facts is not None:
            return True
        if words is None:
            return False
        known = self.old_words.get(kind)
        return isinstance(known, list) and set(words) <= set(known)

    def entry(self) -> dict[str, Any]:
        """The cache value: this run's files, plus the other files of the last run when the words did not change
        (a subset run keeps what a whole run learnt; a stale entry is caught by its size and mtime)."""
        words = {k: sorted(v) for k, v in self.words.items()}
        kept = {k: v for k, v in self.old.items() if k not in self.new} if self.old_words == words else {}
        return {"schema": _SCHEMA, "words": words, "files": {**kept, **self.new}}

    @property
    def dirty(self) -> bool:
        return self.changed or self.old_words != {k: sorted(v) for k, v in self.words.items()}


class FolderCache:
    """pytest's cache layout under ``<root>/.pytest_cache/v``, used only when that folder exists (never made here)."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.folder = os.path.join(os.fspath(root), ".pytest_cache", "v")

    def get(self, key: str, default: Any) -> Any:
        import json

        try:
            with open(os.path.join(self.folder, key), encoding="utf-8") as handle:
                return json.load(handle)
        except (OSError, ValueError):
            return default

    def set(self, key: str, value: object) -> None:
        import json

        if not os.path.isdir(os.path.dirname(self.folder)):
            return  # no .pytest_cache: pytest makes it (with its .gitignore), never the census
        path = os.path.join(self.folder, key)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            tmp = f"{path}.{os.getpid()}.tmp"
            text = json.dumps(value, separators=(",", ":"))  # the C encoder; json.dump's is Python's: 10x slower
            with open(tmp, "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(tmp, path)
        except OSError:
            return  # a read-only checkout: the census still runs, uncached
