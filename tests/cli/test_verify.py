"""tierlock verify and tierlock verified on real git repositories with real commands."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.gitrepo import check, commit_all, git, make_repo, verified_json, verify_json, write_config
from tierlock.cli import main

OK = "print('all good')\n"
FAIL = "import sys\nfor i in range(50):\n    print('line', i)\nprint('the assertion broke')\nsys.exit(4)\n"
#: Starts a grandchild in its process group, records both pids, then sleeps past any timeout.
HANG = """\
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
with open(sys.argv[1], "w") as f:
    f.write(f"{os.getpid()} {child.pid}")
time.sleep(120)
"""
#: Edits a tracked file while the run goes.
EDIT = "open('README.txt', 'a').write('edited during the run\\n')\n"
SECRET = "import os\nprint('token ghp_' + 'A' * 36)\nprint('value', os.environ['DEPLOY_NAME'])\nraise SystemExit(1)\n"


pytestmark = pytest.mark.usefixtures("git_identity")


def _runs(repo: Path) -> list[Path]:
    return sorted((repo / ".git" / "tierlock" / "evidence").glob("*/receipt.json"))


def receipt_of(document: dict[str, Any]) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(Path(document["receipt"]).read_text())
    return loaded


def shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run a printed remedy exactly as printed, with this venv's scripts on PATH."""
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(command, shell=True, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def test_a_passing_run_writes_a_bound_receipt_and_the_gate_accepts_that_tree(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [check("unit", "ok.py", label="Unit")])
    code, doc = verify_json(capsys, repo)
    assert (code, doc["ok"], doc["result"], doc["usable"]) == (0, True, "passed", True)
    head = git(repo, "rev-parse", "HEAD", "HEAD^{tree}").split()
    assert [doc["commit"], doc["tree"]] == head
    receipt = receipt_of(doc)
    assert Path(doc["receipt"]).is_relative_to(repo / ".git" / "tierlock" / "evidence")
    assert receipt["clean"] == {
        "atStart": True,
        "atEnd": True,
        "dirtyFiles": [],
        "changedDuringRun": False,
        "changedFiles": [],
        "notChecked": [],
    }
    assert receipt["config"]["path"] == "tierlock.runtime.json"
    assert receipt["config"]["digest"].startswith("sha256:")
    [command] = receipt["commands"]
    assert command["key"] == "unit"
    assert command["label"] == "Unit"
    assert command["commandSource"] == "worktree"
    assert (command["exitCode"], command["signal"], command["timedOut"]) == (0, None, False)
    log = Path(command["log"]["path"])
    assert log.read_text() == "all good\n"
    assert command["log"]["size"] == len("all good\n")
    assert git(repo, "status", "--porcelain") == ""  # evidence never dirties the tree
    code, gate = verified_json(capsys, repo)
    assert (code, gate["reason"], gate["runId"]) == (0, "verified", doc["runId"])


def test_a_failing_check_exits_1_shows_the_tail_and_the_gate_says_failed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK, "fail.py": FAIL}, [check("a", "ok.py"), check("b", "fail.py")])
    code = main(["--project", str(repo), "verify"])
    out = capsys.readouterr().out
    assert code == 1
    assert "the assertion broke" in out
    assert "line 49" in out
    assert "line 5\n" not in out
    assert "FAILED: 1 of 2 verification check(s) failed (b)" in out
    code, doc = verify_json(capsys, repo)
    assert code == 1
    assert [c["status"] for c in doc["commands"]] == ["passed", "failed"]
    assert doc["commands"][1]["exitCode"] == 4
    assert doc["commands"][1]["tail"][-1] == "the assertion broke"
    code, gate = verified_json(capsys, repo)
    assert (code, gate["reason"]) == (1, "failed")
    assert "(b)" in gate["message"]


def test_a_timeout_stops_the_whole_process_group_and_blocks(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    repo = make_repo(tmp_path / "r", {"hang.py": HANG}, [check("hang", "hang.py", str(pids), timeoutMs=4000)])
    code, doc = verify_json(capsys, repo)
    assert code == 3
    assert doc["result"] == "blocked"
    assert doc["blocker"]["kind"] == "timeout"
    assert doc["blocker"]["key"] == "hang"
    assert doc["blocker"]["log"] == doc["commands"][0]["log"]["path"]
    assert doc["blocker"]["requiredAction"]
    assert doc["commands"][0]["timedOut"] is True
    assert doc["commands"][0]["status"] == "timed-out"
    leader, grandchild = (int(p) for p in pids.read_text().split())
    for pid in (leader, grandchild):
        assert not _alive(pid), f"process {pid} of the timed-out group is still running"
    assert _live_members(leader) == []


def _live_members(pgid: int) -> list[int]:
    """Processes of group *pgid* that are not zombies (a zombie waits only for its reaper)."""
    members = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                members.append(int(entry.name))
    return members


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone for every purpose but the process table entry.
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_command_that_does_not_exist_is_a_toolchain_blocker(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(
        tmp_path / "r",
        {"ok.py": OK},
        [{"key": "lint", "command": "no-such-tool-tierlock", "args": ["--check"]}, check("unit", "ok.py")],
    )
    code, doc = verify_json(capsys, repo)
    assert code == 3
    blocker = doc["blocker"]
    assert (blocker["kind"], blocker["command"], blocker["args"], blocker["cwd"]) == (
        "toolchain",
        "no-such-tool-tierlock",
        ["--check"],
        ".",
    )
    assert "was not found" in blocker["reason"]
    assert [c["status"] for c in doc["commands"]] == ["not-found", "passed"]


def test_a_failing_setup_blocks_and_no_verification_runs(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "r",
        {"ok.py": OK, "fail.py": FAIL},
        [check("unit", "ok.py")],
        setup=[check("arm", "fail.py")],
    )
    code, doc = verify_json(capsys, repo)
    assert code == 3
    assert doc["blocker"]["kind"] == "setup"
    assert doc["blocker"]["list"] == "setup"
    assert [(c["list"], c["key"]) for c in doc["commands"]] == [("setup", "arm")]
    assert receipt_of(doc)["setup"]["ok"] is False


def test_a_dirty_tree_is_refused_and_the_printed_remedy_fixes_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [check("unit", "ok.py")])
    (repo / "notes.txt").write_text("untracked\n")
    (repo / "ok.py").write_text(OK + "# edited\n")
    capsys.readouterr()
    code = main(["--project", str(repo), "verify"])
    err = capsys.readouterr().err
    assert code == 2
    assert "notes.txt" in err
    assert "ok.py" in err
    assert _runs(repo) == []  # nothing ran
    remedy = next(line for line in err.splitlines() if "to fix:" in line).split("to fix:", 1)[1].strip()
    assert shell(remedy, tmp_path).returncode == 0
    code, doc = verify_json(capsys, repo)
    assert (code, doc["usable"]) == (0, True)


def test_a_receipt_of_a_dirty_run_never_satisfies_the_gate(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [check("unit", "ok.py")])
    (repo / "ok.py").write_text(OK + "raise SystemExit(0)\n")
    code, doc = verify_json(capsys, repo, "--allow-dirty")
    assert (code, doc["usable"]) == (0, False)
    receipt = receipt_of(doc)
    assert receipt["allowDirty"] is True
    assert receipt["clean"]["atStart"] is False
    assert receipt["clean"]["dirtyFiles"] == ["ok.py"]
    code, gate = verified_json(capsys, repo)
    assert (code, gate["reason"]) == (1, "dirty")


def test_a_file_edited_during_the_run_makes_the_receipt_unusable(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"edit.py": EDIT, "README.txt": "hi\n"}, [check("edits", "edit.py")])
    code = main(["--project", str(repo), "verify"])
    out = capsys.readouterr().out
    assert code == 0
    assert "this receipt is not evidence" in out
    assert "README.txt" in out
    code, doc = verify_json(capsys, repo, "--allow-dirty")  # README.txt already dirty, and edited again
    assert receipt_of(doc)["clean"]["changedDuringRun"] is True
    git(repo, "checkout", "README.txt")
    code, doc = verify_json(capsys, repo)
    receipt = receipt_of(doc)
    assert receipt["clean"]["changedDuringRun"] is True
    assert receipt["clean"]["changedFiles"] == ["README.txt"]
    assert doc["usable"] is False
    code, gate = verified_json(capsys, repo)
    assert (code, gate["reason"]) == (1, "unusable")
    assert "README.txt" in gate["message"]


def test_a_commit_after_the_run_is_stale_names_the_files_and_the_remedy_fixes_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK, "lib/a.py": "A = 1\n"}, [check("unit", "ok.py")])
    assert verify_json(capsys, repo)[0] == 0
    (repo / "lib" / "a.py").write_text("A = 2\n")
    commit_all(repo)
    capsys.readouterr()
    code = main(["--project", str(repo), "verified"])
    err = capsys.readouterr().err
    assert code == 1
    assert "not verified (stale)" in err
    assert "lib/a.py" in err
    remedy = next(line for line in err.splitlines() if "to fix:" in line).split("to fix:", 1)[1].strip()
    assert remedy == f"tierlock --project {repo} verify"
    ran = shell(remedy, tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert verified_json(capsys, repo)[0] == 0


def test_the_gate_says_no_run_and_the_remedy_makes_one(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [check("unit", "ok.py")])
    code, gate = verified_json(capsys, repo)
    assert (code, gate["reason"]) == (1, "no-run")
    assert shell(gate["remedy"], tmp_path).returncode == 0
    assert verified_json(capsys, repo)[0] == 0


def test_a_config_change_makes_the_receipt_stale(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [check("unit", "ok.py")])
    assert verify_json(capsys, repo)[0] == 0
    write_config(repo, [check("unit", "ok.py"), check("again", "ok.py")])
    code, gate = verified_json(capsys, repo)  # uncommitted: the tree is the same, the config is not
    assert (code, gate["reason"]) == (1, "stale-config")
    commit_all(repo)
    code, gate = verified_json(capsys, repo)
    assert (code, gate["reason"], gate["files"]) == (1, "stale", ["tierlock.runtime.json"])


def test_config_from_a_ref_runs_the_check_a_branch_deleted_and_the_one_it_added(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(
        tmp_path / "r", {"ok.py": OK, "fail.py": FAIL}, [check("unit", "ok.py"), check("strict", "fail.py")]
    )
    git(repo, "checkout", "-q", "-b", "feature")
    write_config(repo, [check("unit", "ok.py"), check("extra", "ok.py")])  # drops "strict", adds "extra"
    commit_all(repo, "drop the strict check")
    code, doc = verify_json(capsys, repo)
    assert (code, [c["key"] for c in doc["commands"]]) == (0, ["unit", "extra"])
    code, doc = verify_json(capsys, repo, "--config-from", "main")
    assert code == 1
    assert [(c["key"], c["commandSource"], c["status"]) for c in doc["commands"]] == [
        ("unit", "ref", "passed"),
        ("strict", "ref", "failed"),
        ("extra", "worktree", "passed"),
    ]
    origin = receipt_of(doc)["config"]["from"]
    assert origin["ref"] == "main"
    assert origin["commit"] == git(repo, "rev-parse", "main").strip()
    # Replacing a ref check under the same key does not replace it either.
    write_config(repo, [check("unit", "ok.py"), check("strict", "ok.py")])
    commit_all(repo, "soften the strict check")
    code, doc = verify_json(capsys, repo, "--config-from", "main")
    assert code == 1
    assert [(c["key"], c["commandSource"], c["status"]) for c in doc["commands"]] == [
        ("unit", "ref", "passed"),
        ("strict", "ref", "failed"),
    ]


def test_config_from_gate_requires_a_receipt_from_the_same_ref_content(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [check("unit", "ok.py")])
    git(repo, "checkout", "-q", "-b", "feature")
    (repo / "feature.txt").write_text("x\n")
    commit_all(repo)
    assert verify_json(capsys, repo)[0] == 0
    code, gate = verified_json(capsys, repo, "--config-from", "main")
    assert (code, gate["reason"]) == (1, "config-from-differs")
    assert shell(gate["remedy"], tmp_path).returncode == 0
    assert verified_json(capsys, repo, "--config-from", "main")[0] == 0
    assert verified_json(capsys, repo)[0] == 0
    git(repo, "checkout", "-q", "main")
    write_config(repo, [check("unit", "ok.py"), check("more", "ok.py")])
    commit_all(repo, "main adds a check")
    git(repo, "checkout", "-q", "feature")
    code, gate = verified_json(capsys, repo, "--config-from", "main")
    assert (code, gate["reason"]) == (1, "config-from-differs")


def test_config_from_an_unknown_ref_is_a_usage_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [check("unit", "ok.py")])
    code, doc = verify_json(capsys, repo, "--config-from", "nope")
    assert (code, doc["result"]) == (2, "refused")
    assert "nope" in doc["error"]["message"]


def test_config_from_a_remote_branch_not_fetched_yet_names_the_fetch_that_fixes_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    upstream = make_repo(tmp_path / "upstream", {"ok.py": OK}, [check("unit", "ok.py")])
    git(tmp_path, "clone", "-q", str(upstream), str(tmp_path / "clone"))
    repo = tmp_path / "clone"
    git(repo, "update-ref", "-d", "refs/remotes/origin/main")  # as if never fetched
    code, doc = verify_json(capsys, repo, "--config-from", "origin/main")
    fetch = f"git -C {repo} fetch origin +refs/heads/main:refs/remotes/origin/main"
    assert (code, doc["error"]["remedy"]) == (2, fetch)
    assert shell(doc["error"]["remedy"], tmp_path).returncode == 0
    code, doc = verify_json(capsys, repo, "--config-from", "origin/main")
    assert (code, [c["commandSource"] for c in doc["commands"]]) == (0, ["ref"])


def test_an_invalid_config_runs_nothing_and_exits_2_with_the_validator_report(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [check("unit", "ok.py", timeoutMs=-1)])
    code, doc = verify_json(capsys, repo)
    assert (code, doc["result"]) == (2, "invalid-config")
    assert [e["rule"] for e in doc["validation"]["errors"]] == ["RC008"]
    assert _runs(repo) == []
    code = main(["--project", str(repo), "verify"])
    err = capsys.readouterr().err
    assert code == 2
    assert "RC008" in err
    assert "nothing was run" in err


def test_outside_git_the_run_works_but_is_unbound(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "ok.py").write_text(OK)
    write_config(folder, [check("unit", "ok.py")])
    code, doc = verify_json(capsys, folder)
    assert (code, doc["bound"], doc["commit"], doc["usable"]) == (0, False, None, False)
    assert Path(doc["receipt"]).is_relative_to(folder / ".tierlock" / "evidence")
    code, gate = verified_json(capsys, folder)
    assert (code, gate["reason"]) == (1, "not-a-checkout")
    assert shell(gate["remedy"], folder).returncode == 0
    code, gate = verified_json(capsys, folder)
    assert (code, gate["reason"]) == (1, "no-run")
    assert ".tierlock" not in git(folder, "ls-files")  # the unbound evidence was not committed


def test_credentials_and_config_env_values_are_masked_in_the_tail_and_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(
        tmp_path / "r", {"secret.py": SECRET}, [check("leak", "secret.py", env={"DEPLOY_NAME": "prod-eu-west"})]
    )
    code = main(["--project", str(repo), "verify"])
    captured = capsys.readouterr()
    code, doc = verify_json(capsys, repo)
    assert code == 1
    for text in (captured.out + captured.err, json.dumps(doc), Path(doc["receipt"]).read_text()):
        assert "ghp_AAAA" not in text
        assert "prod-eu-west" not in text
    assert "[redacted]" in captured.out
    assert "[env DEPLOY_NAME]" in captured.out
    assert doc["commands"][0]["tail"] == ["token [redacted]", "value [env DEPLOY_NAME]"]
    assert "prod-eu-west" in Path(doc["commands"][0]["log"]["path"]).read_text()  # the log itself is the evidence


def test_only_runs_the_named_checks_and_its_receipt_is_not_evidence(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK, "fail.py": FAIL}, [check("unit", "ok.py"), check("b", "fail.py")])
    code, doc = verify_json(capsys, repo, "--only", "unit")
    assert (code, [c["key"] for c in doc["commands"]], doc["usable"]) == (0, ["unit"], False)
    assert verified_json(capsys, repo)[1]["reason"] == "dirty"
    code, doc = verify_json(capsys, repo, "--only", "unti")
    assert code == 2
    assert "did you mean 'unit'" in doc["error"]["message"]
    assert shell(doc["error"]["remedy"], repo).returncode == 0


def test_retention_keeps_the_newest_runs(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [check("unit", "ok.py")])
    ids = [verify_json(capsys, repo, "--keep", "2")[1]["runId"] for _ in range(3)]
    evidence = repo / ".git" / "tierlock" / "evidence"
    assert sorted(p.name for p in evidence.iterdir() if p.is_dir()) == sorted(ids[1:])


def test_setup_stale_when_the_lockfiles_changed_since_the_setup_ran(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(
        tmp_path / "r", {"ok.py": OK, "uv.lock": "v1\n"}, [check("unit", "ok.py")], setup=[check("sync", "ok.py")]
    )
    code, doc = verify_json(capsys, repo)
    assert code == 0
    assert receipt_of(doc)["setup"]["lockfiles"] == {"uv.lock": _sha("v1\n")}
    (repo / "uv.lock").write_text("v2\n")
    commit_all(repo, "bump the lock")
    code, doc = verify_json(capsys, repo, "--no-setup")
    assert code == 0
    assert [c["list"] for c in doc["commands"]] == ["verification"]
    code, gate = verified_json(capsys, repo)
    assert (code, gate["reason"], gate["files"]) == (1, "setup-stale", ["uv.lock"])
    assert shell(gate["remedy"], tmp_path).returncode == 0
    assert verified_json(capsys, repo)[0] == 0


def _sha(text: str) -> str:
    import hashlib

    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def _start_verify(repo: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tierlock", "--project", str(repo), "verify", "--json", "--kill-grace", "0.5", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for(path: Path, seconds: float = 60) -> None:
    end = time.monotonic() + seconds
    while not (path.exists() and path.read_text().strip()):
        assert time.monotonic() < end, f"{path} never appeared"
        time.sleep(0.05)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupt_stops_the_running_group_and_records_interrupted(tmp_path: Path, signum: int) -> None:
    pids = tmp_path / "pids"
    repo = make_repo(tmp_path / "r", {"hang.py": HANG}, [check("hang", "hang.py", str(pids))])
    proc = _start_verify(repo)
    _wait_for(pids)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert out.count("\n") == 1
    doc = json.loads(out)
    assert (doc["result"], doc["commands"][0]["status"]) == ("interrupted", "interrupted")
    assert json.loads(Path(doc["receipt"]).read_text())["result"] == "interrupted"
    leader, grandchild = (int(p) for p in pids.read_text().split())
    assert not _alive(leader)
    assert not _alive(grandchild)
    assert _live_members(leader) == []


def test_two_runs_at_once_on_one_checkout_keep_both_receipts(tmp_path: Path) -> None:
    gate_file = tmp_path / "go"
    wait = f"import os, time\nwhile not os.path.exists({str(gate_file)!r}): time.sleep(0.02)\nprint('done')\n"
    repo = make_repo(tmp_path / "r", {"wait.py": wait}, [check("unit", "wait.py")])
    first, second = _start_verify(repo), _start_verify(repo)
    evidence = repo / ".git" / "tierlock" / "evidence"
    end = time.monotonic() + 60
    while len(list(evidence.glob("*/01-verification-unit.log"))) < 2:
        assert time.monotonic() < end
        time.sleep(0.05)
    gate_file.write_text("go")
    documents = [json.loads(p.communicate(timeout=60)[0]) for p in (first, second)]
    assert [d["result"] for d in documents] == ["passed", "passed"]
    assert documents[0]["runId"] != documents[1]["runId"]
    for d in documents:
        receipt = json.loads(Path(d["receipt"]).read_text())
        assert receipt["result"] == "passed"
        assert Path(receipt["commands"][0]["log"]["path"]).read_text() == "done\n"


def test_the_gate_imports_nothing_heavy(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [check("unit", "ok.py")])
    code = (
        "import sys\nfrom tierlock.cli import main\n"
        f"rc = main(['--project', {str(repo)!r}, 'verified', '--json'])\n"
        "heavy = sorted(m for m in ('rich', 'jsonschema', 'packaging', 'tomlkit', 'pip') if m in sys.modules)\n"
        "print(rc, heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == "1 []"


def test_a_config_validated_before_is_validated_again_when_a_folder_or_the_config_changes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"sub/ok.py": OK}, [check("unit", "ok.py", cwd="sub")])
    assert verify_json(capsys, repo)[0] == 0
    assert verify_json(capsys, repo)[0] == 0  # the recorded verdict for the same bytes and folders
    (repo / "sub" / "ok.py").rename(repo / "ok.py")
    (repo / "sub").rmdir()
    commit_all(repo, "move ok.py up")
    code, doc = verify_json(capsys, repo)
    assert (code, [e["rule"] for e in doc["validation"]["errors"]]) == (2, ["RC015"])
    (repo / "sub").symlink_to(tmp_path)  # exists again, but leaves the checkout
    commit_all(repo, "a symlink out")
    code, doc = verify_json(capsys, repo)
    assert (code, [e["rule"] for e in doc["validation"]["errors"]]) == (2, ["RC015"])


def test_verify_discovers_the_config_under_the_names_the_validator_tries_first() -> None:
    from tierlock.evidence import discovery
    from tierlock.validators import DISCOVERY

    assert (*discovery.NAMES, discovery.PYPROJECT) == DISCOVERY


def test_the_fast_gate_and_the_cli_gate_print_the_same(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [check("unit", "ok.py")])
    script = str(Path(sys.executable).parent / "tierlock")
    fast = subprocess.run(
        [script, "--project", str(repo), "verified", "--json"], capture_output=True, text=True, check=False
    )
    full = subprocess.run(
        [script, "--project", str(repo), "verified", "--json", "-v"], capture_output=True, text=True, check=False
    )  # -v: not a fast-path option, so the CLI decides
    assert (fast.returncode, full.returncode) == (1, 1)
    assert json.loads(fast.stdout) == json.loads(full.stdout)
    assert json.loads(fast.stdout)["reason"] == "no-run"


def test_a_command_is_found_on_its_own_path_or_by_a_relative_path_and_a_plain_file_is_not_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"tools/tool": "#!/bin/sh\necho tool ran in $(pwd)\n", "tools/plain": "x\n"}, [])
    (repo / "tools" / "tool").chmod(0o755)
    write_config(
        repo,
        [
            {"key": "on-path", "command": "tool", "env": {"PATH": f"{repo / 'tools'}{os.pathsep}/usr/bin:/bin"}},
            {"key": "relative", "command": "../tools/tool", "cwd": "sub"},
            {"key": "plain", "command": "./tools/plain"},
        ],
    )
    (repo / "sub").mkdir()
    (repo / "sub" / ".keep").write_text("")
    commit_all(repo)
    code, doc = verify_json(capsys, repo)
    assert code == 3
    assert [c["status"] for c in doc["commands"]] == ["passed", "passed", "not-executable"]
    assert Path(doc["commands"][1]["log"]["path"]).read_text() == f"tool ran in {repo / 'sub'}\n"
    assert doc["blocker"]["key"] == "plain"
    assert "cannot be executed" in doc["blocker"]["reason"]


def test_plain_output_never_imports_rich_and_the_live_view_draws_on_a_terminal(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [check("unit", "ok.py", label="Unit")])
    code = (
        "import sys\nfrom tierlock.cli import main\n"
        f"rc = main(['--project', {str(repo)!r}, 'verify'])\n"
        "print('rich loaded' if 'rich' in sys.modules else 'no rich', rc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == "no rich 0"
    assert "verification unit: ok in" in out
    import io

    from tierlock.evidence import steps, view

    stream = io.StringIO()
    live = view.make(json_mode=False, fancy=True, quiet=False, stream=stream)
    assert isinstance(live, view.Live)
    [step] = steps.steps(
        {"verification": [{"command": "pytest", "args": ["-q"], "key": "unit", "cwd": "tests"}]},
        "verification",
        config_dir=repo,
        checkout=repo,
    )
    live.started(step)
    live.tick(step, 1.5)
    live.finished(step, {"status": "failed", "exitCode": 1, "durationSeconds": 1.5})
    live.close()
    assert "verification unit: FAILED (exit 1) in 1.50 s  (cd tests && pytest -q)" in stream.getvalue()


def test_a_ref_check_whose_folder_is_gone_from_the_checkout_is_a_scope_blocker(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": OK, "pkg/ok.py": OK}, [check("pkg", "ok.py", cwd="pkg")])
    git(repo, "checkout", "-q", "-b", "feature")
    git(repo, "rm", "-q", "-r", "pkg")
    write_config(repo, [check("unit", "ok.py")])
    commit_all(repo, "drop pkg")
    code, doc = verify_json(capsys, repo, "--config-from", "main")
    assert code == 3
    blocker = doc["blocker"]
    assert (blocker["kind"], blocker["key"], blocker["cwd"]) == ("scope", "pkg", "pkg")
    assert "not an existing folder" in blocker["reason"]
    assert [(c["key"], c["status"]) for c in doc["commands"]] == [("pkg", "scope"), ("unit", "passed")]


def test_a_commit_made_during_the_run_makes_the_receipt_unusable(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    commits = (
        "import subprocess\nsubprocess.run(['git', 'commit', '-q', '--allow-empty', '-m', 'during'], check=True)\n"
    )
    repo = make_repo(tmp_path / "r", {"commit.py": commits}, [check("commits", "commit.py")])
    code, doc = verify_json(capsys, repo)
    assert (code, doc["usable"]) == (0, False)
    assert any("HEAD moved during the run" in r for r in doc["unusableBecause"])
    assert receipt_of(doc)["clean"]["changedDuringRun"] is True


def test_config_from_a_ref_without_a_config_uses_the_working_trees(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "README.txt").write_text("before any config\n")
    commit_all(repo, "no config yet")
    git(repo, "tag", "bare")
    (repo / "ok.py").write_text(OK)
    write_config(repo, [check("unit", "ok.py")])
    commit_all(repo, "add the config")
    code, doc = verify_json(capsys, repo, "--config-from", "bare")
    assert (code, [(c["key"], c["commandSource"]) for c in doc["commands"]]) == (0, [("unit", "worktree")])
    origin = receipt_of(doc)["config"]["from"]
    assert (origin["ref"], origin["blob"]) == ("bare", None)
    assert verified_json(capsys, repo, "--config-from", "bare")[0] == 0


def test_a_second_interrupt_kills_a_group_that_ignores_sigterm_without_waiting_out_the_grace(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    stubborn = HANG.replace("import os,", "import signal; signal.signal(signal.SIGTERM, signal.SIG_IGN)\nimport os,")
    repo = make_repo(tmp_path / "r", {"hang.py": stubborn}, [check("hang", "hang.py", str(pids))])
    proc = subprocess.Popen(
        [sys.executable, "-m", "tierlock", "--project", str(repo), "verify", "--json", "--kill-grace", "600"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_for(pids)
    proc.send_signal(signal.SIGINT)
    time.sleep(0.5)  # the first: SIGTERM to the group, which ignores it
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=120)  # far less than the 600 s grace: the second one kills
    assert proc.returncode == 130
    doc = json.loads(out)
    assert (doc["result"], doc["commands"][0]["signal"]) == ("interrupted", signal.SIGKILL)
    assert _live_members(int(pids.read_text().split()[0])) == []


def test_a_log_that_cannot_be_written_is_an_environment_blocker(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tierlock.evidence import store

    repo = make_repo(tmp_path / "r", {"ok.py": OK}, [check("unit", "ok.py")])
    real_new_run = store.new_run

    def new_run_with_a_folder_where_the_log_goes(folder: Path) -> tuple[str, Path]:
        run_id, run_folder = real_new_run(folder)
        (run_folder / "01-verification-unit.log").mkdir()  # unwritable as a file, even for root
        return run_id, run_folder

    monkeypatch.setattr(store, "new_run", new_run_with_a_folder_where_the_log_goes)
    code, doc = verify_json(capsys, repo)
    assert code == 3
    assert doc["blocker"]["kind"] == "environment"
    assert "cannot be written" in doc["blocker"]["reason"]
    assert doc["commands"][0]["status"] == "not-started"
