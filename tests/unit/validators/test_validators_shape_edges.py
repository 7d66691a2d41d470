"""Each prefix shape at its exact length: the shortest tail it takes is found, one character less is not.

Mutation testing found the lengths of the shape table untested (the Slack token's 8 read as 9 went
unnoticed); every shape's minimum is now pinned, and base64 credentials whose ``:`` lies in the last,
unpadded group of ``Basic …`` are found.
"""

from __future__ import annotations

import base64

import pytest

from tierlock.redaction import credential_kind, redact
from tierlock.secretshapes import SHAPES, Shape

#: A spelling of each shape's start (the table holds patterns), and characters of its tail's class that
#: meet its ``mixed`` need whatever the length.
STARTS = {
    "GitHub token": ("ghp_", "Q1w"),
    "GitHub fine-grained token": ("github_pat_", "Q1w"),
    "AWS access key id": ("AKIA", "Q12"),
    "Slack token": ("xoxb-", "Q1w"),
    "GitLab token": ("glpat-", "Q1w"),
    "npm token": ("npm_", "Q1w"),
    "PyPI token": ("pypi-", "Q1w"),
    "Google API key": ("AIza", "Q1w"),
    "Stripe secret key": ("sk_live_", "Q1w"),
    "OpenAI or Anthropic key": ("sk-", "Q1w"),
    "Hugging Face token": ("hf_", "Q1w"),
    "SendGrid API key": ("SG." + "Q1w" * 7 + "Q.", "Q1w"),
    "Twilio API key": ("SK", "a1f"),
    "Twilio account id": ("AC", "a1f"),
    "Azure account or shared access key": ("AccountKey=", "Q1w"),
    "Azure shared access signature": ("sig=", "Q1w"),
}


def _tail(chars: str, n: int) -> str:
    return (chars * (n // len(chars) + 1))[:n]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s.kind}:{s.start}")
def test_every_prefix_shape_is_found_at_its_shortest_and_not_one_character_shorter(shape: Shape) -> None:
    start, chars = STARTS[shape.kind]
    if shape.start == "pypi-AgE":
        start = "pypi-AgE"
    shortest = start + _tail(chars, shape.min_tail)
    assert credential_kind(" " + shortest + " ") is not None, shortest
    shorter = start + _tail(chars, shape.min_tail - 1)
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
