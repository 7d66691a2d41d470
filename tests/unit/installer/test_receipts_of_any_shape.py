"""A receipt of any shape is read without an exception: as none by the full path, as a reason by the fast path.

A receipt is tierlock's own JSON file in the target, but a target is a folder anyone can write: a receipt edited
by hand, merged by a tool, or cut short. Any JSON value put in place of any part of a real receipt (a table, a
package, a file's row, a size) leaves the no-op fast path with a reason to take the full way (never an exception)
and the full path's reader with a receipt whose every property reads, or none.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.shapes import put
from tests.support.venvshape import armed, project
from tierlock.installer import fastpath, receipts

_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**12) | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
) | st.sampled_from(["a\x00b", ["a\x00b", 6], [["x", "6"]], [[1, 2]], [["x"]], [True], {"digest": 1}])

#: Where in a receipt a value is put: a top-level key, a package's key, a file row, a row's path or size.
_PLACES = st.sampled_from(
    [
        ("tier",),
        ("lockfiles",),
        ("lockfiles", "brain"),
        ("pyproject",),
        ("interpreter",),
        ("backend",),
        ("packages",),
        ("packages", 0),
        ("packages", 0, "files"),
        ("packages", 0, "files", 0),
        ("packages", 0, "files", 0, 0),
        ("packages", 0, "files", 0, 1),
        ("packages", 0, "name"),
        ("packages", 0, "site"),
        ("left_out",),
        ("stale",),
    ]
)


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, Any]]:
    root = project(tmp_path_factory.mktemp("proj") / "p")
    venv = tmp_path_factory.mktemp("venv") / "v"
    armed(venv, root)
    document = json.loads(receipts.receipt_path(venv, "brain").read_text(encoding="utf-8"))
    return venv, root, document


def _noop(venv: Path, root: Path) -> tuple[fastpath.NoOp | None, str]:
    return fastpath.try_noop(["brain"], project_arg=str(root), python=str(venv), system=False)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(place=_PLACES, value=_VALUES)
def test_any_value_anywhere_in_a_receipt_is_a_reason_or_no_receipt_never_an_exception(
    env: tuple[Path, Path, dict[str, Any]], place: tuple[str | int, ...], value: object
) -> None:
    venv, root, document = env
    path = receipts.receipt_path(venv, "brain")
    path.write_text(json.dumps(put(document, place, value)), encoding="utf-8")
    try:
        noop, why = _noop(venv, root)
        assert noop is not None or why
        read = receipts.load(path)
        if read is not None:  # every property a reader takes apart reads
            assert isinstance((read.tier, read.lockfiles, read.lockfile_paths, read.pyproject), tuple)
            assert isinstance((read.packages, read.package_names, read.backend, read.installed_at), tuple)
            receipts.recorded_paths(venv, [read])
    finally:
        path.write_text(json.dumps(document), encoding="utf-8")


def test_a_file_row_naming_a_nul_byte_sends_the_fast_path_the_full_way_and_the_full_path_reads_the_rest(
    env: tuple[Path, Path, dict[str, Any]],
) -> None:
    venv, root, document = env
    path = receipts.receipt_path(venv, "brain")
    path.write_text(json.dumps(put(document, ("packages", 0, "files", 0, 0), "a\x00b")), encoding="utf-8")
    try:
        noop, why = _noop(venv, root)
        assert noop is None
        assert why == "a receipt could not be read: embedded null byte", why
        read = receipts.load(path)
        assert read is not None
        assert all("\x00" not in p for p in receipts.recorded_paths(venv, [read]))
    finally:
        path.write_text(json.dumps(document), encoding="utf-8")
    assert _noop(venv, root)[0] is not None
