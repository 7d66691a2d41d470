"""The install plan is a pure function: locked entries x installed facts -> actions."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.utils import canonicalize_name
from packaging.version import Version

from tierlock.installer.plan import (
    ConflictingPins,
    Installed,
    State,
    make_plan,
    merge_entries,
    requirement_lines,
)
from tierlock.lockfiles.locks import LockedFile, LockEntry

HASH = "sha256:" + "a" * 64


def entry(name: str, version: str, *, files: tuple[LockedFile, ...] = ()) -> LockEntry:
    return LockEntry(canonicalize_name(name), Version(version), None, (HASH,) if not files else (), files=files)


def found(name: str, version: str | None, state: State = "present", *reasons: str) -> Installed:
    return Installed(canonicalize_name(name), Version(version) if version else None, state, reasons)


def test_plan_decides_install_replace_repair_and_satisfied_per_package() -> None:
    entries = [entry("numpy", "2.1.0"), entry("attrs", "24.2"), entry("scipy", "1.14"), entry("tqdm", "4.66")]
    installed = {
        canonicalize_name("attrs"): found("attrs", "23.1"),
        canonicalize_name("numpy"): found("numpy", "2.1.0", "partial", "numpy/_core/_multiarray_umath.so is missing"),
        canonicalize_name("tqdm"): found("tqdm", "4.66"),
    }
    plan = make_plan(entries, installed)
    actions = {s.name: s.action for s in plan.steps}
    assert actions == {"attrs": "replace", "numpy": "repair", "scipy": "install", "tqdm": "satisfied"}
    assert [s.name for s in plan.steps] == ["attrs", "numpy", "scipy", "tqdm"]
    assert "23.1 installed, 24.2 locked" in plan.of("replace")[0].reason
    assert "_multiarray_umath" in plan.of("repair")[0].reason
    assert plan.counts() == {"install": 1, "replace": 1, "repair": 1, "satisfied": 1}
    assert not plan.is_noop


def test_plan_with_everything_present_is_a_noop() -> None:
    entries = [entry("a", "1"), entry("b", "2")]
    plan = make_plan(entries, {e.name: found(e.name, str(e.version)) for e in entries})
    assert plan.is_noop
    assert plan.changes == []


def test_a_husk_without_a_version_is_repaired_and_an_absent_verdict_is_installed() -> None:
    entries = [entry("a", "1"), entry("b", "1")]
    plan = make_plan(
        entries,
        {
            entry("a", "1").name: found("a", None, "partial", "METADATA missing"),
            entry("b", "1").name: found("b", None, "absent"),
        },
    )
    assert [(s.name, s.action) for s in plan.steps] == [("a", "repair"), ("b", "install")]
    assert plan.steps[0].reason == "METADATA missing"


def test_an_editable_install_of_the_locked_version_is_kept_and_of_another_version_replaced() -> None:
    plan = make_plan(
        [entry("lib", "1.0"), entry("other", "2.0")],
        {
            canonicalize_name("lib"): found("lib", "1.0", "present-editable"),
            canonicalize_name("other"): found("other", "1.5", "present-editable"),
        },
    )
    assert [(s.name, s.action) for s in plan.steps] == [("lib", "satisfied"), ("other", "replace")]


def test_a_local_version_label_is_another_version() -> None:
    plan = make_plan([entry("torch", "2.4.0+cu121")], {canonicalize_name("torch"): found("torch", "2.4.0")})
    assert plan.steps[0].action == "replace"


def test_merge_keeps_one_entry_per_identical_pin_and_refuses_conflicting_pins() -> None:
    merged = merge_entries([("test", [entry("a", "1"), entry("b", "1")]), ("lint", [entry("b", "1"), entry("c", "3")])])
    assert [e.name for e in merged] == ["a", "b", "c"]
    with pytest.raises(ConflictingPins, match="b is pinned to 1 by test and to 2 by lint"):
        merge_entries([("test", [entry("b", "1")]), ("lint", [entry("b", "2")])])


def test_requirement_lines_are_exact_pins_with_every_hash() -> None:
    e = LockEntry(canonicalize_name("Foo_Bar"), Version("1.0"), None, (HASH, "sha256:" + "b" * 64))
    plan = make_plan([e], {})
    (line,) = requirement_lines(plan.changes)
    assert line.splitlines()[0] == "foo-bar==1.0 \\"
    assert f"--hash={HASH}" in line
    assert "--hash=sha256:" + "b" * 64 in line


def test_a_direct_reference_of_the_lock_is_installed_from_its_url_with_its_hash() -> None:
    url = "https://files.example/wheels/foo-1.0-py3-none-any.whl"
    e = LockEntry(canonicalize_name("foo"), Version("1.0"), None, (HASH,), url=url)
    (line,) = requirement_lines(make_plan([e], {}).changes)
    assert line.splitlines()[0] == f"foo @ {url} \\"
    assert f"--hash={HASH}" in line


PYLOCK = """\
lock-version = "1.0"
created-by = "tierlock-tests"
requires-python = ">=3.11"

[[packages]]
name = "native"
version = "1.0"

[[packages.wheels]]
name = "native-1.0-cp311-cp311-win_amd64.whl"
url = "https://files.example/native-1.0-cp311-cp311-win_amd64.whl"
hashes = {sha256 = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}

[[packages.wheels]]
name = "native-1.0-py3-none-any.whl"
url = "https://files.example/native-1.0-py3-none-any.whl"
hashes = {sha256 = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"}
"""


def test_pylock_files_are_chosen_by_pylock_select_and_only_the_chosen_hash_is_kept(tmp_path: Path) -> None:
    from tierlock import environment
    from tierlock.installer.lockload import selected
    from tierlock.lockfiles import read

    path = tmp_path / "pylock.brain.toml"
    path.write_text(PYLOCK, encoding="utf-8")
    lock = read(path).lock
    assert lock.pylock is not None
    (entry,) = selected(lock, environment.current())
    assert [f.filename for f in entry.files] == ["native-1.0-py3-none-any.whl"]
    assert entry.hashes == ("sha256:" + "b" * 64,)
    (line,) = requirement_lines(make_plan([entry], {}).changes)
    assert "a" * 64 not in line


def test_a_pylock_with_no_file_for_the_target_is_refused_naming_the_platform(tmp_path: Path) -> None:
    from tierlock import environment
    from tierlock.errors import UsageError
    from tierlock.installer.lockload import selected
    from tierlock.lockfiles import read

    path = tmp_path / "pylock.brain.toml"
    path.write_text(PYLOCK.replace("py3-none-any", "cp311-cp311-macosx_11_0_arm64"), encoding="utf-8")
    target = environment.current()
    with pytest.raises(UsageError) as exc:
        selected(read(path).lock, target)
    assert target.platform in exc.value.message
    assert "nothing was installed" in exc.value.message


def test_forcing_turns_only_the_named_satisfied_steps_into_repairs() -> None:
    entries = [entry("a", "1.0"), entry("b", "1.0"), entry("c", "2.0")]
    plan = make_plan(entries, {e.name: found(e.name, "1.0") for e in entries})
    assert [s.action for s in plan.steps] == ["satisfied", "satisfied", "replace"]
    forced = plan.forced({"b", "c"})
    assert [(s.action, s.reason) for s in forced.steps] == [
        ("satisfied", "present"),
        ("repair", "reinstall requested"),
        ("replace", "1.0 installed, 2.0 locked"),
    ]
    assert plan.forced(set()) is plan
