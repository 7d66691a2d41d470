# ruff: noqa: F811  (pytest fixtures imported from test_install_cli are parameters here)
"""One identity for the target: the no-op path, the plan, probe, status and admit agree on which environment it is.

* a symlink to a venv's ``bin/python``, run directly, reports the base
  interpreter's ``sys.prefix`` (Python looks for ``pyvenv.cfg`` beside the
  path it was started from), and uv and pip act on that base: so does every
  tierlock command, and none calls the venv's tier "already present";
* a venv whose ``bin/python`` was deleted has no interpreter, for the no-op
  path as for probe, status and admit;
* a receipt copied under another tier's name vouches for nothing: the no-op
  path checks that a receipt's packages are exactly its tier's lockfile's.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.cli.test_install_cli import (  # noqa: F401 - the shared session fixtures
    World,
    armed_venv,
    empty_venv,
    kit,
    use_armed,
    uv_cache,
    wheel_dir,
    wheels,
    world,
)
from tests.support.cli import cli_json
from tests.support.env import bin_dir, clean_env, site_packages
from tests.support.tierproject import tree_snapshot, write_lock
from tests.support.verdicts import run_remedy
from tests.support.wheels import build_wheel
from tierlock.installer import receipts


def _prefix_reported_by(python: Path) -> str:
    run = subprocess.run(
        [str(python), "-c", "import sys; print(sys.prefix)"], check=False, capture_output=True, text=True
    )
    return run.stdout.strip()


def test_a_symlink_to_a_venvs_python_is_the_base_interpreter_it_reports_for_every_command(
    world: World, armed_venv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    use_armed(world, armed_venv)
    assert world.install("brain").json["result"] == "unchanged"  # its receipt now names this venv
    link = world.root.parent / "py-link"
    link.symlink_to(world.venv / "bin" / "python")
    base = _prefix_reported_by(link)
    assert base != str(world.venv)  # what uv and pip act on through this path

    run = world.cli("install", "--python", str(link), "--json", "brain", target=False)
    assert run.code == 2, run.out
    error = run.json["error"]
    assert f"{link} is not a virtual environment (prefix {base})" in error["message"]
    assert f"it is a link to {world.venv / 'bin' / 'python'}" in error["message"]
    assert run.backend_runs == []
    python = str(world.venv / "bin" / "python")
    assert error["remedy"] == shlex.join(["install-tier", "--project", str(world.root), "brain", "--python", python])

    code, probed = cli_json(capsys, "--project", str(world.root), "probe", "brain", "--python", str(link))
    assert (code, probed["tiers"][0]["state"]) == (1, "absent")
    code, status = cli_json(capsys, "--project", str(world.root), "status", "brain", "--python", str(link))
    assert (code, status["target"], status["tiers"][0]["state"]) == (0, base, "absent")
    code, admitted = cli_json(capsys, "--project", str(world.root), "admit", "--tier", "brain", "--python", str(link))
    assert (code, admitted["probe"]["verdict"]) == (1, "fail")

    fixed = run_remedy(error["remedy"], cwd=world.root)
    assert fixed.returncode == 0, fixed.stderr
    assert "brain: already present" in fixed.stdout


def test_a_venv_whose_interpreter_was_deleted_has_no_interpreter_for_every_command(
    world: World, armed_venv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    use_armed(world, armed_venv)
    assert world.install("brain").json["result"] == "unchanged"
    (world.venv / "bin" / "python").unlink()
    message = f"no interpreter at {world.venv / 'bin' / 'python'}"

    run = world.cli("install", "--python", str(world.venv), "--json", "brain", target=False)
    assert run.code == 2, run.out
    assert message in run.json["error"]["message"]
    script = subprocess.run(
        [str(bin_dir() / "install-tier"), "brain", "--project", str(world.root), "--python", str(world.venv)],
        capture_output=True,
        text=True,
        env=clean_env(),
        check=False,
    )
    assert script.returncode == 2, script.stdout
    assert "already present" not in script.stdout
    assert message in script.stderr
    for argv in (("probe", "brain"), ("status", "brain"), ("admit", "--tier", "brain")):
        code, doc = cli_json(capsys, "--project", str(world.root), *argv, "--python", str(world.venv))
        text = json.dumps(doc)
        assert code in (1, 2), (argv, doc)
        assert message in text, (argv, doc)


def test_a_receipt_copied_under_another_tiers_name_does_not_make_it_already_present(
    world: World, armed_venv: Path, tmp_path: Path
) -> None:
    links = tmp_path / "links"
    links.mkdir()
    for wheel in world.find_links.iterdir():
        (links / wheel.name).write_bytes(wheel.read_bytes())
    other = build_wheel(links, "otherpkg", "1.0")
    for key in ("UV_FIND_LINKS", "PIP_FIND_LINKS"):
        world.monkeypatch.setenv(key, str(links))
    pyproject = world.root / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8").replace(
        "\n[tool.tierlock]", 'other = ["otherpkg>=1"]\n\n[tool.tierlock]'
    )
    pyproject.write_text(text + "\n[tool.tierlock.tiers.other]\n", encoding="utf-8")
    basepkg = links / "basepkg-1.0-py3-none-any.whl"
    write_lock(world.root, "other", [("basepkg", "1.0", basepkg), ("otherpkg", "1.0", other)])
    world.frozen = tree_snapshot(world.root)  # changed on purpose; the runs below must not change it again

    use_armed(world, armed_venv)
    assert world.install("brain").json["result"] == "unchanged"
    copied = dict(receipts.load(receipts.receipt_path(world.venv, "brain")).data)  # type: ignore[union-attr]
    lockfile = world.root / "lockfiles" / "other.txt"
    copied["tier"] = "other"
    copied["lockfiles"] = {
        "base": copied["lockfiles"]["base"],
        "other": {"path": str(lockfile), "digest": receipts.file_digest(lockfile)},
    }
    receipts.write(world.venv, copied)

    run = world.install("other")
    assert run.code == 0, run.err
    assert run.json["result"] == "installed"
    assert [p["name"] for p in run.json["packages"]["install"]] == ["otherpkg"]
    assert (site_packages(world.venv) / "otherpkg-1.0.dist-info").is_dir()
    again = world.install("other")
    assert (again.json["result"], again.json["package_count"]) == ("unchanged", 2)
