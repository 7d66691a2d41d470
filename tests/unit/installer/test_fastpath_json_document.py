"""What the no-op fast path prints: the line, and a ``--json`` document shaped like a full install's.

Also: the fast path reads JSON and hashes files without the heavy parts of the standard library,
and falls back to them where its C shortcuts are missing (another Python, another build) with the
same answers.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from tests.support.venvshape import armed, project
from tierlock.installer import fastpath
from tierlock.installer.location import environment_key
from tierlock.installer.run import Outcome


def _noop(tmp_path: Path) -> fastpath.NoOp:
    root = project(tmp_path / "proj")
    armed(tmp_path / "venv", root)
    noop, why = fastpath.check(
        ["brain", "Brain"], tmp_path / "venv", environment_key(tmp_path / "venv"), root / "pyproject.toml"
    )
    assert noop is not None, why
    return noop


def test_the_json_document_of_a_noop_lists_every_package_as_satisfied_by_its_receipt(tmp_path: Path) -> None:
    noop = _noop(tmp_path)
    assert fastpath.to_json(noop, 0.123456) == {
        "ok": True,
        "tier": "brain",
        "tiers": ["brain"],
        "result": "unchanged",
        "target": str(tmp_path / "venv"),
        "package_count": 1,
        "counts": {"install": 0, "replace": 0, "repair": 0, "satisfied": 1},
        "packages": {
            "install": [],
            "replace": [],
            "repair": [],
            "satisfied": [{"name": "pkg", "version": "1.0", "installed_version": "1.0", "reason": "receipt verified"}],
        },
        "files_checked": 3,
        "backend": None,
        "backend_version": None,
        "backend_s": None,
        "waited_for_lock": False,
        "receipts": [],
        "leftovers_cleared": [],
        "local_packages": [],
        "duration_s": 0.1235,  # seconds, to the tenth of a millisecond, like a full install's
    }
    full = Outcome(["brain"], "unchanged", str(tmp_path / "venv"), 1, duration=0.123456).to_json()
    assert full.keys() == fastpath.to_json(noop, 0.123456).keys()
    assert full["duration_s"] == 0.1235


def test_the_line_of_a_noop_names_the_tiers_and_what_was_checked(tmp_path: Path) -> None:
    noop = _noop(tmp_path)
    assert fastpath.summary(noop) == (
        "brain: already present (1 package(s), 3 file(s) checked against the receipt); nothing to do"
    )


def test_without_its_c_shortcuts_the_fast_path_reads_and_hashes_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(b'{"a": [1, 2.5, "\\u00e9", null, true]}\n')
    expected = ("sha256:" + hashlib.sha256(path.read_bytes()).hexdigest(), {"a": [1, 2.5, "é", None, True]})
    assert (fastpath.digest(str(path)), fastpath.loads(path.read_text(encoding="utf-8"))) == expected
    for module in ("_sha256", "_sha2", "_json"):
        monkeypatch.setitem(sys.modules, module, None)  # as on an interpreter built without it: ImportError
    monkeypatch.delitem(sys.modules, "tierlock.fasthash")  # (imported again: its fallback taken)
    assert (fastpath.digest(str(path)), fastpath.loads(path.read_text(encoding="utf-8"))) == expected
    with pytest.raises(json.JSONDecodeError):
        fastpath.loads("{ not json")
