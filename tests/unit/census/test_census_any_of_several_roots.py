"""A test that any one of several roots runs: the census gives it to one tier, the smallest, saying the others.

``skipif(not (HAS_PANDAS or HAS_POLARS))``, ``HAS_FRAME = HAS_PANDAS or HAS_POLARS``, ``skipif(not HAS_PANDAS and not
HAS_POLARS)``, ``skipUnless(HAS_PANDAS or HAS_POLARS)``, a maker's ``skipif(all(find_spec(m) is None for m in
modules))`` or ``skipif(not any(find_spec(m) for m in modules))``, ``try: import pandas except ImportError: lib =
pytest.importorskip("polars")``, and a flag set when neither of two imports tried one after the other worked
(aiohttp's ``try: try: import brotlicffi as brotli except ImportError: import brotli except ImportError: brotli =
None``): before, the first ones needed nothing (no flag's truth read from an ``or``), ``not A and not B`` needed both,
the fallback needed polars whether or not pandas was there, and the nested fallback's flag needed both. Now each needs
the root of the smallest tier among the alternatives (the fewest roots, then the first declared), its use saying which
others run it too; when an alternative is no root of the census's (a base package, or, in the plugin, a tier that is
present), or is no flag, the test may run without any tier and needs nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.censusfiles import write
from tierlock.census import CensusTier, census
from tierlock.census.firstparty import ranked

#: ``frames`` holds both roots (it gates tests too); ``polars`` and ``pandas`` one each: polars is the smallest
#: tier of polars, and pandas of pandas; of the two, the one declared first (``polars``) is the one named.
TIERS = [
    CensusTier("frames", ("pandas", "polars", "pyarrow"), ("tests/frames/**",)),
    CensusTier("polars", ("polars",), ("tests/polars/**",)),
    CensusTier("pandas", ("pandas",), ("tests/pandas/**",)),
]

HELPERS = """\
import os
from importlib.util import find_spec

import pytest

try:
    import pandas
    HAS_PANDAS = True
except ImportError:
    HAS_PANDAS = False
HAS_POLARS = find_spec("polars") is not None
HAS_FRAME = HAS_PANDAS or HAS_POLARS
NO_FRAME = not (HAS_PANDAS or HAS_POLARS)
ON_CI = bool(os.environ.get("CI"))

try:
    try:
        import polars as frame
    except ImportError:
        import pandas as frame
except ImportError:
    frame = None


def needs_any(*modules):
    return pytest.mark.skipif(all(find_spec(m) is None for m in modules), reason="needs one of them")


def needs_one_of(modules):
    return pytest.mark.skipif(not any(find_spec(m) for m in modules), reason="needs one of them")


def needs_all(*modules):
    return pytest.mark.skipif(any(find_spec(m) is None for m in modules), reason="needs them all")


def runs_without(*modules):
    return pytest.mark.skipif(any(find_spec(m) for m in modules), reason="only without them")
"""

ANY_OF = {
    "not-or": "@pytest.mark.skipif(not (HAS_PANDAS or HAS_POLARS), reason='x')",
    "or-flag": "@pytest.mark.skipif(not HAS_FRAME, reason='x')",
    "inverted-or-flag": "@pytest.mark.skipif(NO_FRAME, reason='x')",
    "not-and-not": "@pytest.mark.skipif(not HAS_PANDAS and not HAS_POLARS, reason='x')",
    "string": "@pytest.mark.skipif('not (HAS_PANDAS or HAS_POLARS)', reason='x')",
    "skip-unless": "@unittest.skipUnless(HAS_PANDAS or HAS_POLARS, 'x')",
    "three-ways": "@pytest.mark.skipif(not (HAS_PANDAS or HAS_POLARS or find_spec('pyarrow')), reason='x')",
    "maker-all-missing": "@needs_any('pandas', 'polars')",
    "maker-not-any-found": "@needs_one_of(['pandas', 'polars'])",
    "nested-try-fallback": "@pytest.mark.skipif(frame is None, reason='x')",  # (aiohttp's brotlicffi or brotli)
}

#: What each needs: nothing (it may run without any tier), or every root (each one is needed).
OTHERS = {
    "or-with-no-flag": ("@pytest.mark.skipif(not (HAS_POLARS or ON_CI), reason='x')", []),
    "or-with-a-base-package": ("@pytest.mark.skipif(not (HAS_POLARS or find_spec('json')), reason='x')", []),
    "and-runs-without": ("@pytest.mark.skipif(HAS_PANDAS and HAS_POLARS, reason='x')", []),
    "maker-runs-without": ("@runs_without('pandas', 'polars')", []),
    "not-and": ("@pytest.mark.skipif(not (HAS_PANDAS and HAS_POLARS), reason='x')", ["pandas", "polars"]),
    "or-of-nots": ("@pytest.mark.skipif(not HAS_PANDAS or not HAS_POLARS, reason='x')", ["pandas", "polars"]),
    "maker-one-missing": ("@needs_all('pandas', 'polars')", ["pandas", "polars"]),
}


def _test_file(decorator: str) -> str:
    head = "import unittest\nfrom importlib.util import find_spec\n\nimport pytest\n\nfrom helpers import *\n"
    return f"{head}\n\n{decorator}\ndef test_a():\n    pass\n\n\ndef test_plain():\n    pass\n"


def needs(root: Path, tiers: list[CensusTier] = TIERS) -> dict[str, list[tuple[str | None, str]]]:
    """Tier -> (test, root) of each use outside its globs."""
    result = census(root, tiers)
    out = {t.name: sorted({(u.test, u.root) for u in result.tier(t.name).outside}) for t in tiers}
    return {k: v for k, v in out.items() if v}


@pytest.mark.parametrize("shape", ANY_OF)
def test_a_test_any_one_of_several_roots_runs_needs_the_smallest_tiers(tmp_path: Path, shape: str) -> None:
    write(tmp_path, "tests/helpers.py", HELPERS)
    write(tmp_path, "tests/test_x.py", _test_file(ANY_OF[shape]))
    assert needs(tmp_path) == {"polars": [("test_a", "polars")]}


@pytest.mark.parametrize("shape", OTHERS)
def test_a_condition_that_holds_without_any_root_needs_none_and_one_that_needs_each_needs_all(
    tmp_path: Path, shape: str
) -> None:
    decorator, roots = OTHERS[shape]
    write(tmp_path, "tests/helpers.py", HELPERS)
    write(tmp_path, "tests/test_x.py", _test_file(decorator))
    found = {root for uses in needs(tmp_path).values() for _test, root in uses}
    assert found == set(roots)


def test_the_use_says_which_other_roots_run_the_test(tmp_path: Path) -> None:
    write(tmp_path, "tests/helpers.py", HELPERS)
    write(tmp_path, "tests/test_x.py", _test_file(ANY_OF["or-flag"]))
    said = {u.how for u in census(tmp_path, TIERS).tier("polars").outside}
    assert said == {"skipped without polars (tests/helpers.py:11 tries polars; runs with pandas too)"}


def test_the_smallest_tier_is_the_one_with_the_fewest_roots_whatever_the_order(tmp_path: Path) -> None:
    write(tmp_path, "tests/helpers.py", HELPERS)
    write(tmp_path, "tests/test_x.py", _test_file(ANY_OF["not-or"]))
    wide = CensusTier("polars", ("polars", "pyarrow"), ("tests/polars/**",))
    assert needs(tmp_path, [wide, TIERS[2]]) == {"pandas": [("test_a", "pandas")]}
    assert ranked([("polars", "pyarrow"), ("pandas",), ("pyarrow",)]) == ["pandas", "pyarrow", "polars"]


FALLBACK = """\
import pytest

try:
    import {first} as lib
except ImportError:
    lib = pytest.importorskip("polars")


def test_a():
    assert lib
"""


@pytest.mark.parametrize(("first", "needed"), [("pandas", ["polars"]), ("json", []), ("pandas.io", ["polars"])])
def test_a_fallback_import_after_a_failed_one_needs_its_root_only_when_the_first_is_a_roots(
    tmp_path: Path, first: str, needed: list[str]
) -> None:
    write(tmp_path, "tests/test_x.py", FALLBACK.format(first=first))
    found = {root for uses in needs(tmp_path).values() for _test, root in uses}
    assert found == set(needed)
    # (the plugin reads with the roots of the missing tiers only: pandas present, the fallback never runs)
    assert needs(tmp_path, [TIERS[1]]) == {}


def test_a_makers_use_names_every_module_of_the_call_and_the_others_that_run_it(tmp_path: Path) -> None:
    write(tmp_path, "tests/helpers.py", HELPERS)
    write(tmp_path, "tests/test_x.py", _test_file(ANY_OF["maker-all-missing"]))
    said = {u.how for u in census(tmp_path, TIERS).tier("polars").outside}
    assert said == {"@needs_any('pandas', 'polars') (skipped without polars: tests/helpers.py; runs with pandas too)"}
