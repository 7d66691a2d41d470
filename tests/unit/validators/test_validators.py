"""The runtime config rules: a table of accepting and refusing documents, one or more per rule."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tierlock.tiers import Project, load_project
from tierlock.validators import RULES, validate_runtime_config
from tierlock.validators.rules import installed_tiers, lexical_escape

# Credential-shaped strings are assembled at run time so that no scanner takes this file for a leak.
GITHUB = "gh" + "p_" + "A1b2C3d4" * 5
GITHUB_PAT = "github" + "_pat_" + "11ABCDEFG0" * 3
AWS = "AK" + "IA" + "ABCDEFGHIJKLMNOP"
AWS_SESSION = "AS" + "IA" + "QRSTUVWXYZ234567"
SLACK = "xo" + "xb-" + "1234567890-abcdefghij"
PEM = "-----BEGIN " + "RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----"
URL_PASSWORD = "https://ci:" + "hunter2" + "@packages.example.invalid/simple"
JWT = (
    "ey" + "JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".ey" + "JzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)


def cmd(**fields: Any) -> dict[str, Any]:
    return {"key": "unit", "command": "pytest", **fields}


def doc(*verification: Any, **top: Any) -> dict[str, Any]:
    return {"schemaVersion": 1, "verification": list(verification), **top}


REPOS = [{"id": "app", "path": "."}, {"id": "lib", "path": "lib", "scope": ["src", "tests"]}]

ACCEPTED: list[tuple[str, dict[str, Any]]] = [
    ("minimal", doc()),
    ("schema and extension keys", doc(cmd(), **{"$schema": "./s.json", "x-owner": {"team": "ci"}})),
    ("setup is optional and may be empty", doc(cmd(), setup=[])),
    ("policy on a setup command has no effect", doc(cmd(), setup=[cmd(key="arm", policy={"reuse": "never"})])),
    ("1000.0 counts as 1000", doc(cmd(timeoutMs=1000.0))),
    ("schemaVersion 1.0 is the number 1, as JSON.parse reads it", {"schemaVersion": 1.0, "verification": []}),
    ("largest timeout", doc(cmd(timeoutMs=2**53 - 1))),
    ("empty string arguments", doc(cmd(args=["", "-q"]))),
    ("env names", doc(cmd(env={"_X": "1", "PYTHONHASHSEED": "0", "PATH_EXTRA": ""}))),
    ("label of 256 characters", doc(cmd(label="x" * 256))),
    ("key of 128 characters", doc(cmd(key="k" + "y" * 127))),
    ("identifier punctuation", doc(cmd(key="a.b_c-d", repositoryId="app"), repositories=REPOS[:1])),
    (
        "full policy",
        doc(
            cmd(
                policy={
                    "reuse": "snapshot-local",
                    "deterministic": True,
                    "readOnly": False,
                    "independentGroup": "g1",
                    "inputs": ["x" * 4096] * 256,
                    "toolchainInputs": ["uv.lock"],
                    "resources": ["gpu"],
                }
            )
        ),
    ),
    ("cwd that comes back", doc(cmd(cwd="./a/../b"))),
    ("repository ids named", doc(cmd(repositoryId="lib", cwd="tests"), repositories=REPOS)),
    (
        "one scope is the default cwd",
        doc(cmd(repositoryId="x"), repositories=[{"id": "x", "path": ".", "scope": ["s"]}]),
    ),
    ("a single repository needs no repositoryId", doc(cmd(), repositories=REPOS[:1])),
    ("names near credential words", doc(cmd(env={"AUTHOR": "me", "PWD_HINT": "x", "KEYRING": "none"}))),
    ("declared tiers", doc(cmd(), setup=[cmd(key="arm", command="install-tier", args=["brain", "base"])])),
    (
        "tier names in any spelling, options skipped",
        doc(cmd(), setup=[cmd(key="a", command="tierlock", args=["install", "--project", "x", "Brain"])]),
    ),
    ("a URL without a password", doc(cmd(args=["--index-url", "https://user@example.invalid/simple"]))),
    ("U+001F and U+0085 are not blank to JavaScript's trim", doc(cmd(command="\x1f", label="\x85"))),
    ("label of 256 characters of the Basic Multilingual Plane", doc(cmd(label="\u00e9" * 256))),
    ("label of 128 emoji: 256 UTF-16 code units", doc(cmd(label="\U0001f600" * 128))),
    ("a repository path up to the config's folder", doc(repositories=[{"id": "a", "path": "x/../y"}])),
    ("names near password variables", doc(cmd(env={"PWD_DIR": "x", "SSH_ASKPASS": "x", "BYPASS": "1"}))),
    (
        "a credential accepted on purpose at its path, with a reason",
        doc(
            cmd(args=["verify", JWT]),
            acceptedCredentials=[{"path": "/verification/0/args/1", "reason": "the public jwt.io example token"}],
        ),
    ),
]

REFUSED: list[tuple[str, Any, set[str]]] = [
    # 1: the top level
    ("top level is an array", [], {"RC001"}),
    ("unknown top-level key", doc(cmd(), commands=[]), {"RC001"}),
    ("schemaVersion 2", {"schemaVersion": 2, "verification": []}, {"RC001"}),
    ("schemaVersion as a string", {"schemaVersion": "1", "verification": []}, {"RC001"}),
    ("schemaVersion true", {"schemaVersion": True, "verification": []}, {"RC001"}),
    ("schemaVersion missing", {"verification": []}, {"RC001"}),
    # 2: the lists
    ("verification missing", {"schemaVersion": 1}, {"RC002"}),
    ("verification an object", {"schemaVersion": 1, "verification": {}}, {"RC002"}),
    ("setup a string", doc(setup="install-tier brain"), {"RC002"}),
    # 3: command shape
    ("command not an object", doc("pytest"), {"RC003"}),
    ("unknown command key", doc(cmd(shell=True)), {"RC003"}),
    ("command missing", doc({"key": "unit"}), {"RC003"}),
    # 4: identifiers
    ("key with a space", doc(cmd(key="unit tests")), {"RC004"}),
    ("key starting with a dot", doc(cmd(key=".unit")), {"RC004"}),
    ("key of 129 characters", doc(cmd(key="k" * 129)), {"RC004"}),
    ("repositoryId with a slash", doc(cmd(repositoryId="a/b")), {"RC004"}),
    ("independentGroup empty", doc(cmd(policy={"independentGroup": ""})), {"RC004"}),
    ("key with a trailing newline", doc(cmd(key="unit\n")), {"RC004"}),
    ("repository id with a trailing newline", doc(repositories=[{"id": "app\n", "path": "."}]), {"RC004"}),
    ("independentGroup with a trailing newline", doc(cmd(policy={"independentGroup": "g\n"})), {"RC004"}),
    # 5: non-empty strings
    ("empty command", doc(cmd(command="")), {"RC005"}),
    ("whitespace command", doc(cmd(command=" \t ")), {"RC005"}),
    ("cwd with NUL", doc(cmd(cwd="a\x00b")), {"RC005"}),
    ("empty label", doc(cmd(label="")), {"RC005"}),
    ("empty policy input", doc(cmd(policy={"inputs": [" "]})), {"RC005"}),
    ("a lone U+FEFF is blank to JavaScript's trim", doc(cmd(command="\ufeff")), {"RC005"}),
    ("an ideographic space is blank", doc(cmd(label="\u3000")), {"RC005"}),
    # 6: label length
    ("label of 257 characters", doc(cmd(label="x" * 257)), {"RC006"}),
    ("label of 129 emoji: 258 UTF-16 code units", doc(cmd(label="\U0001f600" * 129)), {"RC006"}),
    # 7: args
    ("args a string", doc(cmd(args="-q")), {"RC007"}),
    ("args with a number", doc(cmd(args=[1])), {"RC007"}),
    ("args with NUL", doc(cmd(args=["a\x00"])), {"RC007"}),
    # 8: timeoutMs
    ("timeout true", doc(cmd(timeoutMs=True)), {"RC008"}),
    ("timeout zero", doc(cmd(timeoutMs=0)), {"RC008"}),
    ("timeout negative", doc(cmd(timeoutMs=-5)), {"RC008"}),
    ("timeout fraction", doc(cmd(timeoutMs=1.5)), {"RC008"}),
    ("timeout over 2^53-1", doc(cmd(timeoutMs=2**53)), {"RC008"}),
    ("timeout as a string", doc(cmd(timeoutMs="1000")), {"RC008"}),
    # 9: env
    ("env name starting with a digit", doc(cmd(env={"1X": "a"})), {"RC009"}),
    ("env name with a dash", doc(cmd(env={"A-B": "a"})), {"RC009"}),
    ("env name with a trailing newline", doc(cmd(env={"PATH\n": "a"})), {"RC009"}),
    ("env value a number", doc(cmd(env={"A": 1})), {"RC009"}),
    ("env value with NUL", doc(cmd(env={"A": "\x00"})), {"RC009"}),
    ("env token name", doc(cmd(env={"GITHUB_TOKEN": "x"})), {"RC009"}),
    ("env api key name in lower case", doc(cmd(env={"my_api_key": "x"})), {"RC009"}),
    ("env password name", doc(cmd(env={"Db_Password": "x"})), {"RC009"}),
    ("env secret name", doc(cmd(env={"AWS_SECRET_ACCESS_KEY": "x"})), {"RC009"}),
    ("env credential name", doc(cmd(env={"NPM_CREDENTIALS": "x"})), {"RC009"}),
    ("well-known password variables", doc(cmd(env={"MYSQL_PWD": "x", "SSHPASS": "x", "PGPASSWORD": "x"})), {"RC009"}),
    ("password variable endings", doc(cmd(env={"DB_PASS": "x", "GH_PAT": "x"})), {"RC009"}),
    ("env apikey name", doc(cmd(env={"OPENAI_APIKEY": "x"})), {"RC009"}),
    ("env passphrase name (extended list)", doc(cmd(env={"GPG_PASSPHRASE": "x"})), {"RC009"}),
    ("env private key name (extended list)", doc(cmd(env={"SSH_PRIVATE_KEY": "x"})), {"RC009"}),
    ("a credential word anywhere, as in the reference", doc(cmd(env={"TOKENIZERS_PARALLELISM": "x"})), {"RC009"}),
    # 10: policy
    ("policy unknown key", doc(cmd(policy={"cache": True})), {"RC010"}),
    ("policy reuse always", doc(cmd(policy={"reuse": "always"})), {"RC010"}),
    ("policy deterministic yes", doc(cmd(policy={"deterministic": "yes"})), {"RC010"}),
    ("policy not an object", doc(cmd(policy=[])), {"RC010"}),
    ("policy 257 inputs", doc(cmd(policy={"inputs": ["a"] * 257})), {"RC010"}),
    ("policy input of 4097 characters", doc(cmd(policy={"resources": ["a" * 4097]})), {"RC010"}),
    ("policy input of 2049 emoji", doc(cmd(policy={"resources": ["\U0001f600" * 2049]})), {"RC010"}),
    # 11: unique check keys
    ("key twice in verification", doc(cmd(), cmd()), {"RC011"}),
    ("key twice in setup", doc(setup=[cmd(key="a"), cmd(key="a")]), {"RC011"}),
    ("key in both lists", doc(cmd(key="a"), setup=[cmd(key="a")]), {"RC011"}),
    # 14: credential-shaped values
    ("GitHub token argument", doc(cmd(args=["--token", GITHUB])), {"RC014"}),
    ("GitHub fine-grained token in env", doc(cmd(env={"GH": GITHUB_PAT})), {"RC014"}),
    ("AWS key id in env", doc(cmd(env={"AWS_ID": AWS})), {"RC014"}),
    ("AWS session key id in args", doc(cmd(args=[AWS_SESSION])), {"RC014"}),
    ("Slack token inside an argument", doc(cmd(args=["--hook=" + SLACK])), {"RC014"}),
    ("private key in env", doc(cmd(env={"KEY_PEM": PEM})), {"RC014"}),
    ("URL with a password", doc(cmd(args=["--index-url", URL_PASSWORD])), {"RC014"}),
    ("env name that is itself a credential", doc(cmd(env={GITHUB: "1"})), {"RC014"}),
    ("a token glued to a flag", doc(cmd(args=["-u" + GITHUB])), {"RC014"}),
    ("a token glued to a word", doc(cmd(args=["x" + GITHUB, "9" + AWS])), {"RC014"}),
    ("a token in the key", doc(cmd(key="k_" + GITHUB)), {"RC014"}),
    ("a token in the label", doc(cmd(label="run " + GITHUB)), {"RC014"}),
    ("a token in cwd", doc(cmd(cwd="a/" + GITHUB)), {"RC014"}),
    ("a token in the command", doc(cmd(command=GITHUB)), {"RC014"}),
    ("a token in a policy list", doc(cmd(policy={"inputs": [GITHUB]})), {"RC014"}),
    ("a token in $schema", doc(cmd(), **{"$schema": "https://x.invalid/?t=" + GITHUB}), {"RC014"}),
    ("a token in an extension value", doc(cmd(), **{"x-owner": {"deep": [GITHUB]}}), {"RC014"}),
    ("a token as a repository path", doc(repositories=[{"id": "a", "path": GITHUB}]), {"RC014"}),
    ("a JSON Web Token not accepted", doc(cmd(args=[JWT])), {"RC014"}),
    ("both the name rule and the value rule", doc(cmd(env={"GITHUB_TOKEN": GITHUB})), {"RC009", "RC014"}),
    # 18: accepted credentials
    (
        "an allowance for another path accepts nothing there",
        doc(
            cmd(args=[JWT, "x"]),
            acceptedCredentials=[{"path": "/verification/0/args/1", "reason": "the public example token"}],
        ),
        {"RC014", "RC018"},
    ),
    (
        "an allowance without a reason",
        doc(cmd(args=[JWT]), acceptedCredentials=[{"path": "/verification/0/args/0"}]),
        {"RC014", "RC018"},
    ),
    (
        "an allowance with a blank reason",
        doc(cmd(args=[JWT]), acceptedCredentials=[{"path": "/verification/0/args/0", "reason": "\ufeff "}]),
        {"RC014", "RC018"},
    ),
    (
        "an allowance for a field other than args and env values",
        doc(cmd(label=JWT), acceptedCredentials=[{"path": "/verification/0/label", "reason": "example"}]),
        {"RC014", "RC018"},
    ),
    (
        "an allowance that is not a JSON Pointer",
        doc(cmd(args=[JWT]), acceptedCredentials=[{"path": "verification[0].args[0]", "reason": "example"}]),
        {"RC014", "RC018"},
    ),
    # 15: cwd, lexically
    ("cwd absolute", doc(cmd(cwd="/srv/app")), {"RC015"}),
    ("cwd Windows absolute", doc(cmd(cwd="C:\\work")), {"RC015"}),
    ("cwd Windows drive-relative", doc(cmd(cwd="C:work")), {"RC015"}),
    ("cwd UNC", doc(cmd(cwd="\\\\server\\share")), {"RC015"}),
    ("cwd device path", doc(cmd(cwd="\\\\?\\C:\\x")), {"RC015"}),
    ("cwd parent", doc(cmd(cwd="../other")), {"RC015"}),
    ("cwd parent after a detour", doc(cmd(cwd="a/../../b")), {"RC015"}),
    ("cwd parent with backslashes", doc(cmd(cwd="a\\..\\..\\b")), {"RC015"}),
    ("several scopes and no cwd", doc(cmd(repositoryId="lib"), repositories=REPOS), {"RC015"}),
    ("cwd outside the scopes", doc(cmd(repositoryId="lib", cwd="docs"), repositories=REPOS), {"RC015"}),
    ("scope with an empty segment", doc(repositories=[{"id": "a", "path": ".", "scope": ["a//b"]}]), {"RC015"}),
    ("scope with a '.' segment", doc(repositories=[{"id": "a", "path": ".", "scope": ["./a"]}]), {"RC015"}),
    ("scope with a trailing slash", doc(repositories=[{"id": "a", "path": ".", "scope": ["a\\"]}]), {"RC015"}),
    ("scope with '..' that comes back", doc(repositories=[{"id": "a", "path": ".", "scope": ["a/../b"]}]), {"RC015"}),
    ("scope that is the repository itself", doc(repositories=[{"id": "a", "path": ".", "scope": ["."]}]), {"RC015"}),
    # 16: repositories
    ("unknown repositoryId", doc(cmd(repositoryId="ap"), repositories=REPOS), {"RC016"}),
    ("repository id twice", doc(repositories=[{"id": "a", "path": "x"}, {"id": "a", "path": "y"}]), {"RC016"}),
    ("repository path twice", doc(repositories=[{"id": "a", "path": "x"}, {"id": "b", "path": "./x/"}]), {"RC016"}),
    ("no repositoryId among several", doc(cmd(cwd="src"), repositories=REPOS), {"RC016"}),
    ("repository without a path", doc(repositories=[{"id": "a"}]), {"RC016"}),
    ("repository path absolute", doc(repositories=[{"id": "a", "path": "/srv"}]), {"RC016"}),
    ("repository path that leaves through '..'", doc(repositories=[{"id": "a", "path": "x/../../y"}]), {"RC016"}),
    ("an empty scope list", doc(repositories=[{"id": "a", "path": ".", "scope": []}]), {"RC015"}),
    ("33 scopes", doc(repositories=[{"id": "a", "path": ".", "scope": [f"s{i}" for i in range(33)]}]), {"RC015"}),
    ("a scope of 513 emoji", doc(repositories=[{"id": "a", "path": ".", "scope": ["\U0001f600" * 513]}]), {"RC015"}),
    ("a scope of 1025 characters", doc(repositories=[{"id": "a", "path": ".", "scope": ["s" * 1025]}]), {"RC015"}),
    # 17: declared tiers
    ("install-tier of an unknown tier", doc(setup=[cmd(key="a", command="install-tier", args=["brian"])]), {"RC017"}),
    (
        "tierlock install of an unknown tier",
        doc(setup=[cmd(key="a", command="tierlock", args=["install", "gpu"])]),
        {"RC017"},
    ),
    (
        "python -m tierlock install of an unknown tier",
        doc(setup=[cmd(key="a", command="/usr/bin/python3.12", args=["-m", "tierlock", "install", "gpu"])]),
        {"RC017"},
    ),
    ("uv run install-tier", doc(setup=[cmd(key="a", command="uv", args=["run", "install-tier", "gpu"])]), {"RC017"}),
]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    root = tmp_path_factory.mktemp("proj")
    (root / "pyproject.toml").write_text(
        '[project]\nname = "p"\nversion = "1"\ndependencies = []\n'
        '[project.optional-dependencies]\nbrain = ["numpy"]\n'
        '[tool.tierlock.tiers.brain]\nsource = "extra:brain"\n',
        encoding="utf-8",
    )
    return load_project(root)


def test_every_rule_has_a_refusing_case() -> None:
    covered = set().union(*(rules for _, _, rules in REFUSED))
    # RC000, RC012 and RC013 need text, not data: they are proven in test_validators_positions.py;
    # RC999 (tierlock's own failure) in test_validators_guard.py.
    assert covered | {"RC000", "RC012", "RC013", "RC999"} == set(RULES)


@pytest.mark.parametrize(("name", "document"), ACCEPTED, ids=[c[0] for c in ACCEPTED])
def test_the_validator_accepts(name: str, document: dict[str, Any], project: Project) -> None:
    result = validate_runtime_config(document, checkout=False, project=project)
    assert result.errors == [], name
    assert result.config is not None


@pytest.mark.parametrize(("name", "document", "rules"), REFUSED, ids=[c[0] for c in REFUSED])
def test_the_validator_refuses(name: str, document: Any, rules: set[str], project: Project) -> None:
    result = validate_runtime_config(document, checkout=False, project=project)
    assert not result.ok, name
    assert result.exit_code == 1
    assert {e.rule for e in result.errors} == rules
    assert result.config is None


def test_every_error_is_reported_at_once_with_reference_style_paths() -> None:
    document = doc(
        cmd(env={"GITHUB_TOKEN": "x"}, timeoutMs=0),
        cmd(key="unit", cwd="/abs", extra=1),
        bogus=True,
    )
    result = validate_runtime_config(document, checkout=False)
    found = {(e.rule, e.where, e.pointer) for e in result.errors}
    assert found == {
        ("RC009", "verification[0].env.GITHUB_TOKEN", "/verification/0/env/GITHUB_TOKEN"),
        ("RC008", "verification[0].timeoutMs", "/verification/0/timeoutMs"),
        ("RC011", "verification[1].key", "/verification/1/key"),
        ("RC015", "verification[1].cwd", "/verification/1/cwd"),
        ("RC003", "verification[1].extra", "/verification/1/extra"),
        ("RC001", "bogus", "/bogus"),
    }
    assert result.commands_checked == 2


def test_fail_fast_stops_at_the_first_error() -> None:
    document = doc(cmd(key="a", timeoutMs=0), cmd(key="b", cwd="/abs"), cmd(key="a"))
    assert len(validate_runtime_config(document, checkout=False).errors) == 3
    assert len(validate_runtime_config(document, checkout=False, fail_fast=True).errors) == 1


def test_the_normalized_config_fills_defaults_like_the_reference() -> None:
    document = doc(
        cmd(repositoryId="x", timeoutMs=1000.0),
        setup=[cmd(key="arm", command="install-tier", args=["brain"])],
        repositories=[{"id": "x", "path": ".", "scope": ["pkg"]}],
    )
    result = validate_runtime_config(document, checkout=False)
    assert result.ok
    assert result.config is not None
    unit = result.config["verification"][0]
    assert unit["timeoutMs"] == 1000
    assert isinstance(unit["timeoutMs"], int)
    assert unit["cwd"] == "pkg"
    assert unit["args"] == []
    assert unit["env"] == {}
    assert result.config["setup"][0]["repositoryId"] == "x"


def test_the_unknown_tier_error_hints_the_declared_one(project: Project) -> None:
    document = doc(setup=[cmd(key="a", command="install-tier", args=["brian"])])
    [error] = validate_runtime_config(document, checkout=False, project=project).errors
    assert error.where == "setup[0].args[0]"
    assert error.hint == "did you mean 'brain'?"


def test_a_config_without_a_project_notes_that_tiers_were_not_checked(tmp_path: Path) -> None:
    config = tmp_path / "tierlock.runtime.json"
    config.write_text('{"schemaVersion": 1, "verification": [], "setup": [{"command": "install-tier", "args": ["x"]}]}')
    result = validate_runtime_config(config, checkout=False)
    assert result.ok
    assert any("RC017" in note for note in result.notes)


@pytest.mark.parametrize(
    ("command", "args", "tiers"),
    [
        ("install-tier", ["brain", "-v", "gpu"], ["brain", "gpu"]),
        ("/opt/bin/install-tier", ["--python", "/usr/bin/python3", "brain"], ["brain"]),
        ("tierlock", ["install", "brain"], ["brain"]),
        ("tierlock", ["status", "brain"], None),
        ("python", ["-m", "tierlock", "install", "a"], ["a"]),
        ("python3.12", ["-m", "pytest", "install"], None),
        ("pytest", ["brain"], None),
    ],
)
def test_setup_commands_that_install_tiers_are_recognised(
    command: str, args: list[str], tiers: list[str] | None
) -> None:
    found = installed_tiers(command, list(args))
    assert (None if found is None else [name for _, name in found]) == tiers


@pytest.mark.parametrize(
    ("path", "escapes"),
    [
        ("src", False),
        ("./src/../tests", False),
        ("a/b/../../c", False),
        ("..", True),
        ("a/../..", True),
        ("/x", True),
        ("C:\\x", True),
        ("c:x", True),
        ("\\\\server\\share", True),
        ("\\\\?\\C:\\x", True),
        ("\\rooted", True),
    ],
)
def test_cwd_is_checked_lexically_in_posix_and_windows_forms(path: str, escapes: bool) -> None:
    assert (lexical_escape(path) is not None) is escapes


def test_importing_tierlock_does_not_import_jsonschema() -> None:
    import subprocess
    import sys

    code = "import sys, tierlock, tierlock.validators; assert 'jsonschema' not in sys.modules; print('light')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "light"


def test_the_library_api_is_exported_lazily_from_tierlock() -> None:
    import tierlock

    result = tierlock.validate_runtime_config(doc(cmd()), checkout=False)
    assert isinstance(result, tierlock.ValidationResult)
    assert result.ok


def test_a_broken_pyproject_skips_the_tier_rule_with_a_note(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.tierlock]\nformat = "zip"\n')
    config = tmp_path / "tierlock.runtime.json"
    config.write_text('{"schemaVersion": 1, "verification": [], "setup": [{"command": "install-tier", "args": ["x"]}]}')
    result = validate_runtime_config(config, checkout=False)
    assert result.ok
    assert any("has errors" in note and "RC017" in note for note in result.notes)


def test_schema_patterns_end_at_the_end_of_the_text_as_in_ecma_262() -> None:
    from tierlock.validators.schema import python_pattern, schema

    assert python_pattern("^[a-z]$") == "^[a-z]\\Z"
    assert python_pattern("^a\\$") == "^a\\$"
    # The published schema keeps ECMA-262 patterns for editors.
    assert schema()["$defs"]["identifier"]["pattern"].endswith("$")


def test_every_undeclared_tier_of_one_install_is_named_not_only_the_first(project: Project) -> None:
    document = doc(setup=[cmd(key="a", command="install-tier", args=["brain", "brian", "bran"])])
    errors = validate_runtime_config(document, checkout=False, project=project).errors
    assert [(e.rule, e.where) for e in errors] == [("RC017", "setup[0].args[1]"), ("RC017", "setup[0].args[2]")]


def test_a_policy_entry_one_utf16_unit_over_the_limit_is_refused_and_one_at_it_is_not() -> None:
    at_limit = "a" * 4094 + "\U0001f600"  # 4095 characters, 4096 UTF-16 code units
    over = "a" * 4095 + "\U0001f600"  # 4096 characters, 4097 UTF-16 code units
    result = validate_runtime_config(doc(cmd(policy={"inputs": [at_limit, over]})), checkout=False)
    assert [(e.rule, e.where) for e in result.errors] == [("RC010", "verification[0].policy.inputs[1]")]


def test_a_repository_id_longer_than_128_characters_gets_the_declared_list_not_a_guess() -> None:
    declared = "a" * 128
    document = doc(cmd(repositoryId=declared + "b"), repositories=[{"id": declared, "path": "."}])
    [error] = [e for e in validate_runtime_config(document, checkout=False).errors if e.rule == "RC016"]
    assert error.hint == f"declared: {declared}"
    [near] = [
        e
        for e in validate_runtime_config(
            doc(cmd(repositoryId=declared[:-1] + "b"), repositories=[{"id": declared, "path": "."}]), checkout=False
        ).errors
        if e.rule == "RC016"
    ]
    assert near.hint == f"did you mean {declared!r}?"
