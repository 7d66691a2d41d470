"""Which tier a failed check misses: a module that is one of its import roots, a command named like its
distributions; and the ``install-tier`` verify runs for it.

A real project's tier model (pyproject.toml read by tierlock), records as verify makes them.
"""

from __future__ import annotations

from pathlib import Path

from tierlock.evidence import repair
from tierlock.evidence.runreceipt import CommandRecord

PYPROJECT = """\
[project]
name = "app"
version = "1"
dependencies = ["requests"]

[project.optional-dependencies]
brain = ["scikit-learn", "torch"]
lint = ["ruff"]

[tool.tierlock.tiers.brain]
source = "extra:brain"
import-roots = {scikit-learn = ["sklearn"]}

[tool.tierlock.tiers.lint]
source = "extra:lint"
"""


def _record(key: str, status: str, exit_code: int | None, tail: list[str], command: str = "python") -> CommandRecord:
    record = CommandRecord("verification", key, None, command, [], ".", [], "worktree", None, None)
    record.status, record.exit_code, record.tail = status, exit_code, tail
    return record


def test_a_module_or_command_is_provided_by_the_first_tier_that_has_it(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    records = [
        _record("ok", "passed", 0, []),
        _record("ml", "failed", 1, ["ModuleNotFoundError: No module named 'sklearn.linear_model'"]),
        _record("torch", "failed", 1, ["ModuleNotFoundError: No module named 'torch'"]),
        _record("lint", "not-found", None, [], command="ruff"),
        _record("sh", "failed", 127, ["sh: 1: requests: not found"]),
        _record("code", "failed", 1, ["ModuleNotFoundError: No module named 'app_internal'"]),
        _record("plain", "failed", 1, ["assert 1 == 2"]),
    ]
    needs = [n.to_dict() for n in repair.needs(records, tmp_path)]
    assert needs == [
        {"key": "ml", "missing": "module", "name": "sklearn", "tier": "brain"},
        {"key": "torch", "missing": "module", "name": "torch", "tier": "brain"},
        {"key": "lint", "missing": "command", "name": "ruff", "tier": "lint"},
        {"key": "sh", "missing": "command", "name": "requests", "tier": "base"},
        {"key": "code", "missing": "module", "name": "app_internal", "tier": None},
    ]


def test_without_a_tier_model_nothing_provides_anything(tmp_path: Path) -> None:
    records = [_record("ml", "failed", 1, ["ModuleNotFoundError: No module named 'torch'"])]
    assert [n.tier for n in repair.needs(records, tmp_path)] == [None]
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "app"\nversion = "1"\n')  # no [tool.tierlock]
    assert [n.tier for n in repair.needs(records, tmp_path)] == [None]
    (tmp_path / "pyproject.toml").write_text("[project\nbroken")
    assert [n.tier for n in repair.needs(records, tmp_path)] == [None]
    assert repair.needs([_record("ok", "passed", 0, [])], tmp_path) == []


def test_setup_records_are_not_repaired(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    record = _record("arm", "failed", 1, ["ModuleNotFoundError: No module named 'torch'"])
    record.list = "setup"
    assert repair.needs([record], tmp_path) == []


def test_the_install_tier_beside_the_running_tierlock_is_preferred(tmp_path: Path) -> None:
    import sys

    own = Path(sys.executable).parent / "install-tier"
    assert repair.installer(str(tmp_path)) == (str(own) if own.exists() else "install-tier")
