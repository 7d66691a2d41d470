"""Where verify's setup comes from: the config's setup list, else the lockfile derivation of setup-command."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.support.cli import cli_json
from tests.support.gitrepo import check, make_repo

OK = "print('ok')\n"
PYPROJECT = """\
[project]
name = "app"
version = "1"
dependencies = []

[project.optional-dependencies]
brain = []
gpu = []

[tool.tierlock]
lock-dir = "lockfiles"
ci-require = ["brain", "gpu"]

[tool.tierlock.tiers.brain]
source = "extra:brain"

[tool.tierlock.tiers.gpu]
source = "extra:gpu"
"""


pytestmark = pytest.mark.usefixtures("git_identity")


def test_setup_command_arms_base_and_every_ci_require_tier(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "lockfiles").mkdir()
    (tmp_path / "lockfiles" / "base.txt").write_text("")
    code, document = cli_json(capsys, "setup-command", str(tmp_path))
    assert (code, [c["line"] for c in document["commands"]]) == (0, ["install-tier base brain gpu"])


def test_setup_command_arms_base_alone_without_ci_require(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT.replace('ci-require = ["brain", "gpu"]\n', ""))
    (tmp_path / "lockfiles").mkdir()
    (tmp_path / "lockfiles" / "base.txt").write_text("")
    code, document = cli_json(capsys, "setup-command", str(tmp_path))
    assert (code, [c["line"] for c in document["commands"]]) == (0, ["install-tier base"])


def test_verify_derives_the_setup_from_the_one_lockfile_when_the_config_has_none(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # install-tier must not act on this test's own environment: off PATH, the derived setup is a toolchain blocker.
    monkeypatch.setenv("PATH", os.pathsep.join(p for p in ("/usr/bin", "/bin") if Path(p, "git").exists()))
    repo = make_repo(tmp_path / "r", {"ok.py": OK, "pyproject.toml": PYPROJECT}, [check("unit", "ok.py")])
    (repo / "lockfiles").mkdir()
    (repo / "lockfiles" / "base.txt").write_text("")
    from tests.support.gitrepo import commit_all

    commit_all(repo)
    code, document = cli_json(capsys, "--project", str(repo), "verify")
    setup = json.loads(Path(document["receipt"]).read_text())["setup"]
    assert (setup["source"], setup["ran"]) == ("lockfile", True)
    assert code == 3
    blocker = document["blocker"]
    assert (blocker["kind"], blocker["command"], blocker["args"]) == (
        "toolchain",
        "install-tier",
        ["base", "brain", "gpu"],
    )
    assert [c["list"] for c in document["commands"]] == ["setup"]
    assert "lockfiles/base.txt" in setup["lockfiles"]


@pytest.mark.skipif(shutil.which("go") is not None, reason="needs a machine without go")
def test_a_derived_setup_whose_tool_is_missing_is_a_toolchain_blocker(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK, "go.sum": ""}, [check("unit", "ok.py")])
    code, document = cli_json(capsys, "--project", str(repo), "verify")
    assert code == 3
    assert (document["blocker"]["kind"], document["blocker"]["command"]) == ("toolchain", "go")
    assert [c["list"] for c in document["commands"]] == ["setup"]


def test_without_any_lockfile_nothing_is_installed_and_the_reason_is_recorded(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [check("unit", "ok.py")])
    code, document = cli_json(capsys, "--project", str(repo), "verify")
    assert code == 0
    setup = json.loads(Path(document["receipt"]).read_text())["setup"]
    assert setup["source"] == "none"
    assert "no recognised lockfile" in setup["reason"]
    assert [c["list"] for c in document["commands"]] == ["verification"]
