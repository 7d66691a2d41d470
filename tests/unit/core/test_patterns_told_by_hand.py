"""What a full run tells by string searches instead of compiling a pattern: the same answers as the patterns.

Each helper replaces a regular expression a full run of a read-only command compiled once per process (about
0.4 M instructions each); arbitrary texts over the characters that matter give the same answer both ways.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from tierlock import compiledname
from tierlock.lockfiles import requirements
from tierlock.probing import compiled, metadata, site

#: Texts made of the characters each pattern looks at, and others (a Unicode space and digit, line breaks).
TEXTS = st.lists(
    st.sampled_from(
        ["a", "#", " ", "\t", "\u2003", "-", "--", "=", ".", "so", "1", "2", "\u0663", "\n", "f", "G", "_"]
    ),
    max_size=10,
).map("".join)


@given(TEXTS)
@settings(max_examples=500)
def test_a_lockfile_lines_comment_is_cut_as_the_comment_pattern_cuts_it(text: str) -> None:
    assert requirements._without_comment(text) == re.sub(r"(^|\s+)#.*$", "", text)


@given(TEXTS)
@settings(max_examples=500)
def test_a_requirement_line_is_split_before_its_options_as_the_pattern_splits_it(text: str) -> None:
    assert requirements._option_parts(text) == re.split(r"\s+(?=--)", text)


@given(TEXTS)
@settings(max_examples=300)
def test_a_hash_is_hexadecimal_exactly_when_the_pattern_says_so(text: str) -> None:
    assert requirements._is_hex(text) == (re.fullmatch(r"[0-9a-fA-F]+", text) is not None)


@given(TEXTS)
@settings(max_examples=500)
def test_a_shared_librarys_name_is_told_as_the_pattern_tells_it(text: str) -> None:
    assert compiledname._so_named(text) == (re.search(r"\.so(\.[0-9]+)*$", text) is not None)
    assert compiled.is_compiled(text + ".so.1\n") == (re.search(r"\.so(\.[0-9]+)*$", text + ".so.1\n") is not None)


@given(TEXTS)
@settings(max_examples=300)
def test_a_release_only_version_is_told_as_the_pattern_tells_it(text: str) -> None:
    assert metadata._release_only(text) == (re.fullmatch(r"[0-9]+(?:\.[0-9]+)*", text) is not None)


@given(TEXTS)
@settings(max_examples=300)
def test_a_distribution_name_is_normalised_as_pep_503s_pattern_does(text: str) -> None:
    assert site.normalize(text) == re.sub(r"[-_.]+", "-", text).lower()
