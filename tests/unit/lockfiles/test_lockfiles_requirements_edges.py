"""Edges of the requirements-lockfile reader: the version of a direct reference comes from the file name of
its URL whatever follows it (a ``#sha256=`` fragment, a ``?`` query, a trailing slash); continued lines
join the same with or without a space before the backslash, and a file that ends inside one keeps its entry."""

from __future__ import annotations

import pytest
from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import Version

from tierlock.lockfiles import requirements

H1 = "a" * 64


@pytest.mark.parametrize(
    ("url", "version"),
    [
        ("https://files.example/attrs-25.1.0-py3-none-any.whl", "25.1.0"),
        (f"https://files.example/attrs-25.1.0-py3-none-any.whl#sha256={H1}", "25.1.0"),
        ("https://files.example/attrs-25.1.0-py3-none-any.whl?token=abc", "25.1.0"),
        ("https://files.example/attrs-25.1.0.tar.gz?x=1#egg=attrs", "25.1.0"),
        ("https://files.example/dl/attrs-25.1.0.tar.gz/", "25.1.0"),
    ],
)
def test_the_version_of_a_url_entry_comes_from_the_file_name_of_its_url(url: str, version: str) -> None:
    parsed = requirements.parse(f"attrs @ {url} --hash=sha256:{H1}\n")
    assert [p.detail for p in parsed.problems if p.kind != "header"] == []
    (entry,) = parsed.entries
    assert entry.version == Version(version)
    assert entry.url == url


@pytest.mark.parametrize("url", ["https://files.example/get?id=7", "file:attrs-25.1.0-py3-none-any.whl"])
def test_a_url_whose_file_name_carries_no_version_is_an_integrity_problem_on_its_line(url: str) -> None:
    body = f"attrs==1.0 --hash=sha256:{H1}\nattrs2 @ {url} --hash=sha256:{H1}\n"
    (problem,) = [p for p in requirements.parse(body).problems if p.kind != "header"]
    assert problem.kind == "integrity"
    assert problem.line == 2
    assert f"attrs2: the version of URL entry {url!r} cannot be known" in problem.detail


@pytest.mark.parametrize("gap", ["", " ", "\t"])
def test_a_continued_line_joins_the_same_with_or_without_a_space_before_the_backslash(gap: str) -> None:
    parsed = requirements.parse(f"attrs==25.1.0{gap}\\\n    --hash=sha256:{H1}\nidna==3.10 --hash=sha256:{H1}\n")
    assert [p.detail for p in parsed.problems if p.kind != "header"] == []
    assert [(e.name, str(e.version), e.hashes, e.line) for e in parsed.entries] == [
        ("attrs", "25.1.0", (f"sha256:{H1}",), 1),
        ("idna", "3.10", (f"sha256:{H1}",), 3),
    ]


def test_a_file_that_ends_inside_a_continued_line_is_an_integrity_problem_and_keeps_the_entry() -> None:
    parsed = requirements.parse(f"idna==3.10 --hash=sha256:{H1}\nattrs==25.1.0 \\\n    --hash=sha256:{H1} \\\n")
    (problem,) = [p for p in parsed.problems if p.kind != "header"]
    assert problem.kind == "integrity"
    assert problem.line == 2
    assert problem.detail.startswith("the file ends inside a continued line: 'attrs==25.1.0 --hash=sha256:")
    assert [e.name for e in parsed.entries] == ["idna", "attrs"]


@pytest.mark.parametrize(("algorithm", "digits"), [("sha256", 64), ("sha384", 96), ("sha512", 128)])
def test_a_hash_of_each_accepted_algorithm_is_read_at_its_full_length_and_refused_one_digit_short(
    algorithm: str, digits: int
) -> None:
    whole = requirements.parse(f"attrs==25.1.0 --hash={algorithm.upper()}:{'B' * digits}\n")
    assert [p.detail for p in whole.problems if p.kind != "header"] == []
    assert whole.entries[0].hashes == (f"{algorithm}:{'b' * digits}",)
    short = requirements.parse(f"attrs==25.1.0 --hash={algorithm}:{'b' * (digits - 1)}\n")
    (problem,) = [p for p in short.problems if p.kind != "header"]
    assert (
        problem.detail
        == f"attrs: truncated {algorithm} hash ({digits - 1} hex digits, {digits} needed): {'b' * (digits - 1)}"
    )


def test_a_comment_inside_a_continued_line_neither_ends_it_nor_stops_the_reading() -> None:
    body = f"attrs==25.1.0 \\\n# a comment\n    --hash=sha256:{H1}\nidna==3.10 --hash=sha256:{H1}\n"
    parsed = requirements.parse(body)
    assert [p.detail for p in parsed.problems if p.kind != "header"] == []
    assert [(e.name, e.hashes, e.line) for e in parsed.entries] == [
        ("attrs", (f"sha256:{H1}",), 1),
        ("idna", (f"sha256:{H1}",), 4),
    ]


def test_an_arbitrary_equality_pin_that_is_no_version_is_an_integrity_problem() -> None:
    (problem,) = [p for p in requirements.parse(f"attrs===latest --hash=sha256:{H1}\n").problems if p.kind != "header"]
    assert (problem.kind, problem.line, problem.detail) == ("integrity", 1, "attrs: 'latest' is not a valid version")


def test_a_syntax_error_names_the_first_line_of_the_reason() -> None:
    (problem,) = [p for p in requirements.parse(f"attrs=>1 --hash=sha256:{H1}\n").problems if p.kind != "header"]
    with pytest.raises(InvalidRequirement) as reason:
        Requirement("attrs=>1")
    assert len(str(reason.value).strip().splitlines()) > 1  # packaging's reason spans lines; the first one is shown
    assert problem.detail == f"syntax error: {str(reason.value).strip().splitlines()[0]}"


def test_constraint_lines_keep_the_url_or_the_pin_and_the_marker_without_hashes() -> None:
    body = (
        f"attrs @ https://files.example/attrs-25.1.0-py3-none-any.whl --hash=sha256:{H1}\n"
        f"idna==3.10 ; python_version >= '3.11' --hash=sha256:{H1}\n"
    )
    lines = [requirements.entry_line(e) for e in requirements.parse(body).entries]
    assert lines == [
        "attrs @ https://files.example/attrs-25.1.0-py3-none-any.whl",
        'idna==3.10 ; python_version >= "3.11"',
    ]


@pytest.mark.parametrize("inputs", [("attrs",), ("attrs", "idna"), ("attrs", "idna", "rich")])
def test_entries_are_numbered_by_their_line_in_the_file_whatever_the_length_of_the_header(
    inputs: tuple[str, ...],
) -> None:
    from tierlock.lockfiles import digest
    from tierlock.lockfiles.locks import LockHeader

    body = ["attrs==25.1.0 \\", f"    --hash=sha256:{H1}", f"idna==3.10 --hash=sha256:{H1}"]
    header = LockHeader(
        tier="base",
        inputs=inputs,
        inputs_digest="sha256:" + "0" * 64,
        layered_on=None,
        layered_on_digest=None,
        body_digest=digest.body_digest(body),
        backend="uv",
        backend_version="test",
        platform=None,
        command="tierlock lock base",
        requires_python=None,
    )
    text = requirements.render(header, body)
    lines = text.splitlines()
    parsed = requirements.parse(text)
    assert [(e.name, e.line) for e in parsed.entries] == [
        ("attrs", lines.index("attrs==25.1.0 \\") + 1),
        ("idna", lines.index(f"idna==3.10 --hash=sha256:{H1}") + 1),
    ]


@pytest.mark.parametrize("algorithm", ["sha384", "sha512"])
def test_a_hash_of_another_algorithm_with_the_length_of_a_sha256_one_is_refused(algorithm: str) -> None:
    value = f"{algorithm}:{'b' * 64}"
    assert len(value) == len(f"sha256:{'b' * 64}")
    (problem,) = [p for p in requirements.parse(f"attrs==25.1.0 --hash={value}\n").problems if p.kind != "header"]
    assert problem.kind == "integrity"
    assert problem.detail.startswith("attrs: ")
