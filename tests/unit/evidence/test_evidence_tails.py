"""The shown tail of a log: cleaned of escapes and control characters, redacted across lines, capped, counted.

Real log files in tmp_path: a long line cut with its count, a line that began before the part read, a
private key whose BEGIN line lies before the tail, carriage-return progress bars, the line count of a
log with and without a final newline.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tierlock.evidence import tails
from tierlock.validators.credentials import redact


def _log(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "cmd.log"
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("plain text", "plain text"),
        ("\x1b[1;31mred\x1b[0m", "red"),
        ("title\x1b]0;window\x07 after", "title after"),
        ("link \x1b]8;;https://x.invalid\x1b\\here\x1b]8;;\x1b\\ end", "link here end"),
        ("ghp_\x1b[1mABC", "ghp_ABC"),
        ("a\x00b\x07c\x7fd\x85e", "abcde"),
        ("a\x9b31mb", "ab"),
        ("zero\u200bwidth \u202eflip", "zerowidth flip"),
        ("tab\there", "tabhere"),
        ("10%\r50%\r100%", "100%"),
        ("10%\r50%\nnext line", "50%\nnext line"),
        ("one\r\ntwo", "one\ntwo"),
        ("\x1bc reset", " reset"),
    ],
)
def test_clean_removes_escapes_and_control_characters_and_keeps_what_a_terminal_shows_last(
    raw: str, shown: str
) -> None:
    assert tails.clean(raw) == shown


def test_a_key_end_without_its_begin_redacts_the_body_above_it_and_nothing_before() -> None:
    text = "before the key\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nAbC+/012==\n-----END PRIVATE KEY-----\nafter\n"
    assert tails.redact_keys(text) == "before the key\n" + tails.REDACTED_KEY + "\nafter\n"


def test_an_encrypted_key_body_with_its_headers_is_redacted_up_to_the_end_line() -> None:
    text = "ok\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\nAAAA\n-----END RSA PRIVATE KEY-----"
    assert tails.redact_keys(text) == "ok\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\n" + tails.REDACTED_KEY


def test_a_whole_key_is_left_to_the_credential_redactor() -> None:
    text = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"
    assert tails.redact_keys(text) == text
    assert tails.redact_keys("no key here") == "no key here"


def test_digest_counts_the_last_line_with_or_without_its_newline(tmp_path: Path) -> None:
    assert tails.digest(_log(tmp_path, b"a\nb\n"))[0::2] == (4, 2)
    assert tails.digest(_log(tmp_path, b"a\nb"))[0::2] == (3, 2)
    assert tails.digest(_log(tmp_path, b""))[0::2] == (0, 0)
    size, sha, lines = tails.digest(_log(tmp_path, b"x" * (tails.CHUNK + 5) + b"\n"))
    assert (size, lines, len(sha)) == (tails.CHUNK + 6, 1, 64)


def test_a_long_line_is_cut_and_says_by_how_much(tmp_path: Path) -> None:
    tail = tails.read(_log(tmp_path, b"y" * 1000 + b"\nlast\n"), str)
    assert tail.lines == ("y" * tails.LINE_CHARS + " [... 600 characters cut]", "last")
    assert (tail.cut_lines, tail.cut_chars) == (0, 600)


def test_a_line_that_began_before_the_part_read_is_shown_from_its_first_space_with_its_full_length(
    tmp_path: Path,
) -> None:
    before = tails.WINDOW + tails.LOOKBACK + 5000
    line = b"start " + b"s" * before + b" visible end"
    data = b"an earlier line\n" + line + b"\nnext\n"
    tail = tails.read(_log(tmp_path, data), str)
    assert tail.lines == (f"visible end [... {len(line) - len(b'visible end')} characters cut]", "next")
    assert (tail.cut_lines, tail.cut_chars) == (1, len(line) - len(b"visible end"))


def test_a_line_without_a_space_that_began_before_the_part_read_shows_only_its_count(tmp_path: Path) -> None:
    data = b"x" * (3 * (tails.WINDOW + tails.LOOKBACK))
    tail = tails.read(_log(tmp_path, data), str)
    assert tail.lines == (f"[... {len(data)} characters cut]",)
    assert (tail.cut_lines, tail.cut_chars) == (0, len(data))


def test_the_whole_tail_is_capped_and_the_lines_it_drops_are_counted(tmp_path: Path) -> None:
    data = b"".join(b"%02d " % i + b"z" * 600 + b"\n" for i in range(15))
    tail = tails.read(_log(tmp_path, data), str)
    assert sum(len(line) for line in tail.lines) <= tails.TAIL_CHARS
    assert tail.lines[-1].startswith("14 ")
    assert tail.cut_lines == 15 - len(tail.lines)
    assert tail.cut_chars == len(tail.lines) * (603 - tails.LINE_CHARS)


def test_the_mask_sees_the_whole_part_read_so_a_key_spanning_the_tail_edge_is_redacted(tmp_path: Path) -> None:
    body = ["QUJD" * 16 for _ in range(30)]
    text = "-----BEGIN PRIVATE KEY-----\n" + "\n".join(body) + "\n-----END PRIVATE KEY-----\nafter\n"
    tail = tails.read(_log(tmp_path, text.encode()), redact)
    assert all("QUJD" not in line for line in tail.lines)
    assert tail.lines[-1] == "after"


def test_a_log_that_cannot_be_read_has_an_empty_tail(tmp_path: Path) -> None:
    assert tails.read(tmp_path / "missing.log", str) == tails.EMPTY
    assert tails.EMPTY.cut() == {"lines": 0, "characters": 0}
