"""Each prefix shape at its exact length: the shortest tail it takes is found, one character less is not.

Mutation testing found the lengths of the shape table untested (the Slack token's 8 read as 9 went
unnoticed); every shape's minimum is now pinned here, written out rather than read from the table,
and the edges of the other detectors with it.
"""

from __future__ import annotations

import base64

import pytest

from tierlock.redaction import credential_kind, redact
from tierlock.secretshapes import SHAPES

#: Each prefix shape as the reference documents it: a spelling of its start, characters of its tail's
#: class that meet its mixed-character need, and the shortest tail it takes (written here, not read
#: from the table under test).
SHORTEST = [
    ("ghp_", "Q1w", 20),
    ("github_pat_", "Q1w", 20),
    ("AKIA", "Q12", 16),
    ("xoxb-", "Q1w", 8),
    ("glpat-", "Q1w", 20),
    ("npm_", "Q1w", 36),
    ("pypi-AgE", "Q1w", 20),
    ("pypi-", "Q1w", 50),
    ("AIza", "Q1w", 35),
    ("sk_live_", "Q1w", 16),
    ("sk-", "Q1w", 20),
    ("hf_", "Q1w", 30),
    ("SG." + "Q1w" * 7 + "Q.", "Q1w", 43),
    ("SK", "a1f", 32),
    ("AC", "a1f", 32),
    ("AccountKey=", "Q1w", 20),
    ("sig=", "Q1w", 40),
]


def _tail(chars: str, n: int) -> str:
    return (chars * (n // len(chars) + 1))[:n]


def test_every_prefix_shape_of_the_table_has_its_shortest_length_pinned_here() -> None:
    assert len(SHORTEST) == len(SHAPES)


@pytest.mark.parametrize(("start", "chars", "shortest"), SHORTEST, ids=[s for s, _, _ in SHORTEST])
def test_every_prefix_shape_is_found_at_its_shortest_and_not_one_character_shorter(
    start: str, chars: str, shortest: int
) -> None:
    text = start + _tail(chars, shortest)
    assert credential_kind(" " + text + " ") is not None, text
    shorter = start + _tail(chars, shortest - 1)
    assert credential_kind(" " + shorter + " ") is None, shorter


@pytest.mark.parametrize("credentials", [b"abc:", b"u:pw", b"deploy:x", b"ci-user:s3cr3t!"])
def test_basic_credentials_written_without_padding_are_found_wherever_the_colon_falls(credentials: bytes) -> None:
    token = base64.b64encode(credentials).decode().rstrip("=")
    assert credential_kind(f"Basic {token}") == "HTTP Basic credentials", token


def test_a_basic_token_shorter_than_one_base64_group_is_prose() -> None:
    assert credential_kind("Basic Opp") is None  # three characters decode to no whole byte group
    assert credential_kind("Basic OnBw") == "HTTP Basic credentials"  # ":pp"


@pytest.mark.parametrize(
    "header",
    [
        "Authorization: Token 0123456789abcdef0123",  # digits and small letters only: issued, not a word
        "Authorization: Token ABCDEFGHijklmnop",  # capitals and small letters, no digit
        "Authorization: Token abcdefghijklmnop==",  # base64 padding
    ],
)
def test_an_authorization_header_with_a_scheme_no_other_rule_knows_is_found(header: str) -> None:
    assert credential_kind(header) == "HTTP Authorization header"
    assert credential_kind(f"curl -H '{header}' https://api.example.invalid") == "HTTP Authorization header"


@pytest.mark.parametrize(
    "header",
    ["Authorization: Bearer $TOKEN_2", "Authorization: token ${{ secrets.GH_TOKEN_2 }}", "Authorization: none"],
)
def test_an_authorization_header_naming_a_variable_or_a_word_is_no_credential(header: str) -> None:
    assert credential_kind(header) is None


def test_an_aws_secret_key_after_its_name_is_found_even_glued_to_more_base64() -> None:
    key = "wJalr" + "XUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY"
    for text in (f"aws_secret_access_key={key}Q9", f"AWS_SECRET_ACCESS_KEY: '{key}'+more", f"SecretAccessKey={key}x"):
        assert credential_kind(text) == "AWS secret access key", text
        assert key not in redact(text)


@pytest.mark.parametrize(("value", "found"), [("Q1w" * 5, False), ("Q1w" * 5 + "x", True)])
def test_a_service_account_private_key_member_counts_from_sixteen_characters(value: str, found: bool) -> None:
    text = '{"type": "service_account", "private_' + 'key": "' + value + '"}'
    assert (credential_kind(text) == "private key") is found


def test_a_private_key_member_cut_before_its_closing_quote_is_redacted_to_the_end() -> None:
    value = "Q1w9" * 8
    text = '{"private_' + 'key": "' + value
    assert credential_kind(text) == "private key"
    assert redact(text) == '{"private_' + 'key": "[redacted]'


@pytest.mark.parametrize(
    "before",
    [
        "0123456789" * 4,  # not mixed
        "VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVy",  # base64 of ordinary text
        "packages/MyApp2/src/components/Widget3/x",  # a path of words
    ],
    ids=["digits", "base64 of text", "path"],
)
def test_an_aws_secret_key_after_a_forty_character_run_that_is_none_is_still_found(before: str) -> None:
    key = "wJalr" + "XUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY"
    assert len(before) == 40
    text = before + " " + key
    assert credential_kind(text) == "AWS secret access key"
    assert key not in redact(text)
    assert before in redact(text)


def test_a_private_key_member_escaped_inside_another_string_keeps_its_escaped_quotes() -> None:
    value = "Q1w9" * 8
    text = '"{\\"private_' + 'key\\": \\"' + value + '\\"}"'
    assert redact(text) == '"{\\"private_' + 'key\\": \\"[redacted]\\"}"'


def test_base64_that_starts_like_a_length_but_names_no_key_type_is_no_ssh_public_key() -> None:
    import base64

    blob = base64.b64encode(b"\0\0\0\x07ab de" + bytes(range(160, 215))).decode()
    assert blob.endswith("==")
    assert len(blob) == 88
    assert credential_kind(blob) == "Azure storage account key"


def test_base64_of_ordinary_text_glued_to_more_base64_is_no_azure_key() -> None:
    import base64

    prose = base64.b64encode(b"The quick brown fox jumps over the lazy dog, then rests a while.").decode()
    assert len(prose) == 88
    assert prose.endswith("==")
    assert credential_kind("9" + prose) is None  # the last 88 characters decode to text


def test_the_rules_read_a_repository_path_from_the_configs_own_folder_by_default() -> None:
    from tierlock.validators import rules

    document = {"schemaVersion": 1, "repositories": [{"id": "a", "path": "sub/.."}], "verification": []}
    assert [f for f in rules.check(document) if f.rule == "RC016"] == []


@pytest.mark.parametrize("padding", ["", "=", "==", "==="])
def test_basic_credentials_glued_to_a_character_and_padded_any_way_are_found(padding: str) -> None:
    """Found by hypothesis: ``Basic dXNl…ZktC9===`` (a glued ``9`` and wrong padding) was let through."""
    value = "Basic dXNlcjpXOFVN" + "dGhyQUVTMTM2ZktC" + "9" + padding
    assert credential_kind(value) == "HTTP Basic credentials"
    assert "dXNlcjpXOFVNdGhyQUVTMTM2ZktC" not in redact(value)


@pytest.mark.parametrize("scheme", ["", "token "])
def test_an_authorization_header_value_of_eight_characters_is_found_and_one_of_seven_is_not(scheme: str) -> None:
    assert credential_kind(f"Authorization: {scheme}Ab3dEf9h") == "HTTP Authorization header"
    assert credential_kind(f"Authorization: {scheme}Ab3dEf9") is None
