"""A sidecar read without a TOML parser (:func:`tierlock.lockfiles.artifacts.parse_rendered`, taken only when
rendering its result gives the text back) gives exactly what the TOML parser gives, for any names, versions,
file names and hashes, and for any edit of the text; any text at all is read without an error other than the
``ValueError`` its caller turns into a TOML read."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, Literal

from hypothesis import given, settings
from hypothesis import strategies as st
from packaging.version import Version

from tierlock.lockfiles import artifacts
from tierlock.lockfiles.locks import Lock, LockedFile, LockEntry

#: Text that reaches the escapes JSON and TOML read differently (quotes, backslashes, control characters,
#: characters outside the BMP, surrogates), besides any.
_TEXT = st.text(alphabet=st.sampled_from('ab"\\\n\t\x00\x7f\x1f:é😀\u2028'), max_size=6) | st.text(max_size=6)
_KINDS: list[Literal["wheel", "sdist"]] = ["wheel", "sdist"]
_FILES = st.lists(st.tuples(st.sampled_from(_KINDS), _TEXT, _TEXT, _TEXT), max_size=3).map(
    lambda files: tuple(LockedFile(kind, name, None, None, None, {algo: hexd}) for kind, name, algo, hexd in files)
)
_ENTRY = st.tuples(_TEXT, st.sampled_from(["1", "1.0", "2.0rc1", "0.post1"]), _FILES)


def _lock(entries: list[tuple[str, str, tuple[LockedFile, ...]]]) -> tuple[Lock, dict[Any, Any]]:
    made = [
        LockEntry(name, Version(version), None, tuple(f"{a}:{h}" for f in files for a, h in f.hashes.items()), 1, files)  # type: ignore[arg-type]
        for name, version, files in entries
    ]
    return Lock(Path("lockfiles/base.txt"), "requirements", None, tuple(made), "", "sha256:body"), {
        artifacts.key(e): e.files for e in made
    }


def _agrees(text: str, lock: Lock) -> None:
    """The quick read of *text* is none, or what the TOML parser gives (and the TOML parser does not refuse it)."""
    quick = artifacts._rendered(text, lock)
    if quick is None:
        return
    assert artifacts.parse(text) == quick


@settings(max_examples=300, deadline=None)
@given(entries=st.lists(_ENTRY, max_size=3), body=_TEXT, lockfile=_TEXT)
def test_a_rendered_record_read_quickly_is_what_the_toml_parser_reads(
    entries: list[tuple[str, str, tuple[LockedFile, ...]]], body: str, lockfile: str
) -> None:
    lock, files = _lock(entries)
    text = artifacts.render(lockfile or lock.path.name, body, lock.entries, files)
    _agrees(text, lock)


@settings(max_examples=300, deadline=None)
@given(
    entries=st.lists(_ENTRY, min_size=1, max_size=3),
    at=st.integers(min_value=0),
    cut=st.integers(min_value=0, max_value=3),
    put=_TEXT,
)
def test_a_rendered_record_edited_anywhere_is_read_quickly_only_as_the_toml_parser_reads_it(
    entries: list[tuple[str, str, tuple[LockedFile, ...]]], at: int, cut: int, put: str
) -> None:
    lock, files = _lock(entries)
    text = artifacts.render(lock.path.name, "sha256:body", lock.entries, files)
    at %= len(text) + 1
    _agrees(text[:at] + put + text[at + cut :], lock)


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=200) | st.text(alphabet=st.sampled_from('{}[]= "\\\nabfilehash,sdistuU0d8'), max_size=200))
def test_any_text_read_quickly_is_a_result_none_or_a_value_error(text: str) -> None:
    with contextlib.suppress(ValueError):
        artifacts.parse_rendered(text)
