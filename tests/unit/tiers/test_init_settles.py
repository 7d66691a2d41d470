"""``tierlock init`` proposes what its own ``check`` accepts: tooling extras left out, aggregates without tests,
the smallest tier for each test file, ``import-roots`` where names differ, and ``ci-require`` written out.

Shaped after fsspec (``dev``, ``doc``, ``test``, ``test_full`` extras of tools; ``full`` aggregating the
others), PyJWT (``pyjwt`` imports as ``jwt``; tests skipped by a ``has_crypto`` flag) and narwhals (tests that
need a backend beside tests that do not).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.support.cli import cli_json
from tierlock.cli import main
from tierlock.tiers import load_project

PYPROJECT = """\
[project]
name = "fsx"
version = "1.0"
dependencies = []

[project.optional-dependencies]
arrow = ["pyarrow>=1"]
hdfs = ["pyarrow>=1"]
git = ["pygit2"]
fuse = ["fusepy"]
full = ["fsx[arrow]", "fsx[git]", "fsx[fuse]"]
dev = ["ruff", "pre-commit"]
doc = ["sphinx", "numpydoc", "yarl"]
test = ["fsx[git]", "numpy", "pytest", "pytest-mock"]
test_full = ["fsx[test]", "fsx[full]", "pandas", "pytest"]
"""

FILES = {
    "fsx/__init__.py": "",
    "fsx/gitfs.py": "import pygit2\n",
    "fsx/tests/__init__.py": "",
    "fsx/tests/test_arrow.py": "import pyarrow\n\n\ndef test_table():\n    pass\n",
    "fsx/tests/test_git.py": "from fsx.gitfs import pygit2\n\n\ndef test_repo():\n    pass\n",
    "fsx/tests/test_fuse.py": "import pytest\n\nfuse = pytest.importorskip('fuse')\n",
    "fsx/tests/test_core.py": """\
        import pytest


        def test_plain():
            pass


        def test_arrow_only():
            pytest.importorskip("pyarrow")
        """,
}


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


@pytest.fixture
def fsx(tmp_path: Path) -> Path:
    root = tmp_path / "fsx"
    write(root, {"pyproject.toml": PYPROJECT, **FILES})
    return root


def run_json(capsys: pytest.CaptureFixture[str], root: Path, *argv: str) -> tuple[int, dict[str, object]]:
    return cli_json(capsys, "--project", str(root), "--json", *argv)


def test_extras_that_only_carry_tooling_are_left_out_with_the_command_that_adds_them(
    fsx: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--project", str(fsx), "init"]) == 0
    out = capsys.readouterr().out
    assert list(load_project(fsx).tiers) == ["base", "arrow", "hdfs", "git", "fuse", "full"]
    assert "left out 4 extra(s) that only carry tooling (linters, docs builders, test runners): " in out
    assert "dev, doc, test, test-full" in out
    command = next(line for line in out.splitlines() if " init --extras" in line)
    assert f"run: tierlock --project {fsx} init --extras dev doc test test-full " in command  # (the project given)
    capsys.readouterr()
    assert main(["--project", str(fsx), "init", "--extras", "doc"]) == 0  # the printed command, on the written table
    assert "added tier doc (extra:doc)" in capsys.readouterr().out
    assert "doc" in load_project(fsx).tiers


def test_a_named_tooling_extra_is_proposed_on_a_fresh_init(fsx: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, doc = run_json(capsys, fsx, "init", "--dry-run", "--extras", "test")
    assert [t["name"] for t in doc["tiers"]] == ["arrow", "hdfs", "git", "fuse", "full", "test"]  # type: ignore[attr-defined]
    assert doc["extras_left_out"] == ["dev", "doc", "test-full"]


def test_each_file_goes_to_the_smallest_tier_and_the_aggregate_gets_no_tests(
    fsx: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, doc = run_json(capsys, fsx, "init")
    tiers = {t["name"]: t for t in doc["tiers"]}  # type: ignore[attr-defined]
    assert tiers["arrow"]["tests"] == ["fsx/tests/test_arrow.py"]  # not hdfs (the same root, declared later)
    assert tiers["hdfs"]["tests"] == []
    assert tiers["git"]["tests"] == ["fsx/tests/test_git.py"]  # through fsx.gitfs, a module of the project
    assert tiers["fuse"]["tests"] == ["fsx/tests/test_fuse.py"]
    assert tiers["fuse"]["import_roots"] == {"fusepy": ["fuse"]}
    assert tiers["full"]["tests"] == []
    assert tiers["full"]["aggregates"] == ["arrow", "hdfs", "git", "fuse"]
    assert doc["ci_require"] == ["arrow", "git", "fuse"]
    assert doc["unsettled"] == {
        "arrow": [{"file": "fsx/tests/test_core.py", "tests": ["test_arrow_only"], "other_tests": 1}]
    }
    table = load_project(fsx)
    assert list(table.ci_require) == ["arrow", "git", "fuse"]
    assert "ci-require = [" in (fsx / "pyproject.toml").read_text()


def test_inits_table_passes_its_own_census_but_for_the_tests_it_named_as_unsettled(
    fsx: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_json(capsys, fsx, "init")
    code, census = run_json(capsys, fsx, "census")
    assert code == 1
    assert [(f["tier"], f["file"], f["fix"]) for f in census["findings"]] == [  # type: ignore[attr-defined]
        ("arrow", "fsx/tests/test_core.py", {"mark": [{"test": "test_arrow_only", "line": 8}]}),
    ]
    assert main(["--project", str(fsx), "census", "--fix"]) == 0
    assert "@pytest.mark.tier('arrow')\ndef test_arrow_only" in (fsx / "fsx/tests/test_core.py").read_text()


def test_a_project_without_test_needs_gets_an_empty_ci_require_written_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(
        tmp_path,
        {"pyproject.toml": '[project]\nname = "x"\nversion = "0"\n[project.optional-dependencies]\nml = ["numpy"]\n'},
    )
    _, doc = run_json(capsys, tmp_path, "init")
    assert doc["ci_require"] == []
    assert "ci-require = []" in doc["added"]  # type: ignore[operator]
    assert load_project(tmp_path).ci_require == ()


JWT = """\
[project]
name = "pyjwt"
version = "2.0"
dependencies = []

[project.optional-dependencies]
crypto = ["cryptography>=3.4"]

[tool.pytest.ini_options]
testpaths = ["tests"]
"""


def test_tests_that_a_flag_skips_without_the_tier_are_its_tests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(
        tmp_path,
        {
            "pyproject.toml": JWT,
            "jwt/__init__.py": "",
            "jwt/algorithms.py": (
                "try:\n    import cryptography\n    has_crypto = True\nexcept ImportError:\n    has_crypto = False\n"
            ),
            "tests/__init__.py": "",
            "tests/utils.py": "import pytest\nfrom jwt.algorithms import has_crypto\n\n"
            "crypto_required = pytest.mark.skipif(not has_crypto, reason='needs cryptography')\n",
            "tests/test_keys.py": "from .utils import crypto_required\n\npytestmark = crypto_required\n\n\n"
            "def test_rsa():\n    pass\n",
            "tests/test_mixed.py": "from .utils import crypto_required\n\n\n@crypto_required\n"
            "def test_rsa():\n    pass\n\n\ndef test_hmac():\n    pass\n",
        },
    )
    _, doc = run_json(capsys, tmp_path, "init")
    crypto = doc["tiers"][0]  # type: ignore[index]
    assert crypto["tests"] == ["tests/test_keys.py"]
    assert doc["unsettled"] == {"crypto": [{"file": "tests/test_mixed.py", "tests": ["test_rsa"], "other_tests": 1}]}


MARKERS = """\
[project]
name = "app"
version = "0"

[project.optional-dependencies]
brain = ["numpy"]

[tool.tierlock.tiers.brain]
tests = {tests}
"""


def test_moving_a_tier_from_globs_to_markers_without_ci_require_is_warned_about(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, {"pyproject.toml": MARKERS.format(tests='["tests/brain/**"]')})
    write(
        tmp_path,
        {"tests/brain/test_b.py": "import pytest\n\n\n@pytest.mark.tier('brain')\ndef test_b():\n    import numpy\n"},
    )
    _, doc = run_json(capsys, tmp_path, "check")
    assert doc["census_warnings"] == []
    (tmp_path / "pyproject.toml").write_text(MARKERS.format(tests="[]"))  # gated by its marker now
    _, doc = run_json(capsys, tmp_path, "check")
    assert [(w["tier"], w["kind"]) for w in doc["census_warnings"]] == [("brain", "census-ci")]  # type: ignore[attr-defined]
    assert "CI would not fail when it is missing" in doc["census_warnings"][0]["detail"]  # type: ignore[index]
    capsys.readouterr()
    main(["--project", str(tmp_path), "check"])
    assert "warning: pyproject.toml: brain: census-ci:" in capsys.readouterr().out
    text = (
        (tmp_path / "pyproject.toml")
        .read_text()
        .replace(
            "[tool.tierlock.tiers.brain]", '[tool.tierlock]\nci-require = ["brain"]\n\n[tool.tierlock.tiers.brain]'
        )
    )
    (tmp_path / "pyproject.toml").write_text(text)
    _, doc = run_json(capsys, tmp_path, "check")
    assert doc["census_warnings"] == []
