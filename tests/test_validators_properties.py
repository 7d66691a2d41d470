"""Properties: any input gives a result (never another exception); no planted secret reaches any output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tierlock.validators import ValidationResult, validate_runtime_config
from tierlock.validators.report import github_lines, json_document, sarif_document, text_lines

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


def every_output(result: ValidationResult) -> str:
    return "\n".join(
        [
            "\n".join(text_lines(result)),
            json.dumps(json_document(result)),
            "\n".join(github_lines(result)),
            json.dumps(sarif_document(result)),
        ]
    )


json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
FIELDS = ["repositoryId", "command", "args", "cwd", "env", "timeoutMs", "key", "label", "policy", "other"]
commands = st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=6) | json_values
documents = st.fixed_dictionaries(
    {},
    optional={
        "schemaVersion": st.sampled_from([1, 2, "1", None]) | json_values,
        "verification": st.lists(commands, max_size=4) | json_values,
        "setup": st.lists(commands, max_size=3),
        "repositories": st.lists(
            st.fixed_dictionaries({"id": st.text(max_size=5), "path": st.sampled_from([".", "a", "/x", "..", ""])}),
            max_size=3,
        ),
        "x-extra": json_values,
    },
)


@SETTINGS
@given(document=documents | json_values.filter(lambda v: not isinstance(v, str)))  # a str is a path
def test_any_document_gives_a_result_and_every_format_renders(document: Any) -> None:
    result = validate_runtime_config(document, checkout=False)
    assert isinstance(result, ValidationResult)
    assert result.exit_code in (0, 1)
    assert result.ok == (not result.errors)
    every_output(result)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("texts")


@SETTINGS
@given(text=st.text(max_size=200) | documents.map(json.dumps).map(lambda t: t.replace("1", "1e999", 1)))
def test_any_text_gives_a_result_with_exit_0_1_or_2(text: str, scratch: Path) -> None:
    for name in ("c.json", "c.toml"):
        path = scratch / name
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        result = validate_runtime_config(path, checkout=False)
        assert result.exit_code in (0, 1, 2)
        if not result.parsed:
            assert len(result.errors) == 1
        every_output(result)


def _rand(alphabet: str, n: int) -> st.SearchStrategy[str]:
    return st.text(alphabet=alphabet, min_size=n, max_size=n)


credential_shaped = st.one_of(
    st.tuples(st.sampled_from(["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]), _rand(ALNUM, 36)).map("".join),
    _rand(ALNUM + "_", 40).map(lambda s: "github_pat_" + s),
    st.tuples(st.sampled_from(["AKIA", "ASIA"]), _rand(UPPER, 16)).map("".join),
    _rand(ALNUM, 24).map(lambda s: "xoxb-" + s),
    _rand(ALNUM, 12).map(lambda s: f"https://deploy:{s}@registry.example.invalid/simple"),
    st.just("-----BEGIN OPENSSH PRIVATE KEY-----"),
)
env_secret = _rand(ALNUM, 16).map(lambda s: "Zq" + s)


@SETTINGS
@given(
    secret=credential_shaped,
    value=env_secret,
    env_name=st.sampled_from(["A", "GITHUB_TOKEN", "1BAD", "DB_PASSWORD", "x-y"]),
    fmt=st.sampled_from(["json", "toml", "data"]),
)
def test_planted_secrets_never_appear_in_any_output(
    secret: str, value: str, env_name: str, fmt: str, scratch: Path
) -> None:
    ident = secret if secret.replace("_", "").replace("-", "").isalnum() else "k1"
    command = {
        "key": ident,
        "repositoryId": ident,
        "command": secret,
        "args": [secret, "--x=" + secret, "install", secret],
        "cwd": "../" + secret,
        "env": {env_name: value, "OTHER": secret, secret if ident != "k1" else "S": value},
        "label": secret + "\x00",
        "policy": {"inputs": [secret, ""], "reuse": secret},
        secret: value,
    }
    document = {
        "schemaVersion": 1,
        "verification": [command, dict(command)],
        "setup": [{"key": ident, "command": "install-tier", "args": [secret, value]}],
    }
    if fmt == "data":
        result = validate_runtime_config(document, checkout=False)
    elif fmt == "json":
        path = scratch / "planted.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        result = validate_runtime_config(path, checkout=False)
    else:
        import tomlkit

        path = scratch / "planted.toml"
        path.write_text(tomlkit.dumps(document), encoding="utf-8")
        result = validate_runtime_config(path, checkout=False)
    assert result.parsed
    assert not result.ok
    output = every_output(result)
    assert secret not in output
    assert value not in output
