"""No secret is printed by any command: every error line, every note and every JSON field passes the one
redaction, whatever it was built from (a file name, a folder, a ref, a key or a tier typed on the
command line). Each case runs through the real CLI in text and in --json.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.credentials import shapes
from tests.support.env import clean_env
from tests.support.gitrepo import check, make_repo
from tierlock.cli import main

SHAPES = shapes()
#: Secrets that can be a file or folder name (no "/"), each of another detector.
SECRETS = {name: SHAPES[name] for name in ("github", "basic-glued-x", "azure-connection-string", "sendgrid")}
OK = "print('ok')\n"
PYPROJECT = '[project]\nname = "app"\nversion = "0"\ndependencies = []\n\n[project.optional-dependencies]\nbrain = []\n'


def run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out + out.err


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A git checkout with a pyproject.toml and a runtime config of one check."""
    folder = tmp_path_factory.mktemp("redaction") / "repo"
    folder.mkdir()
    (folder / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    return make_repo(folder, {"ok.py": OK}, [check("unit", "ok.py")])


CASES: dict[str, Callable[[str, Path], list[str]]] = {
    "validate FILE": lambda s, r: ["validate", f"{r}/{s}.json"],
    "validate --checkout": lambda s, r: ["validate", str(r / "tierlock.runtime.json"), "--checkout", f"{r}/{s}"],
    "verify --config": lambda s, r: ["--project", str(r), "verify", "--config", f"{r}/{s}.json"],
    "verify --config-from": lambda s, r: ["--project", str(r), "verify", "--config-from", s],
    "verify --only": lambda s, r: ["--project", str(r), "verify", "--only", s, "--no-setup"],
    "verify --evidence-dir": lambda s, r: ["--project", str(r), "verify", "--evidence-dir", str(r / "ok.py" / s)],
    "verified --evidence-dir": lambda s, r: ["--project", str(r), "verified", "--evidence-dir", f"{r}/{s}"],
    "--project": lambda s, r: ["--project", f"{r}/{s}", "check"],
    "install TIER": lambda s, r: ["--project", str(r), "install", s],
    "status TIER": lambda s, r: ["--project", str(r), "status", s],
    "lock TIER": lambda s, r: ["--project", str(r), "lock", s],
    "unknown command": lambda s, r: [s],
}


@pytest.mark.usefixtures("not_ci")
@pytest.mark.parametrize("json_mode", [False, True], ids=["text", "json"])
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("secret", sorted(SECRETS))
def test_a_secret_typed_on_the_command_line_is_echoed_in_no_error(
    case: str, secret: str, json_mode: bool, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    value = SECRETS[secret]
    argv = CASES[case](value, repo)
    code, shown = run(capsys, [*argv, "--json"] if json_mode and case != "unknown command" else argv)
    assert code != 0, shown
    assert value not in shown
    assert "[redacted]" in shown


def test_install_tier_with_a_secret_for_a_tier_name_echoes_it_nowhere(repo: Path) -> None:
    value = SECRETS["github"]
    done = subprocess.run(
        [str(Path(sys.executable).parent / "install-tier"), "--project", str(repo), value],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "unknown tier '[redacted]'" in done.stderr
    assert value not in done.stdout + done.stderr


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif"])
def test_a_basic_credential_glued_to_one_more_character_is_reported_and_redacted_in_every_format(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], not_ci: None
) -> None:
    """The fuzz reproducer: ``Basic <base64>`` and one more character, in a repository id, an env name, an
    unknown key and a did-you-mean hint (a repositoryId close to a declared one)."""
    import json

    for glue in ("x", "9", "/"):
        value = "Basic dXNlcjpXOFVN" + "dGhyQUVTMTM2ZktC" + glue
        document = {
            "schemaVersion": 1,
            "repositories": [{"id": "app", "path": "."}],
            "verification": [{"command": "run", "repositoryId": value, "env": {value: "1"}, value: 1}],
        }
        path = tmp_path / "c.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        code, shown = run(capsys, ["validate", str(path), "--no-checkout", "--format", fmt])
        assert code == 1
        assert "RC014" in shown
        assert value not in shown
        assert "dXNlcjpXOFVNdGhyQUVTMTM2ZktC" not in shown
