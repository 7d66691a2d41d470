"""Receipts, the no-op fast path, the environment lock and target refusal - on real files, no installs."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import threading
import time
from pathlib import Path

import pytest
from packaging.utils import canonicalize_name
from packaging.version import Version

import tierlock
from tests.support.binaries import loadable_stub
from tierlock.environment import Target
from tierlock.errors import UsageError
from tierlock.installer import fastpath, inventory, receiptfiles, receipts
from tierlock.installer.location import environment_key
from tierlock.installer.locking import environment_lock, lock_path
from tierlock.installer.preflight import refuse_target
from tierlock.lockfiles.locks import LockEntry
from tierlock.probing import probe_distribution


def fake_env(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A folder laid out like a venv with one installed distribution (files only)."""
    prefix = tmp_path / "venv"
    site = prefix / "lib" / "python3.11" / "site-packages"
    (site / "pkg").mkdir(parents=True)
    (site / "pkg" / "__init__.py").write_text("x = 1\n")
    (site / "pkg" / "_core.so").write_bytes(loadable_stub(64))  # an ELF header of this interpreter's, and zeros
    dist = site / "pkg-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Name: pkg\nVersion: 1.0\n")
    (dist / "INSTALLER").write_text("pip\n")
    (dist / "RECORD").write_text(
        "pkg/__init__.py,sha256=x,6\npkg/_core.so,sha256=y,64\npkg/__pycache__/__init__.cpython-311.pyc,,\n"
        "pkg-1.0.dist-info/METADATA,sha256=z,23\npkg-1.0.dist-info/INSTALLER,,\npkg-1.0.dist-info/RECORD,,\n"
    )
    (prefix / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (prefix / "bin").mkdir()
    (prefix / "bin" / "python").symlink_to(sys.executable)  # like a venv's: a link to the base interpreter
    project = tmp_path / "proj"
    (project / "lockfiles").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[project]\nname = "p"\n')
    (project / "lockfiles" / "brain.txt").write_text("pkg==1.0 --hash=sha256:" + "a" * 64 + "\n")
    return prefix, site, project


def recorded(prefix: Path, site: Path) -> receipts.InstalledDist:
    """What the installer records of pkg: from the probe that verified it (RECORD read once, by the probe)."""
    entry = LockEntry(canonicalize_name("pkg"), Version("1.0"), None, ("sha256:" + "a" * 64,))
    probe = probe_distribution("pkg", paths=[site])
    (dist,) = inventory.dists_of([entry], {entry.name: probe}, prefix)
    return dist


def write_receipt(prefix: Path, site: Path, project: Path) -> receipts.Receipt:
    dist = recorded(prefix, site)
    lockfile = project / "lockfiles" / "brain.txt"
    doc = receipts.build(
        tier="brain",
        pyproject=(str(project / "pyproject.toml"), receipts.file_digest(project / "pyproject.toml")),
        lockfiles={"brain": (str(lockfile), receipts.file_digest(lockfile))},
        packages=[dist],
        backend="uv",
        backend_version="0.0",
        interpreter={"executable": str(prefix / "bin" / "python"), "environment": environment_key(prefix)},
        project=str(project),
        tierlock_version=tierlock.__version__,
    )
    path = receipts.write(prefix, doc)
    receipt = receipts.load(path)
    assert receipt is not None
    return receipt


def test_record_sizes_are_read_and_pyc_and_sizeless_rows_left_out_and_record_itself_kept_with_its_size(
    tmp_path: Path,
) -> None:
    prefix, site, _ = fake_env(tmp_path)
    files = recorded(prefix, site).files
    record = site / "pkg-1.0.dist-info" / "RECORD"
    assert files == (
        ("pkg/__init__.py", 6),
        ("pkg/_core.so", 64, (site / "pkg" / "_core.so").stat().st_mtime_ns),  # a shared object: when it was written
        ("pkg-1.0.dist-info/METADATA", 23),
        ("pkg-1.0.dist-info/RECORD", record.stat().st_size),
    )


def test_a_receipt_is_written_atomically_inside_the_environment_and_read_back(tmp_path: Path) -> None:
    prefix, site, project = fake_env(tmp_path)
    receipt = write_receipt(prefix, site, project)
    assert receipt.path == prefix / "tierlock" / "receipts" / "brain.json"
    assert [p.name for p in receipt.path.parent.iterdir()] == ["brain.json"]  # no temporary left behind
    assert receipt.package_names == {"pkg"}
    assert receipt.data["file_count"] == 4
    assert receipts.load_all(prefix).keys() == {"brain"}


def test_a_new_receipt_is_readable_by_every_user_of_the_environment(tmp_path: Path) -> None:
    # An image built as root, run as another user: the fast path and `status` must still read the receipt.
    prefix, site, project = fake_env(tmp_path)
    previous = os.umask(0o022)
    try:
        receipt = write_receipt(prefix, site, project)
    finally:
        os.umask(previous)
    assert stat.S_IMODE(receipt.path.stat().st_mode) == 0o644


def test_an_unreadable_receipt_counts_as_none(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text("{ not json")
    assert receipts.load(path) is None
    path.write_text('{"schema": 99}')
    assert receipts.load(path) is None


def test_the_fast_path_holds_until_a_file_is_deleted_or_resized(tmp_path: Path) -> None:
    prefix, site, project = fake_env(tmp_path)
    write_receipt(prefix, site, project)
    exe = environment_key(prefix)
    noop, why = fastpath.check(["brain"], prefix, exe, project / "pyproject.toml")
    assert noop is not None, why
    assert (noop.packages, noop.files) == (1, 4)

    (site / "pkg" / "__init__.py").write_text("x = 12\n")
    noop, why = fastpath.check(["brain"], prefix, exe, project / "pyproject.toml")
    assert noop is None
    assert "pkg/__init__.py changed size" in why

    (site / "pkg" / "__init__.py").write_text("x = 1\n")
    (site / "pkg" / "_core.so").unlink()
    noop, why = fastpath.check(["brain"], prefix, exe, project / "pyproject.toml")
    assert noop is None
    assert "pkg/_core.so is missing" in why


@pytest.mark.parametrize("changed", ["pyproject.toml", "lockfiles/brain.txt"])
def test_the_fast_path_steps_aside_when_the_declaration_or_the_lock_changed(tmp_path: Path, changed: str) -> None:
    prefix, site, project = fake_env(tmp_path)
    write_receipt(prefix, site, project)
    with (project / changed).open("a") as handle:
        handle.write("# edited\n")
    noop, why = fastpath.check(["brain"], prefix, environment_key(prefix), project / "pyproject.toml")
    assert noop is None
    assert "changed since brain was installed" in why


def test_the_fast_path_steps_aside_for_another_interpreter_or_a_missing_receipt(tmp_path: Path) -> None:
    prefix, site, project = fake_env(tmp_path)
    write_receipt(prefix, site, project)
    noop, why = fastpath.check(["brain"], prefix, "/elsewhere", project / "pyproject.toml")
    assert noop is None
    assert "written for" in why
    noop, why = fastpath.check(["gpu"], prefix, environment_key(prefix), project / "pyproject.toml")
    assert noop is None
    assert "no receipt for gpu" in why


def test_quick_target_guesses_only_virtual_environments(tmp_path: Path) -> None:
    prefix, _, _ = fake_env(tmp_path)
    assert fastpath.quick_target(str(prefix), system=False) == (str(prefix), environment_key(prefix))
    assert fastpath.quick_target(str(tmp_path / "bin" / "python"), system=False) is None


def test_a_second_holder_of_the_environment_lock_waits_and_says_so(tmp_path: Path) -> None:
    notes: list[str] = []
    order: list[str] = []

    def second() -> None:
        with environment_lock(tmp_path, on_wait=notes.append) as waited:
            order.append(f"second waited={waited}")

    with environment_lock(tmp_path, on_wait=notes.append) as waited:
        assert not waited
        thread = threading.Thread(target=second)
        thread.start()
        deadline = time.monotonic() + 30
        while not notes and time.monotonic() < deadline:
            time.sleep(0.01)
        order.append("first done")
    thread.join(30)
    assert order == ["first done", "second waited=True"]
    assert notes[0].startswith(f"waiting for another tierlock install into {tmp_path}")
    assert lock_path(tmp_path).is_file()


def test_an_environment_tierlock_cannot_write_into_is_a_clear_error_not_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "tierlock").write_text("a file where the folder should be\n")
    lock = environment_lock(tmp_path, on_wait=print)
    with pytest.raises(UsageError, match=r"cannot write into the environment .*; nothing was changed") as info:
        lock.__enter__()
    assert "owns the environment" in (info.value.remedy or "")


def target(tmp_path: Path, *, venv: bool, managed: bool = False) -> Target:
    stdlib = tmp_path / "lib" / "python3.11"
    stdlib.mkdir(parents=True, exist_ok=True)
    if managed:
        (stdlib / "EXTERNALLY-MANAGED").write_text("[externally-managed]\nError=use apt\n")
    prefix = tmp_path / ("venv" if venv else "usr")
    return Target(
        python=prefix / "bin" / "python",
        prefix=prefix,
        base_prefix=tmp_path / "usr",
        paths=(),
        purelib=prefix,
        platlib=prefix,
        stdlib=stdlib,
        marker_env={},
        platform="linux-x86_64",
        version=(3, 11, 7),
    )


def test_an_externally_managed_interpreter_is_refused_even_with_system(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="externally managed Python \\(PEP 668"):
        refuse_target(target(tmp_path, venv=False, managed=True), system=True)


def test_an_externally_managed_refusal_quotes_the_distributors_reason(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as info:
        refuse_target(target(tmp_path, venv=False, managed=True), system=False)
    assert "EXTERNALLY-MANAGED: use apt)" in info.value.message
    marker = tmp_path / "lib" / "python3.11" / "EXTERNALLY-MANAGED"
    marker.write_text("not an ini file at all\n")
    with pytest.raises(UsageError, match=r"EXTERNALLY-MANAGED\); tierlock will not install"):
        refuse_target(target(tmp_path, venv=False, managed=False), system=True)


def test_a_non_venv_interpreter_needs_system(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not a virtual environment") as info:
        refuse_target(target(tmp_path, venv=False), system=False)
    assert "--system" in (info.value.remedy or "")
    refuse_target(target(tmp_path, venv=False), system=True)
    refuse_target(target(tmp_path, venv=True), system=False)


def test_the_fast_paths_json_reader_and_digest_agree_with_the_standard_library(tmp_path: Path) -> None:
    prefix, site, project = fake_env(tmp_path)
    receipt = write_receipt(prefix, site, project)
    text = receipt.path.read_text(encoding="utf-8")
    assert fastpath.loads(text) == json.loads(text)
    assert fastpath.loads(' {"a": [1, 2.5, "\\u00e9", null, true]} \n') == {"a": [1, 2.5, "é", None, True]}
    for bad in ("{ not json", '{"a": 1} trailing', '{"a": NaN}'):
        with pytest.raises(ValueError):  # noqa: PT011 - any ValueError: the fast path then steps aside
            fastpath.loads(bad)
    lockfile = project / "lockfiles" / "brain.txt"
    assert fastpath.digest(str(lockfile)) == "sha256:" + hashlib.sha256(lockfile.read_bytes()).hexdigest()


def test_the_fast_path_steps_aside_for_a_receipt_written_by_another_tierlock_version(tmp_path: Path) -> None:
    prefix, site, project = fake_env(tmp_path)
    receipt = write_receipt(prefix, site, project)
    doc = json.loads(receipt.path.read_text(encoding="utf-8"))
    doc["tierlock_version"] = "0.0.1"
    receipt.path.write_text(json.dumps(doc), encoding="utf-8")
    noop, why = fastpath.check(["brain"], prefix, environment_key(prefix), project / "pyproject.toml")
    assert noop is None
    assert "installed by tierlock 0.0.1" in why


def test_tier_names_are_normalized_like_packaging_does() -> None:
    from packaging.utils import canonicalize_name

    for name in ("Brain", "my_tier", "a.-_b", "GPU--Fast", "x"):
        assert receiptfiles.canonical(name) == canonicalize_name(name)


def test_a_receipt_of_an_unexpected_shape_sends_the_fast_path_the_full_way(tmp_path: Path) -> None:
    prefix, site, project = fake_env(tmp_path)
    receipt = write_receipt(prefix, site, project)
    noop, why = fastpath.try_noop(["brain"], project_arg=str(project), python=str(prefix), system=False)
    assert noop is not None, why
    doc = json.loads(receipt.path.read_text(encoding="utf-8"))
    doc["packages"][0]["files"] = [["pkg/__init__.py"]]
    receipt.path.write_text(json.dumps(doc), encoding="utf-8")
    noop, why = fastpath.try_noop(["brain"], project_arg=str(project), python=str(prefix), system=False)
    assert noop is None
    assert "could not be read" in why
