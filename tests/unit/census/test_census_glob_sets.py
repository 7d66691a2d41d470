"""The census's reports match each set of globs as one pattern: the same answer as the globs one by one.

:func:`tierlock.census.engine.globs_matcher` compiles each set of globs it is asked about into the alternation
of their patterns; every path must match it exactly when :func:`tierlock.tiers.globs.matches` says so, for any
globs (wildcards, ``**``, folders, character classes, a trailing ``/``, none at all).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tierlock.census.engine import globs_matcher
from tierlock.tiers.globs import matches

PARTS = st.sampled_from(["tests", "a", "b_test.py", "x.py", "*", "**", "?", "[ab]", "[!a]*", "frame", "conftest.py"])
GLOB = st.lists(PARTS, min_size=1, max_size=4).map("/".join) | st.lists(PARTS, min_size=1, max_size=3).map(
    lambda parts: "./" + "/".join(parts) + "/"
)
PATH = st.lists(
    st.sampled_from(["tests", "a", "b", "b_test.py", "x.py", "frame", "conftest.py", "ab"]), min_size=1, max_size=5
)


@settings(max_examples=300, deadline=None)
@given(globs=st.lists(GLOB, max_size=4), paths=st.lists(PATH.map("/".join), min_size=1, max_size=6))
def test_a_set_of_globs_matches_a_path_exactly_when_one_of_them_does(globs: list[str], paths: list[str]) -> None:
    matcher = globs_matcher()
    for path in paths:
        assert matcher(path, tuple(globs)) == matches(path, globs)
        assert matcher(path, globs) == matches(path, globs)  # a list asked again: the same compiled set


def test_no_globs_match_nothing_and_a_folder_glob_matches_below_it() -> None:
    matcher = globs_matcher()
    assert not matcher("tests/a.py", ())
    assert matcher("tests/frame/x_test.py", ("tests/frame",))
    assert not matcher("tests/frames/x_test.py", ("tests/frame",))
    assert matcher("tests/frame/x_test.py", ("docs/**", "tests/*/x_test.py"))


@given(st.text(alphabet="ab./\\ *?[]", max_size=12))
def test_a_globs_text_and_stem_are_what_the_patterns_made_of_them(glob: str) -> None:
    import re

    from tierlock.census.engine import _glob_stem, _glob_text

    text = re.sub(r"^(?:\./)+", "", glob.replace("\\", "/").strip())
    assert _glob_text(glob) == text
    wild = re.search(r"[*?\[]", text)
    head = text if wild is None else text[: wild.start()]
    stem = text.rstrip("/") if wild is None else (head.rsplit("/", 1)[0] if "/" in head else "")
    assert _glob_stem(glob) == stem
