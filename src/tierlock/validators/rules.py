"""The rules a JSON Schema cannot express, as pure functions over the document.

Unique check keys (RC011), credential names and values (RC009, RC014), the
lexical part of the cwd rule (RC015), repositories (RC016) and declared tiers
(RC017). Every function tolerates a malformed document (the schema reports
wrong types; these rules skip what they cannot read) and is linear in the
number of commands. Messages name keys and paths, never values.
"""

from __future__ import annotations

import difflib
import posixpath
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from packaging.utils import canonicalize_name

from tierlock.validators.credentials import credential_kind, credential_name
from tierlock.validators.jsonpos import JsonPath
from tierlock.validators.results import Finding
from tierlock.validators.text import js_trim, utf16_length

LISTS = ("setup", "verification")
NEVER_SAVED = "credentials must be inherited from the process environment, never saved"
_TIER_NAME = re.compile(r"^([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9])$")
_PYTHON = re.compile(r"^python(?:\d+(?:\.\d+)*)?$")
#: Options of ``install-tier`` / ``tierlock install`` that take a value (skipped when reading tier names).
SCOPE_LENGTH = 1024
LABEL_LENGTH = 256
POLICY_ENTRY_LENGTH = 4096
POLICY_LISTS = ("inputs", "toolchainInputs", "resources")
VALUE_OPTIONS = frozenset({"--project", "--python", "-p", "--target", "--backend", "--lock-dir", "--format"})


@dataclass(frozen=True)
class Repo:
    """A repository entry as far as it could be read."""

    id: str
    path: str
    scope: tuple[str, ...]
    index: int


def commands(document: Any) -> Iterator[tuple[str, int, dict[str, Any]]]:
    """Every command object of both lists, with its list name and index."""
    if not isinstance(document, dict):
        return
    for name in LISTS:
        entries = document.get(name)
        if isinstance(entries, list):
            for index, entry in enumerate(entries):
                if isinstance(entry, dict):
                    yield name, index, entry


def count_commands(document: Any) -> int:
    if not isinstance(document, dict):
        return 0
    return sum(len(v) for v in (document.get(n) for n in LISTS) if isinstance(v, list))


def repositories(document: Any) -> list[Repo] | None:
    """The readable repository entries, or None when there is no ``repositories`` list."""
    if not isinstance(document, dict) or not isinstance(document.get("repositories"), list):
        return None
    out: list[Repo] = []
    for index, entry in enumerate(document["repositories"]):
        if not isinstance(entry, dict):
            continue
        rid, path, scope = entry.get("id"), entry.get("path"), entry.get("scope", [])
        if isinstance(rid, str) and isinstance(path, str):
            scopes = tuple(s for s in scope if isinstance(s, str)) if isinstance(scope, list) else ()
            out.append(Repo(rid, path, scopes, index))
    return out


def close_match(word: str, options: Collection[str]) -> str | None:
    """The option *word* is a likely typo of (difflib is quadratic: long words get none)."""
    if len(word) > 128:
        return None
    close = difflib.get_close_matches(word, list(options), n=1)
    return close[0] if close else None


def scope_problem(scope: str) -> str | None:
    """Why a scope entry is not a plain relative folder path ('\\' read as '/'), or None."""
    problem = lexical_escape(scope)
    if problem:
        return problem
    parts = scope.replace("\\", "/").split("/")
    if any(part in ("", ".", "..") for part in parts):
        return "has an empty, '.' or '..' segment; write the folder path plainly (packages/app)"
    if len(scope) <= SCOPE_LENGTH < utf16_length(scope):  # longer in code points: the schema says so
        return f"is longer than {SCOPE_LENGTH} characters (UTF-16 code units)"
    return None


def lexical_escape(path: str, depth: int = 0) -> str | None:
    """Why *path* is not a relative path that stays inside its base, or None.

    *depth* is how many folders the path may go up with '..' (the config's folder within the checkout).
    """
    if path.startswith("\\\\"):
        return "is a Windows UNC or device path; it must be relative"
    if path.startswith(("/", "\\")):
        return "is an absolute path; it must be relative"
    if re.match(r"^[A-Za-z]:[\\/]", path):
        return "is an absolute Windows path; it must be relative"
    if re.match(r"^[A-Za-z]:", path):
        return "is a drive-relative Windows path (C:x); it must be relative"
    above = depth
    for part in re.split(r"[\\/]+", path):
        if part in ("", "."):
            continue
        if part == "..":
            depth -= 1
            if depth < 0:
                return "leaves its repository through '..'" if above == 0 else "leaves the checkout through '..'"
        else:
            depth += 1
    return None


def normal(path: str) -> str:
    """A relative path in one spelling (forward slashes, no '.' parts)."""
    return posixpath.normpath(path.replace("\\", "/"))


def inside(child: str, parent: str) -> bool:
    child, parent = normal(child), normal(parent)
    return parent in (".", child) or child.startswith(parent.rstrip("/") + "/")


def check(
    document: Any,
    *,
    declared_tiers: Collection[str] | None = None,
    lexical_scope: bool = True,
    config_depth: int = 0,
) -> list[Finding]:
    """Findings of every code rule; *lexical_scope* checks scope containment by text (no checkout).

    *config_depth* is how deep the config's folder lies in the checkout (0 without one): how far up a
    repository path may go with '..'.
    """
    out: list[Finding] = []
    out.extend(_unique_keys(document))
    _lengths(document, out)
    repos = repositories(document)
    by_id = _repository_rules(document, repos, out, config_depth)
    for name, index, command in commands(document):
        base: JsonPath = (name, index)
        _env_names(base, command, out)
        _cwd(base, command, out, repos=repos, by_id=by_id, lexical_scope=lexical_scope)
        if name == "setup" and declared_tiers is not None:
            _tiers(base, command, declared_tiers, out)
    return out


def _unique_keys(document: Any) -> Iterator[Finding]:
    first: dict[str, dict[str, int]] = {name: {} for name in LISTS}
    for name, index, command in commands(document):
        key = command.get("key")
        if not isinstance(key, str):
            continue
        seen = first[name]
        if key in seen:
            yield Finding(
                "RC011",
                (name, index, "key"),
                f"check key {key!r} is used twice in {name} (first at {name}[{seen[key]}])",
                related=(name, seen[key], "key"),
                hint="give every check its own key: it names the check in receipts and host UIs",
            )
        else:
            seen[key] = index
    for key, index in first["verification"].items():
        if key in first["setup"]:
            where = first["setup"][key]
            yield Finding(
                "RC011",
                ("verification", index, "key"),
                f"check key {key!r} is used in both setup and verification (setup[{where}])",
                related=("setup", where, "key"),
                hint="a key names one check in receipts and host UIs",
            )


def _lengths(document: Any, out: list[Finding]) -> None:
    """label and policy entries counted in UTF-16 code units, as JavaScript counts them (RC006, RC010).

    The schema counts code points; only what it lets through is reported here.
    """
    for name, index, command in commands(document):
        label = command.get("label")
        if isinstance(label, str) and len(label) <= LABEL_LENGTH < utf16_length(label):
            message = f"is longer than {LABEL_LENGTH} characters (UTF-16 code units, as JavaScript counts them)"
            out.append(Finding("RC006", (name, index, "label"), message))
        policy = command.get("policy")
        if not isinstance(policy, dict):
            continue
        for field in POLICY_LISTS:
            entries = policy.get(field)
            for i, entry in enumerate(entries if isinstance(entries, list) else []):
                if isinstance(entry, str) and len(entry) <= POLICY_ENTRY_LENGTH < utf16_length(entry):
                    message = f"is longer than {POLICY_ENTRY_LENGTH} characters (UTF-16 code units)"
                    out.append(Finding("RC010", (name, index, "policy", field, i), message))


def _repository_rules(
    document: Any, repos: list[Repo] | None, out: list[Finding], config_depth: int = 0
) -> dict[str, Repo]:
    by_id: dict[str, Repo] = {}
    if repos is None:
        return by_id
    by_path: dict[str, Repo] = {}
    for repo in repos:
        _repository_entry(repo, by_id, by_path, out, config_depth)
    _repository_references(document, repos, by_id, out)
    return by_id


def _repository_entry(
    repo: Repo, by_id: dict[str, Repo], by_path: dict[str, Repo], out: list[Finding], config_depth: int
) -> None:
    """RC016 for a repeated id or path and a path that is absolute or escapes, RC015 for a bad scope."""
    base: JsonPath = ("repositories", repo.index)
    if repo.id in by_id:
        first = by_id[repo.id].index
        message = f"repository id {repo.id!r} is used twice (first at repositories[{first}])"
        out.append(Finding("RC016", (*base, "id"), message, related=("repositories", first, "id")))
    else:
        by_id[repo.id] = repo
    if repo.path.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", repo.path):
        out.append(Finding("RC016", (*base, "path"), "must be relative to the config file's folder"))
    elif (problem := lexical_escape(repo.path, config_depth)) is not None:
        out.append(Finding("RC016", (*base, "path"), f"repository path {problem}"))
    key = normal(repo.path)
    if key in by_path:
        first = by_path[key].index
        message = f"repository path is used twice (first at repositories[{first}])"
        out.append(Finding("RC016", (*base, "path"), message, related=("repositories", first, "path")))
    else:
        by_path[key] = repo
    for i, scope in enumerate(repo.scope):
        if "\x00" in scope or not js_trim(scope):
            continue  # the schema reports it
        problem = scope_problem(scope)
        if problem:
            out.append(Finding("RC015", (*base, "scope", i), f"scope folder {problem}"))


def _repository_references(document: Any, repos: list[Repo], by_id: dict[str, Repo], out: list[Finding]) -> None:
    """RC016 for a command naming an undeclared repository, or naming none when several are declared."""
    for name, index, command in commands(document):
        rid = command.get("repositoryId")
        if isinstance(rid, str) and rid not in by_id:
            close = close_match(rid, by_id)
            out.append(
                Finding(
                    "RC016",
                    (name, index, "repositoryId"),
                    f"names repository {rid!r}, which repositories does not declare",
                    hint=f"did you mean {close!r}?" if close else "declared: " + (", ".join(sorted(by_id)) or "none"),
                )
            )
        elif rid is None and len(repos) > 1:
            message = "names no repositoryId, but repositories lists several"
            out.append(Finding("RC016", (name, index), message, hint="add repositoryId"))


def repo_of(command: Mapping[str, Any], repos: list[Repo] | None, by_id: Mapping[str, Repo]) -> Repo | None:
    """The repository a command runs in (None: the checkout root, or unknown)."""
    if not repos:
        return None
    rid = command.get("repositoryId")
    if isinstance(rid, str):
        return by_id.get(rid)
    return repos[0] if len(repos) == 1 else None


def _env_names(base: JsonPath, command: Mapping[str, Any], out: list[Finding]) -> None:
    """RC009: env names that hold a credential (values of every field are RC014, see :mod:`.secrets`)."""
    env = command.get("env")
    if isinstance(env, dict):
        for name in env:
            why = credential_name(name)
            if why:
                message = f"env name {name!r} {why}: {NEVER_SAVED}"
                out.append(Finding("RC009", (*base, "env", name), message, at_key=True))


def _cwd(
    base: JsonPath,
    command: Mapping[str, Any],
    out: list[Finding],
    *,
    repos: list[Repo] | None,
    by_id: Mapping[str, Repo],
    lexical_scope: bool,
) -> None:
    cwd = command.get("cwd")
    repo = repo_of(command, repos, by_id)
    if cwd is None:
        if repo is not None and len(repo.scope) > 1:
            out.append(
                Finding(
                    "RC015",
                    base,
                    f"has no cwd, but repository {repo.id!r} has several scope folders",
                    hint="give cwd: one of the repository's scope folders",
                )
            )
        return
    if not isinstance(cwd, str) or not js_trim(cwd) or "\x00" in cwd:
        return
    problem = lexical_escape(cwd)
    if problem:
        out.append(Finding("RC015", (*base, "cwd"), problem))
        return
    if lexical_scope and repo is not None and repo.scope and not any(inside(cwd, s) for s in repo.scope):
        out.append(Finding("RC015", (*base, "cwd"), f"is outside the scope folders of repository {repo.id!r}"))


def installed_tiers(command: str, args: list[Any]) -> list[tuple[int, str]] | None:
    """The (index, name) of each tier a setup command installs, or None if it installs none."""
    name = command.replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".exe")
    texts = [a if isinstance(a, str) else "" for a in args]
    if name == "uv" and texts[:1] == ["run"] and len(texts) > 1:
        inner = installed_tiers(texts[1], args[2:])
        return None if inner is None else [(i + 2, t) for i, t in inner]
    if name == "install-tier":
        start = 0
    elif name == "tierlock" and texts[:1] == ["install"]:
        start = 1
    elif _PYTHON.match(name) and texts[:3] == ["-m", "tierlock", "install"]:
        start = 3
    else:
        return None
    found: list[tuple[int, str]] = []
    skip = False
    for i in range(start, len(texts)):
        arg = texts[i]
        if skip:
            skip = False
        elif arg.startswith("-"):
            skip = arg in VALUE_OPTIONS
        elif arg:
            found.append((i, arg))
    return found


def _tiers(base: JsonPath, command: Mapping[str, Any], declared: Collection[str], out: list[Finding]) -> None:
    cmd, args = command.get("command"), command.get("args", [])
    if not isinstance(cmd, str) or not isinstance(args, list):
        return
    for index, tier in installed_tiers(cmd, args) or []:
        if canonicalize_name(tier) in declared:
            continue
        names = ", ".join(sorted(declared))
        if _TIER_NAME.match(tier) and credential_kind(tier) is None:
            close = close_match(canonicalize_name(tier), sorted(declared))
            out.append(
                Finding(
                    "RC017",
                    (*base, "args", index),
                    f"installs tier {tier!r}, which the project does not declare (declared: {names})",
                    hint=f"did you mean {close!r}?" if close else "declare it under [tool.tierlock.tiers]",
                )
            )
        else:
            out.append(
                Finding("RC017", (*base, "args", index), f"is not a tier the project declares (declared: {names})")
            )
