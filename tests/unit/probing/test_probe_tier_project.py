"""A tier's verdict when its closure reaches the project, and a deep probe that cannot read a file (files only).

The target is a :class:`~tierlock.environment.Target` whose import path is a
site folder laid out by hand; the tier's lockfile pins what is installed and,
as tierlock writes it, says that the project's own pin was left out.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import tierlock
from tests.support.pyproject import pyproject
from tests.support.targets import a_target
from tierlock.environment import Target
from tierlock.lockfiles.projectpin import comment
from tierlock.probing import probe_distribution

FAKE_HASH = "--hash=sha256:" + "0" * 64
PYPROJECT = pyproject(
    name="app",
    version="0.2.0",
    requires_python=None,
    extras={"gs": ["gcsfslike"]},
    tierlock={"backend": "pip"},
    tiers={"gs": {}},
)


def _dist(site: Path, name: str, version: str, requires: tuple[str, ...] = ()) -> None:
    info = site / f"{name}-{version}.dist-info"
    (site / name).mkdir(parents=True)
    info.mkdir()
    (site / name / "__init__.py").write_text("X = 1\n")
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n" + "".join(
        f"Requires-Dist: {r}\n" for r in requires
    )
    (info / "METADATA").write_text(meta)
    (info / "INSTALLER").write_text("uv\n")
    rows = [f"{name}/__init__.py,,6", f"{info.name}/METADATA,,{len(meta)}", f"{info.name}/INSTALLER,,3"]
    (info / "RECORD").write_text("\n".join([*rows, f"{info.name}/RECORD,,"]) + "\n")


def _target(site: Path) -> Target:
    marker_env = {"python_version": "3.12", "sys_platform": "linux"}
    return a_target(site.parent, site, stdlib=Path(sys.base_prefix) / "lib", marker_env=marker_env, version=(3, 12, 1))


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    """(project folder, site folder): gcsfslike installed, requiring the project app."""
    root = tmp_path / "app"
    (root / "lockfiles").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "lockfiles" / "gs.txt").write_text(f"gcsfslike==1.0 {FAKE_HASH}\n{comment('app')}\n")
    site = tmp_path / "venv" / "lib" / "site-packages"
    _dist(site, "gcsfslike", "1.0", ("app>=0.2",))
    return root, site


def test_a_closure_that_reaches_the_project_needs_it_installed_and_the_fix_installs_it_first(
    world: tuple[Path, Path],
) -> None:
    root, site = world
    result = tierlock.probe("gs", project=root, python=_target(site))
    assert result.state == "partial"
    assert result.project is not None
    assert (result.project.name, result.project.state) == ("app", "absent")
    assert result.project in result.checked
    assert result.project in result.broken
    assert not result.needs_install
    assert result.project_command == result.install_command
    assert result.install_command.endswith(f"install --no-deps -e {root}")
    assert result.to_dict()["project"] == result.project.to_dict()

    _dist(site, "app", "0.2.0")
    again = tierlock.probe("gs", project=root, python=_target(site))
    assert (again.state, again.project_command) == ("present", None)
    assert again.project is not None
    assert again.project.present
    assert again.install_command == "install-tier gs"


def test_the_fix_installs_the_project_then_arms_the_tier_when_more_is_broken(world: tuple[Path, Path]) -> None:
    root, site = world
    (site / "gcsfslike" / "__init__.py").unlink()
    result = tierlock.probe("gs", project=root, python=_target(site))
    assert result.needs_install
    assert result.install_command == f"{result.project_command} && install-tier gs"


def test_no_project_verdict_when_nothing_installed_requires_it_or_the_lock_never_reaches_it(
    world: tuple[Path, Path],
) -> None:
    root, site = world
    record = next(site.glob("gcsfslike-*.dist-info")) / "METADATA"
    record.write_text(record.read_text().replace("Requires-Dist: app>=0.2\n", "Requires-Dist: other\n"))
    assert tierlock.probe("gs", project=root, python=_target(site)).project is None
    record.write_text(record.read_text().replace("Requires-Dist: other\n", "Requires-Dist: app>=0.2\n"))
    (root / "lockfiles" / "gs.txt").write_text(f"gcsfslike==1.0 {FAKE_HASH}\n")
    result = tierlock.probe("gs", project=root, python=_target(site))
    assert (result.project, result.state) == (None, "present")
    (root / "lockfiles" / "gs.txt").write_text(f"gcsfslike==1.0 {FAKE_HASH}\napp==0.2.0 {FAKE_HASH}\n")
    pinned = tierlock.probe("gs", project=root, python=_target(site))
    assert pinned.project is not None
    assert pinned.project.state == "absent"


def test_a_deep_probe_counts_a_file_it_cannot_read_as_one_that_does_not_match(tmp_path: Path) -> None:
    site = tmp_path / "site"
    _dist(site, "alpha", "1.0")
    (site / "alpha" / "data").mkdir()  # RECORD says a file, with the size the folder has
    size = (site / "alpha" / "data").stat().st_size
    record = site / "alpha-1.0.dist-info" / "RECORD"
    record.write_text(f"alpha/data,sha256=AAAA,{size}\n" + record.read_text())
    assert probe_distribution("alpha", paths=[site]).state == "present"
    assert probe_distribution("alpha", paths=[site], deep=True).reasons == [
        "file does not match its RECORD hash: alpha/data"
    ]


def test_the_plugins_verdict_carries_the_tiers_own_command_when_the_project_is_fine(world: tuple[Path, Path]) -> None:
    from tierlock.probing import probe_tiers
    from tierlock.probing.facts import facts_of, probe_facts
    from tierlock.tiers import load_project

    root, site = world
    _dist(site, "app", "0.2.0")
    project = load_project(root)
    results = probe_tiers(None, project=project, python=_target(site))
    facts = facts_of(project, results)
    assert [t.pins_project for t in facts.tiers] == [False, True]  # base, gs
    verdicts = {v.tier: v for v in probe_facts(facts, [site])}
    assert verdicts["gs"].install_command == results[1].install_command == "install-tier gs"
    assert verdicts["gs"].project is not None
    assert verdicts["gs"].project.present
    (next(site.glob("app-*.dist-info")) / "RECORD").unlink()
    broken = {v.tier: v for v in probe_facts(facts, [site])}["gs"]
    assert broken.broken == [broken.project]
    assert broken.install_command.endswith(f"install --no-deps -e {root}")


def test_a_prober_probes_a_tier_without_a_lockfile_by_its_roots_unless_asked_for_the_closure(
    world: tuple[Path, Path],
) -> None:
    from tierlock.errors import UsageError
    from tierlock.probing import Prober
    from tierlock.tiers import load_project

    root, site = world
    (root / "lockfiles" / "gs.txt").unlink()
    project = load_project(root)
    prober = Prober(project, _target(site))
    result = prober.probe(project.tier("gs"))
    assert (result.state, result.lock_used) == ("present", False)
    with pytest.raises(UsageError, match="--closure needs the lockfile of tier gs"):
        prober.probe(project.tier("gs"), closure=True)
