"""The validator's results as data: findings, located errors, the result."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tierlock.errors import EXIT_BACKEND, EXIT_FAILED, EXIT_OK, EXIT_USAGE
from tierlock.validators.jsonpos import JsonPath

_PLAIN_KEY = re.compile(r"[A-Za-z_$][A-Za-z0-9_$-]*")

#: Every rule id with its one-line summary (documented in docs/reference/runtime-config.md).
RULES: dict[str, str] = {
    "RC000": "the file can be read and parsed as a JSON or TOML document",
    "RC001": "the top level is an object with known keys; schemaVersion is exactly 1",
    "RC002": "verification is a required array; setup is an optional array",
    "RC003": "a command is an object with only the known keys, and a command",
    "RC004": "key, repositoryId, policy.independentGroup and repository ids are identifiers",
    "RC005": "command, cwd, label and policy list entries are non-empty strings",
    "RC006": "label has at most 256 characters",
    "RC007": "args is an array of strings without NUL",
    "RC008": "timeoutMs is a positive integer no larger than 2^53-1",
    "RC009": "env names are valid and not credential names; env values are strings without NUL",
    "RC010": "policy has only known keys of the right types and lists of at most 256 short entries",
    "RC011": "check keys are unique within setup, within verification, and across both",
    "RC012": "no JSON object repeats a key",
    "RC013": "numbers are finite, strings hold no lone surrogates, size and nesting stay within limits",
    "RC014": "no credential-shaped value in any string of the document (keys included)",
    "RC015": "cwd is relative, stays inside its repository (and scope), and exists in the checkout",
    "RC016": "repositories: unique ids and paths, and every repositoryId names one",
    "RC017": "setup commands that install tiers name tiers the project declares",
    "RC018": "acceptedCredentials entries point at one credential-holding args entry or env value, with a reason",
    "RC999": "tierlock failed on this input (a bug in tierlock: please report it)",
}

#: Short names for SARIF rule descriptors.
RULE_NAMES: dict[str, str] = {
    "RC000": "unreadable-document",
    "RC001": "top-level",
    "RC002": "command-lists",
    "RC003": "command-shape",
    "RC004": "identifier",
    "RC005": "non-empty-string",
    "RC006": "label-length",
    "RC007": "args",
    "RC008": "timeout",
    "RC009": "env",
    "RC010": "policy",
    "RC011": "unique-check-keys",
    "RC012": "duplicate-json-key",
    "RC013": "strict-json",
    "RC014": "credential-value",
    "RC015": "cwd-scope",
    "RC016": "repositories",
    "RC017": "declared-tiers",
    "RC018": "accepted-credential",
    "RC999": "internal-error",
}


def dotted(path: JsonPath) -> str:
    """*path* in the specrails-core runtime config validator's style: ``verification[2].env.GITHUB_TOKEN``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _PLAIN_KEY.fullmatch(part):
            out += f".{part}" if out else part
        else:
            out += f"[{json.dumps(part)}]"
    return out or "(document)"


def pointer(path: JsonPath) -> str:
    """*path* as a JSON Pointer (RFC 6901)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


@dataclass(frozen=True)
class Finding:
    """One broken rule, before it is located in a file."""

    rule: str
    path: JsonPath
    message: str
    at_key: bool = False
    """Point at the key of *path* rather than its value."""
    hint: str | None = None
    related: JsonPath | None = None
    """Another place the message refers to (the first of two duplicates)."""
    related_offset: int | None = None
    offset: int | None = None
    """Where exactly, when known better than by *path* (the second of two duplicate keys)."""


@dataclass(frozen=True)
class Location:
    line: int
    column: int


class _AtPath:
    """What is placed by a JSON path: its dotted form (``setup[0].cwd``) and its JSON Pointer (``/setup/0/cwd``)."""

    path: JsonPath

    @property
    def where(self) -> str:
        return dotted(self.path)

    @property
    def pointer(self) -> str:
        return pointer(self.path)


@dataclass(frozen=True)
class ValidationError(_AtPath):
    """One error, located: rule id, path, message, and file/line/column when known."""

    rule: str
    path: JsonPath
    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    hint: str | None = None
    related: Location | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "path": self.where,
            "pointer": self.pointer,
            "message": self.message,
            "hint": self.hint,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "related": None if self.related is None else {"line": self.related.line, "column": self.related.column},
        }


@dataclass(frozen=True)
class AcceptedCredential(_AtPath):
    """A credential-shaped value accepted on purpose by ``acceptedCredentials`` (the value itself is never kept)."""

    path: JsonPath
    kind: str
    reason: str
    file: str | None = None
    line: int | None = None
    column: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.where,
            "pointer": self.pointer,
            "kind": self.kind,
            "reason": self.reason,
            "file": self.file,
            "line": self.line,
            "column": self.column,
        }


@dataclass
class ValidationResult:
    """What :func:`tierlock.validate_runtime_config` found.

    ``config`` is the normalized config (defaults filled in, ``timeoutMs`` an
    int, each command's effective ``cwd``), or None when the document could
    not be parsed. It holds env values: never print it.
    """

    source: str | None
    errors: list[ValidationError]
    config: dict[str, Any] | None
    commands_checked: int = 0
    parsed: bool = True
    checkout: Path | None = None
    notes: list[str] = field(default_factory=list)
    accepted: list[AcceptedCredential] = field(default_factory=list)
    """Credential-shaped values accepted on purpose, each with its reason (not errors)."""
    internal_error: bool = False
    """tierlock itself failed on this input (exit 3); ``errors`` holds one RC999 naming the input."""

    @property
    def ok(self) -> bool:
        return self.parsed and not self.errors and not self.internal_error

    @property
    def exit_code(self) -> int:
        if self.internal_error:
            return EXIT_BACKEND
        if not self.parsed:
            return EXIT_USAGE
        return EXIT_FAILED if self.errors else EXIT_OK

    def to_dict(self) -> dict[str, Any]:
        """The report as data (without the config: it holds env values)."""
        return {
            "ok": self.ok,
            "source": self.source,
            "parsed": self.parsed,
            "checkout": None if self.checkout is None else str(self.checkout),
            "commands_checked": self.commands_checked,
            "error_count": len(self.errors),
            "errors": [e.to_dict() for e in self.errors],
            "accepted": [a.to_dict() for a in self.accepted],
            "notes": list(self.notes),
        }
