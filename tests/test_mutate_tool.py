"""``tools/mutate.py`` (``make mutate``): every listed module still exists with its tests, and the
mutants it skips as equivalent are only the ones that cannot change behaviour."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutate_tool", ROOT / "tools" / "mutate.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutate_tool"] = module
    spec.loader.exec_module(module)
    return module


NOT_YET = {"verify"}  # listed ahead of the code they will mutate


def test_every_listed_module_has_sources_and_fast_tests_on_this_commit(tool: ModuleType) -> None:
    missing = [key for key in tool.MODULES if key not in NOT_YET and not (tool.sources_of(key) and tool.tests_of(key))]
    assert missing == []


def test_short_names_resolve_and_unknown_ones_are_refused_naming_the_choices(tool: ModuleType) -> None:
    assert tool.resolve("plan") == "installer/plan.py"
    assert tool.resolve("src/tierlock/tiers/loader.py") == "tiers/loader.py"
    with pytest.raises(tool.Refused, match=r"unknown module 'nope'; one of: probing, installer/plan\.py"):
        tool.resolve("nope")


def test_only_annotations_dataclass_options_and_type_checking_imports_count_as_equivalent(
    tool: ModuleType, tmp_path: Path
) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        textwrap.dedent(
            """\
            from __future__ import annotations
            from dataclasses import dataclass
            if TYPE_CHECKING:
                import os
            @dataclass(frozen=True)
            class A:
                x: int | None = None
            def f(a: int | str, b: bool = True) -> list[int] | None:
                return [a + 1] if b and a != 0 else None
            """
        )
    )
    spans = tool.annotation_spans(source)
    why = {
        pos: tool.equivalent(source, pos, spans) for pos in [(3, 3), (5, 0), (7, 7), (8, 9), (8, 42), (9, 14), (9, 26)]
    }
    assert why[(3, 3)].startswith("imports for the type checker only")
    assert why[(5, 0)].startswith("a dataclass option")
    assert why[(7, 7)] == why[(8, 9)] == why[(8, 42)] == "type annotation (never evaluated)"
    assert why[(9, 14)] == why[(9, 26)] == ""  # the body's + and != are real mutants


def test_list_runs_without_the_mutate_tier() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "mutate.py"), "--list"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert "installer/plan.py: src/tierlock/installer/plan.py" in proc.stdout


def test_one_file_of_a_listed_module_is_a_module_of_its_own_with_the_modules_tests(tool: ModuleType) -> None:
    assert tool.resolve("src/tierlock/evidence/process.py") == "evidence/process.py"
    assert [p.relative_to(ROOT).as_posix() for p in tool.sources_of("evidence/process.py")] == [
        "src/tierlock/evidence/process.py"
    ]
    assert tool.tests_of("evidence/process.py") == tool.tests_of("verify")
    assert tool.resolve("validators/scope.py") == "validators/scope.py"
    with pytest.raises(tool.Refused, match=r"unknown module 'cli\.py'"):
        tool.resolve("cli.py")  # a file of no listed module


def test_a_sampled_score_carries_the_95_percent_interval_of_the_proportion(tool: ModuleType) -> None:
    low, high = tool.interval(90, 100)
    assert (round(100 * low), round(100 * high)) == (83, 94)  # the Wilson interval of 90/100: 82.6%-94.4%
    assert tool.interval(0, 0) == (0.0, 1.0)
    assert tool.interval(10, 10)[1] == pytest.approx(1.0)
    line = tool.Score(killed=90, survived=10, unsampled=400).line("verify")
    assert line == "verify: 90/100 killed (90.0%; a sample of 100 of 500, 95% interval 83-94%), 0 skipped"
    assert tool.Score(killed=9, survived=1).line("plan") == "plan: 9/10 killed (90.0%), 0 skipped"


def test_a_run_stopped_half_way_is_scored_as_the_random_sample_it_is(tool: ModuleType) -> None:
    # cosmic-ray runs the pending mutants in random order, so the ones run so far are a random sample.
    line = tool.Score(killed=45, survived=5, pending=150).line("plugin")
    assert (
        line == "plugin: 45/50 killed (90.0%; so far a random sample, 95% interval 79-96%), 0 skipped, 150 not run yet"
    )


def test_a_session_is_kept_only_while_the_mutated_sources_are_unchanged(tool: ModuleType) -> None:
    gate = tool.sources_of("plugin")
    assert tool.unchanged_since("HEAD", gate)
    shallow = subprocess.run(
        ["git", "rev-parse", "--is-shallow-repository"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if shallow.stdout.strip() != "false":
        pytest.skip("needs the history of the sources (not a shallow clone)")
    first = subprocess.run(
        ["git", "log", "--reverse", "--format=%H", "--", "src/tierlock/pytest_plugin/selection.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()[0]
    assert not tool.unchanged_since(f"{first}~1", gate)  # before the file existed


def test_each_mutant_runs_its_tests_with_the_mutated_sources_dated_back_and_their_byte_code_gone(
    tool: ModuleType, tmp_path: Path
) -> None:
    """A just-written source is never part of a kept answer: undated, every mutant of a module whose tests
    expect one would be killed for that alone. The command dates the sources back and drops their ``.pyc``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    source = tmp_path / "mod.py"
    source.write_text("VALUE = 1\n", encoding="utf-8")
    subprocess.run([sys.executable, "-c", "import mod"], cwd=tmp_path, env=env, check=True)
    assert list((tmp_path / "__pycache__").glob("mod.*.pyc")), "the byte code of the file before the mutant"
    source.write_text("VALUE = 2\n", encoding="utf-8")  # the mutant: same size, maybe the same second
    show = "import mod, os, time; print(mod.VALUE, time.time() - os.stat(mod.__file__).st_mtime)"
    argv = [sys.executable, *tool.aged([source]), "-c", show]
    value, age = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, check=True).stdout.split()
    assert value == "2", "the mutant's code ran, not the cached byte code of the file before it"
    assert float(age) >= 9, "the source is dated back past the two seconds within which nothing is kept"
    assert "aged.py" in tool.test_command(["tests/x.py"], [source]), "every mutant's tests run through it"
