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
from tierlock.validators.model import Finding

LISTS = ("setup", "verification")
NEVER_SAVED = "credentials must be inherited from the process environment, never saved"
_TIER_NAME = re.compile(r"^([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9])$")
_PYTHON = re.compile(r"^python(?:\d+(?:\.\d+)*)?$")
#: Options of ``install-tier`` / ``tierlock install`` that take a value (skipped when reading tier names).
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


def lexical_escape(path: str) -> str | None:
    """Why *path* is not a relative path that stays inside its base, or None."""
    if path.startswith("\\\\"):
        return "is a Windows UNC or device path; it must be relative"
    if path.startswith(("/", "\\")):
        return "is an absolute path; it must be relative"
    if re.match(r"^[A-Za-z]:[\\/]", path):
        return "is an absolute Windows path; it must be relative"
    if re.match(r"^[A-Za-z]:", path):
        return "is a drive-relative Windows path (C:x); it must be relative"
    depth = 0
    for part in re.split(r"[\\/]+", path):
        if part in ("", "."):
            continue
        if part == "..":
            depth -= 1
            if depth < 0:
                return "leaves its repository through '..'"
        else:
            depth += 1
    return None


def normal(path: str) -> str:
    """A relative path in one spelling (forward slashes, no '.' parts)."""
    return posixpath.normpath(path.replace("\\", "/"))


def inside(child: str, parent: str) -> bool:
    child, parent = normal(child), normal(parent)
    return parent in (".", child) or child.startswith(parent.rstrip("/") + "/")


def check(document: Any, *, declared_tiers: Collection[str] | None = None, lexical_scope: bool = True) -> list[Finding]:
    """Findings of every code rule; *lexical_scope* checks scope containment by text (no checkout)."""
    out: list[Finding] = []
    out.extend(_unique_keys(document))
    repos = repositories(document)
    by_id = _repository_rules(document, repos, out)
    for name, index, command in commands(document):
        base: JsonPath = (name, index)
        _env_and_values(base, command, out)
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


def _repository_rules(document: Any, repos: list[Repo] | None, out: list[Finding]) -> dict[str, Repo]:
    by_id: dict[str, Repo] = {}
    if repos is None:
        return by_id
    by_path: dict[str, Repo] = {}
    for repo in repos:
        base: JsonPath = ("repositories", repo.index)
        if repo.id in by_id:
            out.append(
                Finding(
                    "RC016",
                    (*base, "id"),
                    f"repository id {repo.id!r} is used twice (first at repositories[{by_id[repo.id].index}])",
                    related=("repositories", by_id[repo.id].index, "id"),
                )
            )
        else:
            by_id[repo.id] = repo
        if repo.path.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", repo.path):
            out.append(Finding("RC016", (*base, "path"), "must be relative to the config file's folder"))
        key = normal(repo.path)
        if key in by_path:
            out.append(
                Finding(
                    "RC016",
                    (*base, "path"),
                    f"repository path is used twice (first at repositories[{by_path[key].index}])",
                    related=("repositories", by_path[key].index, "path"),
                )
            )
        else:
            by_path[key] = repo
        for i, scope in enumerate(repo.scope):
            problem = lexical_escape(scope)
            if problem:
                out.append(Finding("RC015", (*base, "scope", i), f"scope folder {problem}"))
    for name, index, command in commands(document):
        rid = command.get("repositoryId")
        if isinstance(rid, str) and rid not in by_id:
            close = difflib.get_close_matches(rid, list(by_id), n=1)
            out.append(
                Finding(
                    "RC016",
                    (name, index, "repositoryId"),
                    f"names repository {rid!r}, which repositories does not declare",
                    hint=f"did you mean {close[0]!r}?" if close else "declared: " + ", ".join(sorted(by_id)),
                )
            )
        elif rid is None and len(repos) > 1:
            out.append(
                Finding(
                    "RC016",
                    (name, index),
                    "names no repositoryId, but repositories lists several",
                    hint="add repositoryId",
                )
            )
    return by_id


def repo_of(command: Mapping[str, Any], repos: list[Repo] | None, by_id: Mapping[str, Repo]) -> Repo | None:
    """The repository a command runs in (None: the checkout root, or unknown)."""
    if repos is None:
        return None
    rid = command.get("repositoryId")
    if isinstance(rid, str):
        return by_id.get(rid)
    return repos[0] if len(repos) == 1 else None


def _env_and_values(base: JsonPath, command: Mapping[str, Any], out: list[Finding]) -> None:
    env = command.get("env")
    if isinstance(env, dict):
        for name, value in env.items():
            word = credential_name(name)
            if word:
                out.append(
                    Finding(
                        "RC009",
                        (*base, "env", name),
                        f"env name {name!r} contains {word!r}: {NEVER_SAVED}",
                        at_key=True,
                    )
                )
            elif kind := credential_kind(name):
                out.append(
                    Finding(
                        "RC014",
                        (*base, "env", name),
                        f"env name is a credential ({kind}): {NEVER_SAVED}",
                        at_key=True,
                    )
                )
            if isinstance(value, str):
                kind = credential_kind(value)
                if kind:
                    out.append(Finding("RC014", (*base, "env", name), f"value is a credential ({kind}): {NEVER_SAVED}"))
    args = command.get("args")
    if isinstance(args, list):
        for i, arg in enumerate(args):
            if isinstance(arg, str):
                kind = credential_kind(arg)
                if kind:
                    out.append(
                        Finding("RC014", (*base, "args", i), f"argument is a credential ({kind}): {NEVER_SAVED}")
                    )
    cmd = command.get("command")
    if isinstance(cmd, str):
        kind = credential_kind(cmd)
        if kind:
            out.append(Finding("RC014", (*base, "command"), f"command holds a credential ({kind}): {NEVER_SAVED}"))


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
    if not isinstance(cwd, str) or not cwd.strip():
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
            close = difflib.get_close_matches(canonicalize_name(tier), sorted(declared), n=1)
            out.append(
                Finding(
                    "RC017",
                    (*base, "args", index),
                    f"installs tier {tier!r}, which the project does not declare (declared: {names})",
                    hint=f"did you mean {close[0]!r}?" if close else "declare it under [tool.tierlock.tiers]",
                )
            )
        else:
            out.append(
                Finding("RC017", (*base, "args", index), f"is not a tier the project declares (declared: {names})")
            )
