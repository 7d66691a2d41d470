"""``tierlock lock`` of many tiers: one failing tier does not stop the others; empty tiers need no backend."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import cli_json, run_cli
from tests.support.lockproj import offline, write_project
from tests.support.pyproject import pyproject
from tierlock.lockfiles import load

MANY = pyproject(
    dependencies=["delta<2"],
    extras={"first": ["alpha"], "broken": ["no-such-package>=1"], "above": ["gamma"], "last": ["beta"]},
    groups={"empty": []},
    tiers={"first": {}, "broken": {}, "above": {"layered-on": "broken"}, "last": {}, "empty": {}},
)

WORKSPACE = """\
[project]
name = "proj"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["delta<2"]

[project.optional-dependencies]
brain = ["alpha"]

[dependency-groups]
dev = ["member-lib", "beta"]

[tool.uv.workspace]
members = ["packages/*"]

[tool.uv.sources]
member-lib = { workspace = true }

[tool.tierlock.tiers.brain]
[tool.tierlock.tiers.dev]
"""


def test_a_failing_tier_in_the_middle_locks_the_others_and_reports_every_failure_with_a_remedy(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_project(tmp_path / "proj", MANY)
    code, out, err = run_cli(capsys, "--project", str(folder), "lock", *offline(wheels))
    assert code == 3
    for tier in ("base", "first", "last", "empty"):
        assert (folder / f"lockfiles/{tier}.txt").is_file(), tier
        assert re.search(rf"^{tier}: lockfiles/{tier}\.txt: \d+ package\(s\), created", out, re.M), out
    assert not (folder / "lockfiles/broken.txt").exists()
    assert not (folder / "lockfiles/above.txt").exists()
    assert "ERROR 2 tier(s) not locked (their lockfiles are unchanged):" in err
    assert "  broken: uv pip compile failed" in err
    assert "no-such-package" in err  # uv's own explanation
    assert "  above: not locked: the broken lock it is layered on failed" in err
    assert err.count("to fix:") == 2
    assert f"then run: tierlock --project {folder} lock broken" in err  # (the project it was given)
    assert f"then run: tierlock --project {folder} lock above (which locks broken first)" in err
    code, doc = cli_json(capsys, "--project", str(folder), "lock", *offline(wheels))
    assert code == 3
    assert doc["ok"] is False
    assert [d["tier"] for d in doc["locked"]] == ["base", "first", "last", "empty"]
    assert [(f["tier"], bool(f["remedy"])) for f in doc["failed"]] == [("broken", True), ("above", True)]
    # fixed as the remedy says, the printed command locks the tier and the one below it
    pyproject = folder / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"no-such-package>=1"', '"beta"'))
    code, out, err = run_cli(capsys, "--project", str(folder), "lock", "above", *offline(wheels))
    assert code == 0, err
    assert (folder / "lockfiles/broken.txt").is_file()
    assert (folder / "lockfiles/above.txt").is_file()


def test_an_empty_tier_is_locked_without_a_backend_call(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str], started: list[tuple[str, ...]]
) -> None:
    folder = write_project(tmp_path / "proj", MANY.replace('broken = ["no-such-package>=1"]', 'broken = ["beta"]'))
    code, _, err = run_cli(capsys, "--project", str(folder), "lock", "empty", *offline(wheels))
    assert code == 0, err
    compiles = [a for a in started if a[1:3] == ("pip", "compile") and "--no-deps" not in a]
    assert [Path(a[3]).name for a in compiles] == ["base.in"]  # the base below it, not the empty tier
    lock = load(folder / "lockfiles/empty.txt")
    assert [e.name for e in lock.entries] == ["delta"]  # layered on base: the full closure
    code, out, _ = run_cli(capsys, "--project", str(folder), "check", "empty")
    assert code == 0, out


@pytest.mark.parametrize("fmt", ["requirements", "pylock"])
def test_a_tier_with_no_requirements_at_all_gets_a_valid_empty_lock_without_a_backend(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str], started: list[tuple[str, ...]], fmt: str
) -> None:
    folder = write_project(
        tmp_path / "proj",
        f'[project]\nname = "proj"\nversion = "0"\nrequires-python = ">=3.11"\ndependencies = []\n\n'
        f'[tool.tierlock]\nformat = "{fmt}"\n',
    )
    code, out, err = run_cli(capsys, "--project", str(folder), "lock", *offline(wheels))
    assert code == 0, err
    assert "base: lockfiles/" in out
    assert "0 package(s), created" in out
    assert [a for a in started if a[1:3] == ("pip", "compile")] == []
    code, out, _ = run_cli(capsys, "--project", str(folder), "check")
    assert code == 0, out


def test_a_tier_reaching_a_workspace_member_is_named_with_a_remedy_that_works_when_applied(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str], started: list[tuple[str, ...]]
) -> None:
    folder = write_project(tmp_path / "proj", WORKSPACE)
    member = folder / "packages/member-lib"
    member.mkdir(parents=True)
    (member / "pyproject.toml").write_text('[project]\nname = "member_lib"\nversion = "0.1"\n')
    code, _, err = run_cli(capsys, "--project", str(folder), "lock", *offline(wheels))
    assert code == 3
    assert (folder / "lockfiles/brain.txt").is_file()
    assert "dev: cannot be locked: it reaches member-lib, a workspace member (packages/member-lib)" in err
    assert not [a for a in started if a[1:3] == ("pip", "compile") and a[3].endswith("dev.in")]  # no backend call
    remedy = next(line for line in err.splitlines() if "to fix:" in line)
    assert (
        "remove member-lib from the dependency group dev in pyproject.toml, or remove [tool.tierlock.tiers.dev]"
        in remedy
    )
    assert remedy.endswith(f"then run: tierlock --project {folder} lock")
    # applied as printed (the second way): the lock passes
    pyproject = folder / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("[tool.tierlock.tiers.dev]\n", ""))
    code, _, err = run_cli(capsys, "--project", str(folder), "lock", *offline(wheels))
    assert code == 0, err


def test_versions_forked_under_markers_are_counted_as_one_package_with_several_entries(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_project(
        tmp_path / "proj",
        '[project]\nname = "proj"\nversion = "0"\nrequires-python = ">=3.11"\n'
        'dependencies = ["beta<2; python_version < \'3.12\'", "beta>=2; python_version >= \'3.12\'", "delta"]\n',
    )
    code, out, err = run_cli(capsys, "--project", str(folder), "lock", *offline(wheels))
    assert code == 0, err
    assert "base: lockfiles/base.txt: 2 package(s) in 3 lock entries, created" in out
    code, doc = cli_json(capsys, "--project", str(folder), "lock", *offline(wheels))
    assert (doc["locked"][0]["packages"], doc["locked"][0]["entries"]) == (2, 3)
    code, doc = cli_json(capsys, "--project", str(folder), "check")
    assert (doc["packages_checked"], doc["entries_checked"]) == (2, 3)


SIX = pyproject(
    dependencies=["delta<2"],
    extras={
        "t1": ["alpha"], "t2": ["beta"], "t3": ["gamma"], "t4": ["alpha", "beta"], "t5": ["beta", "gamma"],
        "t6": ["alpha", "gamma"],
    },
    tiers={f"t{i}": {} for i in range(1, 7)},
)  # fmt: skip


def test_sibling_tiers_are_compiled_side_by_side_but_never_more_backends_at_once_than_the_bound(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from tierlock import subproc
    from tierlock.lockfiles.lock import PARALLEL

    live: list[int] = []
    start = subproc.start

    def held(*args: Any, **kwargs: Any) -> Any:
        proc = start(*args, **kwargs)
        # the compiles running now, this one included (a tier's other backend runs are not bounded)
        live.append(sum(isinstance(p.args, tuple) and "compile" in p.args for p in list(subproc._live.values())))
        time.sleep(1.0)  # each backend runs a while: the others start meanwhile, as far as the bound lets them
        return proc

    monkeypatch.setattr(subproc, "start", held)
    folder = write_project(tmp_path / "proj", SIX)
    code, _out, err = run_cli(capsys, "--project", str(folder), "lock", *offline(wheels))
    assert code == 0, err
    assert max(live) == PARALLEL
