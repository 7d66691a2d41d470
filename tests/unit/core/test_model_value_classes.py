"""The tier model, the lock model and the target are plain :class:`~tierlock.frozen.Frozen` classes that behave
as the frozen dataclasses they were, and :func:`tierlock.frozen.replace` copies them as ``dataclasses.replace``.

Built by position or by keyword with the same defaults (a fresh mapping or list each time, where the
dataclass had a factory), equal and hashed by their fields, shown with every field, immutable, picklable;
a lock's validated pylock document is neither compared nor shown, as before.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
from pathlib import Path
from typing import Any

import pytest

from tierlock.admission import Part
from tierlock.environment import Target, current
from tierlock.frozen import Frozen, replace
from tierlock.lockfiles.artifacts import Record
from tierlock.lockfiles.findings import Finding, Report
from tierlock.lockfiles.locks import LocalPackage, Lock, LockedFile, LockEntry, LockHeader, ReadProblem
from tierlock.lockfiles.nobuild import CoverageProblem
from tierlock.lockfiles.requirements import Parsed
from tierlock.tiers import load_project
from tierlock.tiers.model import BASE, Tier


def _entry(version: str = "1.0", **more: Any) -> LockEntry:
    from packaging.utils import canonicalize_name
    from packaging.version import Version

    return LockEntry(canonicalize_name("Alpha"), Version(version), None, ("sha256:" + "a" * 64,), **more)


def _header(**more: Any) -> LockHeader:
    fields: dict[str, Any] = {
        "tier": "base",
        "inputs": ("alpha>=1",),
        "inputs_digest": "sha256:" + "b" * 64,
        "layered_on": None,
        "layered_on_digest": None,
        "body_digest": "sha256:" + "c" * 64,
        "backend": "uv",
        "backend_version": "0.9.0",
        "platform": None,
        "command": "tierlock lock base",
    }
    return LockHeader(**{**fields, **more})


def _tier(name: str = BASE, lockfile: str = "lockfiles/base.txt") -> Tier:
    return Tier(name, "project.dependencies", (), None, (), {}, (), Path(lockfile), False)  # type: ignore[arg-type]


def test_a_lock_entry_is_built_equal_hashed_and_shown_as_the_dataclass_was() -> None:
    one = _entry(line=3)
    same = _entry(line=3)
    assert one == same
    assert hash(one) == hash(same)
    assert one != _entry(line=4)
    assert (one.files, one.url, one.index) == ((), None, None)
    assert repr(one).startswith("LockEntry(name='alpha', version=<Version('1.0')>, marker=None, hashes=(")
    assert repr(one).endswith("line=3, files=(), url=None, index=None)")
    assert pickle.loads(pickle.dumps(one)) == one == copy.deepcopy(one)
    with pytest.raises(AttributeError, match="cannot assign to field 'line'"):
        one.line = 5  # type: ignore[misc]  # the checker refuses it as well


def test_replace_copies_a_value_with_new_fields_and_refuses_an_unknown_one() -> None:
    entry = _entry()
    moved = replace(entry, line=7, url="https://example.invalid/alpha-1.0-py3-none-any.whl")
    assert (moved.line, moved.url, moved.name, moved.hashes) == (7, moved.url, entry.name, entry.hashes)
    assert entry.line is None  # the original is unchanged
    with pytest.raises(TypeError, match="no field 'colour'"):
        replace(entry, colour="red")
    header = _header()
    assert replace(header, body_digest="sha256:" + "d" * 64).body_digest.endswith("d" * 64)
    assert replace(header).extra == {}
    assert replace(header) == header


def test_replace_still_copies_a_dataclass() -> None:
    @dataclasses.dataclass(frozen=True)
    class Point:
        x: int
        y: int = 0

    assert replace(Point(1), y=2) == Point(1, 2)
    with pytest.raises(TypeError):
        replace(Point(1), z=3)


def test_each_value_built_without_a_factory_default_gets_a_fresh_one() -> None:
    first, second = _header(), _header()
    assert first.extra == {}
    assert first.extra is not second.extra
    assert Record("recorded").files == {}
    assert Record("recorded").files is not Record("recorded").files
    parsed = Parsed(None)
    parsed.entries.append(_entry())
    assert Parsed(None).entries == []
    assert CoverageProblem("base", "no-wheel", "f", None, "d", "r").facts == {}
    part = Part("census", "pass")
    assert (part.counts, part.problems, part.remedy, part.brief) == ({}, [], None, None)


def test_a_lock_compares_and_shows_everything_but_its_pylock_document() -> None:
    one = Lock(Path("pylock.base.toml"), "pylock", _header(), (_entry(),), "e" * 64, pylock=object())
    other = Lock(Path("pylock.base.toml"), "pylock", _header(), (_entry(),), "e" * 64, pylock=object())
    assert one == other  # (not hashed: its header's extra table is a dict, as it was)
    assert "pylock=" not in repr(one)
    assert repr(one).startswith("Lock(path=PosixPath('pylock.base.toml'), format='pylock', header=LockHeader(")
    assert one != replace(other, body_digest="sha256:" + "f" * 64)
    assert replace(one, local=()).pylock is one.pylock


def test_a_tier_and_a_project_are_copied_with_their_other_fields_kept(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "demo"\nversion = "1"\ndependencies = ["alpha>=1"]\n'
        '[project.optional-dependencies]\nml = ["beta"]\n[tool.tierlock.tiers.ml]\nprobe = ["beta"]\n'
    )
    project = load_project(tmp_path)
    ml = project.tier("ml")
    moved = replace(ml, lockfile=Path("elsewhere.txt"))
    assert moved.lockfile == Path("elsewhere.txt")
    assert (moved.name, moved.requirements, moved.layered_on) == (ml.name, ml.requirements, ml.layered_on)
    copied = replace(project, tiers={**project.tiers, ml.name: moved})
    assert copied.tier("ml").lockfile == Path("elsewhere.txt")
    assert (copied.root, copied.no_build, copied.platforms) == (project.root, project.no_build, project.platforms)
    assert copied != project
    assert replace(copied, tiers=project.tiers) == project
    assert pickle.loads(pickle.dumps(project)) == project
    with pytest.raises(TypeError):
        hash(project)  # its tiers are a dict, as they were: unhashable
    match ml:
        case Tier(name, source):
            assert (name, source) == ("ml", "extra:ml")
        case _:
            pytest.fail("a tier matches by position")


def test_the_running_interpreter_as_a_target_fills_its_defaults_and_keeps_its_cached_tags() -> None:
    target = current()
    again = replace(target)
    assert again == target
    assert target.ext_suffixes
    assert target.bits in (32, 64)
    assert target.ordered_tags == again.ordered_tags  # a cached property on a frozen value
    assert "ordered_tags" not in repr(target)
    built = Target(
        target.python,
        target.prefix,
        target.base_prefix,
        target.paths,
        target.purelib,
        target.platlib,
        target.stdlib,
        target.marker_env,
        target.platform,
        target.version,
    )
    assert (built.ext_suffixes, built.ext_suffix, built.libc) == (target.ext_suffixes, target.ext_suffix, target.libc)


@pytest.mark.parametrize(
    "value",
    [
        LockedFile("wheel", "alpha-1.0-py3-none-any.whl", None, "wheels/alpha-1.0-py3-none-any.whl", 10, {}),
        LocalPackage("demo", None, Path("."), True),  # type: ignore[arg-type]
        ReadProblem("integrity", 2, "bad hash"),
        Finding("base", "missing", "lockfiles/base.txt", None, "no lockfile", "tierlock lock base"),
        Report((), ("base",), 1, 3),
        _tier(),
    ],
    ids=lambda v: type(v).__name__,
)
def test_every_model_value_is_a_frozen_value_equal_to_its_copy(value: Frozen) -> None:
    assert isinstance(value, Frozen)
    assert replace(value) == value
    assert type(value).__match_args__ == value._fields
    assert repr(value).startswith(type(value).__name__ + "(" + value._fields[0] + "=")
    with pytest.raises(AttributeError, match="cannot assign to field"):
        setattr(value, value._fields[0], None)


def test_replace_names_the_first_unknown_field_and_a_value_needs_every_field() -> None:
    with pytest.raises(TypeError, match="LockEntry has no field 'apple'"):
        replace(_entry(), zebra=1, apple=2)

    class Pair(Frozen):
        _fields = ("a", "b")

        def __init__(self, *values: object) -> None:
            self._init(*values)

    assert Pair(1, 2)._values() == (1, 2)
    with pytest.raises(ValueError, match="zip"):
        Pair(1)
