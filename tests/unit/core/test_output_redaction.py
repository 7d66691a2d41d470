"""Every way a command prints passes the one redaction: lines, notes, tables, errors (message, problems,
detail, remedy), JSON documents (values and keys), raw text for machines, alerts, and a bug's traceback."""

from __future__ import annotations

import io
import json

import pytest

from tests.support.credentials import shapes
from tierlock.cli import _internal_error
from tierlock.errors import ConfigError, Problem
from tierlock.output import UI
from tierlock.redaction import REDACTED

SHAPES = shapes()


def _ui(*, json_mode: bool = False, verbose: bool = False) -> tuple[UI, io.StringIO, io.StringIO]:
    out, err = io.StringIO(), io.StringIO()
    return UI(stdout=out, stderr=err, json_mode=json_mode, verbose=verbose), out, err


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_every_shape_is_redacted_on_every_channel_of_the_ui(name: str) -> None:
    secret = SHAPES[name]
    ui, out, err = _ui(verbose=True)
    ui.line(f"line {secret}")
    ui.note(f"note {secret}")
    ui.detail(f"detail {secret}")
    ui.table(f"title {secret}", ["a", "b"], [[secret, "x"]])
    ui.write(f"raw {secret}\nsecond line\n")
    ui.alert([f"alert {secret}"])
    ui.error(
        ConfigError(
            f"message {secret}",
            problems=[Problem(f"problem {secret}", f"where {secret}", hint=secret)],
            detail=f"detail {secret}",
            remedy=f"remedy {secret}",
        )
    )
    shown = out.getvalue() + err.getvalue()
    assert secret not in shown
    assert REDACTED in shown or "****@" in shown


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_every_string_of_a_json_document_is_redacted_keys_too(name: str) -> None:
    secret = SHAPES[name]
    for one_line in (False, True):
        ui, out, _ = _ui(json_mode=True)
        ui.emit_json({"ok": False, secret: [secret, {"nested": (secret,)}], "n": 1}, one_line=one_line)
        text = out.getvalue()
        assert secret not in text
        document = json.loads(text)
        assert document["n"] == 1


def test_a_json_line_written_after_the_error_is_redacted_too() -> None:
    ui, out, err = _ui(json_mode=True)
    ui._json_written = True  # as a command that words its own failure document does
    ui.error(ConfigError(SHAPES["github"]))
    ui.json_line({"error": SHAPES["github"]})
    assert SHAPES["github"] not in out.getvalue() + err.getvalue()


def test_a_bug_is_reported_with_its_traceback_redacted_and_exit_3() -> None:
    ui, out, err = _ui()
    try:
        raise NotADirectoryError(20, "Not a directory", "/tmp/ok.py/" + SHAPES["azure-connection-string"])
    except NotADirectoryError as exc:
        code = _internal_error(ui, exc)
    assert code == 3
    shown = err.getvalue()
    assert shown.startswith("ERROR internal error (NotADirectoryError): this is a bug in tierlock")
    assert "Traceback" in shown
    assert SHAPES["azure-connection-string"] not in shown
    assert out.getvalue() == ""


def test_a_bug_with_json_is_one_document_without_the_traceback() -> None:
    ui, out, _ = _ui(json_mode=True)
    try:
        raise KeyError(SHAPES["github"])
    except KeyError as exc:
        _internal_error(ui, exc)
    document = json.loads(out.getvalue())
    assert document["error"]["kind"] == "internal"
    assert document["error"]["exit_code"] == 3
    assert SHAPES["github"] not in out.getvalue()
