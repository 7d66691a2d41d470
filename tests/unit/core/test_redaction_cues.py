"""A credential shape is looked for only in a text holding one of its cues, and every credential holds one.

The credential search skips a shape (and compiles none of the shapes' patterns) when the text holds none of its
literal cues, so each shape's cues must be implied by its start pattern: any text where the start matches holds a
cue. Checked over generated texts made of the starts' own pieces, and for every spelling of the GitHub and GitLab
token prefixes. Ordinary words that share a cue's first letters (``globs``, ``googleapis``, ``sqlglot``,
``high``, ``through``: lines every ``check`` and ``probe`` of a real project prints) hold no cue: such a line costs
one search, not the compilation of every shape.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.env import clean_env
from tierlock.redaction import REDACTED, credential_kind, redact
from tierlock.secretshapes import _CUES, SHAPES, Shape, _start

#: Pieces of every shape's start and its near misses, from which the generated texts are made.
PIECES = [
    *(cue for shape in SHAPES for cue in shape.cues),
    *"gGlLhHpPtTdDrRoOuUsS_-=.aAkKiI0",
    "gl",
    "gh",
    "pat",
    "ptt",
    "glob",
    "high",
    "xox",
    "sig",
]


def _holds_cue(shape: Shape, text: str) -> bool:
    if shape.nocase:
        return any(cue.lower() in text.lower() for cue in shape.cues)
    return any(cue in text for cue in shape.cues)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=12).map("".join))
def test_every_text_where_a_shape_starts_holds_one_of_its_cues(text: str) -> None:
    for shape in SHAPES:
        if _start(shape).search(text) is not None:
            assert _holds_cue(shape, text), (shape.kind, text)
            assert _CUES.search(text) is not None, (shape.kind, text)


TAIL = "a1B2c3D4e5F6g7H8i9J0"


@pytest.mark.parametrize("prefix", ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "glpat-", "gldt-", "glptt-", "glrt-"])
def test_every_spelling_of_the_github_and_gitlab_prefixes_is_still_found(prefix: str) -> None:
    token = prefix + TAIL
    assert credential_kind(f"pushed with {token} today") in {"GitHub token", "GitLab token"}
    assert redact(f"token={token}") == f"token={REDACTED}"
    assert credential_kind(f"pushed with {prefix + TAIL[:-1]} today") is None  # one character short


@pytest.mark.parametrize(
    "line",
    [
        "lockfiles/ibis.txt: ibis: sibling-conflict: ibis and sqlframe disagree on sqlglot 30.31.0",
        "pyspark-connect: googleapis-common-protos absent - no .dist-info for googleapis-common-protos",
        "census: 5 of its 42 tests need tier pandas outside its tests globs; a high count, through",
    ],
)
def test_a_line_with_words_that_only_begin_like_a_cue_compiles_no_shape(line: str) -> None:
    assert _CUES.search(line) is None
    code = (
        "from tierlock.redaction import redact\nfrom tierlock import secretshapes\n"
        f"print(redact({line!r}))\nprint(secretshapes._starts.cache_info().currsize)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=clean_env())
    shown, compiled = proc.stdout.splitlines()
    assert (shown, compiled) == (line, "0")


def _redacted_in_full(text: str) -> str:
    """What :func:`redact` gives without its first test (the URL masking, then every span found)."""
    from tierlock.masking import mask_credentials
    from tierlock.redaction import spans

    masked = mask_credentials(text)
    out, at = [], 0
    for start, end, _ in spans(masked):
        if start >= at:
            out += [masked[at:start], REDACTED]
        at = max(at, end)
    return "".join([*out, masked[at:]])


@settings(max_examples=400, deadline=None)
@given(
    text=st.lists(
        st.sampled_from([*PIECES, "://", "@", ":", "/", "https", "u:p", "==", "A" * 20, "Ab1" * 7, " ", "é", "\u212a"]),
        max_size=12,
    ).map("".join)
    | st.text(max_size=60)
)
def test_a_short_text_without_a_cue_is_given_back_as_the_full_redaction_gives_it(text: str) -> None:
    assert redact(text) == _redacted_in_full(text)


@pytest.mark.parametrize(
    "text",
    [
        "https://u:p@h",  # (a URL's password: shorter than the shortest standalone key)
        "ghp_" + "a" * 20,
        "AKIA" + "A" * 16,
        "x" * 39,
        "verdict",
        "sig=" + "Ab1" * 14,
    ],
)
def test_short_texts_with_a_cue_are_redacted_in_full(text: str) -> None:
    assert redact(text) == _redacted_in_full(text)
    assert (redact(text) == text) == (_redacted_in_full(text) == text)


@pytest.mark.parametrize(
    ("found", "listed"),
    [
        ([(0, 5, "a"), (0, 9, "b")], [(0, 9, "b")]),  # (the same start: the longer one, whatever order they come in)
        ([(0, 9, "b"), (0, 5, "a")], [(0, 9, "b")]),
        ([(0, 6, "a"), (4, 9, "b")], [(0, 6, "a"), (4, 9, "b")]),  # (overlapping: both, the text masked through 9)
        ([(4, 9, "b"), (0, 6, "a"), (1, 3, "c")], [(0, 6, "a"), (4, 9, "b")]),  # (one inside another: not again)
    ],
)
def test_spans_found_are_listed_in_text_order_each_inside_another_left_out(
    found: list[tuple[int, int, str]], listed: list[tuple[int, int, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tierlock import redaction

    monkeypatch.setattr(redaction, "find", lambda text: iter(found))
    assert redaction.spans("0123456789 tail") == listed
    end = max(end for _, end, _ in listed)  # (masked from the first start through the last end, once)
    assert redaction.redact("0123456789 tail" + "x" * 40) == REDACTED + "0123456789 tail"[end:] + "x" * 40
