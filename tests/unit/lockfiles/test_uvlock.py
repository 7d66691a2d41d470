"""uv.lock is read as TOML, without uv: each tier's part is what ``uv export`` (uv itself) says it is.

The oracle is real uv on a real lock: for every selection of extras and groups,
the packages tierlock picks out of uv.lock, evaluated on Linux and Windows for
Python 3.11 and 3.12, are the ones ``uv export --frozen`` lists for that
selection. (The parts that need no uv: ``test_uvlock_reading.py``.)
"""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement

from tests.support.uvproject import locked_project, uv, uv_env
from tierlock.lockfiles.markers import applies
from tierlock.lockfiles.uvlock import parse
from tierlock.lockfiles.uvselect import select

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def uv_project(tmp_path_factory: pytest.TempPathFactory, uv_wheelhouse: Path) -> tuple[Path, dict[str, str]]:
    wheels = uv_wheelhouse
    env = uv_env(wheels, tmp_path_factory.mktemp("cache"))
    return locked_project(tmp_path_factory.mktemp("lock") / "proj", env), env


ENVIRONMENTS = [
    {"sys_platform": platform, "python_full_version": full, "python_version": full[:4], "platform_system": system}
    for platform, system in (("linux", "Linux"), ("win32", "Windows"))
    for full in ("3.11.7", "3.12.1")
]


def _exported(root: Path, env: dict[str, str], flags: list[str]) -> list[tuple[str, str, Marker | None]]:
    text = uv(["export", "--frozen", "--no-hashes", "--no-default-groups", *flags], root, env).stdout
    out = []
    for line in text.splitlines():
        if not line or line.startswith(("#", " ", "-e")):
            continue
        req = Requirement(line)
        (spec,) = req.specifier
        out.append((req.name, spec.version, req.marker))
    return out


def _on(pairs: list[tuple[str, str, Marker | None]], environment: dict[str, str]) -> set[tuple[str, str]]:
    return {(n, v) for n, v, m in pairs if applies(m, environment)}


@pytest.mark.parametrize(
    ("extras", "groups"),
    [((), ()), (("brain",), ()), (("old",), ()), ((), ("test",)), ((), ("tools",)), (("brain",), ("tools",))],
    ids=["base", "brain", "old", "test", "tools", "brain+tools"],
)
def test_a_selection_holds_the_packages_uv_export_lists_on_every_platform(
    uv_project: tuple[Path, dict[str, str]], extras: tuple[str, ...], groups: tuple[str, ...]
) -> None:
    root, env = uv_project
    flags = [f"--extra={e}" for e in extras] + [f"--group={g}" for g in groups]
    expected = _exported(root, env, flags)
    lock = parse((root / "uv.lock").read_text(), root / "uv.lock")
    chosen = select(lock, "proj", extras, groups)
    assert chosen.problems == ()
    mine = [(str(e.name), str(e.version), e.marker) for e in chosen.entries]
    for environment in ENVIRONMENTS:
        assert _on(mine, environment) == _on(expected, environment), environment
    assert {(p.name, p.editable) for p in chosen.local} == {("proj", True), ("member", True)}
    assert all(e.index == str((root.parent.parent / "wheels").resolve()) or e.index for e in chosen.entries)


def test_an_extra_or_group_missing_from_the_lock_is_a_problem_on_the_projects_line(
    uv_project: tuple[Path, dict[str, str]],
) -> None:
    root, _ = uv_project
    lock = parse((root / "uv.lock").read_text(), root / "uv.lock")
    chosen = select(lock, "proj", ("gpu",), ("docs",))
    details = [p.detail for p in chosen.problems]
    assert details == ["proj has no extra 'gpu' in the lock", "proj has no dependency group 'docs' in the lock"]
    line = next(i for i, text in enumerate((root / "uv.lock").read_text().splitlines(), 1) if text == 'name = "proj"')
    assert {p.line for p in chosen.problems} == {line - 1}


def test_a_lock_for_another_project_names_the_package_it_lacks(uv_project: tuple[Path, dict[str, str]]) -> None:
    root, _ = uv_project
    lock = parse((root / "uv.lock").read_text(), root / "uv.lock")
    (problem,) = select(lock, "other-project").problems
    assert "no package 'other-project'" in problem.detail
