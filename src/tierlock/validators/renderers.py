"""Renderers for a :class:`ValidationResult`: text, json, github, sarif.

Each renderer is a pure function from the result to text lines or a JSON
document. Every string that reaches the output passes :func:`redact` on the
way, so even a credential that slipped into a key name is never echoed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tierlock._version import __version__
from tierlock.validators.credentials import redact
from tierlock.validators.results import RULE_NAMES, RULES, AcceptedCredential, ValidationError, ValidationResult

FORMATS = ("text", "json", "github", "sarif")
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFO_URI = "https://github.com/tierlock/tierlock/blob/main/docs/reference/runtime-config.md"


def display_path(file: str | None) -> str:
    """*file* relative to the working folder when it is inside it."""
    if not file:
        return "(document)"
    try:
        rel = os.path.relpath(file)
    except ValueError:
        return file
    return file if rel.startswith("..") else rel.replace(os.sep, "/")


def _scrub(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact(str(k)): _scrub(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    return value


def _place(error: ValidationError) -> str:
    place = display_path(error.file) if error.file else ""
    if error.line is not None:
        place += f":{error.line}:{error.column or 1}"
    return place


def summary(result: ValidationResult) -> str:
    name = display_path(result.source)
    if result.internal_error:
        return f"{name}: tierlock failed on this input (exit 3); the config was not judged"
    if not result.parsed:
        return f"{name}: cannot be read as a runtime config"
    accepted = f", {len(result.accepted)} credential(s) accepted on purpose" if result.accepted else ""
    if result.ok:
        return f"{name}: valid ({result.commands_checked} command(s) checked{accepted})"
    return f"{name}: {len(result.errors)} error(s) in {result.commands_checked} command(s) checked{accepted}"


def _accepted_text(accepted: AcceptedCredential) -> str:
    return f"{accepted.where}: {accepted.kind} accepted on purpose (acceptedCredentials): {accepted.reason}"


def text_lines(result: ValidationResult) -> list[str]:
    """Plain lines: ``file:line:col: RULE path: message (hint)``, then the summary."""
    lines = []
    for error in result.errors:
        head = " ".join(p for p in (_place(error), error.rule) if p)
        where = "" if not error.path else f" {error.where}"
        text = f"{head}{where}: {error.message}"
        if error.hint:
            text += f" ({error.hint})"
        lines.append(redact(text))
    for accepted in result.accepted:
        place = display_path(accepted.file) if accepted.file else ""
        if accepted.line is not None:
            place += f":{accepted.line}:{accepted.column or 1}"
        head = " ".join(p for p in (place, "accepted") if p)
        lines.append(redact(f"{head} {_accepted_text(accepted)}"))
    lines.append(redact(summary(result)))
    return lines


def json_document(result: ValidationResult) -> dict[str, Any]:
    document = result.to_dict()
    document["source"] = display_path(result.source) if result.source else None
    for error in document["errors"]:
        error["file"] = display_path(error["file"]) if error["file"] else None
    scrubbed: dict[str, Any] = _scrub(document)
    return scrubbed


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _github_place(item: ValidationError | AcceptedCredential) -> list[str]:
    """``file=``, ``line=`` and ``col=`` of a workflow command, for what is known of *item*'s place."""
    props = []
    if item.file:
        props.append(f"file={_escape_property(redact(display_path(item.file)))}")
    if item.line is not None:
        props.append(f"line={item.line}")
        props.append(f"col={item.column or 1}")
    return props


def github_lines(result: ValidationResult) -> list[str]:
    """GitHub Actions workflow commands (``::error file=...,line=...::message``)."""
    lines = []
    for error in result.errors:
        props = _github_place(error)
        props.append(f"title={_escape_property(redact(f'tierlock {error.rule} {error.where}'))}")
        message = f"{error.where}: {error.message}" if error.path else error.message
        if error.hint:
            message += f" ({error.hint})"
        lines.append(f"::error {','.join(props)}::{_escape_data(redact(message))}")
    for accepted in result.accepted:
        props = _github_place(accepted)
        props.append(f"title={_escape_property(redact(f'tierlock accepted credential {accepted.where}'))}")
        lines.append(f"::notice {','.join(props)}::{_escape_data(redact(_accepted_text(accepted)))}")
    lines.append(_escape_data(redact(summary(result))))
    return lines


def sarif_document(result: ValidationResult) -> dict[str, Any]:
    """SARIF 2.1.0 with one rule descriptor per rule id and a region per located error."""
    rule_ids = list(RULES)
    rules = [
        {
            "id": rid,
            "name": RULE_NAMES[rid],
            "shortDescription": {"text": RULES[rid]},
            "helpUri": f"{INFO_URI}#{rid.lower()}",
            "defaultConfiguration": {"level": "error"},
        }
        for rid in rule_ids
    ]
    results = [_sarif_error(error, rule_ids) for error in result.errors]
    results += [_sarif_accepted(accepted, rule_ids) for accepted in result.accepted]
    driver = {"name": "tierlock", "version": __version__, "informationUri": INFO_URI, "rules": rules}
    document = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "columnKind": "unicodeCodePoints", "results": results}],
    }
    scrubbed: dict[str, Any] = _scrub(document)
    return scrubbed


def _sarif_location(where: str, file: str | None, line: int | None, column: int | None) -> dict[str, Any]:
    """A SARIF location: the JSON path, and the file and region when known."""
    location: dict[str, Any] = {"logicalLocations": [{"fullyQualifiedName": where, "kind": "member"}]}
    if file:
        physical: dict[str, Any] = {"artifactLocation": {"uri": _uri(file)}}
        if line is not None:
            physical["region"] = {"startLine": line, "startColumn": column or 1}
        location["physicalLocation"] = physical
    return location


def _sarif_error(error: ValidationError, rule_ids: list[str]) -> dict[str, Any]:
    text = f"{error.where}: {error.message}" if error.path else error.message
    if error.hint:
        text += f" ({error.hint})"
    entry: dict[str, Any] = {
        "ruleId": error.rule,
        "ruleIndex": rule_ids.index(error.rule),
        "level": "error",
        "message": {"text": text},
        "locations": [_sarif_location(error.where, error.file, error.line, error.column)],
        "properties": {"jsonPointer": error.pointer},
    }
    if error.related is not None and error.file:
        region = {"startLine": error.related.line, "startColumn": error.related.column}
        physical = {"artifactLocation": {"uri": _uri(error.file)}, "region": region}
        entry["relatedLocations"] = [{"id": 1, "message": {"text": "first occurrence"}, "physicalLocation": physical}]
    return entry


def _sarif_accepted(accepted: AcceptedCredential, rule_ids: list[str]) -> dict[str, Any]:
    return {
        "ruleId": "RC014",
        "ruleIndex": rule_ids.index("RC014"),
        "level": "note",
        "message": {"text": _accepted_text(accepted)},
        "locations": [_sarif_location(accepted.where, accepted.file, accepted.line, accepted.column)],
        "properties": {"jsonPointer": accepted.pointer},
        "suppressions": [{"kind": "inSource", "justification": accepted.reason}],
    }


def _uri(file: str) -> str:
    shown = display_path(file)
    if Path(shown).is_absolute():
        return Path(shown).as_uri()
    return shown.replace(os.sep, "/").replace("%", "%25").replace(" ", "%20")


RENDERERS: dict[str, Callable[[ValidationResult], Any]] = {
    "text": text_lines,
    "json": json_document,
    "github": github_lines,
    "sarif": sarif_document,
}
