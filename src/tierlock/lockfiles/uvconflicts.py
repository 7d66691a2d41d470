"""``[tool.uv].conflicts`` as uv records them in uv.lock: the declared sets, and those uv infers (pure).

uv writes into uv.lock every conflict set it resolves with: the declared ones,
and for a dependency group in a declared set, the same set with that group
replaced by each group that includes it (directly or through other groups),
in every combination (``expand_transitive_group_includes`` in uv's sources).
A project whose ``core`` group conflicts with ``old`` and is included by
``dev`` and ``tests`` (narwhals) has three sets in its lock for its one
declared set. Compared as declared, that lock would always look out of date.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from packaging.utils import canonicalize_name

Item = tuple[str, str, str]
"""(package, ``extra`` or ``group``, name), every name normalised."""


def declared(member: str, uv: Mapping[str, Any], groups: object) -> set[frozenset[Item]]:
    """The conflict sets a member's ``[tool.uv]`` table (*uv*) declares, with those uv infers from its
    ``[dependency-groups]`` (*groups*)."""
    raw = uv.get("conflicts")
    sets: set[frozenset[Item]] = set()
    for group in raw if isinstance(raw, list) else []:
        items: set[Item] = set()
        for item in group if isinstance(group, list) else []:
            if not isinstance(item, Mapping):
                continue
            package = canonicalize_name(str(item.get("package") or member))
            for kind in ("extra", "group"):
                if isinstance(item.get(kind), str):
                    items.add((package, kind, canonicalize_name(item[kind])))
        sets.add(frozenset(items))
    return expanded(sets, canonicalize_name(member) if member else "", includers(groups))


def includers(groups: object) -> dict[str, set[str]]:
    """Each dependency group -> every group that includes it, directly or through others ({} with a cycle:
    uv infers nothing then)."""
    included_by: dict[str, set[str]] = {}
    for name, items in groups.items() if isinstance(groups, Mapping) else ():
        for item in items if isinstance(items, list) else []:
            if isinstance(item, Mapping) and isinstance(item.get("include-group"), str):
                included_by.setdefault(canonicalize_name(item["include-group"]), set()).add(canonicalize_name(name))
    out: dict[str, set[str]] = {}
    for group, parents in included_by.items():
        seen: set[str] = set()
        todo = list(parents)
        while todo:
            parent = todo.pop()
            if parent == group:
                return {}  # a cycle: uv cannot order the groups and leaves the sets as declared
            if parent not in seen:
                seen.add(parent)
                todo.extend(included_by.get(parent, ()))
        out[group] = seen
    return out


def expanded(sets: Iterable[frozenset[Item]], package: str, by: Mapping[str, set[str]]) -> set[frozenset[Item]]:
    """*sets* and every set made from one by replacing its groups of *package* with groups that include them."""
    out = set(sets)
    canonical = sorted({i for s in out for i in s if i[0] == package and i[1] == "group" and by.get(i[2])})
    for item in canonical:
        for conflict in [s for s in out if item in s]:
            for parent in sorted(by[item[2]]):
                out.add(conflict - {item} | {(package, "group", parent)})
    return out
