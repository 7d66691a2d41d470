"""Credential shapes at the edges the planted-secret tests do not reach: base64 without its padding,
several keys in one value, and prose that only looks like a header; where the renderers place what
they report.

Credential-shaped strings are assembled at run time so that no scanner takes this file for a leak."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from tierlock.validators.credentials import REDACTED, credential_kind, redact, spans

_KEY_BODY = ("MIIEowIBAAKCAQEA1x", "MIIEpQIBAAKCAQEA9z")


def _pem(body: str) -> str:
    return "-----BEGIN RSA " + f"PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"


@pytest.mark.parametrize("secret", [b"deploy:s3cretp", b"ci:hunter2", b"deploy:s3cretpw1"])
def test_basic_credentials_are_found_with_their_base64_padding_left_off(secret: bytes) -> None:
    token = base64.b64encode(secret).decode().rstrip("=")
    assert len(token) % 4 in {2, 3, 0}
    assert credential_kind(f"curl -H 'X-Auth: Basic {token}'") == "HTTP Basic credentials"
    assert token not in redact(f"Basic {token}")


def test_every_private_key_in_one_value_is_found_and_none_is_echoed() -> None:
    text = _pem(_KEY_BODY[0]) + "\nand then\n" + _pem(_KEY_BODY[1])
    kinds = [kind for _, _, kind in spans(text)]
    assert kinds == ["private key", "private key"]
    out = redact(text)
    assert out == f"{REDACTED}\nand then\n{REDACTED}"


@pytest.mark.parametrize("prose", ["Basic auth is on", "see Basic docs", "Basic test", "Basic demo"])
def test_the_word_basic_before_an_ordinary_word_is_no_credential(prose: str) -> None:
    assert spans(prose) == []
    assert credential_kind(prose) is None
    assert redact(prose) == prose


_AWS = "wJalrXUtnFEMI/" + "K7MDENG/bPxRfiCYEXAMPLEKEY"  # the secret access key of AWS's own examples


def test_an_aws_secret_key_that_is_the_whole_value_is_found() -> None:
    assert len(_AWS) == 40
    assert credential_kind(_AWS) == "AWS secret access key"
    assert redact(_AWS) == REDACTED


def test_an_aws_secret_key_after_a_run_of_forty_that_is_no_key_is_still_found() -> None:
    text = "a" * 40 + " " + "ABCDEFGHIJabcdefghij/KLMNOPQRST/uvwxyzabcd " + _AWS
    assert [kind for _, _, kind in spans(text)] == ["AWS secret access key"]
    assert redact(text).endswith(" " + REDACTED)


@pytest.mark.parametrize("prose", ["Bearer v2 tokens are refused", "the Bearer authentication-scheme"])
def test_the_word_bearer_before_a_short_or_wordy_token_is_no_credential(prose: str) -> None:
    assert spans(prose) == []
    assert redact(prose) == prose


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("ey" + "JhbGciOiJ.eyJzdWIiOiJ.", True),  # the shortest taken: 11 characters before each dot
        ("eyJhbGciOiJ.eyJzdWIiOiJ.SflKxwRJSMeKKF2QT4fw", True),
        ("eyJhbGciOi.eyJzdWIiOiJ.SflKxwRJSMeKKF2QT4fw", False),  # a header of 10
        ("eyJhbGciOiJ.eyJzdWIiOi.SflKxwRJSMeKKF2QT4fw", False),  # a payload of 10
        ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0", False),  # no signature part
        ("eyJhbGciOiJIUzI1NiJ9.abcdefghijklmnop.SflKxwRJSMeKKF2QT4fw", False),  # the payload is no JSON
        ("eyJhbGciOiJ.eyJ.abcdefghijklm.SflKxwRJSMeKKF2QT4fw", False),  # a payload of 3, then more dotted parts
        ("eyJhbGci.eyJzdWIiOiJ.SflKxwRJSMeKKF2QT4fw", False),  # a header of 8
    ],
)
@pytest.mark.parametrize("before", ["", "token="])
def test_a_json_web_token_is_three_dotted_parts_with_json_header_and_payload(
    before: str, text: str, found: bool
) -> None:
    assert (credential_kind(before + text) == "JSON Web Token") is found


def test_basic_credentials_of_the_shortest_user_and_password_are_found() -> None:
    assert base64.b64encode(b"a:b").decode() == "YTpi"
    assert credential_kind("Basic YTpi") == "HTTP Basic credentials"


def test_a_scope_is_measured_in_utf16_code_units_only_while_the_schema_has_not_refused_it() -> None:
    from tierlock.validators.rules import SCOPE_LENGTH, scope_problem

    assert scope_problem("a" * (SCOPE_LENGTH - 1) + "\U0001f600") == (
        f"is longer than {SCOPE_LENGTH} characters (UTF-16 code units)"
    )
    assert scope_problem("a" * SCOPE_LENGTH) is None
    assert scope_problem("a" * SCOPE_LENGTH + "\U0001f600") is None  # too long in code points: the schema's error


def test_text_and_github_outputs_place_a_finding_at_column_1_when_only_its_line_is_known() -> None:
    from tierlock.validators import ValidationResult
    from tierlock.validators.renderers import github_lines, json_document, sarif_document, text_lines
    from tierlock.validators.results import AcceptedCredential, ValidationError

    error = ValidationError("RC001", ("verification", 0, "key"), "is taken twice", file="c.json", line=4)
    accepted = [
        AcceptedCredential(("setup", 0, "env", "A"), "GitHub token", "a fixture", file="c.json", line=3),
        AcceptedCredential(("setup", 0, "env", "B"), "GitHub token", "a fixture", file="c.json", line=5, column=9),
        AcceptedCredential(("setup", 0, "env", "C"), "GitHub token", "a fixture", file="c.json"),
    ]
    result = ValidationResult(source="c.json", errors=[error], config=None, accepted=accepted)
    text = text_lines(result)
    assert text[0].startswith("c.json:4:1 RC001 verification[0].key: ")
    assert [line.split(" accepted ")[0] for line in text[1:4]] == ["c.json:3:1", "c.json:5:9", "c.json"]
    sarif = sarif_document(result)["runs"][0]["results"]
    places = [r["locations"][0].get("physicalLocation") for r in sarif if r["ruleId"] == "RC014"]
    assert places == [
        {"artifactLocation": {"uri": "c.json"}, "region": {"startLine": 3, "startColumn": 1}},
        {"artifactLocation": {"uri": "c.json"}, "region": {"startLine": 5, "startColumn": 9}},
        {"artifactLocation": {"uri": "c.json"}},
    ]
    no_file = AcceptedCredential(("setup", 0, "env", "D"), "GitHub token", "a fixture", line=2)
    alone = sarif_document(ValidationResult(source=None, errors=[], config=None, accepted=[no_file]))
    assert "physicalLocation" not in alone["runs"][0]["results"][0]["locations"][0]
    assert [e["file"] for e in json_document(result)["errors"]] == ["c.json"]
    github = github_lines(result)
    assert github[0].startswith("::error file=c.json,line=4,col=1,title=")
    assert [line.split(",title=")[0] for line in github[1:4]] == [
        "::notice file=c.json,line=3,col=1",
        "::notice file=c.json,line=5,col=9",
        "::notice file=c.json",
    ]


def test_every_command_s_label_is_measured_after_one_without_a_policy() -> None:
    from tierlock.validators import validate_runtime_config

    long_label = "a" * 255 + "\U0001f600"  # 256 code points, 257 UTF-16 code units
    document = {
        "schemaVersion": 1,
        "verification": [
            {"key": "a", "command": "pytest"},
            {"key": "b", "command": "pytest", "label": long_label},
        ],
    }
    result = validate_runtime_config(document, checkout=False)
    assert [(e.rule, e.where) for e in result.errors] == [("RC006", "verification[1].label")]


def test_a_token_whose_start_closes_a_run_that_was_no_token_is_found() -> None:
    # "hf_" + 30 small letters is no Hugging Face token (its tail must mix cases); the "hf" ending that run
    # begins the real one.
    real = "hf" + "_AbCdEfGhIjKlMnOpQrStUvWxYz0123"
    text = "hf_" + "a" * 30 + real
    assert [(start, kind) for start, _, kind in spans(text)] == [(33, "Hugging Face token")]
    assert redact(text) == "hf_" + "a" * 30 + REDACTED


def test_a_bearer_token_of_sixteen_characters_is_found() -> None:
    token = "abcdefghijklmno1"
    assert len(token) == 16
    assert credential_kind(f"Bearer {token}") == "bearer token"


@pytest.mark.parametrize("first", ["a/../real", "real\x00x", "real\udc80"])  # refused lexically; cannot be a path
def test_every_scope_of_a_repository_is_checked_after_one_that_is_refused(tmp_path: Path, first: str) -> None:
    from tierlock.validators import validate_runtime_config

    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real", target_is_directory=True)
    document = {
        "schemaVersion": 1,
        "repositories": [{"id": "a", "path": ".", "scope": [first, "link"]}],
        "verification": [],
    }
    result = validate_runtime_config(document, checkout=tmp_path)
    where = {(e.rule, e.where) for e in result.errors}
    assert ("RC015", "repositories[0].scope[1]") in where, where


def test_a_google_api_key_is_its_thirty_five_characters_and_no_more() -> None:
    key = "AI" + "za" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
    assert len(key) == 39
    assert spans(key + "_more-text") == [(0, 39, "Google API key")]
    assert redact(key + "_more-text") == REDACTED + "_more-text"


def test_a_gitlab_token_needs_twenty_characters_after_its_prefix() -> None:
    prefix = "gl" + "pat-"
    assert credential_kind(prefix + "a1B2c3D4e5F6g7H8i9J0") == "GitLab token"
    assert credential_kind(prefix + "a1B2c3D4e5F6g7H8i9J") is None


def test_a_json_web_token_without_signature_ends_at_its_last_dot() -> None:
    token = "ey" + "JhbGciOiJ.eyJzdWIiOiJ."
    assert redact(token + " next") == REDACTED + " next"
    assert redact(token + "!next") == REDACTED + "!next"


def test_a_cwd_holding_a_nul_is_refused_once_and_never_resolved(tmp_path: Path) -> None:
    from tierlock.validators import validate_runtime_config

    document = {"schemaVersion": 1, "verification": [{"key": "k", "command": "pytest", "cwd": "a\x00b"}]}
    result = validate_runtime_config(document, checkout=tmp_path)
    assert [e.where for e in result.errors] == ["verification[0].cwd"]


def test_a_repository_entry_that_is_no_object_does_not_hide_the_ones_after_it() -> None:
    from tierlock.validators import validate_runtime_config

    document = {
        "schemaVersion": 1,
        "repositories": [1, {"id": "b", "path": "."}],
        "verification": [{"key": "k", "command": "pytest", "repositoryId": "b"}],
    }
    result = validate_runtime_config(document, checkout=False)
    assert [e.where for e in result.errors] == ["repositories[0]"]


def test_json_and_sarif_show_files_from_the_working_folder_and_each_error_with_its_place_hint_and_first_occurrence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tierlock.validators import ValidationResult
    from tierlock.validators.renderers import json_document, sarif_document
    from tierlock.validators.results import Location, ValidationError

    monkeypatch.chdir(tmp_path)
    file = str(tmp_path / "conf" / "c.json")
    twice = ValidationError(
        "RC004",
        ("verification", 1, "key"),
        "is taken twice",
        file=file,
        line=9,
        column=3,
        hint="rename one",
        related=Location(4, 3),
    )
    whole = ValidationError("RC001", (), "must be an object")
    result = ValidationResult(source=file, errors=[twice, whole], config=None)
    document = json_document(result)
    assert document["source"] == "conf/c.json"
    assert [e["file"] for e in document["errors"]] == ["conf/c.json", None]
    assert json_document(ValidationResult(source=None, errors=[], config=None))["source"] is None
    first, second = sarif_document(result)["runs"][0]["results"]
    assert first["message"]["text"] == "verification[1].key: is taken twice (rename one)"
    assert second["message"]["text"] == "must be an object"
    place = {"artifactLocation": {"uri": "conf/c.json"}, "region": {"startLine": 4, "startColumn": 3}}
    assert first["relatedLocations"] == [{"id": 1, "message": {"text": "first occurrence"}, "physicalLocation": place}]
