"""A tier marker gates what it marks: the marker itself is never an importer outside the tier's globs.

``pytestmark = pytest.mark.tier("arrow")`` marks every test of its file, as the printed remedy (", or mark its
tests: pytestmark = pytest.mark.tier('arrow')") asks when every test of the file needs the tier; it covers the
imports inside those tests, never the module-level ones (the module would fail to import before any marker is
seen), and it is not itself a finding.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.censusfiles import uses, write
from tests.support.pyproject import pyproject
from tierlock.census import CensusTier, census
from tierlock.cli import main

ARROW = CensusTier("arrow", ("pyarrow",), ("tests/arrow/**",))
GPU = CensusTier("gpu", ("cupy",), ("tests/gpu/**",))


def test_a_module_pytestmark_covers_the_imports_inside_its_tests_but_not_its_module_level_ones(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        "tests/test_module_mark.py",
        """\
        import pytest
        import pyarrow

        pytestmark = pytest.mark.tier("arrow")


        def test_inner():
            import pyarrow.compute
        """,
    )
    result = census(tmp_path, [ARROW])
    assert uses(result, "arrow", "inside") == [
        ("tests/test_module_mark.py", 4, "tier('arrow') marker", True),
        ("tests/test_module_mark.py", 8, "import pyarrow.compute", False),
    ]
    assert uses(result, "arrow", "outside") == [("tests/test_module_mark.py", 2, "import pyarrow", True)]


def test_a_module_pytestmark_of_another_tier_covers_nothing(tmp_path: Path) -> None:
    write(
        tmp_path,
        "tests/test_gpu_mark.py",
        """\
        import pytest

        pytestmark = [pytest.mark.tier("gpu")]


        def test_inner():
            import pyarrow
        """,
    )
    result = census(tmp_path, [ARROW, GPU])
    assert uses(result, "arrow", "outside") == [("tests/test_gpu_mark.py", 7, "import pyarrow", False)]
    assert uses(result, "gpu", "inside") == [("tests/test_gpu_mark.py", 3, "tier('gpu') marker", True)]
    assert uses(result, "gpu", "outside") == []


PYPROJECT = pyproject(
    name="shop",
    version="0.1",
    requires_python=None,
    dependencies=None,
    extras={"arrow": ["pyarrow"]},
    tiers={"arrow": {"tests": ["tests/arrow/**"]}},
)


def test_marking_the_module_as_the_remedy_offers_clears_the_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    write(tmp_path, "tests/arrow/test_fs.py", "import pyarrow\n")
    write(tmp_path, "tests/test_io.py", "import pytest\n\n\ndef test_io():\n    import pyarrow\n")
    main(["--project", str(tmp_path), "--json", "check", "arrow"])
    findings = json.loads(capsys.readouterr().out)["census"]
    assert [(f["file"], f["line"], f["remedy"]) for f in findings] == [
        (
            "tests/test_io.py",
            5,
            'add "tests/test_io.py" to [tool.tierlock.tiers.arrow].tests'
            ", or mark its tests: pytestmark = pytest.mark.tier('arrow')",
        )
    ]
    write(
        tmp_path,
        "tests/test_io.py",
        "import pytest\n\npytestmark = pytest.mark.tier('arrow')\n\n\ndef test_io():\n    import pyarrow\n",
    )
    main(["--project", str(tmp_path), "--json", "check", "arrow"])
    assert json.loads(capsys.readouterr().out)["census"] == []
