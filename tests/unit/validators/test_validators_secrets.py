"""No secret through, none echoed: every shape, glued or not, in every string field, in every output.

Also the narrow allowance (``acceptedCredentials``) and the renderers' own redaction, proven on
hand-built results so that each layer of defence is tested on its own.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.credentials import BENIGN, GLUES, every_output, shapes
from tierlock.cli import main
from tierlock.validators import ValidationResult, validate_runtime_config
from tierlock.validators.credentials import REDACTED, credential_kind, redact, spans
from tierlock.validators.renderers import RENDERERS
from tierlock.validators.results import AcceptedCredential, Location, ValidationError

SHAPES = shapes()
#: Characters an AWS secret access key is made of: glued to these, 40 of them are no longer a shape.
_B64 = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+")


def glued(name: str, value: str, glue: str) -> str:
    """*value* stuck to *glue* before and to word characters after (to '-' for an AWS secret key)."""
    if name.startswith("aws-secret"):
        glue = glue + "-" if glue and glue[-1] in _B64 else glue
        return glue + value + "-_x"
    return glue + value + "xY_9"


def library_text(result: ValidationResult) -> str:
    """Every string of the library result a caller might print (the normalized config aside)."""
    parts: list[str] = [str(result.source), str(result.checkout), *result.notes]
    for error in result.errors:
        parts += [error.message, error.hint or "", error.file or "", error.where, error.pointer]
    for accepted in result.accepted:
        parts += [accepted.reason, accepted.where, accepted.file or "", accepted.kind]
    return "\n".join(parts)


@pytest.mark.parametrize("glue", GLUES)
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_every_shape_is_found_and_redacted_whatever_it_is_glued_to(name: str, glue: str) -> None:
    value = SHAPES[name]
    text = glued(name, value, glue)
    assert credential_kind(text) is not None
    shown = redact(text)
    assert (
        REDACTED in shown or "://****@" in shown or ":****@" in shown
    )  # URL credentials: masked as every output masks them
    assert value not in shown


def test_the_reference_lists_every_kind_of_credential_found() -> None:
    from tierlock.secretshapes import SHAPES as TABLE

    reference = (Path(__file__).resolve().parents[3] / "docs" / "reference" / "runtime-config.md").read_text("utf-8")
    kinds = {credential_kind(value) for value in SHAPES.values()} | {shape.kind for shape in TABLE}
    assert None not in kinds
    missing = sorted(kind for kind in kinds if kind and f"\n| {kind} |" not in reference)
    assert missing == []


@pytest.mark.parametrize(
    "name",
    [
        "SSHPASS",
        "sshpass",
        "SshPass",
        "npm_config__auth",
        "NPM_CONFIG__AUTH",
        "Npm_Config__Auth",
        "mysql_pwd",
        "redisCli_Auth",
        "pgpass",
        "ldapPass",
        "db_pass",
        "gh_pat",
    ],
)
def test_well_known_password_variables_are_refused_in_any_case(name: str) -> None:
    result = validate_runtime_config(
        {"schemaVersion": 1, "verification": [{"command": "run", "env": {name: "x"}}]}, checkout=False
    )
    assert [(e.rule, e.where) for e in result.errors] == [("RC009", f"verification[0].env.{name}")]


@pytest.mark.parametrize("value", BENIGN)
def test_ordinary_values_are_not_credentials(value: str) -> None:
    assert spans(value) == []
    assert validate_runtime_config(
        {"schemaVersion": 1, "verification": [{"key": "k", "command": "run", "args": [value], "env": {"V": value}}]},
        checkout=False,
    ).ok


def test_detection_and_false_positive_rates_are_measured(capsys: pytest.CaptureFixture[str]) -> None:
    planted = [glued(name, value, glue) for name, value in SHAPES.items() for glue in GLUES]
    found = sum(1 for text in planted if credential_kind(text) is not None)
    false = [value for value in BENIGN if credential_kind(value) is not None]
    with capsys.disabled():
        print(
            f"\ncredential detection: {found}/{len(planted)} planted found "
            f"({len(SHAPES)} shapes x {len(GLUES)} glues); "
            f"false positives: {len(false)}/{len(BENIGN)} ordinary values"
        )
    assert found == len(planted)
    assert false == []


FIELD_PLANTS: list[tuple[str, Any]] = [
    ("key", lambda s: {"verification": [{"command": "run", "key": s}]}),
    ("label", lambda s: {"verification": [{"command": "run", "label": s}]}),
    ("cwd", lambda s: {"verification": [{"command": "run", "cwd": s}]}),
    ("command", lambda s: {"verification": [{"command": s}]}),
    ("args", lambda s: {"verification": [{"command": "run", "args": ["-q", s]}]}),
    ("env value", lambda s: {"verification": [{"command": "run", "env": {"V": s}}]}),
    ("env name", lambda s: {"verification": [{"command": "run", "env": {s: "1"}}]}),
    ("repositoryId", lambda s: {"verification": [{"command": "run", "repositoryId": s}]}),
    ("policy.inputs", lambda s: {"verification": [{"command": "run", "policy": {"inputs": [s]}}]}),
    ("policy.resources", lambda s: {"verification": [{"command": "run", "policy": {"resources": [s]}}]}),
    ("policy.toolchainInputs", lambda s: {"verification": [{"command": "run", "policy": {"toolchainInputs": [s]}}]}),
    ("policy.independentGroup", lambda s: {"verification": [{"command": "run", "policy": {"independentGroup": s}}]}),
    ("setup args", lambda s: {"verification": [], "setup": [{"command": "install-tier", "args": [s]}]}),
    ("repositories id", lambda s: {"verification": [], "repositories": [{"id": s, "path": "."}]}),
    ("repositories path", lambda s: {"verification": [], "repositories": [{"id": "a", "path": s}]}),
    ("repositories scope", lambda s: {"verification": [], "repositories": [{"id": "a", "path": ".", "scope": [s]}]}),
    ("$schema", lambda s: {"verification": [], "$schema": s}),
    ("x- value", lambda s: {"verification": [], "x-owner": {"team": [s]}}),
    ("x- key", lambda s: {"verification": [], "x-owner": {s: 1}}),
    ("unknown key", lambda s: {"verification": [{"command": "run", s: 1}]}),
    (
        "accepted reason",
        lambda s: {"verification": [], "acceptedCredentials": [{"path": "/verification", "reason": s}]},
    ),
]


def _write(tmp_path: Path, document: dict[str, Any], fmt: str) -> Path | dict[str, Any]:
    if fmt == "data":
        return document
    if fmt == "json":
        path = tmp_path / "planted.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        return path
    import tomlkit

    path = tmp_path / ("pyproject.toml" if fmt == "pyproject" else "planted.toml")
    body = {"tool": {"tierlock": {"runtime": document}}} if fmt == "pyproject" else document
    path.write_text(tomlkit.dumps(body), encoding="utf-8")
    return path


def _merge(into: dict[str, Any], part: dict[str, Any]) -> bool:
    """Merge *part* into *into* (lists extended, objects merged); False when a plain value collides."""
    for key, value in part.items():
        if key not in into:
            into[key] = value
        elif isinstance(value, list) and isinstance(into[key], list):
            into[key].extend(value)
        elif isinstance(value, dict) and isinstance(into[key], dict):
            if not _merge(into[key], value):
                return False
        elif into[key] != value:
            return False
    return True


@pytest.mark.tier("cli")
@pytest.mark.parametrize("fmt", ["json", "toml", "pyproject", "data"])
@pytest.mark.parametrize(("field", "plant"), FIELD_PLANTS, ids=[f for f, _ in FIELD_PLANTS])
def test_a_credential_in_any_string_field_is_refused_and_never_echoed(
    field: str, plant: Any, fmt: str, tmp_path: Path
) -> None:
    """Every shape, each glued differently, planted in one field; documents share what they can."""
    documents: list[dict[str, Any]] = []
    planted: list[str] = []
    for index, (name, value) in enumerate(sorted(SHAPES.items())):
        if field.endswith(("name", "key")) and not value.isprintable():
            continue  # a key with a newline is refused by its own rule; nothing else to prove
        planted.append(value)
        part = plant(glued(name, value, GLUES[index % len(GLUES)]))
        if not documents or not _merge(documents[-1], part):
            documents.append({"schemaVersion": 1, **part})
    refused = 0
    for document in documents:
        result = validate_runtime_config(_write(tmp_path, document, fmt), checkout=False)
        assert result.parsed, field
        refused += sum(1 for e in result.errors if e.rule == "RC014")
        shown = every_output(result) + library_text(result)
        assert [v for v in planted if v in shown] == [], field
    assert refused >= len(planted)


def test_a_token_named_by_an_unknown_repository_id_is_echoed_in_no_format(tmp_path: Path) -> None:
    token = "_" + SHAPES["github"]
    path = tmp_path / "c.json"
    document = {
        "schemaVersion": 1,
        "repositories": [{"id": "app", "path": "."}],
        "verification": [{"command": "run", "repositoryId": token}],
    }
    path.write_text(json.dumps(document), encoding="utf-8")
    result = validate_runtime_config(path, checkout=False)
    assert {e.rule for e in result.errors} >= {"RC016", "RC014"}
    for render in RENDERERS.values():
        assert SHAPES["github"] not in json.dumps(render(result))


def test_a_duplicate_env_name_that_is_a_token_is_redacted_in_the_library_result(tmp_path: Path) -> None:
    token = "x" + SHAPES["github"]
    path = tmp_path / "c.json"
    env = f'{{"{token}": "1", "{token}": "2"}}'
    path.write_text(f'{{"schemaVersion": 1, "verification": [{{"command": "run", "env": {env}}}]}}', encoding="utf-8")
    result = validate_runtime_config(path, checkout=False)
    assert "RC012" in {e.rule for e in result.errors}
    assert SHAPES["github"] not in library_text(result)


def test_a_token_env_name_with_a_token_value_breaks_both_the_name_and_the_value_rule() -> None:
    document = {"schemaVersion": 1, "verification": [{"command": "run", "env": {"GITHUB_TOKEN": SHAPES["github"]}}]}
    result = validate_runtime_config(document, checkout=False)
    assert {(e.rule, e.where) for e in result.errors} == {
        ("RC009", "verification[0].env.GITHUB_TOKEN"),
        ("RC014", "verification[0].env.GITHUB_TOKEN"),
    }


# The renderers' own redaction, on results the validator never built (each layer proven alone).


def _raw_result(secret: str) -> ValidationResult:
    folder = f"/work/{secret}/repo/tierlock.runtime.json"
    error = ValidationError(
        "RC016",
        ("verification", 0, "repositoryId"),
        f"names repository {secret!r}, which repositories does not declare",
        file=folder,
        line=3,
        column=5,
        hint=f"did you mean {secret!r}?",
        related=Location(1, 1),
    )
    named = ValidationError("RC014", ("verification", 0, "env", secret), f"env name {secret}", file=folder, line=4)
    accepted = AcceptedCredential(("verification", 0, "args", 1), "JSON Web Token", f"reason {secret}", file=folder)
    return ValidationResult(
        source=folder,
        errors=[error, named],
        config=None,
        commands_checked=1,
        notes=[f"note {secret}"],
        accepted=[accepted],
    )


@pytest.mark.parametrize("fmt", sorted(RENDERERS))
@pytest.mark.parametrize("name", ["github", "aws-key-id", "url-password", "jwt", "slack-app"])
def test_every_renderer_redacts_what_a_result_carries_raw(fmt: str, name: str) -> None:
    secret = "x" + SHAPES[name]
    rendered = RENDERERS[fmt](_raw_result(secret))
    text = json.dumps(rendered)
    assert SHAPES[name] not in text
    assert REDACTED in text or ":****@" in text


def test_a_secret_in_the_config_folder_name_is_echoed_in_no_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / ("proj-" + SHAPES["github"])
    folder.mkdir()
    path = folder / "tierlock.runtime.json"
    path.write_text('{"schemaVersion": 1, "verification": [{"command": "run", "timeoutMs": 0}]}', encoding="utf-8")
    result = validate_runtime_config(path, checkout=False)
    assert SHAPES["github"] not in library_text(result)
    for fmt in RENDERERS:
        code = main(["validate", str(path), "--no-checkout", "--format", fmt])
        out = capsys.readouterr()
        assert code == 1
        assert SHAPES["github"] not in out.out + out.err


# acceptedCredentials: one place, a reason, reported, never echoed.

JWT = SHAPES["jwt"]


def _allowed(args: list[str], *allowances: dict[str, Any]) -> dict[str, Any]:
    return {
        "schemaVersion": 1,
        "verification": [{"key": "verify", "command": "python", "args": args, "env": {"EXAMPLE": JWT}}],
        "acceptedCredentials": list(allowances),
    }


REASON = "the public jwt.io example token; the test checks its signature"


def test_an_accepted_credential_passes_with_its_reason_and_is_reported_in_every_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = _allowed(
        ["-m", "verify", JWT],
        {"path": "/verification/0/args/2", "reason": REASON},
        {"path": "/verification/0/env/EXAMPLE", "reason": REASON},
    )
    path = tmp_path / "tierlock.runtime.json"
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    result = validate_runtime_config(path, checkout=False)
    assert result.ok, result.errors
    assert [(a.where, a.kind, a.reason) for a in result.accepted] == [
        ("verification[0].args[2]", "JSON Web Token", REASON),
        ("verification[0].env.EXAMPLE", "JSON Web Token", REASON),
    ]
    assert result.accepted[0].line is not None
    assert JWT not in library_text(result)
    outputs = {}
    for fmt in RENDERERS:
        assert main(["validate", str(path), "--no-checkout", "--format", fmt]) == 0
        outputs[fmt] = capsys.readouterr().out
        assert JWT not in outputs[fmt]
    assert "accepted verification[0].args[2]: JSON Web Token accepted on purpose" in outputs["text"]
    assert "::notice " in outputs["github"]
    assert len(json.loads(outputs["json"])["accepted"]) == 2
    sarif = json.loads(outputs["sarif"])["runs"][0]["results"]
    assert [r["suppressions"][0]["justification"] for r in sarif] == [REASON, REASON]


def test_an_allowance_accepts_nothing_at_another_path() -> None:
    document = _allowed(["-m", "verify", JWT, JWT], {"path": "/verification/0/args/2", "reason": REASON})
    result = validate_runtime_config(document, checkout=False)
    assert {(e.rule, e.where) for e in result.errors} == {
        ("RC014", "verification[0].args[3]"),
        ("RC014", "verification[0].env.EXAMPLE"),
    }
    assert [a.where for a in result.accepted] == ["verification[0].args[2]"]


@pytest.mark.parametrize(
    ("allowance", "where"),
    [
        ({"path": "/verification/0/args/2"}, "acceptedCredentials[0]"),
        ({"path": "/verification/0/args/2", "reason": " \ufeff"}, "acceptedCredentials[0].reason"),
        ({"path": "/verification/0/args/0", "reason": REASON}, "acceptedCredentials[0].path"),
        ({"path": "/verification/0/args/9", "reason": REASON}, "acceptedCredentials[0].path"),
        ({"path": "/verification/0/key", "reason": REASON}, "acceptedCredentials[0].path"),
        ({"path": "verification[0].args[2]", "reason": REASON}, "acceptedCredentials[0].path"),
        ({"path": "/verification/0/args/2", "reason": REASON, "value": "*"}, "acceptedCredentials[0].value"),
    ],
    ids=[
        "no reason",
        "blank reason",
        "no credential there",
        "no such value",
        "not args or env",
        "not a pointer",
        "by value",
    ],
)
def test_an_allowance_without_a_reason_or_for_the_wrong_place_is_refused(allowance: dict[str, Any], where: str) -> None:
    document = _allowed(["-m", "verify", JWT], allowance)
    result = validate_runtime_config(document, checkout=False)
    assert ("RC018", where) in {(e.rule, e.where) for e in result.errors}
    assert JWT not in library_text(result)


def test_an_allowance_in_pyproject_points_into_the_runtime_table(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text(
        '[project]\nname = "p"\nversion = "1"\n\n'
        "[tool.tierlock.runtime]\nschemaVersion = 1\n"
        '[[tool.tierlock.runtime.verification]]\ncommand = "python"\n'
        f'args = ["-m", "verify", "{JWT}"]\n'
        "[[tool.tierlock.runtime.acceptedCredentials]]\n"
        f'path = "/verification/0/args/2"\nreason = "{REASON}"\n',
        encoding="utf-8",
    )
    result = validate_runtime_config(path, checkout=False)
    assert result.ok, result.errors
    [accepted] = result.accepted
    assert (accepted.where, accepted.line) == ("verification[0].args[2]", 9)
    assert JWT not in every_output(result)
