"""The small value classes every command builds behave exactly as the dataclasses they replace.

:class:`~tierlock.errors.Problem`, :class:`~tierlock.errors.ProblemCollector`, the command context and the
values of the tier reader and the lock reader (:class:`~tierlock.frozen.Frozen`) are plain classes: no
``exec`` per class at import, and the errors and the CLI load no ``dataclasses``. Built by position or by
keyword, equal and hashed by their fields, shown with every field, the frozen ones immutable.
"""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.env import clean_env
from tierlock.cli import Context
from tierlock.errors import Problem, ProblemCollector
from tierlock.frozen import Frozen
from tierlock.installer.receipts import InstalledDist, Receipt
from tierlock.installer.status import TierStatus
from tierlock.lockfiles.fileread import ReadResult
from tierlock.lockfiles.locks import ReadProblem
from tierlock.output import UI
from tierlock.subproc import Result
from tierlock.tiers.lockkey import LockSetting
from tierlock.tiers.platforms import Platform
from tierlock.tiers.tierkeys import Declared, Source


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
        problem.message = "other"  # type: ignore[misc]  # the checker refuses it as well
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


_BUILT = """
import dataclasses
built = []
real = dataclasses._process_class
dataclasses._process_class = lambda cls, *a, **k: (built.append(cls.__qualname__), real(cls, *a, **k))[1]
import tierlock.cli, tierlock.tiers.platforms, tierlock.tiers.lockkey
import tierlock.tiers.tierkeys, tierlock.lockfiles.fileread, tierlock.tiers.loader, tierlock.lockfiles.check
import tierlock.lockfiles.nobuild, tierlock.admission, tierlock.environment
import tierlock.installer.receipts, tierlock.installer.status, tierlock.subproc
print(" ".join(built))
"""


def test_the_value_classes_of_every_command_are_not_built_by_dataclasses() -> None:
    proc = subprocess.run([sys.executable, "-c", _BUILT], capture_output=True, text=True, check=True, env=clean_env())
    built = set(proc.stdout.split())
    assert "Token" in built  # packaging's own are dataclasses (the hook sees them)
    mine = {"Problem", "ProblemCollector", "Context", "Platform", "LockSetting", "Source", "Declared", "ReadResult"}
    mine |= {"Tier", "Project", "Metadata", "Lock", "LockEntry", "LockHeader", "LockedFile", "LocalPackage"}
    mine |= {"ReadProblem", "Parsed", "Finding", "Report", "Disagreement", "SiblingConflict", "Record", "Gap"}
    mine |= {"Cell", "TierCoverage", "CoverageProblem", "Part", "Admission", "Target"}
    mine |= {"InstalledDist", "Receipt", "TierStatus", "Result"}
    assert built.isdisjoint(mine), sorted(built & mine)


_ARMING = """
import dataclasses
built = []
real = dataclasses._process_class
def noted(cls, *args, **kwargs):
    built.append(cls.__module__ + "." + cls.__qualname__)
    return real(cls, *args, **kwargs)
dataclasses._process_class = noted
import tierlock.commands.install, tierlock.installer.run, tierlock.installer.backendrun, tierlock.installer.backends
import tierlock.installer.builds, tierlock.installer.plan, tierlock.installer.projecttree, tierlock.installer.job
import tierlock.installer.receiptrecord, tierlock.installer.request, tierlock.installer.selfguard
import tierlock.installer.ahead, tierlock.installer.verification, tierlock.installer.inventory
import tierlock.probing.distribution, tierlock.probing.relied, tierlock.probing.libremedy
print(" ".join(built))
"""


def test_the_classes_an_arming_loads_beside_its_backend_are_not_built_by_dataclasses() -> None:
    """An arming whose backend started early loads these modules while the backend installs, on the cores it uses:
    building their classes as dataclasses cost ~48 million instructions an arming (docs/benchmarks.md)."""
    proc = subprocess.run([sys.executable, "-c", _ARMING], capture_output=True, text=True, check=True, env=clean_env())
    built = proc.stdout.split()
    assert any(name.startswith("packaging.") for name in built)  # (packaging's own are: the hook sees them)
    assert [name for name in built if name.startswith("tierlock.")] == []


_VALUES: list[tuple[Frozen, Frozen, Frozen]] = [
    (
        Platform("linux", "manylinux_2_17_x86_64", "linux", "x86_64", "glibc", (2, 17)),
        Platform("linux", "manylinux_2_17_x86_64", "linux", "x86_64", libc="glibc", version=(2, 17)),
        Platform("linux", "manylinux_2_17_x86_64", "linux", "x86_64"),
    ),
    (LockSetting(Path("uv.lock"), True, "1.0"), LockSetting(Path("uv.lock"), True, "1.0"), LockSetting(None, True)),
    (Source("extra:a"), Source("extra:a", (), (), ()), Source("extra:b")),
    (
        Declared("tool.tierlock.tiers.a", {}, Source("extra:a")),
        Declared("tool.tierlock.tiers.a", {}, Source("extra:a")),
        Declared("tool.tierlock.tiers.b", {}, Source("extra:a")),
    ),
    (
        ReadResult(None, (ReadProblem("integrity", 1, "x"),)),  # type: ignore[arg-type]
        ReadResult(None, (ReadProblem("integrity", 1, "x"),)),  # type: ignore[arg-type]
        ReadResult(None, ()),  # type: ignore[arg-type]
    ),
    (
        InstalledDist("pkg", "1.0", "lib/site", "pkg-1.0.dist-info", (("pkg.py", 3),)),
        InstalledDist("pkg", "1.0", "lib/site", "pkg-1.0.dist-info", (("pkg.py", 3),), project=False),
        InstalledDist("pkg", "1.0", "lib/site", "pkg-1.0.dist-info", (("pkg.py", 3),), True),
    ),
    (
        Result(("python", "-c", "pass"), 0, "", ""),
        Result(("python", "-c", "pass"), 0, "", "", seconds=0.0),
        Result(("python", "-c", "pass"), 1, "", "boom"),
    ),
]


@pytest.mark.parametrize(("one", "same", "other"), _VALUES, ids=lambda v: type(v).__name__)
def test_a_frozen_value_is_equal_hashed_shown_and_fixed_by_its_fields(one: Frozen, same: Frozen, other: Frozen) -> None:
    assert one == same
    if not isinstance(one, Declared):  # its table is a dict: unhashable, as it was as a frozen dataclass
        assert hash(one) == hash(same)
    assert one != other
    assert one != tuple(getattr(one, name) for name in one._fields)
    assert repr(one) == f"{type(one).__name__}(" + ", ".join(f"{n}={getattr(one, n)!r}" for n in one._fields) + ")"
    with pytest.raises(AttributeError, match="cannot assign to field"):
        setattr(one, one._fields[0], None)
    assert pickle.loads(pickle.dumps(one)) == one
    assert getattr(type(one), "__match_args__", None) == one._fields


def test_a_receipt_and_a_status_row_compare_and_show_as_the_dataclasses_did_and_a_row_changes_in_place() -> None:
    receipt = Receipt(Path("r.json"), {"tier": "brain"})
    assert receipt == Receipt(Path("r.json"), {"tier": "brain"})
    assert receipt != Receipt(Path("r.json"), {})
    assert repr(receipt) == f"Receipt(path={Path('r.json')!r}, data={{'tier': 'brain'}})"
    with pytest.raises(TypeError):
        hash(receipt)  # (its document is a dict: unhashable, as the frozen dataclass was)
    with pytest.raises(AttributeError, match="cannot assign to field"):
        receipt.path = Path("x")  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(receipt)) == receipt
    row = TierStatus("brain", "partial", 3, 2, ["gone"], receipt, False, "install-tier brain")
    same = TierStatus("brain", "partial", 3, 2, ["gone"], receipt, False, "install-tier brain", False, 0, None)
    assert row == same
    assert repr(row) == (
        f"TierStatus(tier='brain', state='partial', packages=3, satisfied=2, problems=['gone'], receipt={receipt!r}, "
        "stale=False, remedy='install-tier brain', pruned=False, files_checked=0, last_failure=None)"
    )
    with pytest.raises(TypeError):
        hash(row)
    row.remedy = "tierlock lock brain && install-tier brain"  # (with_failure changes a row in place)
    assert row != same
    assert TierStatus.__match_args__ == (
        *("tier", "state", "packages", "satisfied", "problems", "receipt", "stale", "remedy", "pruned"),
        *("files_checked", "last_failure"),
    )
