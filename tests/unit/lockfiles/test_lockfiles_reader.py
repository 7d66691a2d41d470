"""The lockfile reader: load() and read() on the requirements and pylock formats, good and bad input."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.version import Version

from tierlock.environment import current
from tierlock.frozen import replace
from tierlock.lockfiles import (
    LockfileError,
    LockHeader,
    digest_file,
    load,
    platform_id,
    platform_mismatch,
    read,
)
from tierlock.lockfiles import pylock as pylock_format
from tierlock.lockfiles import requirements as req_format
from tierlock.lockfiles.digest import body_digest, inputs_digest
from tierlock.lockfiles.markers import overlap

H1 = "a" * 64
H2 = "b" * 64
H3 = "c" * 64


def header_for(body: list[str], **changes: object) -> LockHeader:
    inputs = ("attrs>=23",)
    header = LockHeader(
        tier="base",
        inputs=inputs,
        inputs_digest=inputs_digest(
            inputs, include_groups=(), requires_python=">=3.11", layered_on=None, format="requirements"
        ),
        layered_on=None,
        layered_on_digest=None,
        body_digest=body_digest(body),
        backend="uv",
        backend_version="0.9.0",
        platform=None,
        command="tierlock lock base",
        requires_python=">=3.11",
    )
    return replace(header, **changes)


def write_lock(tmp_path: Path, body: list[str], name: str = "base.txt", **changes: object) -> Path:
    path = tmp_path / name
    path.write_text(req_format.render(header_for(body, **changes), body), encoding="utf-8")
    return path


GOOD_BODY = [
    "attrs==25.1.0 \\",
    f"    --hash=sha256:{H1} \\",
    f"    --hash=sha256:{H2}",
    "    # via demo-app (pyproject.toml)",
    "numpy==2.2.6 ; python_full_version < '3.11' \\",
    f"    --hash=sha256:{H3}",
    "numpy==2.3.0 ; python_full_version >= '3.11' \\",
    f"    --hash=sha256:{H1}",
]


def test_load_reads_pins_hashes_markers_and_lines_of_a_requirements_lock(tmp_path: Path) -> None:
    path = write_lock(tmp_path, GOOD_BODY)
    lock = load(path)
    assert lock.format == "requirements"
    assert [(e.name, str(e.version)) for e in lock.entries] == [
        ("attrs", "25.1.0"),
        ("numpy", "2.2.6"),
        ("numpy", "2.3.0"),
    ]
    attrs = lock.entries[0]
    assert attrs.hashes == (f"sha256:{H1}", f"sha256:{H2}")
    assert attrs.marker is None
    numpy_new = lock.entries[2]
    assert numpy_new.marker == Marker("python_full_version >= '3.11'")
    text_lines = path.read_text().splitlines()
    for entry in lock.entries:
        assert entry.line is not None
        assert text_lines[entry.line - 1].startswith(f"{entry.name}==")
    assert lock.header is not None
    assert lock.header.tier == "base"
    assert lock.header.command == "tierlock lock base"
    assert lock.header.platform is None
    assert lock.universal
    assert not lock.hand_edited
    assert lock.file_digest == hashlib.sha256(path.read_bytes()).hexdigest() == digest_file(path)


def test_lock_get_picks_the_entry_whose_marker_holds(tmp_path: Path) -> None:
    lock = load(write_lock(tmp_path, GOOD_BODY))
    old = {"python_full_version": "3.10.4", "python_version": "3.10"}
    new = {"python_full_version": "3.12.1", "python_version": "3.12"}
    got_old, got_new = lock.get("numpy", old), lock.get("numpy", new)
    assert got_old is not None
    assert got_new is not None
    assert got_old.version == Version("2.2.6")
    assert got_new.version == Version("2.3.0")
    assert [e.name for e in lock.applicable(new)] == ["attrs", "numpy"]


def test_a_bom_and_crlf_line_endings_read_the_same(tmp_path: Path) -> None:
    plain = write_lock(tmp_path, GOOD_BODY)
    crlf = tmp_path / "crlf.txt"
    crlf.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes().replace(b"\n", b"\r\n"))
    a, b = load(plain), load(crlf)
    assert [(e.name, e.version, e.hashes, e.line) for e in a.entries] == [
        (e.name, e.version, e.hashes, e.line) for e in b.entries
    ]
    assert a.body_digest == b.body_digest
    assert not b.hand_edited


def test_a_plain_pip_tools_lock_without_header_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "requirements.txt"
    path.write_text(f"attrs==25.1.0 --hash=sha256:{H1}\n")
    lock = load(path)
    assert lock.header is None
    assert [e.pin for e in lock.entries] == ["attrs==25.1.0"]
    with pytest.raises(LockfileError, match="no tierlock header"):
        load(path, require_header=True)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (["attrs>=25 \\", f"    --hash=sha256:{H1}"], r"attrs: >=25 is not an exact pin"),
        (["attrs==25.1.0"], r"attrs: an entry without hashes"),
        (["-e ./src/attrs"], r"an editable entry cannot be locked"),
        (["--pre"], r"unknown option line '--pre'"),
        (["-r other.txt"], r"must be self-contained"),
        ([f"attrs==25.1.0 --hash=sha256:{H1[:20]}"], r"truncated sha256 hash \(20 hex digits, 64 needed\)"),
        ([f"attrs==25.1.0 --hash=md5:{H1[:32]}"], r"hash algorithm 'md5' is not accepted"),
        ([f"attrs===25.1.0 --hash=sha256:{H1} --config-settings=x"], r"unknown option '--config-settings'"),
        ([f"attrs=25 --hash=sha256:{H1}"], r"syntax error"),
        ([f"attrs==25.* --hash=sha256:{H1}"], r"not an exact pin"),
        ([f"attrs @ https://example.org/attrs.tar.gz --hash=sha256:{H1}"], r"cannot be known"),
        (["attrs @ https://example.org/attrs-25.1.0-py3-none-any.whl"], r"a URL entry without hashes"),
        ([f"attrs==25.1.0 --hash=sha256:{H1} \\"], r"ends inside a continued line"),
        (
            [f"attrs==25.1.0 --hash=sha256:{H1}", f"attrs==25.2.0 --hash=sha256:{H2}"],
            r"attrs appears twice with overlapping markers \(lines \d+ and \d+\)",
        ),
        (
            [
                f"attrs==25.1.0 ; sys_platform == 'win32' --hash=sha256:{H1}",
                f"attrs==25.2.0 ; sys_platform != 'linux' --hash=sha256:{H2}",
            ],
            r"attrs appears twice",
        ),
    ],
)
def test_load_refuses_a_lockfile_with_an_integrity_problem_naming_file_and_line(
    tmp_path: Path, body: list[str], expected: str
) -> None:
    path = write_lock(tmp_path, body)
    with pytest.raises(LockfileError) as info:
        load(path)
    err = info.value
    assert err.file == str(path)
    rendered = "\n".join(err.lines())
    assert any(__import__("re").search(expected, p.message) for p in err.problems), rendered
    assert all(p.file == str(path) for p in err.problems)
    assert err.remedy == "regenerate it: tierlock lock base (then run tierlock check)"  # the header's own command
    first_body_line = len(path.read_text().splitlines()) - len(body) + 1
    if "ends inside" not in expected:
        assert err.problems[-1].line is not None
        assert err.problems[-1].line >= first_body_line


def test_a_url_entry_with_a_hash_and_a_wheel_name_is_exact(tmp_path: Path) -> None:
    url = "https://example.org/files/attrs-25.1.0-py3-none-any.whl"
    lock = load(write_lock(tmp_path, [f"attrs @ {url} \\", f"    --hash=sha256:{H1}"]))
    assert lock.entries[0].url == url
    assert lock.entries[0].version == Version("25.1.0")


def test_forks_of_one_package_with_disjoint_markers_are_not_duplicates(tmp_path: Path) -> None:
    body = [
        f"numpy==2.2.6 ; python_version < '3.11' --hash=sha256:{H1}",
        f"numpy==2.3.0 ; python_full_version >= '3.11' --hash=sha256:{H2}",
        f"pywin==1 ; sys_platform == 'win32' and platform_machine == 'AMD64' --hash=sha256:{H1}",
        f"pywin==2 ; sys_platform == 'win32' and platform_machine != 'AMD64' --hash=sha256:{H2}",
    ]
    assert len(load(write_lock(tmp_path, body)).entries) == 4


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        (None, "sys_platform == 'linux'", True),
        ("python_version < '3.12'", "python_version >= '3.12'", False),
        ("python_version < '3.12'", "python_full_version >= '3.11.4'", True),
        ("python_full_version < '3.11.4'", "python_full_version >= '3.11.4'", False),
        ("sys_platform == 'linux'", "sys_platform == 'darwin'", False),
        ("sys_platform == 'linux'", "sys_platform != 'darwin'", True),
        ("platform_machine in 'x86_64 AMD64'", "platform_machine == 'arm64'", False),
        ("os_name == 'nt' or python_version < '3.12'", "os_name != 'nt' and python_version >= '3.12'", False),
    ],
)
def test_markers_overlap_only_when_one_environment_satisfies_both(
    first: str | None, second: str, expected: bool
) -> None:
    assert overlap(Marker(first) if first else None, Marker(second)) is expected


def test_an_empty_lockfile_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "base.txt"
    path.write_text("\n\n")
    with pytest.raises(LockfileError, match="the lockfile is empty"):
        load(path)
    assert read(path).problems[0].detail == "the lockfile is empty"


def test_a_missing_lockfile_is_an_error_with_the_command_that_makes_it(tmp_path: Path) -> None:
    with pytest.raises(LockfileError, match="no lockfile at") as info:
        load(tmp_path / "nope.txt")
    assert info.value.remedy is not None
    assert "tierlock lock" in info.value.remedy


def test_a_mangled_header_is_reported_with_its_line(tmp_path: Path) -> None:
    path = write_lock(tmp_path, GOOD_BODY)
    text = path.read_text().replace("# body-digest: sha256:", "# body-digest: md5:").replace("# tier:", "# teir:")
    path.write_text(text)
    result = read(path)
    details = [p.detail for p in result.problems]
    assert "unknown header key 'teir'" in details
    assert any("'body-digest' is not a sha256 digest" in d for d in details)
    assert all(p.kind == "header" for p in result.problems)
    assert result.lock.header is None
    assert len(result.lock.entries) == 3  # the body is still read


def test_a_hand_edit_of_the_body_shows_as_a_digest_mismatch(tmp_path: Path) -> None:
    path = write_lock(tmp_path, GOOD_BODY)
    path.write_text(path.read_text().replace("attrs==25.1.0", "attrs==25.2.0"))
    lock = load(path)
    assert lock.hand_edited
    assert lock.header is not None
    assert lock.header.body_digest != lock.body_digest


def test_comments_and_blank_lines_are_not_hand_edits(tmp_path: Path) -> None:
    path = write_lock(tmp_path, GOOD_BODY)
    path.write_text(path.read_text().replace("    # via demo-app (pyproject.toml)", "\n    # via someone\n"))
    assert not load(path).hand_edited


PYLOCK = f"""\
lock-version = "1.0"
created-by = "uv"
requires-python = ">=3.11"

[[packages]]
name = "attrs"
version = "25.1.0"
wheels = [
    {{ url = "https://files.example.org/attrs-25.1.0-py3-none-any.whl", size = 63000, hashes = {{ sha256 = "{H1}" }} }},
]

[[packages]]
name = "numpy"
version = "2.3.0"
marker = "python_full_version >= '3.11'"
sdist = {{ url = "https://files.example.org/numpy-2.3.0.tar.gz", size = 2000000, hashes = {{ sha256 = "{H2}" }} }}
wheels = [
    {{ url = "https://f.example/numpy-2.3.0-cp311-cp311-manylinux_2_28_x86_64.whl", hashes = {{ sha256 = "{H3}" }} }},
]
"""


def write_pylock(tmp_path: Path, text: str = PYLOCK) -> Path:
    import tomllib

    body = pylock_format.body_digest(tomllib.loads(text))
    path = tmp_path / "pylock.base.toml"
    path.write_text(pylock_format.render(text, header_for([], body_digest=body)), encoding="utf-8")
    return path


def test_load_reads_a_pylock_with_files_urls_sizes_and_the_tierlock_table(tmp_path: Path) -> None:
    lock = load(write_pylock(tmp_path))
    assert lock.format == "pylock"
    assert lock.header is not None
    assert lock.header.tier == "base"
    assert not lock.hand_edited
    attrs, numpy = lock.entries
    assert attrs.version == Version("25.1.0")
    assert attrs.hashes == (f"sha256:{H1}",)
    assert attrs.files[0].kind == "wheel"
    assert attrs.files[0].size == 63000
    assert attrs.files[0].filename == "attrs-25.1.0-py3-none-any.whl"
    assert numpy.marker == Marker("python_full_version >= '3.11'")
    assert {f.kind for f in numpy.files} == {"wheel", "sdist"}
    assert numpy.files[-1].url == "https://files.example.org/numpy-2.3.0.tar.gz"
    assert attrs.line == 5
    assert numpy.line == 12


def test_a_pylock_edit_outside_the_tierlock_table_is_a_hand_edit(tmp_path: Path) -> None:
    path = write_pylock(tmp_path)
    path.write_text(path.read_text().replace("size = 63000", "size = 64000"))
    assert load(path).hand_edited


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda t: t.replace('lock-version = "1.0"\n', ""),
            r"invalid pylock: Missing required value in 'lock-version'",
        ),
        (
            lambda t: t.replace(f'sha256 = "{H1}"', 'sha256 = "abc"'),
            r"attrs-25.1.0-py3-none-any.whl has no usable hash",
        ),
        (lambda t: t.replace("[[packages]]\nname", "[[packages]\nname", 1), r"invalid TOML"),
    ],
)
def test_load_refuses_a_bad_pylock(tmp_path: Path, change: object, expected: str) -> None:
    path = tmp_path / "pylock.base.toml"
    path.write_text(change(PYLOCK))  # type: ignore[operator]
    with pytest.raises(LockfileError) as info:
        load(path)
    assert any(__import__("re").search(expected, p.message) for p in info.value.problems), info.value.lines()


def test_platform_mismatch_fails_closed_for_a_single_platform_lock(tmp_path: Path) -> None:
    here = platform_id()
    assert platform_id(current()) == here
    lock = load(write_lock(tmp_path, GOOD_BODY, platform="win-amd64/cpython-3.12", backend="pip-tools"))
    assert lock.universal is False
    message = platform_mismatch(lock, current())
    assert message is not None
    assert "win-amd64/cpython-3.12" in message
    assert here in message
    same = load(write_lock(tmp_path, GOOD_BODY, name="same.txt", platform=here, backend="pip-tools"))
    assert platform_mismatch(same, current()) is None
    assert platform_mismatch(load(write_lock(tmp_path, GOOD_BODY, name="u.txt")), "anything") is None


def test_reading_a_lockfile_imports_no_rich_jsonschema_pip_or_uv(tmp_path: Path) -> None:
    path = write_lock(tmp_path, GOOD_BODY)
    code = (
        "import sys, tierlock.lockfiles as L\n"
        f"L.load({str(path)!r})\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in {'rich','jsonschema','pip','uv','tomlkit'})\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize(
    ("change", "key_line", "expected"),
    [
        (lambda t: t.replace('lock-version = "1.0"', 'lock-version = "2.0"'), 1, "pylock version 2.0 is not supported"),
        (lambda t: t.replace("size = 63000", 'size = "big"'), 8, "expected int"),  # the line of `wheels = [`
        (lambda t: t.replace("python_full_version >= '3.11'", "bad =="), 15, "Expected a marker variable"),
        (lambda t: t.replace('version = "25.1.0"', 'version = "25.1.0"\nversion = "2"'), 8, "Cannot overwrite a value"),
    ],
)
def test_a_bad_pylock_value_is_reported_at_the_line_of_its_key(
    tmp_path: Path, change: Callable[[str], str], key_line: int, expected: str
) -> None:
    path = tmp_path / "pylock.base.toml"
    path.write_text(change(PYLOCK))
    problems = [p for p in read(path).problems if p.kind == "integrity"]  # PYLOCK has no tierlock header
    assert [(p.line, expected in p.detail) for p in problems] == [(key_line, True)], problems
    assert not problems[0].detail.endswith(" ")


def test_a_mangled_pylock_header_is_reported_at_the_line_of_its_table(tmp_path: Path) -> None:
    path = write_pylock(tmp_path)
    path.write_text(path.read_text().replace('tier = "base"', "tier = 3"))
    table = path.read_text().splitlines().index("[tool.tierlock]") + 1
    problems = read(path).problems
    assert problems
    assert {(p.kind, p.line) for p in problems} == {("header", table)}
