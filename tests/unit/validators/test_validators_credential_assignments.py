"""A credential name given a value outside ``env``: ``env PGPASSWORD=...``, ``-e API_TOKEN=...``, ``--password=...``.

RC009 refuses ``"env": {"PGPASSWORD": "..."}``; before runtime12 the same password written as an argument
(``["env", "PGPASSWORD=...", "psql"]``, ``["run", "-e", "API_TOKEN=...", "img"]``, ``["--password=..."]``) or in a
URL's query (``?access_token=...``) passed ``tierlock validate``, ran under ``tierlock verify``, and was recorded
and printed as written. Now it is a credential-shaped value (RC014, kind "value of a credential name") in every
field: refused, redacted in every output (the name kept), acceptable on purpose only through
``acceptedCredentials``, and a verify run of an accepted one records it redacted.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.credentials import BENIGN, every_output
from tierlock.redaction import REDACTED, redact
from tierlock.validators import validate_runtime_config

SECRET = "Hunt3r2" + "pa55wordQ"
SPELLINGS = {
    "env command": ["env", f"PGPASSWORD={SECRET}", "psql"],
    "docker -e": ["run", "-e", f"API_TOKEN={SECRET}", "img"],
    "long option": [f"--password={SECRET}"],
    "option with dashes": [f"--client-secret={SECRET}"],
    "api key option": [f"--api-key={SECRET}"],
    "lower case": [f"db_password={SECRET}"],
    "password suffix": [f"DB_PASS={SECRET}"],
    "pat suffix": [f"GH_PAT={SECRET}"],
    "whole name": [f"SSHPASS={SECRET}"],
    "secret key": [f"SECRET_KEY={SECRET}"],
    "url query": [f"https://api.example.invalid/v1?access_token={SECRET}&page=2"],
    "in a longer argument": [f"-Dapp.opts=--token={SECRET}"],
}


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_a_credential_name_given_a_value_in_an_argument_is_refused_and_never_echoed(spelling: str) -> None:
    args = SPELLINGS[spelling]
    at = next(i for i, a in enumerate(args) if SECRET in a)
    document = {"schemaVersion": 1, "verification": [{"key": "k", "command": "x", "args": args}]}
    result = validate_runtime_config(document)
    assert [(e.rule, e.path) for e in result.errors] == [("RC014", ("verification", 0, "args", at))]
    assert "value of a credential name" in result.errors[0].message
    assert SECRET not in every_output(result)
    shown = redact(args[at])
    assert SECRET not in shown
    assert REDACTED in shown
    assert redact(shown) == shown


@pytest.mark.parametrize("field", ["env value", "command", "label", "extension"])
def test_the_same_in_any_other_field_is_refused(field: str) -> None:
    value = f"--password={SECRET}"
    command: dict[str, Any] = {"key": "k", "command": "x"}
    document: dict[str, Any] = {"schemaVersion": 1, "verification": [command]}
    if field == "env value":
        command["env"] = {"JAVA_OPTS": value}
    elif field == "extension":
        document["x-notes"] = value
    else:
        command[field] = value
    result = validate_runtime_config(document)
    assert [e.rule for e in result.errors] == ["RC014"]
    assert SECRET not in every_output(result)


@pytest.mark.parametrize("value", [v for v in BENIGN if "=" in v or "password" in v])
def test_a_name_that_only_contains_a_word_or_a_reference_stays_accepted(value: str) -> None:
    document = {"schemaVersion": 1, "verification": [{"key": "k", "command": "x", "args": [value]}]}
    assert validate_runtime_config(document).ok
    assert redact(value) == value


def test_an_assignment_accepted_on_purpose_is_reported_and_its_value_never_shown() -> None:
    document = {
        "schemaVersion": 1,
        "verification": [{"key": "k", "command": "x", "args": ["--password=public-demo-pw"]}],
        "acceptedCredentials": [{"path": "/verification/0/args/0", "reason": "the demo server's published password"}],
    }
    result = validate_runtime_config(document)
    assert result.ok
    assert [a.kind for a in result.accepted] == ["value of a credential name"]
    assert "public-demo-pw" not in every_output(result)


@pytest.mark.parametrize(
    "text",
    [
        "a_token=" * 140_000,
        ("x" * 127 + "key=") * 8_000,
        "PASSWORD=" + "=" * 1_000_000,
        ("--token=" + "a" * 60 + " ") * 15_000,
    ],
    ids=["chained", "long names", "one long value", "many"],
)
def test_a_megabyte_of_adversarial_assignments_is_redacted_in_linear_time(text: str) -> None:
    started = time.perf_counter()
    redact(text)
    assert time.perf_counter() - started < 1.0


@pytest.mark.usefixtures("git_identity")
def test_verify_refuses_an_assignment_and_records_an_accepted_one_redacted(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from tests.support.gitrepo import check, commit_all, make_repo, write_config
    from tierlock.cli import main

    repo = make_repo(tmp_path / "r", {"ok.py": "print('ok')\n"}, [check("unit", "ok.py", f"--password={SECRET}")])
    capsys.readouterr()
    assert main(["--project", str(repo), "verify", "--json"]) == 2
    out = capsys.readouterr()
    assert "RC014" in out.out + out.err
    assert SECRET not in out.out + out.err
    write_config(repo, [check("unit", "ok.py", f"--password={SECRET}")])
    config = json.loads((repo / "tierlock.runtime.json").read_text())
    config["acceptedCredentials"] = [{"path": "/verification/0/args/1", "reason": "a test fixture's password"}]
    (repo / "tierlock.runtime.json").write_text(json.dumps(config))
    commit_all(repo)
    assert main(["--project", str(repo), "verify", "--json"]) == 0
    out = capsys.readouterr()
    line = json.loads(out.out.strip().splitlines()[-1])
    receipt = Path(line["receipt"]).read_text()
    assert SECRET not in out.out + out.err + receipt
    assert f"--password={REDACTED}" in receipt


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("--password=ab", []),  # under three characters: no value
        ("--password=abc", ["abc"]),  # three: one
        ("--password=falsehood", ["falsehood"]),  # a word of the list is only the whole value
        ("--password=$DB_PW --token=tok3n --api-key=none", ["tok3n"]),  # a reference does not end the search
        ("x_token=tok3n&y_secret=s3cret", ["tok3n", "s3cret"]),
    ],
)
def test_the_values_found_are_exactly_the_values_given_to_credential_names(text: str, found: list[str]) -> None:
    from tierlock.secretnames import assigned

    assert [text[start:end] for start, end, _ in assigned(text)] == found
