"""The smaller answers of :mod:`tierlock.installer.lockload`: the way past two tiers whose locks disagree
(``way_out``, with and without ``--armed``), the file name of what ``Pylock.select`` chose, the index options a
project's own lock names, and a pylock chosen by the target's own ordered tags."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from types import SimpleNamespace

import pytest
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.support.targets import a_target
from tierlock.installer import receipts
from tierlock.installer.lockload import _filename, index_lines, selected, way_out
from tierlock.installer.request import Request
from tierlock.lockfiles.locks import LockEntry


def _receipt(prefix: Path, tier: str, *, stale: bool) -> None:
    document: dict[str, object] = {"schema": receipts.SCHEMA, "tier": tier}
    if stale:
        document["stale"] = {"replaced_by": ["other"], "packages": ["shared"]}
    path = receipts.receipt_path(prefix, tier)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document), encoding="utf-8")


def test_without_armed_the_way_out_arms_the_first_tier_alone_with_the_same_target_options(tmp_path: Path) -> None:
    target = a_target(tmp_path)
    assert way_out("brain", "gpu", target, None) == "install-tier brain"
    request = Request(("brain", "gpu"), python="/opt/py 3/bin/python", system=False, backend="pip")
    expected = "install-tier brain --python '/opt/py 3/bin/python' --backend pip"
    assert way_out("brain", "gpu", target, request) == expected
    assert way_out("gpu", "brain", target, Request(("brain", "gpu"), system=True)) == "install-tier gpu --system"


def test_with_armed_the_tier_marked_stale_is_removed_first_then_the_rest_is_armed_again(tmp_path: Path) -> None:
    target = a_target(tmp_path)
    _receipt(tmp_path, "brain", stale=False)
    _receipt(tmp_path, "gpu", stale=True)
    request = Request(("brain", "gpu"), armed=True)
    assert way_out("brain", "gpu", target, request) == "tierlock remove gpu && install-tier brain --armed"
    assert way_out("gpu", "brain", target, request) == "tierlock remove gpu && install-tier brain --armed"


def test_with_armed_and_nothing_stale_a_tier_not_named_is_removed_before_a_named_one(tmp_path: Path) -> None:
    target = a_target(tmp_path)
    _receipt(tmp_path, "brain", stale=False)
    _receipt(tmp_path, "gpu", stale=False)
    request = Request(("brain",), python="/venv/bin/python", system=False, armed=True)
    expected = "tierlock remove gpu --python /venv/bin/python && install-tier brain --python /venv/bin/python --armed"
    assert way_out("brain", "gpu", target, request) == expected
    assert way_out("gpu", "brain", target, request) == expected


def test_with_armed_both_named_and_nothing_stale_the_second_is_removed(tmp_path: Path) -> None:
    target = a_target(tmp_path)
    request = Request(("brain", "gpu", "docs"), system=True, armed=True)
    command = way_out("brain", "gpu", target, request)
    assert command == "tierlock remove gpu --system && install-tier brain docs --system --armed"
    first, _, again = command.partition(" && ")
    assert shlex.split(first) == ["tierlock", "remove", "gpu", "--system"]
    assert "gpu" not in shlex.split(again)


@pytest.mark.parametrize(
    ("file", "name"),
    [
        (SimpleNamespace(filename="a-1.0-py3-none-any.whl"), "a-1.0-py3-none-any.whl"),
        (SimpleNamespace(url="https://files.example/x/a-1.0.tar.gz#sha256=ab"), "a-1.0.tar.gz"),
        (SimpleNamespace(url="https://files.example/x/a-1.0.tar.gz/"), "a-1.0.tar.gz"),
        (SimpleNamespace(url=None, path="wheels/b-2.0-py3-none-any.whl"), "b-2.0-py3-none-any.whl"),
        (SimpleNamespace(url="", path="/abs/c-3.0.zip#egg=c"), "c-3.0.zip"),
        (SimpleNamespace(url=None, path=None), None),
        (SimpleNamespace(filename=None, url="https://files.example/"), "files.example"),
        (SimpleNamespace(), None),
    ],
)
def test_the_chosen_files_name_is_its_own_else_the_last_part_of_its_url_or_path(file: object, name: str | None) -> None:
    assert _filename(file) == name


def _entry(name: str, *, index: str | None = None, url: str | None = None) -> LockEntry:
    return LockEntry(canonicalize_name(name), Version("1.0"), None, ("sha256:" + "a" * 64,), url=url, index=index)


def test_entries_that_name_no_registry_add_no_index_option_even_when_each_is_a_direct_reference() -> None:
    assert index_lines([]) == ()
    assert index_lines([_entry("a"), _entry("b")]) == ()
    assert index_lines([_entry("a", url="https://files.example/a-1.0-py3-none-any.whl")]) == ()


def test_only_local_folders_named_mean_no_index_and_each_folder_once() -> None:
    entries = [_entry("a", index="/w/one"), _entry("b", index="/w/two"), _entry("c", index="/w/one")]
    assert index_lines(entries) == ("--no-index", "--find-links /w/one", "--find-links /w/two")
    with_direct = [*entries, _entry("d", url="file:///w/d-1.0-py3-none-any.whl")]
    assert index_lines(with_direct) == ("--no-index", "--find-links /w/one", "--find-links /w/two")


def test_a_registry_or_an_entry_from_anywhere_keeps_the_installers_own_index() -> None:
    assert index_lines([_entry("a", index="/w/one"), _entry("b")]) == ("--find-links /w/one",)
    assert index_lines([_entry("a", index="https://pypi.org/simple")]) == ()
    assert index_lines([_entry("a", index="https://pypi.org/simple/"), _entry("b", index="/w")]) == ("--find-links /w",)
    assert index_lines([_entry("a", index="https://mirror.example/simple")]) == (
        "--extra-index-url https://mirror.example/simple",
    )


PYLOCK = """\
lock-version = "1.0"
created-by = "tierlock-tests"

[[packages]]
name = "native"
version = "1.0"

[[packages.wheels]]
name = "native-1.0-py3-none-any.whl"
url = "https://files.example/native-1.0-py3-none-any.whl"
hashes = {sha256 = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}

[[packages.wheels]]
name = "native-1.0-cp311-cp311-manylinux_2_17_x86_64.whl"
url = "https://files.example/native-1.0-cp311-cp311-manylinux_2_17_x86_64.whl"
hashes = {sha256 = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}
"""


def test_a_pylock_wheel_is_chosen_by_the_targets_own_tags_most_preferred_first(tmp_path: Path) -> None:
    from tierlock.lockfiles import read

    path = tmp_path / "pylock.brain.toml"
    path.write_text(PYLOCK, encoding="utf-8")
    lock = read(path).lock
    compiled = "cp311-cp311-manylinux_2_17_x86_64"
    target = a_target(tmp_path)
    object.__setattr__(target, "ordered_tags", (compiled, "py3-none-any"))
    (entry,) = selected(lock, target)
    assert [f.filename for f in entry.files] == [f"native-1.0-{compiled}.whl"]
    assert entry.hashes == ("sha256:" + "a" * 64,)
    object.__setattr__(target, "ordered_tags", ("cp312-cp312-manylinux_2_17_x86_64", "py3-none-any"))
    (entry,) = selected(lock, target)
    assert [f.filename for f in entry.files] == ["native-1.0-py3-none-any.whl"]
