# ruff: noqa: F811  (pytest fixtures imported from the installer's end-to-end tests are redefined as parameters)
"""Crash consistency with real uv and pip: leftovers, half-installed packages, a target breaking mid-run,
deep repairs, forced reinstalls, re-arming what is armed, and printed remedies run exactly as printed."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.test_install_cli import (  # noqa: F401  (fixtures shared with the installer's end-to-end tests)
    Kit,
    Run,
    StallingIndex,
    World,
    armed_venv,
    empty_venv,
    kit,
    refreeze,
    use_armed,
    uv_cache,
    wheel_dir,
    wheels,
    world,
)
from tests.support.env import bin_dir, clean_env, site_packages
from tests.support.tierproject import tree_snapshot, write_lock, write_pyproject
from tests.support.wheels import EXT_SUFFIX, build_wheel
from tierlock.cli import main
from tierlock.installer import receipts

pytestmark = pytest.mark.slow


def run_remedy(world: World, remedy: str) -> list[int]:
    """Run a printed remedy exactly as printed (``A && B``), from the project folder; the exit codes."""
    codes: list[int] = []
    world.monkeypatch.chdir(world.root)
    for command in remedy.split(" && "):
        argv = shlex.split(command)
        world.capsys.readouterr()
        if argv[0] == "install-tier":
            code = main(["install", *argv[1:]], prog="install-tier")
        elif argv[0] == "tierlock":
            code = main(argv[1:])
        else:  # another program (an interpreter recreating an environment)
            code = subprocess.run(argv, env=world.sub_env(), check=False, capture_output=True).returncode
        codes.append(code)
        if code != 0:
            break
    return codes


def deep_probe(world: World) -> Run:
    return world.cli("probe", "brain", "--closure", "--deep", "--json")


# -- 5: pip's leftovers ----------------------------------------------------------------------


def test_leftovers_of_a_killed_pip_upgrade_are_cleared_for_the_repaired_packages_only(
    world: World, armed_venv: Path
) -> None:
    use_armed(world, armed_venv)
    site = world.site
    # The state pip leaves when killed after moving corelib aside and before installing the new one.
    os.rename(site / "corelib", site / "~orelib")
    os.rename(site / "corelib-1.0.dist-info", site / "~orelib-1.0.dist-info")
    (site / "~nrelated").mkdir()  # belongs to no locked package: not tierlock's to delete
    (site / "~nrelated" / "keep.txt").write_text("mine")
    assert world.probe().state != "present"

    run = world.install("brain", "--backend", "pip")
    assert run.code == 0, run.err
    assert sorted(Path(p).name for p in run.json["leftovers_cleared"]) == ["~orelib", "~orelib-1.0.dist-info"]
    assert (site / "~nrelated" / "keep.txt").read_text() == "mine"
    assert deep_probe(world).json["ok"] is True


def test_a_leftover_beside_an_installed_package_is_partial_and_the_install_clears_it(
    world: World, armed_venv: Path
) -> None:
    use_armed(world, armed_venv)
    shutil.copytree(world.site / "helper", world.site / "~elper")  # the new one is in, the old one never deleted
    probe = world.probe()
    assert probe.state == "partial"
    assert any("leftover ~elper" in r for d in probe.checked for r in d.reasons)
    run = world.install("brain")
    assert run.code == 0, run.err
    assert run.json["result"] == "repaired"
    assert not (world.site / "~elper").exists()
    assert world.probe().state == "present"


# -- 6: half-installed packages ----------------------------------------------------------------


@pytest.fixture(scope="session")
def tool_links(tmp_path_factory: pytest.TempPathFactory) -> Path:
    links = tmp_path_factory.mktemp("tool-wheels")
    build_wheel(links, "basepkg", "1.0")
    build_wheel(
        links,
        "tool",
        "1.0",
        files={
            "tool/__init__.py": "def main() -> None:\n    print('tool')\n",
            "tool-1.0.dist-info/entry_points.txt": "[console_scripts]\ntool = tool:main\ntool-admin = tool:main\n",
        },
    )
    return links


@pytest.fixture
def tool_world(
    tmp_path: Path,
    kit: Kit,
    tool_links: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Iterator[World]:
    """A project whose brain tier is ``tool`` (two console scripts), armed by uv."""
    root = tmp_path / "proj"
    write_pyproject(root, brain=("tool>=1",))
    base = [("basepkg", "1.0", tool_links / "basepkg-1.0-py3-none-any.whl")]
    write_lock(root, "base", base)
    write_lock(root, "brain", [*base, ("tool", "1.0", tool_links / "tool-1.0-py3-none-any.whl")])
    venv = tmp_path / "venv"
    shutil.copytree(kit.empty_venv, venv, symlinks=True)
    w = World(root=root, venv=venv, find_links=tool_links, cache=kit.uv_cache, monkeypatch=monkeypatch, capsys=capsys)
    armed = w.install("brain")
    assert armed.code == 0, armed.err
    assert (venv / "bin" / "tool-admin").is_file()
    yield w
    assert tree_snapshot(root) == w.frozen, "tierlock wrote into the project tree"


def tool_reasons(world: World) -> list[str]:
    probe = world.probe()
    return [r for d in probe.checked if d.name == "tool" for r in d.reasons]


def test_a_package_whose_installer_never_wrote_installer_is_partial_and_repaired(tool_world: World) -> None:
    info = tool_world.site / "tool-1.0.dist-info"
    (info / "INSTALLER").unlink()
    assert any(r.startswith(f"INSTALLER missing in {info}") for r in tool_reasons(tool_world))
    run = tool_world.install("brain")
    assert run.code == 0, run.err
    assert [p["name"] for p in run.json["packages"]["repair"]] == ["tool"]
    assert tool_reasons(tool_world) == []


def test_a_package_with_the_wheels_own_record_is_partial_and_repaired(tool_world: World, tool_links: Path) -> None:
    info = tool_world.site / "tool-1.0.dist-info"
    with zipfile.ZipFile(tool_links / "tool-1.0-py3-none-any.whl") as wheel:
        (info / "RECORD").write_bytes(wheel.read("tool-1.0.dist-info/RECORD"))
    reasons = tool_reasons(tool_world)
    assert any("is the wheel's own, not the installer's" in r for r in reasons), reasons
    assert any("2 console scripts of its entry points are not installed: tool, tool-admin" in r for r in reasons)
    run = tool_world.install("brain")  # the receipt recorded RECORD's size: the fast path does not vouch for it
    assert run.code == 0, run.err
    assert run.json["result"] == "repaired"
    assert tool_reasons(tool_world) == []


def test_a_console_script_the_installer_never_wrote_is_partial_and_repaired(tool_world: World) -> None:
    info = tool_world.site / "tool-1.0.dist-info"
    record = info / "RECORD"
    record.write_text("".join(line for line in record.read_text().splitlines(True) if "bin/tool-admin" not in line))
    (tool_world.venv / "bin" / "tool-admin").unlink()
    assert tool_reasons(tool_world) == ["console script of its entry points is not installed: tool-admin"]
    run = tool_world.install("brain")
    assert run.code == 0, run.err
    assert (tool_world.venv / "bin" / "tool-admin").is_file()
    assert tool_reasons(tool_world) == []


# -- 7: a target that breaks mid-run -------------------------------------------------------------


def break_target(venv: Path, how: str) -> None:
    if how == "folder deleted":
        shutil.rmtree(venv)
    elif how == "interpreter gone":
        for exe in (venv / "bin").glob("python*"):
            exe.unlink()
    else:
        (venv / "pyvenv.cfg").unlink()


@pytest.mark.parametrize(
    ("how", "backend"),
    [("folder deleted", "uv"), ("interpreter gone", "uv"), ("pyvenv.cfg gone", "uv"), ("pyvenv.cfg gone", "pip")],
)
def test_a_target_that_breaks_while_the_backend_runs_fails_with_exit_3_and_no_receipt(
    world: World, tmp_path: Path, how: str, backend: str
) -> None:
    with StallingIndex(world.find_links, hold="corelib") as index:
        env = world.sub_env(links=index.url, cache=tmp_path / "cache")
        proc = world.spawn("install", "brain", "--json", "--backend", backend, env=env)
        assert index.requested.wait(60), "the backend never asked for the wheel"
        break_target(world.venv, how)
        index.release.set()
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 3, err
    assert "verified" not in out.replace("not verified", "").replace("nothing was verified", "")
    document = json.loads(out)
    assert document["ok"] is False
    assert document["error"]["exit_code"] == 3
    assert world.receipt() is None
    if how == "folder deleted":
        # uv recreates the site folder it was writing into; tierlock writes nothing there (no lock, no receipt).
        assert not (world.venv / "tierlock").exists(), "tierlock wrote into the deleted environment"
    broke = "broke while" in document["error"]["message"]
    assert broke or how != "pyvenv.cfg gone", document  # the backend succeeds there: only the check after it sees
    if broke:
        assert run_remedy(world, document["error"]["remedy"]) == [0, 0]
        assert world.probe().state == "present"


# -- 10: deep findings, forced reinstalls, remedies run as printed ----------------------------------


def test_a_same_size_corruption_only_deep_sees_is_repaired_by_the_printed_remedy(
    world: World, armed_venv: Path
) -> None:
    use_armed(world, armed_venv)
    target = world.site / "helper" / "data.txt"
    replacement = target.with_name("data.new")
    replacement.write_bytes(b"X" * target.stat().st_size)  # same size, other bytes, a new inode (not the uv cache's)
    os.replace(replacement, target)
    assert world.install("brain").json["result"] == "unchanged"  # sizes match: the receipt still vouches
    probe = world.cli("probe", "brain", "--closure", "--deep", "--python", world.python, target=False)
    assert probe.code == 1
    remedy = probe.out.split("to fix: ", 1)[1].strip()
    assert remedy == f"install-tier --project {world.root} brain --python {world.python} --deep"
    assert run_remedy(world, remedy) == [0]
    assert deep_probe(world).json["ok"] is True


def test_a_rerun_that_only_writes_the_missing_receipt_says_it_wrote_it(world: World, armed_venv: Path) -> None:
    """Every package in place but no receipt (an arming interrupted after its backend ended, or a tier installed
    by hand): the rerun installs nothing and writes the receipt; its line says so, not "nothing to do"."""
    use_armed(world, armed_venv)
    receipts.receipt_path(world.venv, "brain").unlink()
    rerun = world.cli("install", "brain")
    assert rerun.code == 0, rerun.err
    assert rerun.out.strip() == "brain: already present (3 package(s) verified by the probe); receipt written"
    assert world.receipt() is not None
    again = world.cli("install", "brain")  # now the receipt vouches: the no-op fast path
    assert again.out.strip().endswith("checked against the receipt); nothing to do")
    deep = world.cli("install", "brain", "--deep")  # probed in full, the receipt already says it all
    assert deep.out.strip() == "brain: already present (3 package(s) verified by the probe); nothing to do"


def test_reinstall_package_reinstalls_just_that_package_and_reinstall_every_one(world: World, armed_venv: Path) -> None:
    use_armed(world, armed_venv)
    one = world.install("brain", "--reinstall-package", "CoreLib")
    assert one.code == 0, one.err
    assert [p["name"] for p in one.json["packages"]["repair"]] == ["corelib"]
    assert one.json["counts"]["satisfied"] == 2
    every = world.install("brain", "--reinstall", "--backend", "pip")
    assert every.code == 0, every.err
    assert every.json["counts"] == {"install": 0, "replace": 0, "repair": 3, "satisfied": 0}
    assert world.probe().state == "present"


def test_an_unknown_reinstall_package_is_refused_with_a_remedy_that_works(world: World, armed_venv: Path) -> None:
    use_armed(world, armed_venv)
    run = world.install("brain", "--reinstall-package", "corelb")
    assert run.code == 2
    remedy = run.json["error"]["remedy"]
    assert remedy == f"install-tier --project {world.root} brain --python {world.python} --reinstall-package corelib"
    assert run_remedy(world, remedy) == [0]


def test_a_missing_lockfiles_remedy_locks_first_and_then_installs(world: World) -> None:
    (world.root / "lockfiles" / "brain.txt").unlink()
    refreeze(world)
    probe = world.cli("probe", "brain", "--python", world.python, target=False)
    remedy = probe.out.split("to fix: ", 1)[1].strip()
    at = f"--project {world.root}"
    assert remedy == f"tierlock {at} lock brain && install-tier {at} brain --python {world.python}"
    refused = world.install("brain")
    assert refused.code == 1, refused.json
    assert refused.json["error"]["remedy"] == f"tierlock --project {world.root} lock brain"
    assert run_remedy(world, remedy) == [0, 0]
    refreeze(world)  # the remedy wrote the lockfile, as it should
    assert world.probe().state == "present"


# -- 11: re-arm what is armed ---------------------------------------------------------------------


@pytest.mark.parametrize("how", [["--armed"], []], ids=["armed", "no-tier-named"])
def test_after_the_lockfiles_move_armed_tiers_are_brought_up_to_date_in_one_run(
    world: World, armed_venv: Path, wheels: dict[str, Path], how: list[str]
) -> None:
    use_armed(world, armed_venv)
    base = [("basepkg", "1.0", wheels["basepkg-1.0"])]
    brain = [*base, ("corelib", "2.0", wheels["corelib-2.0"]), ("helper", "1.0", wheels["helper-1.0"])]
    write_lock(world.root, "brain", brain)  # what a git pull brings
    refreeze(world)
    run = world.install(*how)
    assert run.code == 0, run.err
    assert run.json["tiers"] == ["brain"]
    assert [(p["name"], p["version"]) for p in run.json["packages"]["replace"]] == [("corelib", "2.0")]
    receipt = world.receipt()
    assert receipt is not None
    assert {p["name"]: p["version"] for p in receipt.packages}["corelib"] == "2.0"


def test_with_nothing_armed_and_no_tier_named_the_remedy_arms_base_in_the_same_target(world: World) -> None:
    run = world.install()
    assert run.code == 2
    assert "none is armed" in run.json["error"]["message"]
    remedy = run.json["error"]["remedy"]
    assert remedy == f"install-tier --project {world.root} base --python {world.python}"
    assert run_remedy(world, remedy) == [0]
    assert world.install().json["tiers"] == ["base"]  # now something is armed: no tier named re-arms it


def test_status_reports_a_tier_a_plain_sync_pruned_with_the_command_that_rearms_it(
    world: World, armed_venv: Path
) -> None:
    use_armed(world, armed_venv)
    uv = [str(bin_dir() / "uv"), "pip", "sync", "--python", world.python, str(world.root / "lockfiles" / "base.txt")]
    subprocess.run(uv, env=world.sub_env(), check=True, capture_output=True)
    status = world.cli("status", "--json", "brain")
    (row,) = status.json["tiers"]
    assert (row["state"], row["pruned"]) == ("absent", True)
    assert any("removed outside tierlock" in p for p in row["problems"])
    assert row["remedy"] == f"install-tier --project {world.root} brain --python {world.python}"
    assert run_remedy(world, row["remedy"]) == [0]
    assert world.cli("status", "--json", "brain").json["tiers"][0]["state"] == "present"


def test_an_extension_file_is_what_the_fixture_arms(world: World, armed_venv: Path) -> None:
    # Guard for the tests above: the armed venv carries the compiled-extension file they rely on.
    use_armed(world, armed_venv)
    assert list((site_packages(world.venv) / "corelib").glob(f"*{EXT_SUFFIX}"))
    assert clean_env()["PIP_CONFIG_FILE"] == os.devnull
