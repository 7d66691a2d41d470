"""Direct-reference entries of a requirements lockfile: the version is read from the file name of the URL,
whatever follows it (a ``#sha256=`` fragment, a ``?`` query, a trailing slash)."""

from __future__ import annotations

import pytest
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


def test_a_url_whose_file_name_carries_no_version_is_an_integrity_problem_on_its_line() -> None:
    body = f"attrs==1.0 --hash=sha256:{H1}\nattrs2 @ https://files.example/get?id=7 --hash=sha256:{H1}\n"
    (problem,) = [p for p in requirements.parse(body).problems if p.kind != "header"]
    assert problem.kind == "integrity"
    assert problem.line == 2
    assert "attrs2: the version of URL entry" in problem.detail
