"""A helper module of the project's whose import fails without a tier, imported by a test file that skips on it.

``helpers = pytest.importorskip("tests.helpers")`` or ``try: from tests import helpers; HAS = True except ImportError:
HAS = False`` with ``skipif(not HAS)``, where ``tests/helpers.py`` imports ``dask`` at its top: the census followed a
test file's plain imports of the project's modules only (an importorskip was read by its name's root, ``tests``, and
a try flag by the package ``from`` names, not the module imported from it), so the test file needed nothing and a
strict run went green. Now both stand for what the helper module's import needs. A helper that guards its own import
of dask (and so imports without it) makes nothing of it needed: its skips are not dask's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.censusfiles import write
from tierlock.census import CensusTier, census

DASK = CensusTier("parallel", ("dask",), ("tests/parallel/**",))

NEEDY = "import dask\n\n\ndef frame():\n    return dask\n"
GUARDED = "try:\n    import dask\nexcept ImportError:\n    dask = None\n\n\ndef frame():\n    return dask\n"

#: Each shape: the test file's head and the test's decorator.
SHAPES = {
    "importorskip": ('helpers = pytest.importorskip("tests.helpers")', ""),
    "try-flag-of-the-submodule": (
        "try:\n    from tests import helpers\n    HAS = True\nexcept ImportError:\n    HAS = False",
        '@pytest.mark.skipif(not HAS, reason="helpers unavailable")',
    ),
    "try-flag-of-a-name": (
        "try:\n    from tests.helpers import frame\n    HAS = True\nexcept ImportError:\n    HAS = False",
        '@pytest.mark.skipif(not HAS, reason="helpers unavailable")',
    ),
    "try-flag-relative": (
        "try:\n    from . import helpers\n    HAS = True\nexcept ImportError:\n    HAS = False",
        '@pytest.mark.skipif(not HAS, reason="helpers unavailable")',
    ),
    "try-flag-none": (
        "try:\n    from tests import helpers\nexcept ImportError:\n    helpers = None",
        '@pytest.mark.skipif(helpers is None, reason="helpers unavailable")',
    ),
    "try-skip-module": (
        "try:\n    from tests import helpers\nexcept ImportError:\n    pytest.skip('none', allow_module_level=True)",
        "",
    ),
}


def needing(root: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for use in census(root, [DASK]).tier("parallel").outside:
        out.setdefault(use.file, []).append(str(use.test))
    return {k: sorted(set(v)) for k, v in sorted(out.items())}


def _write(root: Path, helper: str, shape: str) -> None:
    head, decorator = SHAPES[shape]
    write(root, "tests/__init__.py", "")
    write(root, "tests/helpers.py", helper)
    write(root, "tests/test_x.py", f"import pytest\n{head}\n\n\n{decorator}\ndef test_a():\n    pass\n")


@pytest.mark.parametrize("shape", SHAPES)
def test_a_test_file_skipping_on_a_helper_module_needs_what_the_helpers_import_needs(
    tmp_path: Path, shape: str
) -> None:
    _write(tmp_path, NEEDY, shape)
    expected = "None" if not SHAPES[shape][1] else "test_a"  # (the file's own skip: every test of it)
    assert needing(tmp_path) == {"tests/test_x.py": [expected]}


@pytest.mark.parametrize("shape", SHAPES)
def test_a_helper_guarding_its_own_import_makes_nothing_needed(tmp_path: Path, shape: str) -> None:
    _write(tmp_path, GUARDED, shape)
    assert needing(tmp_path) == {}


def test_an_importorskip_of_a_module_of_no_project_needs_nothing(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/test_x.py",
        'import pytest\nyaml = pytest.importorskip("yaml.constructor")\n\n\ndef test_a():\n    pass\n',
    )
    assert needing(tmp_path) == {}


def test_a_try_flag_of_a_relative_import_named_like_a_root_needs_nothing(tmp_path: Path) -> None:
    """``from . import dask`` tries a module of the project's named ``dask`` (there is none): not the package."""
    write(tmp_path, "tests/__init__.py", "")
    write(
        tmp_path,
        "tests/test_x.py",
        "import pytest\n\ntry:\n    from . import dask\n    HAS = True\nexcept ImportError:\n    HAS = False\n\n\n"
        "@pytest.mark.skipif(not HAS, reason='x')\ndef test_a():\n    pass\n",
    )
    assert needing(tmp_path) == {}
