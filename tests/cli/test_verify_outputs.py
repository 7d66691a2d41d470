"""What verify prints and records of a command's output cannot leak a secret or swamp a reader.

Real checks in real git repositories print a private key whose BEGIN line falls outside the tail, a
token split by a terminal escape, control characters, very long lines, and 256 MiB without a newline;
stdout, the ``--json`` line and the receipt show none of the secret, no raw control character, capped
lines and a capped tail that says how much was cut, in bounded memory. Every evidence file is private.
"""

from __future__ import annotations

import json
import os
import random
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.gitrepo import check, make_repo, verified_json, verify_json
from tierlock.cli import main

pytestmark = pytest.mark.usefixtures("git_identity")

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _pem_body(lines: int) -> list[str]:
    """Base64 lines of 64 characters, as a PEM body has them (the last one shorter)."""
    rng = random.Random(25)
    body = ["".join(rng.choice(_B64) for _ in range(64)) for _ in range(lines)]
    return [*body[:-1], body[-1][:36] + "=="]


BODY = _pem_body(26)
#: A private key (its BEGIN line 30 lines from the end), four lines after it, then a failure.
PEM = (
    "print('-----BEGIN PRIVATE KEY-----')\n"
    + "".join(f"print({line!r})\n" for line in BODY)
    + "print('-----END PRIVATE KEY-----')\n"
    + "for i in range(3):\n    print('after the key', i)\n"
    + "raise SystemExit(1)\n"
)
TOKEN_TAIL = "Zq8" * 12  # 36 characters
#: A token split by a bold escape (the terminal shows it whole), and other control characters.
ESCAPES = (
    "import sys\n"
    f"sys.stdout.write('token ghp_\\x1b[1m{TOKEN_TAIL}\\x1b[0m\\n')\n"
    "sys.stdout.write('bell\\x07 and nul\\x00 and erase \\x1b[2J\\x1b]0;title\\x07 done\\n')\n"
    "raise SystemExit(1)\n"
)
#: 30 lines of 10,000 characters each.
LONG_LINES = "for i in range(30):\n    print(str(i) * 10000)\nraise SystemExit(1)\n"
#: 256 MiB without a newline.
HUGE = "import os\nblock = b'x' * (1 << 20)\nfor _ in range(256):\n    os.write(1, block)\nraise SystemExit(1)\n"


def _outputs(capsys: pytest.CaptureFixture[str], repo: Path) -> list[str]:
    """stdout and stderr of a plain run, the --json line, and the receipt's text."""
    capsys.readouterr()
    main(["--project", str(repo), "verify"])
    captured = capsys.readouterr()
    code, doc = verify_json(capsys, repo)
    assert code == 1
    return [captured.out + captured.err, json.dumps(doc), Path(doc["receipt"]).read_text(encoding="utf-8")]


def test_a_private_key_whose_begin_line_is_outside_the_tail_leaks_none_of_its_lines(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"pem.py": PEM}, [check("keys", "pem.py")])
    for text in _outputs(capsys, repo):
        for line in BODY:
            for at in range(0, len(line) - 16, 8):
                assert line[at : at + 16] not in text
    _, doc = verify_json(capsys, repo)
    assert "after the key 2" in doc["commands"][0]["tail"]


def test_a_token_split_by_a_terminal_escape_is_redacted_and_no_control_character_is_shown(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"esc.py": ESCAPES}, [check("esc", "esc.py")])
    for text in _outputs(capsys, repo):
        assert TOKEN_TAIL not in text
        assert TOKEN_TAIL[:12] not in text
        for char in ("\x1b", "\x07", "\x00"):
            assert char not in text
            assert json.dumps(char)[1:-1] not in text  # nor its JSON escape
    _, doc = verify_json(capsys, repo)
    assert doc["commands"][0]["tail"][-1].endswith("done")


def test_each_tail_line_and_the_whole_tail_are_capped_and_say_how_much_was_cut(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"long.py": LONG_LINES}, [check("long", "long.py")])
    code, doc = verify_json(capsys, repo)
    assert code == 1
    record = doc["commands"][0]
    tail = record["tail"]
    assert all(len(line) <= 600 for line in tail)
    assert sum(len(line) for line in tail) <= 8000
    cut = record["tailCut"]
    said = [int(m) for line in tail for m in re.findall(r"\[\.\.\. (\d+) characters cut\]", line)]
    assert len(said) == len(tail)  # every shown line was cut, and says by how much
    assert cut["characters"] == sum(said) >= len(tail) * 9000
    assert cut["lines"] + len(tail) == 30
    assert len(Path(doc["receipt"]).read_bytes()) < 64_000


def test_a_check_writing_256_mib_without_a_newline_is_read_in_bounded_memory(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"huge.py": HUGE}, [check("huge", "huge.py")])
    probe = (
        "import resource, subprocess, sys\n"
        "proc = subprocess.run(sys.argv[1:], capture_output=True)\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
        "sys.stdout.write(f'{proc.returncode} {peak} {len(proc.stdout)}\\n')\n"
    )
    git_env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e.invalid"}
    verify = [sys.executable, "-m", "tierlock", "--project", str(repo), "verify", "--json"]
    env = {**os.environ, **git_env}
    out = subprocess.run([sys.executable, "-c", probe, *verify], capture_output=True, text=True, check=True, env=env)
    code, peak_kib, json_bytes = (int(x) for x in out.stdout.split())
    assert code == 1
    assert peak_kib < 200 * 1024, f"verify peaked at {peak_kib} KiB"
    assert json_bytes < 64_000
    receipt = max((repo / ".git" / "tierlock" / "evidence").glob("*/receipt.json"))
    assert receipt.stat().st_size < 64_000
    log = next(receipt.parent.glob("*-huge.log"))
    assert log.stat().st_size == 256 << 20


def test_every_evidence_file_is_readable_by_its_owner_only(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    scripts = {"ok.py": "print('ok')\n", "fail.py": "raise SystemExit(1)\n"}
    repo = make_repo(tmp_path / "r", scripts, [check("a", "ok.py"), check("b", "fail.py")])
    code, doc = verify_json(capsys, repo)
    assert code == 1
    folder = Path(doc["receipt"]).parent
    files = list(folder.iterdir())
    assert len(files) == 3
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert verified_json(capsys, repo)[1]["reason"] == "failed"


def test_an_accepted_credential_in_a_commands_arguments_is_recorded_and_shown_redacted(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    token = "ghp_" + "Kq7" * 12
    repo = make_repo(tmp_path / "r", {"fail.py": "raise SystemExit(1)\n"}, [check("deploy", "fail.py", token)])
    config = json.loads((repo / "tierlock.runtime.json").read_text())
    config["acceptedCredentials"] = [{"path": "/verification/0/args/1", "reason": "a revoked example token"}]
    (repo / "tierlock.runtime.json").write_text(json.dumps(config))
    from tests.support.gitrepo import commit_all

    commit_all(repo, "accept the token")
    for text in _outputs(capsys, repo):
        assert token not in text
        assert "Kq7Kq7Kq7" not in text
    _, doc = verify_json(capsys, repo)
    assert doc["commands"][0]["args"] == ["fail.py", "[redacted]"]
    assert doc["commands"][0]["command"] == sys.executable


def test_a_validation_record_that_cannot_be_written_costs_only_time(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": "print('ok')\n"}, [check("unit", "ok.py")])
    (repo / ".git" / "tierlock" / "evidence" / ".validated.json").mkdir(parents=True)
    for _ in range(2):
        code, doc = verify_json(capsys, repo)
        assert (code, doc["usable"]) == (0, True)
