"""Reach through the project's own modules, and availability flags, read statically.

A test that imports ``proj.readxml`` needs what ``proj/readxml.py`` imports at
module level (unguarded), through any chain of the project's modules. A flag
set by ``try: import cryptography ... except ImportError: has_crypto = False``
and tested by ``skipif(not has_crypto)`` (directly, through a mark alias
imported from a helper module, or by ``if not has_crypto: pytest.skip()``)
makes the tests it skips need the tier; ``skipif(has_crypto)`` needs nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.censusfiles import write
from tierlock.census import CensusTier, census

XMLIO = CensusTier("xmlio", ("uproot",), ("tests/xmlio/**",))
PLOTS = CensusTier("plots", ("matplotlib",), ())
CRYPTO = CensusTier("crypto", ("cryptography",), ("tests/crypto/**",))


def project(root: Path) -> None:
    write(root, "src/proj/__init__.py", "from proj.core import run\n")
    write(root, "src/proj/core.py", "import json\n\ndef run():\n    import uproot\n")
    write(root, "src/proj/readxml.py", "import uproot\n\nfrom proj import core\n")
    write(root, "src/proj/viaread.py", "from . import readxml\n")
    write(root, "src/proj/contrib/__init__.py", "")
    write(root, "src/proj/contrib/utils.py", "import matplotlib.pyplot as plt\n")
    write(root, "src/proj/optional.py", "try:\n    import uproot\nexcept ImportError:\n    uproot = None\n")
    write(root, "src/proj/cycle_a.py", "from proj import cycle_b\nimport uproot\n")
    write(root, "src/proj/cycle_b.py", "from proj import cycle_a\n")


def test_a_test_importing_a_project_module_needs_what_it_imports_at_module_level_transitively(tmp_path: Path) -> None:
    project(tmp_path)
    write(tmp_path, "tests/test_read.py", "import proj.readxml\n")
    write(tmp_path, "tests/test_via.py", "from proj.viaread import readxml\n")
    write(tmp_path, "tests/test_from.py", "from proj import readxml\n")
    write(tmp_path, "tests/test_core.py", "from proj import core\nimport proj\n")
    write(tmp_path, "tests/test_optional.py", "from proj.optional import uproot\n")
    write(tmp_path, "tests/test_cycle.py", "import proj.cycle_b\n")
    write(tmp_path, "tests/test_inner.py", "def test_plot():\n    from proj.contrib.utils import plt\n")
    result = census(tmp_path, [XMLIO, PLOTS])
    xmlio = {(u.file, u.line, u.how, u.scope) for u in result.tier("xmlio").outside}
    assert xmlio == {
        ("tests/test_read.py", 1, "import proj.readxml (reaches uproot at src/proj/readxml.py:1)", "module"),
        ("tests/test_via.py", 1, "from proj.viaread import (reaches uproot at src/proj/readxml.py:1)", "module"),
        ("tests/test_from.py", 1, "from proj import (reaches uproot at src/proj/readxml.py:1)", "module"),
        ("tests/test_cycle.py", 1, "import proj.cycle_b (reaches uproot at src/proj/cycle_a.py:2)", "module"),
    }  # not proj.core (uproot inside a function), not proj.optional (guarded)
    plots = [(u.file, u.line, u.scope, u.test) for u in result.tier("plots").outside]
    assert plots == [("tests/test_inner.py", 2, "test", "test_plot")]
    assert result.modules_read == 9


def test_the_import_path_of_the_project_and_a_test_helper_module_are_followed(tmp_path: Path) -> None:
    write(tmp_path, "lib/pkg/__init__.py", "")
    write(tmp_path, "lib/pkg/xml.py", "import uproot\n")
    write(tmp_path, "tests/__init__.py", "")
    write(tmp_path, "tests/helpers.py", "from pkg import xml\n")
    write(tmp_path, "tests/test_helped.py", "from tests.helpers import xml\n")
    write(tmp_path, "tests/test_relative.py", "from .helpers import xml\n")
    result = census(tmp_path, [XMLIO], paths=("", "lib"))
    assert sorted(u.file for u in result.tier("xmlio").outside) == ["tests/test_helped.py", "tests/test_relative.py"]
    assert census(tmp_path, [XMLIO]).tier("xmlio").outside == []  # lib/ not on the import path: out of reach


def flags(root: Path) -> None:
    write(root, "jwt/__init__.py", "")
    write(
        root,
        "jwt/algorithms.py",
        """\
        try:
            from cryptography.hazmat.primitives import hashes

            has_crypto = True
        except ModuleNotFoundError:
            has_crypto = False
        """,
    )
    write(root, "tests/__init__.py", "")
    write(
        root,
        "tests/utils.py",
        """\
        import pytest

        from jwt.algorithms import has_crypto

        crypto_required = pytest.mark.skipif(not has_crypto, reason="Requires cryptography library installed")
        no_crypto_required = pytest.mark.skipif(has_crypto, reason="Requires cryptography library not installed")
        """,
    )


def test_tests_skipped_by_an_availability_flag_need_the_tier_and_the_opposite_flag_needs_nothing(
    tmp_path: Path,
) -> None:
    flags(tmp_path)
    write(
        tmp_path,
        "tests/test_api.py",
        """\
        import importlib.util

        import pytest

        import jwt.algorithms
        from jwt.algorithms import has_crypto

        from .utils import crypto_required, no_crypto_required

        if has_crypto:
            from cryptography.hazmat.primitives.asymmetric import rsa

        HAS_SPEC = importlib.util.find_spec("cryptography") is not None


        class TestKeys:
            @crypto_required
            def test_rsa(self):
                pass

            @no_crypto_required
            def test_without(self):
                pass

            def test_plain(self):
                pass


        @pytest.mark.skipif(not jwt.algorithms.has_crypto, reason="no crypto")
        def test_dotted():
            pass


        def test_body():
            if not has_crypto:
                pytest.skip("no crypto")


        @pytest.mark.skipif(not HAS_SPEC, reason="no crypto")
        def test_spec():
            pass


        def test_uses_the_flag_without_skipping():
            assert has_crypto in (True, False)
        """,
    )
    result = census(tmp_path, [CRYPTO])
    needing = sorted({(u.test, u.line) for u in result.tier("crypto").outside})
    assert needing == [("TestKeys.test_rsa", 17), ("test_body", 35), ("test_dotted", 29), ("test_spec", 39)]
    hows = {u.test: u.how for u in result.tier("crypto").outside}
    assert hows["TestKeys.test_rsa"] == (
        "@crypto_required (skipped without cryptography: jwt/algorithms.py:2 tries cryptography)"
    )
    finding = next(f for f in result.findings() if f.kind == "census-importer")
    assert finding.fix == {
        "mark": [
            {"test": "TestKeys.test_rsa", "line": 17},
            {"test": "test_dotted", "line": 29},
            {"test": "test_body", "line": 34},
            {"test": "test_spec", "line": 39},
        ]
    }
    assert "4 of its 7 tests need tier crypto" in finding.detail


def test_project_modules_are_kept_in_the_cache_and_a_changed_one_is_read_again(tmp_path: Path) -> None:
    project(tmp_path)
    write(tmp_path, "tests/test_read.py", "import proj.readxml\n")

    class Cache:
        def __init__(self) -> None:
            self.data: dict[str, object] = {}

        def get(self, key: str, default: object) -> object:
            return json.loads(json.dumps(self.data[key])) if key in self.data else default

        def set(self, key: str, value: object) -> None:
            self.data[key] = value

    cache = Cache()
    first = census(tmp_path, [XMLIO], cache=cache)
    assert len(first.tier("xmlio").outside) == 1
    write(tmp_path, "src/proj/readxml.py", "import json\n")
    second = census(tmp_path, [XMLIO], cache=cache)
    assert second.tier("xmlio").outside == []
    third = census(tmp_path, [XMLIO], cache=cache)
    assert third.tier("xmlio").outside == []
    assert third.cache_entry is None  # nothing changed: nothing to write


def test_what_the_modules_were_found_to_need_is_kept_but_what_rests_on_a_file_read_since() -> None:
    from tierlock.census.filefacts import read_file
    from tierlock.census.firstparty import ModuleIndex, Reach

    flag = "try:\n    import uproot\n    has_uproot = True\nexcept ImportError:\n    has_uproot = False\n"
    facts = {"a.py": read_file("from b import *\n", "a.py"), "d.py": read_file("import uproot\n", "d.py")}
    index = ModuleIndex(["a.py", "b.py", "c.py", "d.py", "e.py"])
    reach = Reach(index, facts, ["uproot"])
    assert reach.symbol("a.py", "has_uproot") is None  # b.py not read (yet)
    assert [need[0] for need in reach.module_needs("d.py").values()] == ["uproot"]
    assert reach.missing == {"b.py"}
    assert reach.again(["c.py"])  # nothing looked at c.py: every answer stays
    assert reach.symbol("a.py", "has_uproot") is None
    facts["b.py"] = read_file(flag, "b.py")
    assert reach.again(["b.py"])  # what rested on b.py having no facts is forgotten; d.py's needs are kept
    assert reach.symbol("a.py", "has_uproot") == ("flag", "b.py", "has_uproot")
    assert reach.missing == set()
    facts["e.py"] = read_file("from a import has_uproot\n", "e.py")
    assert reach.symbol("e.py", "has_uproot") == Reach(index, facts, ["uproot"]).symbol("e.py", "has_uproot")
    chained = {"a.py": read_file("from b import *\n", "a.py"), "c.py": read_file("from a import *\n", "c.py")}
    index = ModuleIndex(["a.py", "b.py", "c.py", "m.py"])
    reach = Reach(index, chained, ["uproot"])
    assert reach.symbol("a.py", "has_uproot") is None
    assert reach.symbol("c.py", "has_uproot") is None  # rests on a.py's answer, which rests on b.py's absence
    reach.module_needs("a.py")
    chained["m.py"] = read_file("import c\n", "m.py")
    assert reach.module_needs("m.py") == {}  # (its edges rest on c.py's, a.py's, and b.py's absence)
    chained["b.py"] = read_file(flag + "import uproot\n", "b.py")
    assert reach.again(["b.py"])
    assert reach.symbol("c.py", "has_uproot") == ("flag", "b.py", "has_uproot")
    assert (
        list(reach.module_needs("m.py")) == list(Reach(index, chained, ["uproot"]).module_needs("m.py")) == ["uproot"]
    )
    tried = "try:\n    from b import *\nexcept ImportError:\n    pass\n\nif has_x:\n    import d\n"  # b.py: no edge
    guarded = {"c.py": read_file(tried, "c.py")}
    guarded["d.py"] = read_file("import uproot\n", "d.py")
    index = ModuleIndex(["b.py", "c.py", "d.py", "m.py"])
    reach = Reach(index, guarded, ["uproot"])
    assert list(reach.module_needs("c.py")) == ["uproot"]  # b.py not read: its flag unknown, d.py imported
    guarded["m.py"] = read_file("import c\n", "m.py")
    assert list(reach.module_needs("m.py")) == ["uproot"]  # (through c.py's edges, which rest on b.py's absence)
    guarded["b.py"] = read_file(flag.replace("uproot", "x"), "b.py")
    assert reach.again(["b.py"])
    assert reach.module_needs("m.py") == Reach(index, guarded, ["uproot"]).module_needs("m.py") == {}
    looped = {"a.py": read_file("from b import *\n", "a.py"), "b.py": read_file("from a import *\n", "b.py")}
    reach = Reach(ModuleIndex(looped), looped, ["uproot"])
    reach.symbol("a.py", "x")
    assert not reach.again([])  # a cycle cut short: its answers depend on the order they were asked in


def test_a_module_read_in_a_later_round_gives_the_census_a_fresh_look_at_every_module(tmp_path: Path) -> None:
    """Round one reads ``proj/flags.py`` and ``proj/alias.py`` (they name the root) and finds ``has_up`` of
    ``alias.py`` to be nothing (``proj/via.py`` not read); the flag's name makes round two read ``via.py``: the
    census follows the modules again, and the test skipped without the flag needs the tier."""
    write(tmp_path, "src/proj/__init__.py", "")
    write(
        tmp_path,
        "src/proj/flags.py",
        "try:\n    import uproot\n    has_up = True\nexcept ImportError:\n    has_up = False\n",
    )
    write(tmp_path, "src/proj/via.py", "from proj.flags import has_up\n")
    write(tmp_path, "src/proj/alias.py", "from proj.via import has_up  # (not uproot's)\n")  # read in round one
    write(
        tmp_path,
        "tests/xmlio/test_x.py",
        "import pytest\nfrom proj.alias import has_up\n\n\n"
        "@pytest.mark.skipif(not has_up, reason='x')\ndef test_x():\n    pass\n",
    )
    result = census(tmp_path, [XMLIO])
    (report,) = result.tiers
    assert [(u.file, u.test) for u in report.inside] == [("tests/xmlio/test_x.py", "test_x")]


def test_importing_a_submodule_runs_its_package_first(tmp_path: Path) -> None:
    write(tmp_path, "src/deep/__init__.py", "import uproot\n")
    write(tmp_path, "src/deep/leaf.py", "X = 1\n")
    write(tmp_path, "tests/xmlio/test_leaf.py", "import deep.leaf\n\n\ndef test_it():\n    assert deep.leaf.X\n")
    (report,) = census(tmp_path, [XMLIO]).tiers
    assert [(u.file, u.line, u.how) for u in report.inside] == [
        ("tests/xmlio/test_leaf.py", 1, "import deep.leaf (reaches uproot at src/deep/__init__.py:1)")
    ]
