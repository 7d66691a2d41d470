"""A gated test file too deep for ``ast`` to build never crashes pytest through the plugin.

A generated test file can hold an expression of thousands of chained operators; ``ast.parse`` raises
``RecursionError`` on it (so does Python's own import of the file). The plugin reads a gated file's tests itself
when the run is narrowed with ``-k`` (the file is never imported while its tier is missing): such a file is read
as one that does not parse, and the run goes on.
"""

from __future__ import annotations

import pytest

from tests.support.plugin_project import CI_VARS, laptop
from tests.unit.plugin.test_pytest_plugin_selection import PYPROJECT


def test_a_gated_file_too_deep_to_parse_is_kept_out_and_the_run_goes_on(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop(monkeypatch)
    for key in CI_VARS:
        monkeypatch.delenv(key, raising=False)
    (pytester.path / "pyproject.toml").write_text(PYPROJECT.format(extra_glob="", filterwarnings=""))
    deep = pytester.path / "inner" / "tests" / "brain" / "test_deep.py"
    deep.parent.mkdir(parents=True)
    (pytester.path / "inner" / "__init__.py").write_text("")
    deep.write_text("import brainpkg\nx = " + " + ".join(['"a"'] * 5000) + "\n\n\ndef test_a():\n    pass\n")
    (deep.parent.parent / "test_ok.py").write_text("def test_ok():\n    pass\n")
    result = pytester.runpytest_subprocess("-k", "ok or a")
    assert "Traceback" not in result.stderr.str(), result.stderr.str()[-2000:]
    assert result.ret == 0, result.stdout.str()[-2000:]
    result.assert_outcomes(passed=1)
