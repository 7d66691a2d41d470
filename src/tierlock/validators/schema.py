"""The runtime-config JSON Schema: package data, one compiled validator, findings.

The schema file (draft 2020-12) is the single source of truth for structure.
It uses ``$ref`` into ``$defs`` so editors and other tools read it as written;
for checking, the references are inlined once (python-jsonschema resolves a
``$ref`` on every use, which roughly doubles the time on a large config) and
one validator is compiled and cached for the life of the process.

jsonschema is imported here only, inside :func:`validator`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache
from importlib import resources
from typing import Any

from tierlock.validators.jsonpos import JsonPath
from tierlock.validators.results import Finding

SCHEMA_RESOURCE = "runtime-config.schema.json"
_ANNOTATIONS = {"description", "title", "$comment"}
_IDENTIFIER_FIELDS = {"key", "repositoryId", "independentGroup", "id"}
_POLICY_LISTS = {"inputs", "toolchainInputs", "resources"}
_TIMEOUT = "must be a positive integer no larger than 2^53-1 (9007199254740991)"
_IDENTIFIER = "must be an identifier: a letter or digit, then at most 127 letters, digits, '.', '_' or '-'"
_NON_EMPTY = "must be a non-empty string: not empty, not only whitespace (as JavaScript's trim sees it), without NUL"


def schema_text() -> str:
    """The schema exactly as shipped."""
    return resources.files("tierlock.validators").joinpath(SCHEMA_RESOURCE).read_text(encoding="utf-8")


@cache
def schema() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(schema_text())
    return document


def python_pattern(pattern: str) -> str:
    """*pattern* (ECMA-262, as editors read it) for Python's :func:`re.search`.

    In ECMA-262 a final ``$`` is the end of the text; in Python it also matches
    before a trailing newline, which would let ``"unit\\n"`` pass as an
    identifier. The checking copy ends such patterns with ``\\Z`` instead.
    """
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        return pattern[:-1] + "\\Z"
    return pattern


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    if not isinstance(node, dict):
        return node
    if isinstance(node.get("pattern"), str):
        node = {**node, "pattern": python_pattern(node["pattern"])}
    if "$ref" in node:
        target = _inline(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
        rest = {k: _inline(v, defs) for k, v in node.items() if k != "$ref"}
        if set(rest) & set(target) - _ANNOTATIONS:
            return {"allOf": [target], **rest}
        return {**target, **rest}
    return {k: _inline(v, defs) for k, v in node.items() if k != "$defs"}


@cache
def validator() -> Any:
    """The one compiled validator (built on first use, then reused)."""
    from jsonschema import Draft202012Validator

    raw = schema()
    return Draft202012Validator(_inline(raw, raw.get("$defs", {})))


def rule_for(path: JsonPath, keyword: str) -> str:
    """The rule id of a schema error at *path* raised by *keyword*."""
    if not path or path[0] in ("schemaVersion", "$schema"):
        return "RC001"
    head = path[0]
    if head == "acceptedCredentials":
        return "RC018"
    if head == "repositories":
        return _repository_rule(path, keyword)
    if head not in ("setup", "verification"):
        return "RC001"
    if len(path) == 1:
        return "RC002"
    if len(path) == 2:
        return "RC003"
    return _command_field_rule(path, keyword)


def _repository_rule(path: JsonPath, keyword: str) -> str:
    field = path[2] if len(path) >= 3 else None
    if field == "id" and len(path) == 3 and keyword != "required":
        return "RC004"
    if field in ("path", "scope") and keyword in ("pattern", "minLength"):
        return "RC005"  # a non-empty string
    if field == "scope" and keyword in ("minItems", "maxItems", "maxLength"):
        return "RC015"
    return "RC016"


#: The rule of an error in a command's field, by the field's name (``label`` and ``policy`` decide further).
_FIELD_RULES = {
    "key": "RC004",
    "repositoryId": "RC004",
    "command": "RC005",
    "cwd": "RC005",
    "args": "RC007",
    "timeoutMs": "RC008",
    "env": "RC009",
}


def _command_field_rule(path: JsonPath, keyword: str) -> str:
    name = path[2]
    if name == "label":
        return "RC006" if keyword == "maxLength" else "RC005"
    if name == "policy":
        if len(path) >= 4 and path[3] == "independentGroup":
            return "RC004"
        if len(path) >= 5 and path[3] in _POLICY_LISTS and keyword != "maxLength":
            return "RC005"
        return "RC010"
    return _FIELD_RULES.get(name, "RC003") if isinstance(name, str) else "RC003"


def type_name(value: object) -> str:
    """A value's JSON type in words (never the value itself)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


def _expected(types: object) -> str:
    names = {
        "object": "an object",
        "array": "an array",
        "string": "a string",
        "number": "a number",
        "integer": "an integer",
        "boolean": "a boolean",
        "null": "null",
    }
    if isinstance(types, str):
        return names.get(types, types)
    if isinstance(types, list):
        return " or ".join(names.get(str(t), str(t)) for t in types)
    return "another type"


def _message(error: Any, path: JsonPath) -> str:
    keyword: str = error.validator
    value = error.validator_value
    last = path[-1] if path else None
    field = path[2] if len(path) >= 3 and path[0] in ("setup", "verification") else None
    if field == "timeoutMs" and len(path) == 3:
        return _TIMEOUT + f", not {type_name(error.instance)}" if keyword == "type" else _TIMEOUT
    if keyword == "type":
        return f"must be {_expected(value)}, not {type_name(error.instance)}"
    if keyword == "const":
        return "must be exactly the integer 1" if path == ("schemaVersion",) else "has the wrong value"
    if keyword == "enum":
        return "must be one of: " + ", ".join(str(v) for v in value)
    if keyword in ("pattern", "minLength"):
        if path[:1] == ("acceptedCredentials",) and last == "path":
            return "must be a JSON Pointer to one value, such as /verification/0/args/2"
        if last in _IDENTIFIER_FIELDS and isinstance(last, str):
            return _IDENTIFIER
        if field in ("args", "env"):
            return "must not contain a NUL character"
        return _NON_EMPTY
    if keyword == "maxLength":
        return f"is longer than {value} characters"
    if keyword == "maxItems":
        return f"has more than {value} entries"
    if keyword == "minItems":
        return f"needs at least {value} entr{'y' if value == 1 else 'ies'}"
    return f"breaks the schema ({keyword})"  # pragma: no cover - every keyword the schema uses is named above


def _unknown_keys(error: Any) -> list[str]:
    schema_node = error.schema
    known = set(schema_node.get("properties", {}))
    patterns = list(schema_node.get("patternProperties", {}))
    return [
        k
        for k in error.instance
        if k not in known and not any(re.search(p, k) for p in patterns)  # schema patterns are few and short
    ]


def findings(document: Any, *, fail_fast: bool = False) -> Iterator[Finding]:
    """The schema's findings about *document*, as located-later :class:`Finding`s."""
    import difflib

    for error in validator().iter_errors(document):
        path: JsonPath = tuple(error.absolute_path)
        keyword = error.validator
        if keyword == "additionalProperties":
            known = sorted(error.schema.get("properties", {}))
            for key in _unknown_keys(error):
                close = difflib.get_close_matches(key, known, n=1)
                hint = f"did you mean {close[0]!r}?" if close else "known keys: " + ", ".join(known)
                sub = (*path, key)
                yield Finding(rule_for(sub, keyword), sub, f"unknown key {key!r}", at_key=True, hint=hint)
                if fail_fast:
                    return
        elif keyword == "required":
            for key in value_list(error.validator_value):
                if key not in error.instance:
                    rule = {"schemaVersion": "RC001", "verification": "RC002"}.get(key, rule_for(path, keyword))
                    yield Finding(rule, path, f"missing required key {key!r}")
        elif "propertyNames" in error.schema_path:
            name = str(error.instance)
            sub = (*path, name)
            message = "is not a valid env name: it must match ^[A-Za-z_][A-Za-z0-9_]*$"
            yield Finding(rule_for(sub, keyword), sub, message, at_key=True)
        else:
            yield Finding(rule_for(path, keyword), path, _message(error, path))
        if fail_fast:
            return


def value_list(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []
