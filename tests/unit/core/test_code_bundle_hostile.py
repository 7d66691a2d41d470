"""The bundle of byte code (:mod:`tierlock.codebundle`) against what a hostile or unlucky user does: a module is
served from it only when a plain import would load the same file, and a bundle whose bytes are not the ones
written is ignored without an error (the modules come from their files), whatever its entries hold."""

from __future__ import annotations

import json
import marshal
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
from tierlock import codebundle


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
        patch.setattr(codebundle, "_folders", {})
        patch.setattr(codebundle, "_listed", {})
        spec = codebundle._Finder.find_spec(name, [str(Path(codebundle.__file__).parent)])
        assert spec is None  # (no such module: the entry cannot hold)
        assert codebundle._holds(value, name) in (True, False)
