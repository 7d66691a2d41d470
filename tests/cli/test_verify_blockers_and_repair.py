"""Why a run could not reach a verdict, for every kind, and the one repair verify makes of the environment.

Real checks that fail on the machine rather than on the code: a connection refused (``network``), a
server answering 401 (``credential``), an unset variable in Python and in the shell (``env-variable``),
a shell that cannot find its tool (exit 127, ``toolchain``); each is a blocker with a required action.
A check that fails because a tier is not installed (its import root missing, its console script not
found) gets one ``install-tier`` of that tier into the real project environment and is run again; the
receipt records the repair and only the second run counts.
"""

from __future__ import annotations

import http.server
import json
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.gitrepo import check, commit_all, make_repo, receipt_of, verify_json
from tests.support.tierproject import write_lock
from tests.support.wheels import build_wheel

pytestmark = pytest.mark.usefixtures("git_identity")

BIN = Path(sys.executable).parent


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


class _Unauthorized(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(401, "Unauthorized")
        self.send_header("WWW-Authenticate", 'Basic realm="packages"')
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def unauthorized_server() -> Iterator[str]:
    server = http.server.HTTPServer(("127.0.0.1", 0), _Unauthorized)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/simple/"
    finally:
        server.shutdown()
        server.server_close()


def _blocked(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, scripts: dict[str, str], entry: dict[str, Any]
) -> dict[str, object]:
    repo = make_repo(tmp_path / "r", {"ok.py": "print('ok')\n", **scripts}, [entry, check("unit", "ok.py")])
    code, doc = verify_json(capsys, repo)
    assert (code, doc["result"]) == (3, "blocked"), doc
    blocker: dict[str, object] = doc["blocker"]
    assert blocker["key"] == entry["key"]
    assert blocker["requiredAction"]
    assert [c["status"] for c in doc["commands"]][-1] == "passed"  # the other checks still ran
    return blocker


def test_a_connection_refused_is_a_network_blocker(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    script = f"import urllib.request\nurllib.request.urlopen('http://127.0.0.1:{_free_port()}/simple/', timeout=10)\n"
    blocker = _blocked(capsys, tmp_path, {"fetch.py": script}, check("fetch", "fetch.py"))
    assert blocker["kind"] == "network"
    assert "network" in str(blocker["requiredAction"])


def test_a_server_refusing_the_credentials_is_a_credential_blocker(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, unauthorized_server: str
) -> None:
    script = f"import urllib.request\nurllib.request.urlopen({unauthorized_server!r}, timeout=10)\n"
    blocker = _blocked(capsys, tmp_path, {"fetch.py": script}, check("fetch", "fetch.py"))
    assert blocker["kind"] == "credential"
    assert "credential" in str(blocker["requiredAction"])


def test_an_unset_variable_read_by_python_is_an_env_variable_blocker_naming_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DEPLOY_REGION", raising=False)
    script = "import os\nprint('deploying to', os.environ['DEPLOY_REGION'])\n"
    blocker = _blocked(capsys, tmp_path, {"deploy.py": script}, check("deploy", "deploy.py"))
    assert blocker["kind"] == "env-variable"
    assert "DEPLOY_REGION" in str(blocker["requiredAction"])
    assert "DEPLOY_REGION" in str(blocker["reason"])


def test_an_unset_variable_in_a_strict_shell_is_an_env_variable_blocker_naming_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("API_URL", raising=False)
    entry = {"key": "shell", "command": "sh", "args": ["-c", 'set -u; echo "calling $API_URL"']}
    blocker = _blocked(capsys, tmp_path, {}, entry)
    assert blocker["kind"] == "env-variable"
    assert "API_URL" in str(blocker["requiredAction"])


def test_a_shell_that_cannot_find_its_tool_exits_127_and_is_a_toolchain_blocker(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    entry = {"key": "lint", "command": "sh", "args": ["-c", "no-such-linter-tierlock --check ."]}
    blocker = _blocked(capsys, tmp_path, {}, entry)
    assert blocker["kind"] == "toolchain"
    assert "no-such-linter-tierlock" in str(blocker["reason"])
    assert "no-such-linter-tierlock" in str(blocker["requiredAction"])


def test_every_blocker_kind_is_documented_with_its_required_action() -> None:
    text = (Path(__file__).parents[2] / "docs" / "reference" / "verify.md").read_text(encoding="utf-8")
    for kind in ("network", "credential", "env-variable", "toolchain", "setup", "timeout", "scope", "environment"):
        assert f"| `{kind}` |" in text


# -- the repair --------------------------------------------------------------------

PYPROJECT = """\
[project]
name = "app"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["basepkg>=1"]

[project.optional-dependencies]
tools = ["lintkit>=1"]
brain = ["helper>=1"]

[tool.tierlock]
lock-dir = "lockfiles"

[tool.tierlock.tiers.tools]
source = "extra:tools"

[tool.tierlock.tiers.brain]
source = "extra:brain"
"""


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    dest = tmp_path_factory.mktemp("repair-wheels")
    return {
        "basepkg": build_wheel(dest, "basepkg", "1.0"),
        "lintkit": build_wheel(
            dest,
            "lintkit",
            "1.0",
            files={
                "lintkit/__init__.py": "",
                "lintkit-1.0.data/scripts/lintkit": "#!python\nprint('lintkit: no findings')\n",
            },
        ),
        "helper": build_wheel(dest, "helper", "1.0"),
    }


@pytest.fixture
def offline_index(wheelhouse: dict[str, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The user's pip and uv configuration: the local wheel folder only."""
    links = str(wheelhouse["basepkg"].parent)
    for key, value in {
        "UV_NO_INDEX": "1",
        "UV_FIND_LINKS": links,
        "UV_CACHE_DIR": str(tmp_path / "uv-cache"),
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": links,
    }.items():
        monkeypatch.setenv(key, value)


def _tiered_repo(tmp_path: Path, wheels: dict[str, Path], verification: list[dict[str, object]]) -> Path:
    repo = tmp_path / "app"
    repo.mkdir()
    (repo / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    base = [("basepkg", "1.0", wheels["basepkg"])]
    write_lock(repo, "base", base)
    write_lock(repo, "tools", [*base, ("lintkit", "1.0", wheels["lintkit"])])
    write_lock(repo, "brain", [*base, ("helper", "1.0", wheels["helper"])])
    setup = [{"key": "arm", "command": str(BIN / "install-tier"), "args": ["base"]}]
    document = {"schemaVersion": 1, "setup": setup, "verification": verification}
    (repo / "tierlock.runtime.json").write_text(json.dumps(document), encoding="utf-8")
    (repo / ".gitignore").write_text(".venv/\n__pycache__/\n", encoding="utf-8")
    from tests.support.gitrepo import git

    git(repo, "init", "-q", "-b", "main")
    commit_all(repo, "a tiered project")
    return repo


@pytest.mark.usefixtures("offline_index")
def test_a_missing_import_root_of_a_tier_is_repaired_once_and_only_the_second_run_counts(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, wheelhouse: dict[str, Path]
) -> None:
    repo = _tiered_repo(
        tmp_path,
        wheelhouse,
        [
            {"key": "brain", "command": "python", "args": ["-c", "import helper; print('helper', helper.__version__)"]},
            {"key": "lint", "command": "lintkit"},
        ],
    )
    code, doc = verify_json(capsys, repo)
    assert code == 0, doc
    assert [(c["list"], c["key"], c["status"]) for c in doc["commands"]] == [
        ("setup", "arm", "passed"),
        ("repair", None, "passed"),
        ("verification", "brain", "passed"),
        ("verification", "lint", "passed"),
    ]
    repair = receipt_of(doc)["repair"]
    assert repair == doc["repair"]
    assert (repair["attempted"], repair["reVerified"]) == (True, True)
    assert sorted(repair["tiers"]) == ["brain", "tools"]
    assert [(n["key"], n["tier"]) for n in repair["because"]] == [("brain", "brain"), ("lint", "tools")]
    assert [(r["key"], r["status"]) for r in repair["firstRun"]] == [("brain", "failed"), ("lint", "not-found")]
    [install] = repair["installs"]
    assert install["command"].endswith("install-tier")
    assert sorted(install["args"]) == ["brain", "tools"]
    assert (install["status"], install["exitCode"]) == ("passed", 0)
    assert doc["usable"] is True


@pytest.mark.usefixtures("offline_index")
def test_a_failure_the_repair_does_not_cure_is_not_repaired_twice(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, wheelhouse: dict[str, Path]
) -> None:
    stubborn = "raise ModuleNotFoundError(\"No module named 'helper'\")"
    repo = _tiered_repo(tmp_path, wheelhouse, [{"key": "brain", "command": "python", "args": ["-c", stubborn]}])
    code, doc = verify_json(capsys, repo)
    assert (code, doc["result"]) == (1, "failed")
    repair = doc["repair"]
    assert (repair["attempted"], repair["reVerified"], len(repair["installs"])) == (True, True, 1)
    assert [c["list"] for c in doc["commands"]] == ["setup", "repair", "verification"]


@pytest.mark.usefixtures("offline_index")
def test_a_missing_module_that_no_tier_provides_is_a_plain_failure_without_a_repair(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, wheelhouse: dict[str, Path]
) -> None:
    repo = _tiered_repo(
        tmp_path, wheelhouse, [{"key": "unit", "command": "python", "args": ["-c", "import nowhere_pkg"]}]
    )
    code, doc = verify_json(capsys, repo)
    assert (code, doc["result"]) == (1, "failed")
    assert doc["repair"]["attempted"] is False
    assert [c["list"] for c in doc["commands"]] == ["setup", "verification"]
