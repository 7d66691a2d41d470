"""A pylock problem is placed on its line however the TOML lays the tables out.

Hand-kept or reformatted pylocks write a package's archive as a ``[packages.archive]`` table,
its wheels as ``[[packages.wheels]]`` tables (which have keys of their own, ``name`` among
them), dotted keys, and table headers with spaces or a trailing comment.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tierlock.lockfiles import read

H = "a" * 64
TOP = 'lock-version = "1.0"\ncreated-by = "uv"\n'


def package(name: str | None, *body: str, header: str = "[[packages]]") -> str:
    named = (f'name = "{name}"',) if name else ()
    return "\n".join((header, *named, 'version = "1.0"', *body)) + "\n"


def wheel(name: str) -> str:
    return f'wheels = [{{ url = "https://files.example/{name}-1.0-py3-none-any.whl", hashes = {{ sha256 = "{H}" }} }}]'


def problems_of(tmp_path: Path, text: str) -> list[tuple[int | None, str]]:
    path = tmp_path / "pylock.base.toml"
    path.write_text(text, encoding="utf-8")
    return [(p.line, p.detail) for p in read(path).problems if p.kind == "integrity"]


@pytest.mark.parametrize(
    ("text", "line", "context"),
    [
        (  # the archive table of the package, not the package's header
            TOP
            + package(
                "alpha",
                "[packages.archive]",
                'path = "dist/alpha-1.0.tar.gz"',
                'size = "big"',
                f'hashes = {{ sha256 = "{H}" }}',
            ),
            6,
            "packages[0].archive.size",
        ),
        (  # the wheels' table past the sdist's table of the same package
            TOP
            + package(
                "alpha",
                "[packages.sdist]",
                'path = "dist/alpha-1.0.tar.gz"',
                f'hashes = {{ sha256 = "{H}" }}',
                "[[packages.wheels]]",
                'path = "dist/alpha-1.0-py3-none-any.whl"',
                'size = "big"',
                f'hashes = {{ sha256 = "{H}" }}',
            ),
            9,
            "packages[0].wheels[0].size",
        ),
        (  # a dotted key of the package
            TOP
            + package(
                "alpha",
                'archive.path = "dist/alpha-1.0.tar.gz"',
                'archive.size = "big"',
                f'archive.hashes = {{ sha256 = "{H}" }}',
            ),
            6,
            "packages[0].archive.size",
        ),
        (  # the missing name of the second package: its header, not the name of its wheel's table
            TOP
            + package("alpha", wheel("alpha"))
            + package(
                None,
                "[[packages.wheels]]",
                'name = "beta-1.0-py3-none-any.whl"',
                'url = "https://files.example/beta-1.0-py3-none-any.whl"',
                f'hashes = {{ sha256 = "{H}" }}',
            ),
            7,
            "packages[1].name",
        ),
        (  # the third package when the first one's header has a comment and the second's spaces
            TOP
            + package("alpha", wheel("alpha"), header="[[packages]]  # pinned by hand")
            + package("beta", wheel("beta"), header="[[ packages ]]")
            + package("gamma", wheel("gamma"), "marker = 3"),
            15,
            "packages[2].marker",
        ),
    ],
    ids=["archive-table", "wheels-table-past-the-sdist-table", "dotted-key", "subtable-key", "header-with-comment"],
)
def test_a_pylock_problem_is_placed_on_its_line_in_any_table_layout(
    tmp_path: Path, text: str, line: int, context: str
) -> None:
    problems = problems_of(tmp_path, text)
    assert [(number, f"'{context}'" in detail) for number, detail in problems] == [(line, True)], problems


def test_packages_under_headers_with_comments_or_spaces_keep_their_own_lines(tmp_path: Path) -> None:
    text = (
        TOP
        + package("alpha", wheel("alpha"), header="[[packages]]  # pinned by hand")
        + package("beta", wheel("beta"), header="  [[ packages ]]")
        + package("gamma", wheel("gamma"))
    )
    path = tmp_path / "pylock.base.toml"
    path.write_text(text, encoding="utf-8")
    result = read(path)
    assert [(e.name, e.line) for e in result.lock.entries] == [("alpha", 3), ("beta", 7), ("gamma", 11)]


def test_a_mangled_header_table_under_a_commented_header_line_is_placed_there(tmp_path: Path) -> None:
    text = TOP + package("alpha", wheel("alpha")) + "\n[tool.tierlock]  # written by tierlock lock\ntier = 3\n"
    path = tmp_path / "pylock.base.toml"
    path.write_text(text, encoding="utf-8")
    lines = {p.line for p in read(path).problems if p.kind == "header"}
    assert lines == {8}
