"""Environment markers: the one evaluation for a target, and whether two markers can hold at once.

:func:`applies` is how every part of tierlock (probe, admit, status, the
pytest plugin, the installer) decides whether a requirement or a lockfile
entry is needed in a target environment: its marker evaluated against the
*target interpreter's* marker environment (``Target.marker_env``), never
tierlock's own, with the tier's extras and dependency groups. A requirement or
entry whose marker does not hold there is simply not required.

:func:`overlap` tells a universal lock's legitimate forks (``numpy==2.2 ; python_version
< "3.11"`` and ``numpy==2.3 ; python_version >= "3.11"``) from real duplicates.
Both markers are evaluated on every environment built from the values they
compare against (and values just beside them); if any environment satisfies
both, they overlap. Python versions are varied together so that
``python_version`` and ``python_full_version`` stay consistent. Every variable a
marker names gets its values from the markers (read from packaging's parsed form,
whichever side of the comparison and whatever the quotes), never from this machine.

A comparison packaging cannot evaluate in an environment (``os_name ~= "nt"``: ``~=`` on a value that is no
version; ``extras < "x"``: an order on a set) is no answer there, and the conservative one is taken: it may hold
(:func:`overlap`: two entries that may both apply are reported, never taken as forks), and two markers are
:func:`equivalent` only when both are answered alike everywhere. Any other error is a bug and is raised.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from packaging.markers import Marker, UndefinedComparison, UndefinedEnvironmentName, default_environment
from packaging.utils import canonicalize_name

from tierlock.lockfiles import overlapkept

_VERSION_VARS = ("python_version", "python_full_version", "implementation_version")
_LIMIT = 20000
_OTHER = "tierlock-other"
#: A value no specifier can be written with (``===`` takes no space): tried for a variable written after ``===``.
_UNSPECIFIABLE = "tierlock other"
_SET_VARS = ("extras", "dependency_groups")
_SET_NAMES = 14
"""More names than this compared with one set variable: too many sets to try (2**14 of them)."""
_Value = str | frozenset[str]


def applies(
    marker: Marker | None,
    environment: Mapping[str, str] | None = None,
    *,
    extras: Iterable[str] = (),
    groups: Iterable[str] = (),
) -> bool:
    """Whether *marker* holds in *environment* (a PEP 508 marker environment; default: this interpreter's).

    No marker holds everywhere. *extras* and *groups* are the extras and
    dependency groups the tier brings in: ``extra == "x"`` holds when ``x`` is
    one of *extras* (requirement markers, evaluated once per extra and once
    without any), ``"x" in extras`` and ``"g" in dependency_groups`` (lockfile
    markers, PEP 751) when they are in the sets. Names compare normalized.

    The answer is kept for the process by the marker (the very object: a lock's entries share one marker object per
    text, :mod:`tierlock.lockfiles.keptparse`), the environment's items and the two sets: the tiers of a project
    ask the same few questions of their shared entries (narwhals' admit: 115 questions, 13 distinct).
    """
    if marker is None:
        return True
    wanted = frozenset(canonicalize_name(e) for e in extras)
    sets = frozenset(canonicalize_name(g) for g in groups)
    key: _AppliesKey | None = (id(marker), None if environment is None else tuple(environment.items()), wanted, sets)
    try:
        known = _APPLIES.get(key)  # type: ignore[arg-type]
    except TypeError:  # a value of the environment that cannot be hashed: not kept
        known = key = None
    if known is not None and known[0] is marker:
        return known[1]
    env: dict[str, str | frozenset[str]] = {}
    if environment is None:
        env.update((k, str(v)) for k, v in default_environment().items())
    else:
        env.update(environment)
    env["extras"] = wanted
    env["dependency_groups"] = sets
    answer = False
    for extra in ("", *sorted(wanted)):
        env["extra"] = extra
        if marker.evaluate(env, context="lock_file"):
            answer = True
            break
    if key is None:
        return answer
    if len(_APPLIES) >= _KEPT:
        _APPLIES.clear()
    _APPLIES[key] = (marker, answer)  # (the marker held: its id stays its own while the answer is kept)
    return answer


#: :func:`applies`'s answers by the marker's id, the environment's items and the extras and groups (at most
#: ``_KEPT``), each with its marker.
_AppliesKey = tuple[int, tuple[tuple[str, str], ...] | None, frozenset[str], frozenset[str]]
_APPLIES: dict[_AppliesKey, tuple[Marker, bool]] = {}


def overlap(first: Marker | None, second: Marker | None) -> bool:
    """Whether some environment satisfies both markers (no marker holds everywhere).

    A pure function of the two markers' texts (a marker's text is its parsed form written out, and the grid is
    built from the texts), so the answer is kept by them for the process: a lock of many tiers asks the same
    pair once per pair of lockfiles (narwhals' 13 tiers: 119 questions, 19 distinct); and across commands
    (:mod:`tierlock.lockfiles.overlapkept`): the next command's sibling check asks them again.
    """
    if first is None or second is None:
        return True
    texts = (str(first), str(second))
    known = _OVERLAPS.get(texts)
    if known is None:
        known = overlapkept.known(texts)
        if known is None:
            known = _overlap(first, second, texts)
            overlapkept.learnt(texts, known)
        if len(_OVERLAPS) >= _KEPT:
            _OVERLAPS.clear()
        _OVERLAPS[texts] = known
    return known


#: :func:`overlap`'s answers by the two markers' texts (at most ``_KEPT``: a long-lived process stays small).
_OVERLAPS: dict[tuple[str, str], bool] = {}
_KEPT = 4096


def _overlap(first: Marker, second: Marker, texts: tuple[str, str]) -> bool:
    """Some environment where both hold, each with an extra of its own (a tier's extras are a set, and
    :func:`applies` evaluates a marker once per extra: ``extra == "x"`` and ``extra == "y"`` both hold in a
    tier bringing in x and y)."""
    grid = _grid(texts)
    if grid is None:
        return True  # too many combinations to try: assume the worst
    firsts = {_apart_from_extra(env) for env in grid if _holds(first, env) is not False}  # (None: may hold)
    return any(_apart_from_extra(env) in firsts for env in grid if _holds(second, env) is not False)


def _apart_from_extra(env: dict[str, _Value]) -> tuple[tuple[str, _Value], ...]:
    return tuple((k, v) for k, v in env.items() if k != "extra")


def equivalent(first: Marker | None, second: Marker | None, requires_python: str | None = None) -> bool:
    """Whether the two markers hold in exactly the same environments (None holds everywhere).

    Tried on every environment built from the values they compare against (and
    values just beside them, ``extra`` included), among the Python versions
    *requires_python* allows: another spelling of one condition
    (``python_version < "3.11"`` / ``python_full_version < "3.11"``) is equivalent.
    Too many combinations to try: equivalent only when spelled alike.
    """
    if str(first) == str(second):
        return True
    texts = tuple(str(m) for m in (first, second) if m is not None)
    grid = _grid(texts, requires_python=requires_python)
    if grid is None:
        return False
    return all(_answer(first, env) == _answer(second, env) is not None for env in grid if _possible(env))


#: Platforms that name themselves in two variables: ``sys_platform`` and ``platform_system`` (uv writes the first
#: for the second: ``platform_system == "Windows"`` is locked as ``sys_platform == 'win32'``).
_SYSTEMS = {"win32": "Windows", "darwin": "Darwin", "linux": "Linux"}


def _possible(env: Mapping[str, object]) -> bool:
    """Whether an environment of the grid can exist: its ``sys_platform`` and ``platform_system`` name one
    platform (both one of the known pairs, or neither), and Windows is the ``nt`` ``os_name``."""
    platform, system, os_name = env.get("sys_platform"), env.get("platform_system"), env.get("os_name")
    known = platform in _SYSTEMS or system in _SYSTEMS.values()
    if platform is not None and system is not None and known and _SYSTEMS.get(str(platform)) != system:
        return False
    windows = platform == "win32" if platform is not None else (system == "Windows" if system is not None else None)
    return os_name is None or windows is None or (os_name == "nt") == windows


def _grid(texts: Sequence[str], *, requires_python: str | None = None) -> list[dict[str, _Value]] | None:
    """Every environment worth trying for markers *texts*, ``extra`` among them (None: more than ``_LIMIT``)."""
    values = _literals(texts)
    versions: set[str] = set()
    strings: dict[str, list[_Value]] = {}
    for var, found in values.items():
        if var in _VERSION_VARS:
            versions.update(found)
        elif var in _SET_VARS:  # a lockfile's extras and dependency groups: every set of the names compared
            members = sorted(found)  # packaging compares them normalized
            if len(members) > _SET_NAMES:
                return None
            strings[var] = [frozenset(c) for n in range(len(members) + 1) for c in itertools.combinations(members, n)]
        else:
            strings[var] = _string_candidates(found, contained=var in values.contained)
            if var in values.arbitrary:  # its value becomes ``===VALUE``: one no specifier holds is no answer there
                strings[var].append(_UNSPECIFIABLE)
    if requires_python and versions:
        versions.update(re.findall(r"\d+(?:\.\d+)*", requires_python))  # the allowed range's own edges
    version_candidates = _python_candidates(versions) if versions else ["3.12.0"]
    if requires_python:
        version_candidates = _allowed(version_candidates, requires_python)
    names = list(strings)
    total = len(version_candidates)
    for var in names:
        total *= len(strings[var])
    if total > _LIMIT:
        return None
    grid: list[dict[str, _Value]] = []
    for full in version_candidates:
        short = ".".join(full.split(".")[:2])
        for combo in itertools.product(*(strings[n] for n in names)):
            env: dict[str, _Value] = {
                "python_version": short,
                "python_full_version": full,
                "implementation_version": full,
                "extra": "",
            }
            env.update(zip(names, combo, strict=True))
            grid.append(env)
    return grid


def _string_candidates(found: set[str], *, contained: bool = False) -> list[_Value]:
    """The values worth trying for a variable compared with *found*: each, its words, the versions beside a
    version (``platform_release``), and one that is none of them. *contained*: the variable is compared with
    ``in`` / ``not in`` (a substring test on a string): also the empty value, each value cut by its first or last
    character, each with more after it, and all of them one after the other."""
    candidates = {_OTHER}
    for value in found:
        candidates.add(value)
        candidates.update(v for v in re.split(r"[\s,]+", value) if v)
        if re.fullmatch(r"\d+(?:\.\d+)*", value):
            candidates.update(_python_candidates({value}))
        if contained:
            candidates.update((value[1:], value[:-1], f"{value}-{_OTHER}"))
    if contained:
        candidates.update(("", "".join(sorted(found))))
    return [*sorted(candidates)]


class _Literals(dict[str, set[str]]):
    """Variable -> the values the marker texts compare it with; :attr:`contained`: the variables compared with
    ``in`` / ``not in``; :attr:`arbitrary`: the variables written after ``===`` (``"1.0" === platform_release``:
    packaging compares them through the specifier ``===VALUE``, which a value with a space cannot be)."""

    contained: set[str]
    arbitrary: set[str]


def _literals(texts: Sequence[str]) -> _Literals:
    """Variable -> the values the marker *texts* compare it with (every variable named, from the parsed form)."""
    values = _Literals()
    values.contained = set()
    values.arbitrary = set()
    for text in texts:
        _collect(getattr(Marker(text), "_markers", None), values)
    return values


def _collect(items: object, values: _Literals) -> None:
    """The variables of packaging's parsed form *items* (atoms, nested lists, ``and``/``or``) with their values."""
    if isinstance(items, list):
        for item in items:
            _collect(item, values)
        return
    if not isinstance(items, tuple):
        return
    left, op, right = items
    sides = [(left, right), (right, left)]
    operator = str(getattr(op, "value", ""))
    for side, other in sides:
        if type(side).__name__ == "Variable":
            found = values.setdefault(str(side.value), set())
            if type(other).__name__ == "Value":
                found.add(str(other.value))
            if operator in ("in", "not in"):
                values.contained.add(str(side.value))
            if operator == "===" and side is right:
                values.arbitrary.add(str(side.value))


def _allowed(versions: list[str], requires_python: str) -> list[str]:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        allowed = SpecifierSet(requires_python)
    except InvalidSpecifier:
        return versions
    kept = [v for v in versions if allowed.contains(v)]  # each X.Y.Z: never a pre-release
    return kept or versions


def _answer(marker: Marker | None, env: dict[str, _Value]) -> bool | None:
    return True if marker is None else _holds(marker, env)


def _holds(marker: Marker, env: dict[str, _Value]) -> bool | None:
    """Whether *marker* holds in *env*; None when packaging cannot compare there (see the module: no answer)."""
    try:
        return marker.evaluate(env)
    except (UndefinedComparison, UndefinedEnvironmentName, TypeError, AssertionError):
        return None  # (TypeError: an order on a set; AssertionError: the same in packaging before 26.4, a set compared)


def _python_candidates(literals: set[str]) -> list[str]:
    out: set[str] = set()
    for literal in sorted(literals):  # one order whatever the hash seed
        parts = [int(p) for p in re.findall(r"\d+", literal)[:3]]
        if not parts:
            continue
        while len(parts) < 3:
            parts.append(0)
        major, minor, micro = parts
        out.add(f"{major}.{minor}.{micro}")
        out.add(f"{major}.{minor}.{micro + 1}")
        out.add(f"{major}.{minor + 1}.0")
        if minor > 0:
            out.add(f"{major}.{minor - 1}.99")
        elif major > 0:  # below X.0: the last of the major before (``python_version < "4.0"`` holds on 3.x)
            out.add(f"{major - 1}.99.99")
    return sorted(out) or ["3.12.0"]


def specialise(marker: Marker | None, decide: Callable[[str, str, str], bool | None]) -> Marker | bool:
    """*marker* with the atoms *decide* knows replaced by their truth, simplified.

    *decide* gets each atom as ``(variable, operator, value)`` (a variable on
    the right, as in ``"x" in extras``, comes as ``(variable, "in", "x")``) and
    returns True or False for the atoms it can decide (a lock's extras and
    dependency groups, known once the tier is), None to keep the atom. The result
    is True when the marker holds whatever the environment, False when it never
    holds, else the marker of the atoms that remain (environment variables only).
    """
    if marker is None:
        return True
    result = _specialise_list(getattr(marker, "_markers", None), decide)
    if isinstance(result, bool):
        return result
    return Marker(result)


def _specialise_list(items: object, decide: Callable[[str, str, str], bool | None]) -> str | bool:
    """A marker expression (packaging's parsed form: atoms, nested lists, ``and``/``or``) as text or a truth."""
    if not isinstance(items, list):
        raise ValueError(f"unexpected marker structure: {items!r}")
    alternatives: list[list[str | bool]] = [[]]
    for item in items:
        if item == "or":
            alternatives.append([])
        elif item == "and":
            continue
        elif isinstance(item, list):
            alternatives[-1].append(_specialise_list(item, decide))
        elif isinstance(item, tuple):
            alternatives[-1].append(_specialise_atom(item, decide))
        else:
            raise ValueError(f"unexpected marker part: {item!r}")
    kept: list[str] = []
    for alternative in alternatives:
        if False in alternative:
            continue
        parts = [p for p in alternative if isinstance(p, str)]
        if not parts:
            return True  # one alternative holds whatever the environment
        kept.append(" and ".join(f"({p})" for p in parts))  # packaging drops the parentheses it does not need
    if not kept:
        return False
    return " or ".join(f"({k})" for k in kept)


def _specialise_atom(atom: tuple[Any, Any, Any], decide: Callable[[str, str, str], bool | None]) -> str | bool:
    left, op, right = atom
    text = f"{left.serialize()} {op.serialize()} {right.serialize()}"
    left_is_var = type(left).__name__ == "Variable"
    variable, value = (left.value, right.value) if left_is_var else (right.value, left.value)
    verdict = decide(str(variable), str(op.value), str(value))
    return text if verdict is None else verdict
