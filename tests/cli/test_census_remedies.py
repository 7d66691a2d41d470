"""The census's remedies, run exactly as printed, silence the finding and gate the tests that need the tier.

The inner project's ``brain`` tier has one root, ``brainpkg``, which is not
installed: a test that needs it errors without a gate. Each case prints the
census, applies the remedy it names (``tierlock census --fix``), and runs
pytest with the plugin: the tests that need the tier are not run (a file not
collected, a marked test skipped with tierlock's reason), the others pass, and
a strict run fails closed naming the tier.
"""

from __future__ import annotations

import json
import shlex
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.support.plugin_project import inner_pyproject, laptop
from tierlock.cli import main
from tierlock.pytest_plugin import EXIT_TIER_MISSING


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    laptop(monkeypatch)
    pytester.makefile(".toml", pyproject=inner_pyproject(cacheprovider=False))
    files = {
        "tests/brain/test_brain.py": "import brainpkg\n\n\ndef test_brain():\n    assert brainpkg\n",
        "tests/conftest.py": """\
            import pytest


            @pytest.fixture
            def model():
                import brainpkg
                return brainpkg
            """,
        "tests/test_some_use.py": """\
            def test_uses_the_model(model):
                assert model


            def test_plain():
                assert True
            """,
        "tests/test_all_use.py": "def test_one(model):\n    assert model\n\n\ndef test_two(model):\n    assert model\n",
        "tests/test_shadow.py": """\
            import pytest


            @pytest.fixture
            def model():
                return "a stand-in"


            def test_own_model(model):
                assert model == "a stand-in"
            """,
    }
    for rel, text in files.items():
        path = pytester.path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return pytester


def census(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = main(["--project", str(root), "--json", "census"])
    return code, json.loads(capsys.readouterr().out)


def test_the_printed_fix_gates_a_conftest_fixtures_users_and_nothing_else(
    inner: pytest.Pytester, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    before = inner.runpytest()
    before.assert_outcomes(
        passed=2, skipped=3
    )  # the fixture's users fail on the tier: the backstop skips them (lenient)
    code, doc = census(inner.path, capsys)
    assert code == 1
    findings = {f["file"]: f for f in doc["findings"]}
    assert sorted(findings) == ["tests/test_all_use.py", "tests/test_some_use.py"]  # not the conftest, not the shadow
    assert findings["tests/test_all_use.py"]["fix"] == {"tests": ["tests/test_all_use.py"]}
    assert findings["tests/test_some_use.py"]["fix"] == {"mark": [{"test": "test_uses_the_model", "line": 1}]}
    capsys.readouterr()
    assert main(["--project", str(inner.path), "census"]) == 1
    printed = capsys.readouterr().out.splitlines()[-1]
    command = printed.split("fix them all: ", 1)[1]
    aside = "(tierlock check lists them beside the lockfiles' findings)"
    assert command == f"tierlock --project {inner.path} census --fix {aside}"
    assert main(shlex.split(command.partition(" (")[0])[1:]) == 0  # the command, as printed (the project named)
    assert census(inner.path, capsys)[0] == 0
    after = inner.runpytest("-rs")
    after.assert_outcomes(passed=2, skipped=1)
    after.stdout.fnmatch_lines(["*SKIPPED*test_some_use.py*tier brain is absent*"])
    monkeypatch.setenv("CI", "true")
    strict = inner.runpytest()
    assert strict.ret == EXIT_TIER_MISSING
    strict.stderr.fnmatch_lines(["tierlock: tier brain is required in CI (ci-require) but it is absent:"])


def test_a_conftest_needing_the_tier_at_import_is_gated_by_its_folder(
    inner: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    for rel in ("tests/test_some_use.py", "tests/test_all_use.py", "tests/test_shadow.py"):
        (inner.path / rel).unlink()
    sub = inner.path / "tests" / "io"
    sub.mkdir()
    (sub / "conftest.py").write_text("import brainpkg\n", encoding="utf-8")
    (sub / "test_io.py").write_text("def test_io():\n    assert True\n", encoding="utf-8")
    (inner.path / "tests" / "test_plain.py").write_text("def test_plain():\n    assert True\n", encoding="utf-8")
    inner.runpytest().assert_outcomes(
        passed=1, skipped=1
    )  # the conftest breaks the collection: the backstop skips it (lenient)
    code, doc = census(inner.path, capsys)
    finding = doc["findings"][0]
    assert (code, finding["file"], finding["fix"]) == (1, "tests/io/conftest.py", {"tests": ["tests/io/**"]})
    assert finding["remedy"].startswith('add "tests/io/**" to [tool.tierlock.tiers.brain].tests')
    assert main(["--project", str(inner.path), "census", "--fix"]) == 0
    after = inner.runpytest()
    after.assert_outcomes(passed=1)  # tests/test_plain.py; tests/io is not collected, its conftest not loaded
    assert after.ret == 0
    after.stdout.fnmatch_lines(["tierlock: brain absent — 2 test files not collected*"])
