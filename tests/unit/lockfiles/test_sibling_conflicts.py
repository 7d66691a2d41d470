"""``tierlock check`` finds sibling tiers whose locks disagree (real uv locks from local wheels)."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.markers import Marker
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.support.cli import cli_json, run_cli
from tests.support.lockproj import offline, write_project
from tests.support.pyproject import pyproject
from tierlock.cli import main
from tierlock.errors import EXIT_FAILED, ConfigError
from tierlock.lockfiles.locks import LockEntry
from tierlock.lockfiles.siblings import can_arm_together, disagreements
from tierlock.tiers import load_project

SIBLINGS = pyproject(
    dependencies=["delta<2"],
    extras={"left": ["alpha==1.0", "beta<2"], "right": ["gamma>=1", "beta"], "upper": ["alpha"]},
    tiers={"left": {}, "right": {}, "upper": {"layered-on": "left"}},
)


@pytest.fixture(scope="module")
def locked(tmp_path_factory: pytest.TempPathFactory, wheels: Path) -> Path:
    folder = write_project(tmp_path_factory.mktemp("siblings") / "proj", SIBLINGS)
    assert main(["--project", str(folder), "-q", "lock", "--backend", "uv", *offline(wheels)]) == 0
    return folder


def test_check_reports_siblings_whose_locks_pin_a_package_differently(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, doc = cli_json(capsys, "--project", str(project), "check")
    assert code == 1
    found = [f for f in doc["findings"] if f["kind"] == "sibling-conflict"]
    # left/right disagree on beta; upper (layered on left) inherits left's beta, so it disagrees with right too
    assert [(f["tier"], f["other_tier"]) for f in found] == [("left", "right"), ("right", "upper")]
    first = found[0]
    assert first["packages"] == [
        {
            "package": "beta",
            "versions": ["1.0", "2.0"],
            "places": [first["packages"][0]["places"][0], first["packages"][0]["places"][1]],
        }
    ]
    assert first["packages"][0]["places"][0].startswith("lockfiles/left.txt:")
    assert first["packages"][0]["places"][1].startswith("lockfiles/right.txt:")
    assert "left and right can be armed together but their locks disagree on 1 package(s): beta 1.0" in first["detail"]
    assert doc["by_kind"] == {"sibling-conflict": 2}
    code, out, _ = run_cli(capsys, "--project", str(project), "check")
    assert code == 1
    assert "left: sibling-conflict: left and right can be armed together" in out
    then = f"then run: tierlock --project {project} lock right"  # (the project it was given)
    assert f'set layered-on = "left" in [tool.tierlock.tiers.right], {then}' in out


def test_every_differing_package_of_a_pair_is_named() -> None:
    def entry(name: str, version: str, marker: str | None = None) -> LockEntry:
        return LockEntry(canonicalize_name(name), Version(version), Marker(marker) if marker else None, ())

    first = [entry("numpy", "2.2.6"), entry("six", "1.16"), entry("tzdata", "2024.1"), entry("same", "1")]
    second = [entry("numpy", "2.4.6"), entry("six", "1.17"), entry("tzdata", "2025.1"), entry("same", "1")]
    assert [d.name for d in disagreements(first, second)] == ["numpy", "six", "tzdata"]


def test_forks_under_markers_that_never_hold_together_are_not_a_conflict() -> None:
    def entry(version: str, marker: str) -> LockEntry:
        return LockEntry(canonicalize_name("numpy"), Version(version), Marker(marker), ())

    old, new = entry("2.2.6", "python_version < '3.11'"), entry("2.4.6", "python_version >= '3.11'")
    assert disagreements([old], [new]) == []
    assert [d.name for d in disagreements([old, new], [entry("2.4.6", "python_version >= '3.10'")])] == ["numpy"]


def test_the_printed_layering_remedy_resolves_the_conflict_when_run(
    project: Path, wheels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace(
            "[tool.tierlock.tiers.right]\n", '[tool.tierlock.tiers.right]\nlayered-on = "left"\n'
        )
    )
    code, _, _ = run_cli(capsys, "--project", str(project), "lock", "right", *offline(wheels))
    assert code == 0
    code, out, _ = run_cli(capsys, "--project", str(project), "check")
    assert code == 0, out
    assert "ok: 4 tier(s) (every tier)" in out


def test_tiers_declared_in_conflict_are_not_compared_nor_the_tiers_layered_on_them(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pyproject = project / "pyproject.toml"
    text = pyproject.read_text()
    # tiers never armed together; the lock inputs do not change, so the lockfiles stay fresh
    pyproject.write_text(
        text.replace(
            "[tool.tierlock.tiers.left]",
            '[tool.tierlock]\nconflicts = [["right", "left"]]\n\n[tool.tierlock.tiers.left]',
        )
    )
    code, doc = cli_json(capsys, "--project", str(project), "check")
    assert (code, doc["findings"]) == (0, [])
    model = load_project(project)
    assert not can_arm_together(model, model.tier("upper"), model.tier("right"))
    assert not can_arm_together(model, model.tier("upper"), model.tier("left"))  # layered: the layer check covers it


def test_a_named_pair_is_compared_and_a_single_tier_only_with_its_layers(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, doc = cli_json(capsys, "--project", str(project), "check", "left", "right")
    assert code == 1
    assert [f["kind"] for f in doc["findings"]] == ["sibling-conflict"]
    code, doc = cli_json(capsys, "--project", str(project), "check", "upper")
    assert (code, doc["tiers"], doc["scope"]) == (
        0,
        ["base", "left", "upper"],
        "upper and the tiers it is layered on (base and left)",
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('"left"', "must be an array of arrays of tier names"),
        ('["left"]', "must be an array of tier names"),
        ('[["left", "rihgt"]]', "unknown tier 'rihgt'"),
        ('[["left"]]', "a conflict set needs at least two different tiers"),
        ('[["left", "base"]]', "base is part of every tier"),
    ],
)
def test_a_bad_conflicts_key_is_a_config_error_naming_the_place(tmp_path: Path, value: str, message: str) -> None:
    folder = write_project(
        tmp_path / "proj",
        SIBLINGS.replace(
            "[tool.tierlock.tiers.left]", f"[tool.tierlock]\nconflicts = {value}\n\n[tool.tierlock.tiers.left]"
        ),
    )
    with pytest.raises(ConfigError) as caught:
        load_project(folder)
    rendered = "\n".join(caught.value.lines())
    assert message in rendered
    assert "[tool.tierlock].conflicts" in rendered


def test_each_tier_gets_one_layered_on_value_across_every_sibling_conflict(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _code, doc = cli_json(capsys, "--project", str(project), "check")
    found = [f for f in doc["findings"] if f["kind"] == "sibling-conflict"]
    assert len(found) == 2
    # right disagrees with left and with upper (which is layered on left): one layering resolves both
    assert [f["remedy"].split(", then run")[0] for f in found] == [
        'layer one on the other: set layered-on = "left" in [tool.tierlock.tiers.right]'
    ] * 2


EXCLUDING = """\
[project]
name = "proj"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = []

[project.optional-dependencies]
old = ["beta<2"]
new = ["beta>=2"]

[tool.tierlock.tiers.old]
[tool.tierlock.tiers.new]
"""


def test_a_layering_that_could_not_lock_is_never_suggested_conflicts_are(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_project(tmp_path / "proj", EXCLUDING)
    assert main(["--project", str(folder), "-q", "lock", "--backend", "uv", *offline(wheels)]) == 0
    _code, doc = cli_json(capsys, "--project", str(folder), "check")
    (finding,) = [f for f in doc["findings"] if f["kind"] == "sibling-conflict"]
    assert "layered-on" not in finding["remedy"]
    assert 'conflicts = [["old", "new"]] in [tool.tierlock]' in finding["remedy"]
    # and both directions really fail to lock
    for upper, lower in (("new", "old"), ("old", "new")):
        pyproject = folder / "pyproject.toml"
        original = pyproject.read_text()
        pyproject.write_text(
            original.replace(
                f"[tool.tierlock.tiers.{upper}]\n", f'[tool.tierlock.tiers.{upper}]\nlayered-on = "{lower}"\n'
            )
        )
        code, _out, _err = run_cli(capsys, "--project", str(folder), "lock", upper, *offline(wheels))
        assert code != 0
        pyproject.write_text(original)


def test_a_drift_beside_a_sibling_conflict_is_remedied_by_the_check_that_lists_each_fix_not_a_chain_into_words(
    project: Path, wheels: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # before: admit said `tierlock lock left && layer one on the other: ...`: the lock ran (without the project
    # given), then the shell failed on the words
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"alpha==1.0"', '"alpha>=1.0"'))  # left's input drifts
    monkeypatch.chdir(tmp_path)  # run from another folder: every command printed names the project
    code, doc = cli_json(capsys, "--project", str(project), "admit", "--tier", "left", "--tier", "right")
    part = doc["lockfiles"]
    assert (code, part["verdict"]) == (1, "fail")
    assert part["remedy"] == f"tierlock --project {project} check left right"
    assert part["remedy_argv"] == [["tierlock", "--project", str(project), "check", "left", "right"]]
    code, out, err = run_cli(capsys, "--project", str(project), "admit", "--tier", "left", "--tier", "right")
    assert f"admit: lockfiles: to fix: {part['remedy']}\n" in out + err
    target = tmp_path / "venv"  # (install-tier refuses on the drift before it looks at the target or the siblings)
    code, refused = cli_json(capsys, "--project", str(project), "install", "left", "right", "--python", str(target))
    assert (code, refused["error"]["remedy"]) == (EXIT_FAILED, f"tierlock --project {project} lock left")
    code, out, _ = run_cli(capsys, *part["remedy_argv"][0][1:])  # the remedy, as printed: each finding's own fix
    fixes = [line.split("to fix: ", 1)[1] for line in out.splitlines() if "to fix: " in line]
    assert code == 1
    assert fixes[0] == f"tierlock --project {project} lock left"
    assert fixes[1].startswith('layer one on the other: set layered-on = "left" in [tool.tierlock.tiers.right], then')
    assert run_cli(capsys, *fixes[0].split()[1:], *offline(wheels))[0] == 0
    header = "[tool.tierlock.tiers.right]\n"  # the edit, as the fix words it
    pyproject.write_text(pyproject.read_text().replace(header, f'{header}layered-on = "left"\n'))
    relock = fixes[1].split("then run: ", 1)[1].split(" (", 1)[0]
    assert relock == f"tierlock --project {project} lock right"
    assert run_cli(capsys, *relock.split()[1:], *offline(wheels))[0] == 0
    code, doc = cli_json(capsys, "--project", str(project), "admit", "--tier", "left", "--tier", "right")
    assert doc["lockfiles"]["verdict"] == "pass", doc["lockfiles"]
