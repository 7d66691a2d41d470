"""``tierlock check``: every drift kind and every bad lockfile, reported at once, offline."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import cli_json, run_cli
from tests.support.lockproj import offline
from tierlock.lockfiles.check import check
from tierlock.tiers import load_project


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, count))


def findings(capsys: pytest.CaptureFixture[str], project: Path, *tiers: str) -> tuple[int, list[dict[str, Any]]]:
    code, doc = cli_json(capsys, "--project", str(project), "check", *tiers)
    return code, doc["findings"]


def kinds(found: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(f["tier"], f["kind"]) for f in found]


def test_a_fresh_lock_passes_and_reports_its_denominators(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = cli_json(capsys, "--project", str(project), "check")
    assert code == 0
    assert doc["ok"] is True
    assert doc["tiers_checked"] == 3
    assert doc["lockfiles_read"] == 3
    assert doc["entries_checked"] == 3 + 4 + 5
    assert doc["packages_checked"] == 5  # each distribution counted once across the lockfiles
    assert doc["findings"] == []
    code, out, _ = run_cli(capsys, "--project", str(project), "check")
    assert code == 0
    assert "ok: 3 tier(s) (every tier), 3 lockfile(s), 5 package(s) (12 lock entries) checked" in out


def test_input_drift_names_each_added_removed_and_changed_requirement(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pyproject = project / "pyproject.toml"
    edit(pyproject, 'brain = ["gamma>=1"]', 'brain = ["gamma>=1.0.1", "delta"]')
    edit(pyproject, "\"winonly; sys_platform == 'win32'\"", "")
    code, found = findings(capsys, project, "brain")
    assert code == 1
    assert kinds(found) == [("base", "input-drift"), ("brain", "input-drift")]  # brain and the base below it
    found = found[1:]
    detail = found[0]["detail"]
    assert detail.startswith("brain: ")
    assert "gamma>=1 became gamma>=1.0.1" in detail
    assert "delta added" in detail
    assert 'winonly; sys_platform == "win32" removed' in detail
    assert found[0]["remedy"] == f"tierlock --project {project} lock brain"
    assert found[0]["file"] == "lockfiles/brain.txt"


def test_input_drift_covers_requires_python_include_groups_and_layering(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pyproject = project / "pyproject.toml"
    edit(pyproject, 'requires-python = ">=3.11"', 'requires-python = ">=3.12"')
    edit(pyproject, 'tools = [{ include-group = "extra-tools" }]', 'tools = ["delta<2"]')
    edit(pyproject, 'layered-on = "brain"', 'layered-on = "base"')
    code, found = findings(capsys, project)
    assert code == 1
    assert kinds(found) == [("base", "input-drift"), ("brain", "input-drift"), ("tools", "input-drift")]
    assert "requires-python >=3.11 became >=3.12" in found[0]["detail"]
    tools = found[2]["detail"]
    assert "include-groups extra-tools became (none)" in tools
    assert "layered on brain became layered on base" in tools
    assert "gamma>=1 removed" in tools


def test_base_moved_and_layer_consistency_when_base_is_relocked_alone(
    project: Path, tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = tmp_path / "old"
    old.mkdir()
    for wheel in wheels.glob("*-1.0-*.whl"):
        shutil.copy(wheel, old)
    assert run_cli(capsys, "--project", str(project), "lock", "base", "--upgrade", *offline(old))[0] == 0
    code, found = findings(capsys, project)
    assert code == 1
    assert ("brain", "base-moved") in kinds(found)
    assert ("tools", "base-moved") not in kinds(found)  # tools sits on brain, which did not move
    inconsistent = [f for f in found if f["kind"] == "layer-consistency"]
    assert {f["tier"] for f in inconsistent} == {"brain"}
    assert any(
        re.search(
            r"alpha is pinned to 1\.1 here but to 1\.0 in the base lockfile \(lockfiles/base\.txt:\d+\)", f["detail"]
        )
        for f in inconsistent
    )
    assert all(f["line"] for f in inconsistent)


def test_a_hand_edit_is_caught_by_the_body_digest(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lock = project / "lockfiles/brain.txt"
    text = lock.read_text()
    first_hash = re.search(r"--hash=sha256:([0-9a-f]{64})", text)
    assert first_hash is not None
    edit(lock, first_hash.group(1), "0" * 64)
    code, found = findings(capsys, project, "brain")
    assert code == 1
    assert kinds(found) == [("brain", "hand-edit")]


def test_crlf_line_endings_and_a_bom_are_not_edits(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lock = project / "lockfiles/base.txt"
    lock.write_bytes(b"\xef\xbb\xbf" + lock.read_bytes().replace(b"\n", b"\r\n"))
    code, found = findings(capsys, project)
    assert (code, found) == (0, [])


def test_a_missing_lockfile_is_reported_for_its_tier(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "lockfiles/tools.txt").unlink()
    code, found = findings(capsys, project)
    assert code == 1
    assert kinds(found) == [("tools", "missing")]
    assert found[0]["remedy"] == f"tierlock --project {project} lock tools"


def test_every_integrity_problem_is_reported_at_once_with_its_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lock = project / "lockfiles/base.txt"
    text = lock.read_text()
    text = re.sub(r"alpha==1\.1", "alpha>=1.1", text)  # a range, not a pin
    text += (
        "six==1.16.0\n"  # no hashes
        "-e ./src/local\n"  # editable
        "--pre\n"  # unknown option
        "seven==1.0 --hash=sha256:abc123\n"  # truncated hash
        f"beta==1.0 --hash=sha256:{'1' * 64}\n"  # duplicate name, overlapping markers
        "not a requirement ==\n"  # syntax error
    )
    lock.write_text(text)
    code, found = findings(capsys, project, "base")
    assert code == 1
    integrity = [f for f in found if f["kind"] == "integrity"]
    details = "\n".join(f"{f['line']}: {f['detail']}" for f in integrity)
    lines = lock.read_text().splitlines()

    def line_of(prefix: str) -> int:
        return next(i for i, line in enumerate(lines, start=1) if line.startswith(prefix))

    assert f"{line_of('alpha>=1.1')}: alpha: >=1.1 is not an exact pin" in details
    assert f"{line_of('six==')}: six: an entry without hashes" in details
    assert f"{line_of('-e ')}: an editable entry cannot be locked" in details
    assert f"{line_of('--pre')}: unknown option line '--pre'" in details
    assert f"{line_of('seven==')}: seven: truncated sha256 hash" in details
    assert f"{line_of('beta==1.0 --hash')}: beta appears twice with overlapping markers" in details
    assert f"{line_of('not a requirement')}: syntax error" in details
    assert ("base", "hand-edit") in kinds(found)  # and the body digest no longer matches


@pytest.mark.parametrize(
    ("damage", "expected"),
    [
        (lambda t: re.sub(r"(?m)^# tierlock-header: 1\n", "", t), "no tierlock header"),
        (lambda t: t.replace("# body-digest: sha256:", "# body-digest: sha1:"), "'body-digest' is not a sha256 digest"),
        (lambda t: t.replace("# tier: base", "# tier: brain"), "the header is for tier 'brain'"),
        (lambda t: t.replace("# input: alpha>=1", "# input: alpha>=0"), "do not match the recorded inputs digest"),
        (lambda t: t.replace("# backend:", "# backnd:"), "unknown header key 'backnd'"),
        (lambda t: "", "the lockfile is empty"),
    ],
)
def test_a_missing_or_mangled_header_is_reported(
    project: Path, capsys: pytest.CaptureFixture[str], damage: Any, expected: str
) -> None:
    lock = project / "lockfiles/base.txt"
    lock.write_text(damage(lock.read_text()))
    code, found = findings(capsys, project, "base")
    assert code == 1
    assert any(expected in f["detail"] for f in found), found
    assert all(f["kind"] in ("header", "integrity", "input-drift") for f in found)


def test_every_kind_at_once_in_human_output_with_remedies(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    edit(project / "pyproject.toml", 'brain = ["gamma>=1"]', 'brain = ["gamma>=1", "delta"]')
    (project / "lockfiles/tools.txt").unlink()
    edit(project / "lockfiles/base.txt", "    # via", "six==1 --hash=sha256:" + "2" * 64 + "\n    # via")
    code, out, _ = run_cli(capsys, "--project", str(project), "check")
    assert code == 1
    assert "lockfiles/tools.txt: tools: missing: no lockfile for tier tools" in out
    assert "brain: input-drift: brain: delta added" in out
    assert "base: hand-edit" in out
    assert re.search(r"problem\(s\): 3 tier\(s\) \(every tier\), 2 lockfile\(s\), \d+ package\(s\) ", out)
    assert out.count("to fix:") == 1
    assert f"to fix: tierlock --project {project} lock base brain tools" in out  # one command relocks all three


def test_check_of_named_tiers_only_and_unknown_tier(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "lockfiles/tools.txt").unlink()
    assert findings(capsys, project, "base", "brain") == (0, [])
    code, _, err = run_cli(capsys, "--project", str(project), "check", "toolz")
    assert code == 2
    assert "did you mean 'tools'" in err


def test_check_library_api_returns_findings_as_data(project: Path) -> None:
    (project / "lockfiles/brain.txt").unlink()
    report = check(load_project(project))
    assert not report.ok
    assert [(f.tier, f.kind) for f in report.findings] == [("brain", "missing"), ("tools", "base-moved")]
    assert report.tiers == ("base", "brain", "tools")


def test_check_never_imports_rich_jsonschema_pip_or_uv_nor_starts_a_process(project: Path) -> None:
    edit(project / "pyproject.toml", 'brain = ["gamma>=1"]', 'brain = ["gamma>=1", "delta"]')
    code = (
        "import sys, json, subprocess\n"
        "started = []\n"
        "real = subprocess.Popen.__init__\n"
        "def spy(self, *a, **k):\n"
        "    started.append(a)\n"
        "    return real(self, *a, **k)\n"
        "subprocess.Popen.__init__ = spy\n"
        "from tierlock.cli import main\n"
        f"rc = main(['--project', {str(project)!r}, '-q', 'check'])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in {'rich', 'jsonschema', 'pip', 'uv'})\n"
        "print(json.dumps({'rc': rc, 'heavy': heavy, 'started': len(started)}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == {"rc": 1, "heavy": [], "started": 0}


def test_a_layered_tier_whose_lower_lockfile_is_gone_is_reported_even_when_checked_alone(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "lockfiles/base.txt").unlink()
    code, found = findings(capsys, project, "brain")
    assert code == 1
    assert kinds(found) == [("base", "missing"), ("brain", "base-moved")]  # brain and the base below it
    found = found[1:]
    assert "the base lockfile brain was locked on is gone (lockfiles/base.txt)" in found[0]["detail"]
    assert found[0]["remedy"] == f"tierlock --project {project} lock brain"  # which locks the missing base first
    code, found = findings(capsys, project)
    assert kinds(found) == [("base", "missing"), ("brain", "base-moved")]


def test_input_drift_pairs_a_changed_requirement_that_a_lower_tier_also_names(
    project: Path, capsys: pytest.CaptureFixture[str], wheels: Path
) -> None:
    pyproject = project / "pyproject.toml"
    edit(pyproject, 'brain = ["gamma>=1"]', 'brain = ["gamma>=1", "alpha>=1.1"]')
    assert run_cli(capsys, "--project", str(project), "lock", "brain", *offline(wheels))[0] == 0
    edit(pyproject, '"alpha>=1.1"', '"alpha>=1.0.5"')
    code, found = findings(capsys, project, "brain")
    assert code == 1
    assert [f["detail"] for f in found] == ["brain: alpha>=1.1 became alpha>=1.0.5"]


def test_a_hash_line_cut_off_from_its_requirement_says_so_with_its_line(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lock = project / "lockfiles/base.txt"
    edit(lock, "beta==2.0 \\\n", "beta==2.0\n")
    code, found = findings(capsys, project, "base")
    assert code == 1
    lines = lock.read_text().splitlines()
    orphan = next(i for i, line in enumerate(lines, start=1) if i > 1 and lines[i - 2] == "beta==2.0")
    integrity = [(f["line"], f["detail"]) for f in found if f["kind"] == "integrity"]
    assert (
        orphan,
        "a --hash line that belongs to no requirement (is the '\\' at the end of the line above missing?)",
    ) in integrity
    assert (orphan - 1, "beta: an entry without hashes (--hash=sha256:...)") in integrity


def test_lock_remedies_of_several_tiers_merge_into_one_command() -> None:
    from tierlock.lockfiles.check import merged_remedies

    remedies = [
        "tierlock lock base",
        "tierlock lock brain",
        "tierlock lock base",
        "tierlock lock tools --backend pip",
        "edit pyproject.toml",
        "tierlock lock docs --backend pip",
    ]
    assert merged_remedies(remedies) == [
        "tierlock lock base brain",
        "tierlock lock tools docs --backend pip",  # one set of flags: one command
        "edit pyproject.toml",
    ]


def test_a_remedy_that_is_not_one_tierlock_lock_of_a_tier_is_kept_whole() -> None:
    from tierlock.lockfiles.check import merged_remedies

    remedies = [
        "tierlock lock",
        "tierlock lock --upgrade",
        "uv lock",
        "tierlock lock base",
        "uv lock",
        "tierlock checks x",
    ]
    assert merged_remedies(remedies) == [
        "tierlock lock",
        "tierlock lock --upgrade",
        "uv lock",
        "tierlock lock base",
        "tierlock checks x",
    ]


@pytest.mark.parametrize(
    ("tiers", "requested", "said"),
    [
        (("base", "brain"), (), "every tier"),
        (("brain",), ("brain",), "brain"),
        (("base", "brain"), ("brain",), "brain and the base it is layered on"),
        (("base", "a", "b"), ("a", "b"), "a and b and the base they are layered on"),
        (("base", "mid", "top"), ("top",), "top and the tiers it is layered on (base and mid)"),
        (("base", "x", "y", "z", "w"), ("w",), "w and the tiers it is layered on (base, x, y and z)"),
        (("base", "x", "y", "w"), ("w",), "w and the tiers it is layered on (base, x and y)"),
    ],
)
def test_the_scope_of_a_check_is_said_in_words(tiers: tuple[str, ...], requested: tuple[str, ...], said: str) -> None:
    from tierlock.lockfiles.findings import scope

    assert scope(tiers, requested) == said


def test_a_lockfile_whose_header_is_for_another_tier_is_one_header_finding(project: Path) -> None:
    lockfiles = project / "lockfiles"
    (lockfiles / "brain.txt").write_text((lockfiles / "base.txt").read_text(encoding="utf-8"), encoding="utf-8")
    report = check(load_project(project), ["brain"])
    found = [(f.tier, f.kind, f.detail) for f in report.findings if f.tier == "brain"]
    assert found == [("brain", "header", "the header is for tier 'base'")]
    remedies = {f.remedy for f in report.findings if f.tier == "brain"}
    assert remedies == {"tierlock lock brain"}  # not the command of the other tier's header


def test_a_lockfile_without_a_header_does_not_stop_the_check_of_the_tiers_after_it(project: Path) -> None:
    base = project / "lockfiles" / "base.txt"
    base.write_text("\n".join(line for line in base.read_text().splitlines() if not line.startswith("#")) + "\n")
    edit(project / "pyproject.toml", 'brain = ["gamma>=1"]', 'brain = ["gamma>=1", "delta<2"]')
    report = check(load_project(project), ["brain"])
    assert ("base", "header") in [(f.tier, f.kind) for f in report.findings]
    assert ("brain", "input-drift") in [(f.tier, f.kind) for f in report.findings]


def test_input_drift_keys_a_requirement_by_its_name_and_marker_and_lists_the_unmarked_one_first(
    project: Path, capsys: pytest.CaptureFixture[str], wheels: Path
) -> None:
    pyproject = project / "pyproject.toml"
    marked = "gamma>=1; python_version < '3.10'"
    edit(pyproject, 'brain = ["gamma>=1"]', f'brain = ["gamma>=1", "{marked}"]')
    assert run_cli(capsys, "--project", str(project), "lock", "brain", *offline(wheels))[0] == 0
    edit(
        pyproject,
        f'brain = ["gamma>=1", "{marked}"]',
        'brain = ["gamma>=1.0.1", "gamma>=1.0.2; python_version < \'3.10\'"]',
    )
    code, found = findings(capsys, project, "brain")
    assert code == 1
    assert [f["detail"] for f in found] == [
        "brain: gamma>=1 became gamma>=1.0.1; "
        'gamma>=1; python_version < "3.10" became gamma>=1.0.2; python_version < "3.10"'
    ]


def test_lock_remedies_become_one_chain_of_commands_or_the_check_that_lists_each_when_words_are_among_them() -> None:
    from tierlock.lockfiles.check import one_remedy

    assert one_remedy(["tierlock lock base", "tierlock lock brain"], ["brain"]) == "tierlock lock base brain"
    assert one_remedy(["tierlock lock a", "tierlock lock b --backend pip"], ["a", "b"]) == (
        "tierlock lock a && tierlock lock b --backend pip"
    )
    words = "point helper at a file inside the project in pyproject.toml, then run: tierlock lock brain"
    assert one_remedy([words, words], ["brain"]) == words  # one remedy, in words: as it is
    assert one_remedy(["tierlock lock base", words], ["brain", "a b"]) == "tierlock check brain 'a b'"
    assert one_remedy([words, "edit pyproject.toml"], []) == "tierlock check"
    assert one_remedy([], ["brain"]) == ""
