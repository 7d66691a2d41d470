"""The body digest of a pylock and the ``[tool.tierlock]`` table tierlock writes into it.

The digest covers the document without ``[tool.tierlock]``, in a canonical form: a lock
written by an earlier tierlock must still read clean, so the digests of fixed documents
are pinned here, and a formatter's reordering of keys is not a hand edit.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tierlock.lockfiles import LockHeader, load
from tierlock.lockfiles import pylock as pylock_format

H = "a" * 64
BODY = f"""\
lock-version = "1.0"
created-by = "uv"

[[packages]]
name = "demo"
version = "1.0"
wheels = [{{ url = "https://files.example/demo-1.0-py3-none-any.whl", size = 10, hashes = {{ sha256 = "{H}" }} }}]
"""
OTHER_TOOL = '\n[tool.other]\nkey = "value"\n'
#: The digests of BODY, and of BODY with a [tool.other] table, as every tierlock release writes them.
BODY_DIGEST = "sha256:b2c7e4948bf739327e59ebb3e7693ab26ff9260f06a8e18a200367b7ca99d4fe"
OTHER_TOOL_DIGEST = "sha256:878cb8834674f9c6c8ce814ab35e0b5a7ff7a618622866d8fe681667907aae6d"


def header(body_digest: str) -> LockHeader:
    return LockHeader(
        tier="base",
        inputs=("demo>=1",),
        inputs_digest="sha256:" + "0" * 64,
        layered_on=None,
        layered_on_digest=None,
        body_digest=body_digest,
        backend="uv",
        backend_version="0.9.0",
        platform=None,
        command="tierlock lock base",
    )


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pylock.base.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("body", "digest"),
    [(BODY, BODY_DIGEST), (BODY + OTHER_TOOL, OTHER_TOOL_DIGEST)],
    ids=["tierlock-only", "other-tool"],
)
def test_the_body_digest_of_a_pylock_is_that_of_the_document_without_the_tierlock_table(
    tmp_path: Path, body: str, digest: str
) -> None:
    lock = load(write(tmp_path, pylock_format.render(body, header(digest))), require_header=True)
    assert lock.body_digest == digest
    assert not lock.hand_edited


def test_another_tools_table_counts_in_the_body_digest(tmp_path: Path) -> None:
    text = pylock_format.render(BODY + OTHER_TOOL, header(OTHER_TOOL_DIGEST)).replace('"value"', '"changed"')
    assert load(write(tmp_path, text)).hand_edited


def test_keys_reordered_by_a_formatter_are_not_a_hand_edit(tmp_path: Path) -> None:
    reordered = (
        BODY.replace('lock-version = "1.0"\ncreated-by = "uv"', 'created-by = "uv"\nlock-version = "1.0"')
        .replace('name = "demo"\nversion = "1.0"', 'version = "1.0"\nname = "demo"')
        .replace(f'size = 10, hashes = {{ sha256 = "{H}" }}', f'hashes = {{ sha256 = "{H}" }}, size = 10')
    )
    assert reordered != BODY
    lock = load(write(tmp_path, pylock_format.render(reordered, header(BODY_DIGEST))), require_header=True)
    assert lock.body_digest == BODY_DIGEST
    assert not lock.hand_edited


def test_render_appends_only_a_tool_tierlock_table_without_an_empty_tool_header() -> None:
    text = pylock_format.render(BODY, header(BODY_DIGEST))
    assert text.startswith(BODY)
    lines = text.splitlines()
    assert "[tool]" not in lines
    assert lines.count("[tool.tierlock]") == 1


def test_render_puts_the_tierlock_table_beside_another_tools_table() -> None:
    text = pylock_format.render(BODY + OTHER_TOOL, header(OTHER_TOOL_DIGEST))
    assert text.startswith(BODY + OTHER_TOOL)
    lines = text.splitlines()
    assert "[tool]" not in lines
    assert lines.count("[tool.tierlock]") == 1
