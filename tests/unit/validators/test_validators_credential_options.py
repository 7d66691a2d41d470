"""A credential written as its option's own argument: ``["--password", "hunter2"]``, ``curl -u user:pass``.

Before, each argument was read on its own: ``twine upload --password VALUE``, ``huggingface-cli login --token
VALUE``, ``curl -u admin:VALUE``, ``docker login -p VALUE`` and ``mysql -pVALUE`` passed ``tierlock validate``,
ran under ``tierlock verify`` and were recorded as written; ``--password VALUE`` in a printed line was printed as
written. Now the argument is a credential by its option (RC014, kind "password given as an option's argument"):
refused, acceptable on purpose only through ``acceptedCredentials``, redacted in the receipt of an accepted one,
and redacted in every printed line (the long options).
"""

from __future__ import annotations

import json
import re
import string
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.credentials import every_output
from tierlock import secretargs
from tierlock.redaction import REDACTED, redact
from tierlock.validators import validate_runtime_config

SECRET = "Hunt3r2" + "pa55wordQ"

#: The command, its arguments, and the index in the arguments of the one that holds the secret.
REFUSED: dict[str, tuple[str, list[str], int]] = {
    "long option": ("twine", ["upload", "--password", SECRET, "dist/*"], 2),
    "token option": ("huggingface-cli", ["login", "--token", SECRET], 2),
    "api key option, single dash": ("tool", ["-api-key", SECRET], 1),
    "client secret option": ("az", ["login", "--client-secret", SECRET], 2),
    "curl user": ("curl", ["-u", f"admin:{SECRET}", "https://x.invalid"], 1),
    "curl user, long": ("curl", ["--user", f"admin:{SECRET}", "https://x.invalid"], 1),
    "curl user, attached": ("curl", [f"-uadmin:{SECRET}", "https://x.invalid"], 0),
    "curl proxy user": ("curl", ["-U", f"p:{SECRET}", "https://x.invalid"], 1),
    "curl through uv run": ("uv", ["run", "curl", "-u", f"admin:{SECRET}"], 3),
    "docker login": ("docker", ["login", "-u", "me", "-p", SECRET, "registry.invalid"], 4),
    "podman login by path": ("/usr/bin/podman", ["login", "-p", SECRET], 2),
    "sudo docker login": ("sudo", ["docker", "login", "-p", SECRET], 3),
    "helm registry login": ("helm", ["registry", "login", "-p", SECRET, "r.invalid"], 3),
    "sshpass": ("sshpass", ["-p", SECRET, "ssh", "host"], 1),
    "sshpass attached": ("sshpass", [f"-p{SECRET}", "ssh", "host"], 0),
    "mysql attached": ("mysql", [f"-p{SECRET}", "-h", "db"], 0),
    "mariadb-dump attached": ("mariadb-dump", ["-u", "root", f"-p{SECRET}"], 2),
    "mysql's api key option": ("mysql", ["--api-key", SECRET], 1),
    "windows exe": ("C:\\tools\\curl.exe", ["-u", f"a:{SECRET}"], 1),
    "a shell script": ("bash", ["-c", f"curl -fsS -u admin:{SECRET} https://x.invalid"], 1),
    "a script's quoted password": ("sh", ["-c", f"set -e; docker login -p '{SECRET}' r.invalid && echo ok"], 1),
}

#: Neighbours that are not a credential: references, metavariables, specifications, other tools' -p and -u.
ACCEPTED: dict[str, tuple[str, list[str]]] = {
    "a variable": ("twine", ["upload", "--password", "$TWINE_PASSWORD"]),
    "a file": ("tool", ["--token", "@/run/secrets/token"]),
    "a metavariable": ("tool", ["--token", "TOKEN"]),
    "another option": ("gh", ["auth", "login", "--with-token", "--hostname", "github.com"]),
    "the last word": ("tool", ["--password"]),
    "a build secret": ("docker", ["build", "--secret", "id=npmrc,src=/home/me/.npmrc", "."]),
    "a token file": ("tool", ["--token-file", "/run/token"]),
    "password from stdin": ("docker", ["login", "--password-stdin", "-u", "me"]),
    "docker run's port": ("docker", ["run", "-p", "8080:80", "img"]),
    "docker run's user": ("docker", ["run", "-u", "1000:1000", "img"]),
    "curl asks for the password": ("curl", ["-u", "alice", "https://x.invalid"]),
    "mysql asks for the password": ("mysql", ["-p", "mydb"]),
    "pip's -p": ("pip", ["-p", "python3.12", "install", "x"]),
    "mysql's asking switch": ("mysql", ["--password", "mydb"]),
    "psql's asking switch": ("/usr/bin/psql", ["-h", "db", "--password", "mydb"]),
    "ansible asks": ("ansible-playbook", ["--ask-pass", "site.yml"]),
    "ansible asks for the vault": ("ansible-playbook", ["--ask-vault-password", "site.yml"]),
    "a switch without a value": ("tool", ["--no-password", "target"]),
    "a boolean": ("tool", ["--api-key", "none"]),
    "a script with a variable": ("bash", ["-c", "twine upload --password $TWINE_PASSWORD dist/*"]),
    "a script shlex cannot read": ("sh", ["-c", "echo 'unclosed"]),
}


def _document(command: str, args: list[str], **extra: Any) -> dict[str, Any]:
    return {"schemaVersion": 1, "verification": [{"key": "k", "command": command, "args": args}], **extra}


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_credential_given_as_its_options_argument_is_refused_at_its_argument_and_never_echoed(case: str) -> None:
    command, args, at = REFUSED[case]
    result = validate_runtime_config(_document(command, args))
    assert [(e.rule, e.path) for e in result.errors] == [("RC014", ("verification", 0, "args", at))]
    assert secretargs.KIND in result.errors[0].message
    assert SECRET not in every_output(result)
    assert SECRET not in " ".join(secretargs.redacted([command, *args]))


@pytest.mark.parametrize("case", list(ACCEPTED))
def test_an_options_argument_that_is_no_credential_stays_accepted(case: str) -> None:
    command, args = ACCEPTED[case]
    assert validate_runtime_config(_document(command, args)).ok
    assert secretargs.redacted([command, *args]) == [command, *args]
    line = " ".join([command, *args])
    if "asking switch" in case:  # a printed line does not say which tool reads it: its next word is hidden
        assert redact(line) == line.replace("mydb", REDACTED)
    else:
        assert redact(line) == line


def test_a_credential_shaped_argument_is_named_by_its_own_shape_once() -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    result = validate_runtime_config(_document("tool", ["--token", token]))
    assert [(e.rule, e.path) for e in result.errors] == [("RC014", ("verification", 0, "args", 1))]
    assert secretargs.KIND not in result.errors[0].message


@pytest.mark.parametrize(
    "line",
    [
        f"+ twine upload --password {SECRET} dist/x.whl",
        f"error: login --token  {SECRET} refused",
        f"tool -api-key\t{SECRET}",
    ],
)
def test_a_printed_line_that_gives_a_long_option_its_credential_is_redacted(line: str) -> None:
    shown = redact(line)
    assert SECRET not in shown
    assert REDACTED in shown
    assert redact(shown) == shown


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        (f'export API_TOKEN="{SECRET}"', f'export API_TOKEN="{REDACTED}"'),
        (f"PGPASSWORD='{SECRET}' psql -h db", f"PGPASSWORD='{REDACTED}' psql -h db"),
        (f'twine upload --password "{SECRET} x" dist', f'twine upload --password "{REDACTED}" dist'),
        (f'DB_PASS="{SECRET}\nnext line"', f'DB_PASS="{REDACTED}\nnext line"'),  # a quote left open on its line
        (f'DB_PASS="{SECRET}', f'DB_PASS="{REDACTED}'),
        ('API_TOKEN="$API_TOKEN" TOKEN="" pw="ab"', 'API_TOKEN="$API_TOKEN" TOKEN="" pw="ab"'),
    ],
)
def test_a_quoted_value_of_a_credential_name_is_redacted_to_its_closing_quote(line: str, shown: str) -> None:
    # Before: a value in quotes was no value (its first character, a quote, ends the run), printed as written.
    assert redact(line) == shown


def test_a_script_that_assigns_a_quoted_credential_is_refused() -> None:
    result = validate_runtime_config(_document("bash", ["-c", f'export API_TOKEN="{SECRET}" && make deploy']))
    assert [(e.rule, e.path) for e in result.errors] == [("RC014", ("verification", 0, "args", 1))]
    assert SECRET not in every_output(result)


@pytest.mark.parametrize(
    "line",
    ["usage: twine upload [--password PASSWORD] [--token TOKEN]", "pass --password-stdin", "--token $TOKEN"],
)
def test_a_printed_usage_line_keeps_its_metavariables(line: str) -> None:
    assert redact(line) == line


def test_an_options_credential_accepted_on_purpose_is_reported_and_an_allowance_elsewhere_is_refused() -> None:
    args = ["--password", "public-demo-pw"]
    allowance = [{"path": "/verification/0/args/1", "reason": "the demo server's published password"}]
    result = validate_runtime_config(_document("tool", args, acceptedCredentials=allowance))
    assert result.ok
    assert [a.kind for a in result.accepted] == [secretargs.KIND]
    assert "public-demo-pw" not in every_output(result)
    wrong = [{"path": "/verification/0/args/0", "reason": "points at the option"}]
    refused = validate_runtime_config(_document("tool", args, acceptedCredentials=wrong))
    assert sorted(e.rule for e in refused.errors) == ["RC014", "RC018"]


_OPTIONS = st.sampled_from(["--password", "--token", "-api-key", "--client-secret", "--db-pass", "--gh-pat"])
_VALUES = st.text(string.ascii_letters + string.digits + "._+!#", min_size=3, max_size=40).filter(
    lambda v: not re.fullmatch(r"[A-Z_]+[.]*", v) and v.lower() not in {"true", "false", "none", "null", "yes", "off"}
)
_WORDS = st.lists(
    st.text(string.ascii_lowercase, min_size=1, max_size=8).filter(lambda w: w not in secretargs.TOOLS), max_size=4
)


@given(before=_WORDS, option=_OPTIONS, value=_VALUES, after=_WORDS)
def test_any_value_after_a_credential_option_is_never_shown_in_the_words_or_the_line(
    before: list[str], option: str, value: str, after: list[str]
) -> None:
    words = ["tool", *before, option, value, *after]
    shown = secretargs.redacted(words)
    assert shown == ["tool", *before, option, REDACTED, *after]
    assert redact(" ".join(words)) == " ".join(shown)


@pytest.mark.usefixtures("git_identity")
def test_verify_refuses_an_options_credential_and_records_an_accepted_one_redacted(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from tests.support.gitrepo import check, commit_all, make_repo, write_config
    from tierlock.cli import main

    repo = make_repo(tmp_path / "r", {"ok.py": "print('ok')\n"}, [check("unit", "ok.py", "--password", SECRET)])
    capsys.readouterr()
    assert main(["--project", str(repo), "verify", "--json"]) == 2
    out = capsys.readouterr()
    assert "RC014" in out.out + out.err
    assert SECRET not in out.out + out.err
    write_config(repo, [check("unit", "ok.py", "--password", SECRET)])
    config = json.loads((repo / "tierlock.runtime.json").read_text())
    config["acceptedCredentials"] = [{"path": "/verification/0/args/2", "reason": "a test fixture's password"}]
    (repo / "tierlock.runtime.json").write_text(json.dumps(config))
    commit_all(repo)
    assert main(["--project", str(repo), "verify", "--json"]) == 0
    out = capsys.readouterr()
    line = json.loads(out.out.strip().splitlines()[-1])
    receipt = Path(line["receipt"]).read_text()
    assert SECRET not in out.out + out.err + receipt
    assert json.loads(receipt)["commands"][0]["args"][1:] == ["--password", REDACTED]


@pytest.mark.parametrize("pointer", ["/verification/0/args/2", "/verification/0/args/01", "/verification/0/args/-1"])
def test_an_allowance_that_points_past_the_arguments_or_spells_an_index_otherwise_points_at_nothing(
    pointer: str,
) -> None:
    allowance = [{"path": pointer, "reason": "one past the end, a leading zero, a sign"}]
    result = validate_runtime_config(_document("tool", ["--password", SECRET], acceptedCredentials=allowance))
    assert sorted((e.rule, e.message.split(": ")[-1]) for e in result.errors) == [
        ("RC014", "credentials must be inherited from the process environment, never saved"),
        ("RC018", "points at no value of this document"),
    ]


def test_a_credential_beside_a_nest_deeper_than_any_parsed_document_is_still_found() -> None:
    from tierlock.validators.jsonpos import MAX_DEPTH
    from tierlock.validators.secrets import check

    deep: Any = f"--password={SECRET}"
    for _ in range(MAX_DEPTH + 2):
        deep = [deep]
    document = {"b": [{"c": f"--token={SECRET}"}], "a": deep}  # (the nest is walked first: the last pushed)
    assert [(f.rule, f.path) for f in check(document)[0]] == [("RC014", ("b", 0, "c"))]


@pytest.mark.parametrize("text", [f"password={SECRET}", f"TOKEN={SECRET} x"])
def test_a_name_that_is_the_credential_word_alone_gives_its_value(text: str) -> None:
    from tierlock.secretnames import assigned

    assert [text[start:end] for start, end, _ in assigned(text)] == [SECRET]


def test_an_allowance_for_another_list_of_a_command_is_refused() -> None:
    document = _document("tool", [], acceptedCredentials=[{"path": "/verification/0/x-extra/0", "reason": "r"}])
    document["verification"][0]["x-extra"] = [f"--password={SECRET}"]
    found = validate_runtime_config(document).errors
    assert [e.message for e in found if e.rule == "RC018"] == [
        "points at verification[0].x-extra[0]: only an args entry or an env value of a command can be accepted"
    ]


def test_a_credential_shaped_env_name_is_called_an_env_name_and_a_key_elsewhere_a_key() -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    document = _document("tool", [])
    document["verification"][0]["env"] = {token: "1"}
    document["verification"][0]["policy"] = {"x": {token: "1"}}
    messages = sorted(e.message.split(" (")[0] for e in validate_runtime_config(document).errors if e.rule == "RC014")
    assert messages == ["env name is a credential", "key is a credential"]
