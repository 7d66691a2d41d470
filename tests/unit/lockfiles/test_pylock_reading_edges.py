"""Reading a pylock: the files of each package, the hashes that count, and where each problem is placed.

Each test writes a pylock by hand and reads it through :func:`tierlock.lockfiles.read`
(lenient: every problem with its line), as ``tierlock check`` does.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tierlock.lockfiles import ReadProblem, read

H = "a" * 64
TOP = 'lock-version = "1.0"\ncreated-by = "uv"\n'


def read_text(
    tmp_path: Path, text: str
) -> tuple[list[tuple[str, str, str, str | None, str | None]], list[ReadProblem]]:
    """The (package, kind, file name, url, path) of every locked file, and the integrity problems."""
    path = tmp_path / "pylock.base.toml"
    path.write_text(text, encoding="utf-8")
    result = read(path)
    files: list[tuple[str, str, str, str | None, str | None]] = [
        (e.name, f.kind, f.filename, f.url, f.path) for e in result.lock.entries for f in e.files
    ]
    return files, [p for p in result.problems if p.kind == "integrity"]  # no [tool.tierlock] here: not a header test


def package(name: str, *body: str) -> str:
    return "\n".join(("[[packages]]", f'name = "{name}"', 'version = "1.0"', *(b for b in body if b))) + "\n"


def test_an_archive_is_a_wheel_or_an_sdist_named_by_the_last_part_of_its_url_or_path(tmp_path: Path) -> None:
    alpha = f"https://files.example/a/alpha-1.0-py3-none-any.whl#sha256={H}"
    beta = "https://files.example/b/beta-1.0.tar.gz/"
    text = TOP + "\n".join(
        (
            package("alpha", f'archive = {{ url = "{alpha}", hashes = {{ sha256 = "{H}" }} }}'),
            package("beta", f'archive = {{ url = "{beta}", hashes = {{ sha256 = "{H}" }} }}'),
            package("gamma", f'archive = {{ path = "gamma-1.0.zip", hashes = {{ sha256 = "{H}" }} }}'),
            package(
                "delta", f'archive = {{ path = "wheels/delta-1.0-py3-none-any.whl", hashes = {{ sha256 = "{H}" }} }}'
            ),
        )
    )
    files, problems = read_text(tmp_path, text)
    assert problems == []
    assert files == [
        ("alpha", "wheel", "alpha-1.0-py3-none-any.whl", alpha, None),
        ("beta", "sdist", "beta-1.0.tar.gz", beta, None),
        ("gamma", "sdist", "gamma-1.0.zip", None, "gamma-1.0.zip"),
        ("delta", "wheel", "delta-1.0-py3-none-any.whl", None, "wheels/delta-1.0-py3-none-any.whl"),
    ]


@pytest.mark.parametrize("value", ["", "a", "a" * 64], ids=["empty", "one-digit", "sha256-long"])
def test_a_file_whose_only_hash_uses_an_unknown_algorithm_has_no_usable_hash(tmp_path: Path, value: str) -> None:
    wheel = f'wheels = [{{ url = "https://files.example/demo-1.0-py3-none-any.whl", hashes = {{ md5 = "{value}" }} }}]'
    _, problems = read_text(tmp_path, TOP + package("demo", wheel))
    assert [(p.line, p.detail) for p in problems] == [
        (3, "demo: demo-1.0-py3-none-any.whl has no usable hash (sha256, 64 hex digits)")
    ]


@pytest.mark.parametrize(
    "source",
    [
        f'vcs = {{ type = "git", url = "https://git.example/demo.git", commit-id = "{"1" * 40}" }}',
        'directory = { path = "src/demo" }',
    ],
    ids=["vcs", "directory"],
)
def test_a_vcs_or_directory_package_with_a_version_is_refused(tmp_path: Path, source: str) -> None:
    files, problems = read_text(tmp_path, TOP + package("demo", source))
    assert files == []
    assert [(p.line, p.detail) for p in problems] == [
        (3, "demo: a VCS or directory package cannot be locked with hashes")
    ]


def wheel(name: str, extra: str = "") -> str:
    url = f"https://files.example/{name}-1.0-py3-none-any.whl"
    return f'wheels = [{{ url = "{url}", hashes = {{ sha256 = "{H}" }}{extra} }}]'


def three(beta: tuple[str, ...] = (), gamma: tuple[str, ...] = ()) -> str:
    """Three packages at lines 4, 9 and 14 (a blank line between them), *beta* and *gamma* added to the last two."""
    return (
        TOP
        + 'requires-python = ">=3.11"\n'
        + package("alpha", wheel("alpha"))
        + "\n"
        + package("beta", wheel("beta"), *beta)
        + "\n"
        + package("gamma", wheel("gamma"), *gamma)
    )


def test_the_three_packages_read_clean_at_their_lines(tmp_path: Path) -> None:
    path = tmp_path / "pylock.base.toml"
    path.write_text(three(), encoding="utf-8")
    result = read(path)
    assert [p for p in result.problems if p.kind == "integrity"] == []
    assert [(e.name, e.line) for e in result.lock.entries] == [("alpha", 4), ("beta", 9), ("gamma", 14)]


@pytest.mark.parametrize(
    ("change", "line", "detail"),
    [
        # a top-level key below the first line
        (lambda t: t.replace('">=3.11"', '"not a spec"', 1), 3, "Invalid specifier: 'not a spec' in 'requires-python'"),
        # the second package's missing name: its own [[packages]] line, not the name of the third
        (lambda t: t.replace('name = "beta"\n', ""), 9, "Missing required value in 'packages[1].name'"),
        # a field on the first line of the third package
        (lambda t: t.replace('name = "gamma"', "name = 3"), 15, "'packages[2].name'"),
        # a field on the last line of the file, of an even and an odd number of lines
        (lambda t: t + 'marker = "bad =="\n', 18, "'packages[2].marker'"),
        (lambda t: t + 'requires-python = ">=3.11"\nmarker = "bad =="\n', 19, "'packages[2].marker'"),
        # the last package's missing name: its [[packages]] line, not a key of a table below it
        (lambda t: t.replace('name = "gamma"\n', ""), 14, "Missing required value in 'packages[2].name'"),
        (
            lambda t: t.replace('name = "gamma"\n', "") + '\n[tool.other]\nname = "x"\n',
            14,
            "Missing required value in 'packages[2].name'",
        ),
        # a field of the second package (line 13) when the third has one of that name
        (lambda t: three(beta=("marker = 3",), gamma=("marker = \"os_name == 'posix'\"",)), 13, "'packages[1].marker'"),
    ],
    ids=[
        "top-level-key",
        "missing-field",
        "first-field",
        "last-line-even",
        "last-line-odd",
        "missing-field-of-the-last",
        "missing-field-before-a-tool-table",
        "field-of-the-nth-package",
    ],
)
def test_a_pylock_problem_is_placed_on_the_line_of_its_package_or_key(
    tmp_path: Path, change: object, line: int, detail: str
) -> None:
    _, problems = read_text(tmp_path, change(three()))  # type: ignore[operator]
    assert [(p.line, detail in p.detail) for p in problems] == [(line, True)], problems


def test_a_missing_top_level_key_has_no_line_even_when_a_table_below_has_a_key_of_that_name(tmp_path: Path) -> None:
    text = 'created-by = "uv"\n' + package("alpha", wheel("alpha")) + '\n[tool.other]\nlock-version = "1.0"\n'
    _, problems = read_text(tmp_path, text)
    assert [(p.line, "Missing required value in 'lock-version'" in p.detail) for p in problems] == [(None, True)]


def test_packages_written_as_an_inline_array_are_read_with_no_line(tmp_path: Path) -> None:
    inline = f'packages = [{{ name = "demo", version = "1.0", {wheel("demo", ", size = 10")} }}]\n'
    files, problems = read_text(tmp_path, TOP + inline)
    assert problems == []
    assert files == [
        ("demo", "wheel", "demo-1.0-py3-none-any.whl", "https://files.example/demo-1.0-py3-none-any.whl", None)
    ]
    no_hash = inline.replace(f'sha256 = "{H}"', 'sha256 = "abc"')
    _, problems = read_text(tmp_path, TOP + no_hash)
    assert [(p.line, "has no usable hash" in p.detail) for p in problems] == [(None, True)]
    bad = inline.replace("size = 10", 'size = "big"')
    _, problems = read_text(tmp_path, TOP + bad)
    assert [(p.line, "'packages[0].wheels[0].size'" in p.detail) for p in problems] == [(None, True)]
    second = inline.replace("}]\n", '}, { name = "beta", version = "1.0", marker = 3 }]\n')
    _, problems = read_text(tmp_path, TOP + second)
    assert [(p.line, "'packages[1].marker'" in p.detail) for p in problems] == [(None, True)]
