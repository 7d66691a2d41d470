"""The census worked out again from the facts a kept answer recorded, after a test file changed.

A kept answer of ``check`` or ``admit`` (:mod:`tierlock.keptrun`) rests on the census's result. When a test
file changed so that its facts differ (a line added moves every line below it), the result may still be
the same: each census the recorded run made is run again here on the files as they are now - the changed
files read and parsed, every other file's facts taken from the record (exactly what that run took, for
exactly the words it looked for; anything else is read from the file) - and the kept answer holds when
every result equals the recorded one (:func:`tierlock.census.summary.canonical`). Loads the census, not the
tier model, the lockfile model or packaging.
"""

from __future__ import annotations

import os

from tierlock.census.cache import Memo
from tierlock.census.engine import survey
from tierlock.census.filefacts import FileFacts
from tierlock.census.report import CensusTier
from tierlock.census.summary import canonical
from tierlock.census.tree import DiskTree

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import Any


class RecordedMemo(Memo):
    """The census's per-file memory made of a record: what each file gave for the words it was looked at with.

    A file in *changed*, and a call with words the record has no answer for, is read and parsed (as with no
    memory at all)."""

    def __init__(self, calls: dict[str, list[Any]], changed: Iterable[str]) -> None:
        super().__init__(None)
        self.calls = calls
        self.changed_files = set(changed)

    def facts(
        self,
        rel: str,
        stamp: list[int],
        read: Callable[[str], str | None],
        words: Sequence[str] | None = None,
        kind: str = "tests",
    ) -> FileFacts | None:
        if rel not in self.changed_files:
            for _name, was_words, facts in self.calls.get(rel, ()):
                if was_words == (None if words is None else list(words)):
                    self.new[rel] = [stamp, facts]
                    self.reused.add(rel)
                    return None if facts is None else FileFacts.from_json(facts)
        return super().facts(rel, stamp, read, words, kind)


def surveys_hold(surveys: Sequence[Any], facts: dict[str, Any], changed: set[str]) -> bool:
    """Whether every census in *surveys* (``[root, [inputs, result]]``), worked out again with the *changed*
    files read anew and every other file's facts from *facts* (path -> ``[name, words, facts]`` of each
    reading), gives its recorded result; every changed file must be below the root of one of them."""
    covered: set[str] = set()
    try:
        for root, (inputs, was) in surveys:
            prefix = os.path.join(root, "")
            mine = {path for path in changed if path.startswith(prefix)}
            calls: dict[str, list[Any]] = {}
            for path, file_calls in facts.items():
                if path.startswith(prefix):
                    calls[path[len(prefix) :]] = [c for c in file_calls if os.path.join(root, c[0]) == path]
            if canonical(_again(root, inputs, RecordedMemo(calls, [p[len(prefix) :] for p in mine]))) != was:
                return False
            covered |= mine
    except (TypeError, ValueError, KeyError, IndexError, AttributeError):
        return False
    return covered == changed


def _again(root: str, inputs: dict[str, Any], memo: Memo) -> Any:
    tiers = [
        CensusTier(name, tuple(roots), tuple(globs), tuple(covered), tuple(accept), required=bool(required))
        for name, roots, globs, covered, accept, required in inputs["tiers"]
    ]
    return survey(
        DiskTree(root),
        tiers,
        folders=inputs["folders"],
        patterns=inputs["patterns"],
        paths=inputs["paths"],
        limit_to=inputs["limit_to"],
        report=inputs["report"],
        walk_globs=inputs["walk_globs"],
        memo=memo,
    )
