"""A test file's census facts read again, to tell whether a kept answer still holds after the file changed.

A kept answer of ``check`` or ``admit`` (:mod:`tierlock.keptrun`) rests on every test file; the census
takes from each only its facts (:func:`tierlock.census.filefacts.read_file`), or only that its text names
none of the words it looked for. When a test file changed since, reading it again here tells whether the
census would have taken the same from it: then the kept answer is the answer. Loads the file reader alone
(:mod:`ast`), not the census.
"""

from __future__ import annotations

from tierlock.census.factdigest import digest, facts_digest
from tierlock.census.filefacts import read_file
from tierlock.keptnote import plain

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from tierlock.census.records import FileFacts


def names_any(text: str, words: Sequence[str]) -> bool:
    """Whether *text* names any of *words* (the census parses only the files that do)."""
    if len(words) <= 40:
        return any(w in text for w in words)
    import re

    wanted = set(words)
    dotted = [w for w in words if not w.isidentifier()]
    if any(w in text for w in dotted):
        return True
    return not wanted.isdisjoint(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))


#: The facts of each text read again in this run (a changed file is read to tell whether its facts, then
#: whether its tests, then whether its part of the census's result changed: parsed once).
_facts: dict[tuple[str, str], FileFacts] = {}


def facts_of(text: str, name: str) -> FileFacts:
    """:func:`~tierlock.census.filefacts.read_file` of *text*, parsed once per run (the facts are not changed
    by their readers)."""
    found = _facts.get((name, text))
    if found is None:
        found = _facts[name, text] = read_file(text, name)
    return found


def taken(text: str, name: str, words: Sequence[str] | None) -> Any:
    """What the census takes from a file with *text*: None when *words* are given and it names none of them,
    else its facts (as :meth:`~tierlock.census.records.FileFacts.to_json` gives them: the census's cache holds
    the same data, which :func:`~tierlock.census.factdigest.digest` compares)."""
    if words is not None and not names_any(text, words):
        return None
    return facts_of(text, name).to_json()


def facts_hold(path: str, calls: Sequence[Any]) -> bool:
    """Whether the file at *path*, read as the census reads it, gives what each of *calls* (``[name, words,
    digest]``, as recorded: :func:`~tierlock.census.factdigest.facts_digest` of what the census took) took from it."""
    text = _text(path)
    if text is None:
        return False
    try:
        return all(facts_digest(taken(text, name, words)) == was for name, words, was in calls)
    except (TypeError, ValueError):
        return False


#: What a census result says that depends on how it was worked out (its own cache), not on the files.
_HOW = frozenset({"files_parsed", "files_cached", "cache_entry"})


def canonical(value: Any) -> Any:
    """A census result (:class:`tierlock.census.report.Census`, its reports, uses and findings) as plain data,
    every attribute in order but :data:`_HOW`: two results compare equal exactly when a command that prints
    from them prints the same."""
    if value is None or isinstance(value, (str, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    if isinstance(value, dict):
        return [[canonical(k), canonical(v)] for k, v in value.items()]
    if isinstance(value, (set, frozenset)):
        return sorted(repr(canonical(v)) for v in value)
    fields = vars(value)
    return [type(value).__name__, [[k, canonical(v)] for k, v in fields.items() if k not in _HOW]]


def shown(text: str, name: str, words: Sequence[str] | None) -> Any:
    """What the census's result shows of a test file with *text* (:attr:`Census.tests`): each test's name and
    first line, as plain data; None when it is not there (the file names none of *words*, or has no function)."""
    if words is not None and not names_any(text, words):
        return None
    facts = facts_of(text, name)
    return plain([(q, facts.functions[q].first) for q in facts.tests()]) if facts.functions else None


def shown_holds(path: str, calls: Sequence[Any], was: bytes) -> bool:
    """Whether the test file at *path* would still show the census's result what it showed (*was*: the
    :func:`~tierlock.census.factdigest.digest` of its tests and their lines), read with the words of its last
    reading in *calls*. False is certain: the result then differs, whatever else the census finds."""
    text = _text(path)
    if text is None:
        return False
    try:
        name, words, _facts = calls[-1]
        return digest(shown(text, name, words)) == was
    except (TypeError, ValueError, IndexError):
        return False


def _text(path: str) -> str | None:
    """The text of the file at *path* as the census reads it (None: it cannot be read)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None
