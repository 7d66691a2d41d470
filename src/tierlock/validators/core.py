"""validate_runtime_config: read, check every rule, locate and sort the errors."""

from __future__ import annotations

import math
import os
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tierlock import fsutil
from tierlock.errors import ConfigError, TierlockError
from tierlock.links import doc
from tierlock.tiers import load_project
from tierlock.validators import configfile, jsonpos, rules, schema, scope, secrets, source
from tierlock.validators.credentials import redact
from tierlock.validators.jsonpos import JsonPath
from tierlock.validators.results import (
    AcceptedCredential,
    Finding,
    Location,
    ValidationError,
    ValidationResult,
    dotted,
)

if TYPE_CHECKING:
    from tierlock.tiers import Project

_NO_POSITION = 1 << 62


def public_path(path: JsonPath) -> JsonPath:
    """*path*, cut at an env name: what lies inside an env value is never shown."""
    if len(path) > 4 and path[0] in rules.LISTS and path[2] == "env":
        return path[:4]
    return path


def _declared_tiers(
    src: source.Source, config_dir: Path | None, project: Project | None, notes: list[str]
) -> Collection[str] | None:

    if project is None:
        if config_dir is None:
            return None
        if src.kind == "pyproject" and src.path:
            pyproject: Path = src.path
        else:
            try:  # the nearest one that exists decides: one that is no regular file is refused, not passed over
                pyproject = fsutil.find_pyproject(config_dir)
            except fsutil.NoPyproject:
                notes.append("no pyproject.toml found: tiers named by setup commands were not checked (RC017)")
                return None
        try:
            project = load_project(pyproject)
        except TierlockError as err:
            notes.append(f"{pyproject} has errors ({err.message}): tiers were not checked (RC017)")
            return None
        except (ValueError, RecursionError):  # tomllib on integers of 4300+ digits or very deep nesting
            notes.append(f"{pyproject} cannot be read as TOML: tiers were not checked (RC017)")
            return None
    return set(project.tiers)


def _locate(err: Finding, src: source.Source, file: str | None) -> ValidationError:
    """Position *err*; what it carries into the result is redacted, whoever prints it later."""
    path = public_path(err.path)
    where: tuple[int, int] | None = None
    if err.offset is not None and src.position is not None:
        where = src.position(err.offset)
    else:
        where = src.locate(path, err.at_key and path == err.path)
    if where is None and src.kind != "data":
        where = (1, 1)  # every rejection in a file has a position: at worst the document's start
    related: Location | None = None
    if err.related_offset is not None and src.position is not None:
        related = Location(*src.position(err.related_offset))
    elif err.related is not None:
        spot = src.locate(err.related, False)
        related = Location(*spot) if spot else None
    return ValidationError(
        err.rule,
        tuple(redact(p) if isinstance(p, str) else p for p in path),
        redact(err.message),
        file=redact(file) if file else None,
        line=where[0] if where else None,
        column=where[1] if where else None,
        hint=redact(err.hint) if err.hint else None,
        related=related,
    )


def _order(error: ValidationError) -> tuple[int, int, list[tuple[int, int | str]]]:
    """By position; without positions (a parsed mapping), by path, indexes as numbers."""
    path: list[tuple[int, int | str]] = [(0, p) if isinstance(p, int) else (1, p) for p in error.path]
    return (error.line if error.line is not None else _NO_POSITION, error.column or 0, path)


def _duplicate_findings(src: source.Source) -> list[Finding]:
    out: list[Finding] = []
    for dup in src.duplicates:
        cut = public_path(dup.path)
        if cut != dup.path:
            message = "a key appears twice inside this env value"
        else:
            key = dup.path[-1]
            first = src.position(dup.first) if src.position else None
            at = f" (first at line {first[0]}, column {first[1]})" if first else ""
            message = f"key {key!r} appears twice in this object{at}; JSON parsers silently keep the last one"
        out.append(Finding("RC012", cut, message, at_key=True, offset=dup.second, related_offset=dup.first))
    return out


def validate_source(
    src: source.Source,
    *,
    checkout: Path | None,
    config_dir: Path | None,
    fail_fast: bool = False,
    project: Project | None = None,
    declared_tiers: Collection[str] | None = None,
) -> ValidationResult:
    """Check a parsed :class:`~tierlock.validators.source.Source` against every rule."""
    notes: list[str] = []
    document = src.value
    file = str(src.path) if src.path else None
    findings: list[Finding] = _duplicate_findings(src)
    credential_findings, accepted = secrets.check(document)
    if not (fail_fast and findings):
        findings.extend(schema.findings(document, fail_fast=fail_fast))
    if not (fail_fast and findings):
        findings.extend(credential_findings)
        tiers = declared_tiers if declared_tiers is not None else _declared_tiers(src, config_dir, project, notes)
        depth = _depth_in(config_dir, checkout)
        findings.extend(rules.check(document, declared_tiers=tiers, lexical_scope=checkout is None, config_depth=depth))
        if checkout is not None and config_dir is not None:
            findings.extend(scope.check(document, checkout=checkout, config_dir=config_dir))
    if checkout is None:
        notes.append("no checkout: cwd was checked lexically only")
    errors: list[ValidationError] = []
    seen: set[tuple[str, JsonPath, str]] = set()
    for finding in findings:  # two keywords can say the same (minLength and pattern of an empty string)
        same = (finding.rule, public_path(finding.path), finding.message)  # before redaction: distinct stay distinct
        if same not in seen:
            seen.add(same)
            errors.append(_locate(finding, src, file))
    errors.sort(key=_order)
    if fail_fast:
        errors = errors[:1]
    return ValidationResult(
        source=redact(file) if file else None,
        errors=errors,
        config=None if errors else normalize(document),
        commands_checked=rules.count_commands(document),
        checkout=checkout,
        notes=[redact(note) for note in notes],
        accepted=[_locate_accepted(a, src, file) for a in accepted],
    )


def _depth_in(config_dir: Path | None, checkout: Path | None) -> int:
    """How many folders below the checkout the config lies (how far up '..' may go), 0 when unknown."""
    if config_dir is None or checkout is None:
        return 0
    try:
        return len(Path(os.path.realpath(config_dir)).relative_to(os.path.realpath(checkout)).parts)
    except ValueError:
        return 0


def _locate_accepted(accepted: secrets.Accepted, src: source.Source, file: str | None) -> AcceptedCredential:
    where = src.locate(accepted.path, False) if src.kind != "data" else None
    return AcceptedCredential(
        accepted.path,
        accepted.kind,
        redact(accepted.reason),
        file=redact(file) if file else None,
        line=where[0] if where else None,
        column=where[1] if where else None,
    )


def validate_runtime_config(
    document_or_path: Mapping[str, Any] | str | os.PathLike[str] | object,
    checkout: str | Path | Literal[False] | None = None,
    *,
    fail_fast: bool = False,
    project: Project | None = None,
) -> ValidationResult:
    """Validate a runtime config and return every error at once.

    Every input ends in a result. Should tierlock itself fail (a bug), the
    result says so with one RC999 error naming the input and ``exit_code`` 3,
    instead of a traceback.

    *document_or_path* is a parsed document (any JSON value), a config file
    (``.json``, ``.toml``, or a ``pyproject.toml`` with
    ``[tool.tierlock.runtime]``), or a project folder (discovered as in
    :func:`tierlock.validators.discover`). *checkout* is the checkout root for
    the cwd rule: None means the git top level holding the config (else its
    folder); ``False`` checks cwd lexically only (always so for a mapping
    without a checkout). A file that cannot be read or parsed gives a result
    with ``parsed=False`` and exit code 2; a folder without a config raises
    :class:`~tierlock.errors.ConfigError`.
    """
    try:
        return _validate(document_or_path, checkout, fail_fast=fail_fast, project=project)
    except TierlockError:
        raise
    except Exception as exc:  # the last-resort guard: a report instead of a traceback
        return internal_error(document_or_path, exc)


def internal_error(document_or_path: object, exc: BaseException) -> ValidationResult:
    """The result for an input tierlock failed on: exit 3, the input's name, where in tierlock it broke.

    The exception's text is not shown: it may quote the document.
    """
    name = os.fspath(document_or_path) if isinstance(document_or_path, str | os.PathLike) else None
    frame = exc.__traceback__
    place = ""
    while frame is not None:
        code = frame.tb_frame.f_code.co_filename
        if "tierlock" in code:
            place = f" at {Path(code).name}:{frame.tb_lineno}"
        frame = frame.tb_next
    shown = redact(str(name)) if name is not None else "(document)"
    message = (
        f"internal error{place} ({type(exc).__name__}) while validating {shown}: "
        "this is a bug in tierlock, not in the config; please report it with the input"
    )
    file = redact(str(name)) if name is not None else None
    error = ValidationError("RC999", (), message, file=file, line=1, column=1)
    return ValidationResult(
        source=file,
        errors=[error],
        config=None,
        parsed=False,
        internal_error=True,
    )


def _validate(
    document_or_path: Mapping[str, Any] | str | os.PathLike[str] | object,
    checkout: str | Path | Literal[False] | None,
    *,
    fail_fast: bool,
    project: Project | None,
) -> ValidationResult:
    if not isinstance(document_or_path, str | os.PathLike):
        value = dict(document_or_path) if isinstance(document_or_path, Mapping) else document_or_path
        problem = _not_json(value)
        if problem is not None:
            error = ValidationError(
                "RC000", tuple(redact(p) if isinstance(p, str) else p for p in problem[0]), problem[1]
            )
            return ValidationResult(source=None, errors=[error], config=None, parsed=False)
        src = source.Source("data", value)
        root = None if checkout is None or checkout is False else Path(checkout)
        return validate_source(src, checkout=root, config_dir=root, fail_fast=fail_fast, project=project)
    path = Path(os.fspath(document_or_path))
    if path.is_dir():
        found = configfile.discover(path)
        if found is None:
            raise ConfigError(
                f"{path} is a folder with no runtime config: looked for {', '.join(configfile.DISCOVERY[:2])} "
                "and [tool.tierlock.runtime] in pyproject.toml",
                remedy=f"create tierlock.runtime.json as described at {doc('reference/runtime-config.md')}",
            )
        path = found
    try:
        src = source.load(path)
    except source.SourceError as err:
        shown = redact(str(path))
        error = ValidationError(
            err.rule, (), redact(err.message), file=shown, line=err.line or 1, column=err.column or 1
        )
        return ValidationResult(source=shown, errors=[error], config=None, parsed=False)
    config_dir = path.resolve().parent
    top: Path | None
    if checkout is False:
        top = None
    elif checkout is None:
        top = scope.find_checkout(config_dir)
    else:
        top = Path(checkout).resolve()
    return validate_source(src, checkout=top, config_dir=config_dir, fail_fast=fail_fast, project=project)


_JSON_LEAVES = (str, int, float, bool, type(None))


def _not_json(value: Any) -> tuple[JsonPath, str] | None:
    """Where a parsed mapping handed to the library holds what no JSON or TOML document can, or None."""
    stack: list[tuple[Any, JsonPath]] = [(value, ())]
    while stack:
        node, path = stack.pop()
        if len(path) > jsonpos.MAX_DEPTH:
            return path[: jsonpos.MAX_DEPTH], f"nested deeper than {jsonpos.MAX_DEPTH} levels (or refers to itself)"
        if isinstance(node, float) and not math.isfinite(node):
            return path, "is not JSON data: numbers must be finite"
        if isinstance(node, dict):
            for key, child in node.items():
                if not isinstance(key, str):
                    return path, f"is not JSON data: a key is {schema.type_name(key)}, not a string"
                stack.append((child, (*path, key)))
        elif isinstance(node, list):
            stack.extend((child, (*path, i)) for i, child in enumerate(node))
        elif not isinstance(node, _JSON_LEAVES):
            return path, f"is not JSON data: {schema.type_name(node)}"
    return None


def normalize(document: Any) -> dict[str, Any]:
    """The config with defaults filled in (a valid document only)."""
    repos = rules.repositories(document) or []
    by_id = {r.id: r for r in repos}

    def command(c: Mapping[str, Any]) -> dict[str, Any]:
        repo = rules.repo_of(c, repos if "repositories" in document else None, by_id)
        cwd = c.get("cwd")
        if cwd is None and repo is not None and repo.scope:
            cwd = repo.scope[0]
        timeout = c.get("timeoutMs")
        return {
            "key": c.get("key"),
            "repositoryId": c.get("repositoryId", repo.id if repo else None),
            "command": c["command"],
            "args": list(c.get("args", [])),
            "cwd": cwd,
            "env": dict(c.get("env", {})),
            "timeoutMs": int(timeout) if timeout is not None else None,
            "label": c.get("label"),
            "policy": dict(c["policy"]) if "policy" in c else None,
        }

    return {
        "schemaVersion": 1,
        "repositories": [{"id": r.id, "path": r.path, "scope": list(r.scope)} for r in repos],
        "setup": [command(c) for c in document.get("setup", [])],
        "verification": [command(c) for c in document["verification"]],
    }


__all__ = ["dotted", "validate_runtime_config", "validate_source"]
