"""Credentials in URLs are masked however the password is written: no byte of it survives."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tierlock import subproc
from tierlock.errors import BackendError
from tierlock.masking import has_credentials, has_password, mask_credentials
from tierlock.output import UI
from tierlock.validators.credentials import credential_kind, redact

#: A password of 6+ characters, with the characters people leave unencoded (``@ / : ? #`` and friends).
PASSWORDS = st.text(
    alphabet=st.sampled_from("abcXYZ0189@/:?#%!$&()*+,;=~._-"),
    min_size=6,
    max_size=24,
).filter(lambda p: any(c.isalnum() for c in p))
#: A user-only token (no ``:``: that would make it ``user:password``).
TOKENS = PASSWORDS.filter(lambda p: ":" not in p)
USERS = st.text(alphabet=st.sampled_from("abcdefxyz0123456789._-"), min_size=1, max_size=12)
HOSTS = st.sampled_from(["index.example", "pypi.corp.example:8443", "localhost", "10.0.0.7", "[::1]:3128"])
PATHS = st.sampled_from(["", "/", "/simple", "/simple/numpy/", "/repo.git@v1.0", "?x=1", "/a/b#frag"])
SCHEMES = st.sampled_from(["https", "http", "git+https", "socks5h"])
AROUND = st.sampled_from([("", ""), ("error: fetching ", " failed"), ("'", "'"), ('"url": "', '"'), ("(", ")")])


def _exposed(password: str, text: str) -> bool:
    """Whether the password's bytes survive in *text* (a run long enough not to be the URL's own characters)."""
    return password in text


@settings(max_examples=400, deadline=None)
@given(scheme=SCHEMES, user=USERS, password=PASSWORDS, host=HOSTS, path=PATHS, around=AROUND)
def test_no_byte_of_a_password_survives_masking_however_it_is_written(  # noqa: PLR0917
    scheme: str, user: str, password: str, host: str, path: str, around: tuple[str, str]
) -> None:
    url = f"{scheme}://{user}:{password}@{host}{path}"
    text = f"{around[0]}{url}{around[1]}"
    assume(password not in text.replace(password, "", 1))  # the password is nowhere but in its place
    assume(not scheme.startswith("git+") or path.startswith("/"))  # a VCS URL names a repository after its host
    masked = mask_credentials(text)
    assert not _exposed(password, masked), masked
    assert f"{scheme}://{user}:****@" in masked
    if "@" not in path or scheme.startswith("git+"):  # else masked up to the last ``@``: when in doubt, mask
        assert host in masked  # what follows the credentials stays readable
    assert has_password(text)
    assert credential_kind(text) == "URL with a password"
    assert not _exposed(password, redact(text))
    assert not _exposed(password, subproc.redact(text))


@settings(max_examples=200, deadline=None)
@given(scheme=SCHEMES, token=TOKENS, host=HOSTS, path=PATHS)
def test_a_user_only_token_is_masked_whole(scheme: str, token: str, host: str, path: str) -> None:
    text = f"{scheme}://{token}@{host}{path}"
    assume(token not in text.replace(token, "", 1))
    assume(not scheme.startswith("git+") or path.startswith("/"))
    masked = mask_credentials(text)
    assert not _exposed(token, masked), masked
    assert masked.startswith(f"{scheme}://****@")
    assert has_credentials(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("https://alice:hunter2@index.example/simple", "https://alice:****@index.example/simple"),
        ("https://alice:p@ss/w:rd@index.example/simple", "https://alice:****@index.example/simple"),
        ("https://alice:a/b@index.example", "https://alice:****@index.example"),
        ("http://s3cr3t-token@proxy.example:3128", "http://****@proxy.example:3128"),
        ("git+https://github.com/org/repo@v1.0", "git+https://github.com/org/repo@v1.0"),
        ("git+https://u:t@github.com/org/repo@v1.0", "git+https://u:****@github.com/org/repo@v1.0"),
        ("git+https://to.k/en@github.com/org/repo@main", "git+https://****@github.com/org/repo@main"),
        ("https://registry.example/@scope/pkg", "https://****@scope/pkg"),  # when in doubt, mask
        ("see https://index.example/simple and mail me@example.com", None),
        (
            "two: https://a:b@h.example/x https://c:d@i.example/y",
            "two: https://a:****@h.example/x https://c:****@i.example/y",
        ),
        ("no url here @ all", None),
        ("file:///home/me@corp/wheels/x-1.0-py3-none-any.whl", None),
    ],
)
def test_masking_examples(text: str, expected: str | None) -> None:
    assert mask_credentials(text) == (text if expected is None else expected)


def test_ui_masks_every_line_error_and_json_document_it_writes() -> None:
    out, err = io.StringIO(), io.StringIO()
    ui = UI(json_mode=True, stdout=out, stderr=err)
    ui.note("fetching https://bob:pa@ss/word@index.example/simple")
    ui.error(BackendError("failed: https://bob:pa@ss/word@index.example/x", detail="proxy https://tok/en@p.example"))
    document = json.loads(out.getvalue())
    written = out.getvalue() + err.getvalue()
    for secret in ("pa@ss/word", "tok/en"):
        assert secret not in written
    assert "https://bob:****@index.example/x" in document["error"]["message"]
