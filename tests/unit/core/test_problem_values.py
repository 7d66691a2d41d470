"""A :class:`~tierlock.errors.Problem` and a :class:`~tierlock.errors.ProblemCollector` behave as values.

They are plain classes (so the module every command imports loads no ``dataclasses``), written to behave
exactly as the dataclasses they replace: built by position or by keyword, equal and hashed by their
fields, shown with every field, a problem immutable.
"""

from __future__ import annotations

import copy
import pickle

import pytest

from tierlock.cli import Context
from tierlock.errors import Problem, ProblemCollector
from tierlock.output import UI


def test_a_problem_is_equal_and_hashed_by_its_fields() -> None:
    one = Problem("bad value", "tool.tierlock", file="pyproject.toml", line=3, column=7, hint="use a list")
    same = Problem("bad value", "tool.tierlock", "pyproject.toml", 3, 7, "use a list")
    assert one == same
    assert hash(one) == hash(same)
    assert len({one, same}) == 1
    assert one != Problem("bad value", "tool.tierlock", file="pyproject.toml", line=4, column=7, hint="use a list")
    assert one != ("bad value", "tool.tierlock", "pyproject.toml", 3, 7, "use a list")


def test_a_problem_is_shown_with_every_field_in_order() -> None:
    assert repr(Problem("m", line=2)) == "Problem(message='m', where='', file=None, line=2, column=None, hint=None)"


def test_a_problem_cannot_be_changed_or_emptied() -> None:
    problem = Problem("m")
    with pytest.raises(AttributeError, match="cannot assign to field 'message'"):
        problem.message = "other"
    with pytest.raises(AttributeError, match="cannot delete field 'hint'"):
        del problem.hint
    assert problem.message == "m"


def test_a_problem_survives_copying_and_pickling_and_matches_by_position() -> None:
    problem = Problem("m", "w", file="f")
    assert copy.copy(problem) == problem == copy.deepcopy(problem)
    assert pickle.loads(pickle.dumps(problem)) == problem
    match problem:
        case Problem(message, where, file):
            assert (message, where, file) == ("m", "w", "f")
        case _:
            pytest.fail("a problem matches by position")


def test_a_collector_gathers_problems_and_compares_by_them() -> None:
    collector = ProblemCollector()
    assert not collector
    collector.add("m", "w", line=1)
    assert collector
    assert collector == ProblemCollector([Problem("m", "w", line=1)])
    assert collector != ProblemCollector()
    assert repr(ProblemCollector()) == "ProblemCollector(problems=[])"
    with pytest.raises(TypeError):
        hash(collector)


def test_a_command_context_compares_by_value_and_keeps_no_hash() -> None:
    ui = UI(json_mode=True)
    ctx = Context(ui=ui, project_arg=None, argv=("check",))
    assert ctx == Context(ui, None, None, ("check",), "tierlock")
    assert ctx != Context(ui, "elsewhere", argv=("check",))
    assert (ctx.prog, ctx._project) == ("tierlock", None)
    assert repr(ctx).startswith("Context(ui=")
    with pytest.raises(TypeError):
        hash(ctx)
