"""The bundle of byte code (:mod:`tierlock.codebundle`) against what a hostile or unlucky user does: a module is
served from it only when a plain import would load the same file, and a bundle whose bytes are not the ones
written is ignored without an error (the modules come from their files), whatever its entries hold."""

from __future__ import annotations

import _frozen_importlib as _bootstrap
import json
import marshal
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.unit.core.test_code_bundle import (
    MODULES,
    OTHERS,
    SCRIPT,
    _bundle,
    _folders,
    _load,
    _opened,
    _others,
    _run,
    src,  # noqa: F401  (the fixture, used by name)
)
from tierlock import bundleholds, codebundle

#: A minute back (ns): a time older than the file system's clock tick by far.
OLD_NS = time.time_ns() - 60_000_000_000


@pytest.mark.parametrize("where", ["found", "earlier"])
def test_a_folder_of_a_served_modules_name_that_becomes_a_package_is_imported_instead(
    src: Path,  # noqa: F811
    tmp_path: Path,
    where: str,
) -> None:
    earlier, found = _folders(tmp_path, "earlier", "found")
    (found / "plainmodule.py").write_text("VALUE = 1\n", encoding="utf-8")
    (tmp_path / where / "plainmodule").mkdir()  # (a folder of data: the path finder takes the module, not it)
    _others(src, ("plainmodule",), [earlier, found])
    served = _others(src, ("plainmodule",), [earlier, found])
    assert served["values"]["plainmodule"] == 1
    # An __init__.py put in that folder makes it a package the path finder takes first; the folder holding it is
    # unchanged (a file added in a subfolder leaves its parent's time as it was).
    (tmp_path / where / "plainmodule" / "__init__.py").write_text("VALUE = 2\n", encoding="utf-8")
    plain = _run(
        src, OTHERS.replace("FOLDERS", repr([str(earlier), str(found)])).replace("NAMES", "('plainmodule',)"), "-B"
    )
    assert json.loads(plain.stdout)["values"]["plainmodule"] == 2  # (no bundle used: -B writes none, reads it)
    assert _others(src, ("plainmodule",), [earlier, found])["values"]["plainmodule"] == 2


def _spoilt_entry(src: Path, name: str, value: object) -> None:  # noqa: F811
    """The bundle of ``check`` with the entry of *name* replaced by *value* (its stamp and code as written)."""
    bundle = _bundle(src)
    stamp, entries, core, codes = marshal.loads(bundle.read_bytes()[4:])
    entries[name] = value
    bundle.write_bytes(bundle.read_bytes()[:4] + marshal.dumps((stamp, entries, core, codes)))


@pytest.mark.parametrize(
    "value",
    [
        None,
        7,
        ("short",),
        (None, False, 0, 0, (), (), None),
        ("a\0b", False, 0, 0, (), (), None),
        ("/x", False, 0, 0, (None,), (0,), None),
        ("/x", False, 0, 0, 5, (0,), None),
    ],
    ids=["none", "int", "short", "source-none", "source-nul", "folder-none", "folders-int"],
)
def test_a_bundle_entry_of_another_shape_is_ignored_and_the_module_loads_from_its_file(
    src: Path,  # noqa: F811
    value: object,
) -> None:
    _load(src)
    _spoilt_entry(src, "tierlock.tiers.loader", value)
    proc = _run(src, SCRIPT.replace("NAMES", repr(MODULES)))
    assert proc.returncode == 0, proc.stderr
    after = json.loads(proc.stdout)
    assert _opened(after, "tiers", "loader")
    assert "tierlock.tiers.loader" in after["noted"]
    assert _load(src) == {"files": [], "noted": []}  # written again, then used


#: Any value marshal writes (what a bundle's entry may be once its bytes changed).
_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=8)
    | st.binary(max_size=8),
    lambda inner: st.tuples(inner, inner) | st.lists(inner, max_size=8).map(tuple) | st.lists(inner, max_size=3),
    max_leaves=12,
)
_ENTRIES = _VALUES | st.tuples(
    _VALUES | st.text(max_size=8),
    _VALUES | st.booleans(),
    _VALUES | st.integers(),
    _VALUES | st.integers(),
    _VALUES | st.lists(st.text(max_size=8), max_size=3).map(tuple),
    _VALUES | st.lists(st.integers(), max_size=3).map(tuple),
    _VALUES | st.none(),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=_ENTRIES)
def test_any_entry_a_bundle_holds_is_a_refusal_or_a_valid_entry_never_an_error(
    value: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    name = "tierlock.never_a_module"
    with monkeypatch.context() as patch:
        patch.setattr(codebundle, "_entries", {name: value})
        patch.setattr(codebundle, "_core", {name: compile("", "<x>", "exec")})
        patch.setattr(codebundle, "_others", [True])
        patch.setattr(codebundle, "_where", [str(tmp_path / "never-written.bundle")])
        patch.setattr(bundleholds, "_folders", {})
        patch.setattr(bundleholds, "_listed", {})
        spec = codebundle._Finder.find_spec(name, [str(Path(codebundle.__file__).parent)])
        assert spec is None  # (no such module: the entry cannot hold)
        assert bundleholds.holds(value, name) in (True, False)


def test_a_module_put_in_an_earlier_folder_within_its_clock_tick_is_imported_instead(
    src: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    earlier, found = _folders(tmp_path, "earlier", "found")
    (found / "plainmodule.py").write_text("VALUE = 1\n", encoding="utf-8")
    (earlier / "unrelated.py").write_text("", encoding="utf-8")  # (the earlier folder changed just now)
    ticked = earlier.stat().st_mtime_ns
    assert _settled(src, [earlier, found]) == 1
    # A module of its name put in the earlier folder within the same tick of the file system's clock: the folder's
    # modification time does not move (put back as it was, as a coarse clock leaves it).
    (earlier / "plainmodule.py").write_text("VALUE = 2\n", encoding="utf-8")
    os.utime(earlier, ns=(ticked, ticked))
    assert _settled(src, [earlier, found]) == 2


def _settled(src: Path, folders: list[Path]) -> int:  # noqa: F811
    """The value of ``plainmodule`` imported with *folders* first on sys.path, with the bundle's own rule for
    sources and folders modified just now."""
    code = OTHERS.replace("FOLDERS", repr([str(f) for f in folders])).replace("NAMES", "('plainmodule',)")
    proc = _run(src, code, settle=True)
    assert proc.returncode == 0, proc.stderr
    value: int = json.loads(proc.stdout)["values"]["plainmodule"]
    return value


def test_a_source_edited_with_the_same_size_within_its_clock_tick_is_loaded_from_its_file(
    src: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    [found] = _folders(tmp_path, "found")
    source = found / "plainmodule.py"
    source.write_text("VALUE = 1\n", encoding="utf-8")
    os.utime(found, ns=(OLD_NS, OLD_NS))
    ticked = source.stat().st_mtime_ns
    assert _settled(src, [found]) == 1
    source.write_text("VALUE = 2\n", encoding="utf-8")  # (the same size, the time put back: one tick)
    os.utime(source, ns=(ticked, ticked))
    # (the interpreter's own compiled file is as blind to that edit as a bundle would be, by its mtime in seconds:
    # without it, an import with nothing kept reads the source)
    for compiled in (found / "__pycache__").iterdir():
        compiled.unlink()
    assert _settled(src, [found]) == 2


def test_a_module_whose_source_and_folders_are_older_than_the_tick_is_noted_and_then_served(
    src: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    earlier, found = _folders(tmp_path, "earlier", "found")
    (found / "plainmodule.py").write_text("VALUE = 1\n", encoding="utf-8")
    for path in (found / "plainmodule.py", found, earlier):
        os.utime(path, ns=(OLD_NS, OLD_NS))
    code = OTHERS.replace("FOLDERS", repr([str(earlier), str(found)])).replace("NAMES", "('plainmodule',)")
    first = json.loads(_run(src, code, settle=True).stdout)
    assert "plainmodule" in first["noted"]
    second = json.loads(_run(src, code, settle=True).stdout)
    assert (second["files"], second["noted"], second["values"]["plainmodule"]) == ([], [], 1)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=200), magic=st.booleans())
def test_any_bytes_in_a_bundles_place_are_read_without_an_error_and_serve_nothing(
    data: bytes, magic: bool, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from importlib.util import MAGIC_NUMBER

    bundle = tmp_path / "spoilt.bundle"
    bundle.write_bytes((MAGIC_NUMBER if magic else b"") + data)
    with monkeypatch.context() as patch:
        patch.setattr(sys, "meta_path", list(sys.meta_path))
        patch.setattr(codebundle, "path_of", lambda command: str(bundle))
        for name in ("_entries", "_core", "_codes"):
            patch.setattr(codebundle, name, {})
        patch.setattr(codebundle, "_where", [])
        patch.setattr(codebundle, "_others", [])
        patch.setattr(codebundle, "_import_system", [])
        patch.setattr(_bootstrap, "_find_and_load", _bootstrap._find_and_load)  # type: ignore[attr-defined]
        codebundle.install("check")
        assert codebundle._entries == codebundle._core == codebundle._codes == {}


def test_a_bundle_entry_whose_compiled_file_is_of_another_type_is_not_served(src: Path) -> None:  # noqa: F811
    _load(src)
    entries = marshal.loads(_bundle(src).read_bytes()[4:])[1]
    _spoilt_entry(src, "tierlock.tiers.loader", (*entries["tierlock.tiers.loader"][:6], 5))
    after = _load(src)
    assert _opened(after, "tiers", "loader")
    assert "tierlock.tiers.loader" in after["noted"]


#: A module served, whose code is then asked of its loader again (``runpy``, a debugger): read from its file.
AGAIN = """
import _frozen_importlib as _bootstrap
import json
from tierlock import codebundle
codebundle.install("check")
import tierlock.tiers.loader as m
m.__loader__.get_code(m.__name__)
m.__loader__.get_code(m.__name__)
print(json.dumps(sorted(codebundle._noted)))
"""


def test_a_served_modules_code_asked_again_is_read_from_its_file_and_not_noted(src: Path) -> None:  # noqa: F811
    _load(src)
    proc = _run(src, AGAIN)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []
