"""Tier declarations with several problems: each one is reported, at its place, with its hint, and what
is valid is still read right (conflict sets, self-references to extras that do not exist)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tierlock import load_project
from tierlock.errors import ConfigError, Problem

HEAD = """\
[project]
name = "me"
version = "0.1"

[project.optional-dependencies]
gpu = ["alpha"]
cpu = ["beta"]
web = ["gamma"]
"""


def problems(folder: Path, text: str) -> list[Problem]:
    (folder / "pyproject.toml").write_text(textwrap.dedent(text), encoding="utf-8")
    with pytest.raises(ConfigError) as exc:
        load_project(folder)
    return list(exc.value.problems)


def test_every_invalid_tier_name_is_reported_and_the_valid_tiers_after_them_are_still_read(project_dir: Path) -> None:
    found = problems(
        project_dir,
        HEAD
        + '[tool.tierlock.tiers."bad name"]\n[tool.tierlock.tiers."also bad!"]\n[tool.tierlock.tiers.gpu]\n'
        + '[tool.tierlock.tiers.cpu]\nlayered-on = "gpux"\n',
    )
    messages = [p.message for p in found]
    assert "'bad name' is not a valid tier name (letters, digits, '.', '_', '-')" in messages
    assert "'also bad!' is not a valid tier name (letters, digits, '.', '_', '-')" in messages
    (layer,) = [p for p in found if p.message.startswith("unknown tier 'gpux'")]
    assert layer.message == "unknown tier 'gpux'; declared tiers: base, gpu, cpu"
    assert layer.hint == "did you mean 'gpu'?"


def test_a_backend_typo_is_refused_with_the_closest_name(project_dir: Path) -> None:
    (found,) = problems(project_dir, HEAD + '[tool.tierlock]\nbackend = "uvv"\n')
    assert found.message.startswith("must be one of ")
    assert found.hint == "did you mean 'uv'?"


def test_a_layering_cycle_is_reported_once_at_the_first_tier_of_the_cycle(project_dir: Path) -> None:
    found = problems(
        project_dir,
        HEAD
        + '[tool.tierlock.tiers.gpu]\nlayered-on = "cpu"\n[tool.tierlock.tiers.cpu]\nlayered-on = "web"\n'
        + '[tool.tierlock.tiers.web]\nlayered-on = "gpu"\n',
    )
    (cycle,) = found
    assert cycle.message == "layered-on forms a cycle: gpu -> cpu -> web -> gpu"
    assert cycle.where.startswith("[tool.tierlock.tiers.gpu]"), cycle.where


@pytest.mark.parametrize("glob", ["/abs/tests/**", "\\tests\\brain\\**"])
def test_a_test_glob_rooted_anywhere_but_the_project_is_refused(project_dir: Path, glob: str) -> None:
    (found,) = problems(project_dir, HEAD + f"[tool.tierlock.tiers.gpu]\ntests = ['{glob}']\n")
    assert found.message == f"must be relative to the project root, not {glob!r}"


def test_every_bad_import_root_is_reported_not_only_the_first(project_dir: Path) -> None:
    found = problems(
        project_dir,
        HEAD
        + "[tool.tierlock.tiers.gpu]\n"
        + 'import-roots = { "bad name" = "x", "Dup.Dist" = "a", "dup_dist" = "b", "also bad!" = "y",'
        + ' "Two.Dist" = "c", "two-dist" = "d" }\n',
    )
    assert [p.message for p in found] == [
        "'bad name' is not a valid distribution name",
        "'dup_dist' and 'Dup.Dist' are two spellings of one distribution ('dup-dist')",
        "'also bad!' is not a valid distribution name",
        "'two-dist' and 'Two.Dist' are two spellings of one distribution ('two-dist')",
    ]


def test_a_conflict_set_of_three_tiers_is_kept_whole(project_dir: Path) -> None:
    path = project_dir / "pyproject.toml"
    path.write_text(
        HEAD
        + '[tool.tierlock]\nconflicts = [["gpu", "cpu", "web"], ["gpu", "cpu"]]\n'
        + "[tool.tierlock.tiers.gpu]\n[tool.tierlock.tiers.cpu]\n[tool.tierlock.tiers.web]\n",
        encoding="utf-8",
    )
    assert load_project(project_dir).conflicts == (frozenset({"gpu", "cpu", "web"}), frozenset({"gpu", "cpu"}))


def test_a_conflict_set_of_one_tier_is_refused_unless_its_tier_is_already_reported(project_dir: Path) -> None:
    tiers = "[tool.tierlock.tiers.gpu]\n[tool.tierlock.tiers.cpu]\n"
    (alone,) = problems(project_dir, HEAD + '[tool.tierlock]\nconflicts = [["gpu"]]\n' + tiers)
    assert alone.message == "a conflict set needs at least two different tiers"
    (typo,) = problems(project_dir, HEAD + '[tool.tierlock]\nconflicts = [["gpu", "cpux"]]\n' + tiers)
    assert typo.message == "unknown tier 'cpux'; declared tiers: base, gpu, cpu"
    assert typo.hint == "did you mean 'cpu'?"


def test_a_self_reference_to_an_undeclared_extra_adds_nothing_and_breaks_nothing(project_dir: Path) -> None:
    path = project_dir / "pyproject.toml"
    path.write_text(HEAD + 'all = ["me[gpu,nope,gpu]", "me[cpu]"]\n[tool.tierlock.tiers.all]\n', encoding="utf-8")
    tier = load_project(project_dir).tiers["all"]  # type: ignore[index]
    assert sorted(str(r) for r in tier.requirements) == ["alpha", "beta"]


def test_every_tier_spelled_twice_is_reported_and_the_tiers_after_them_are_still_read(project_dir: Path) -> None:
    found = problems(
        project_dir,
        HEAD
        + "[tool.tierlock.tiers.gpu]\n[tool.tierlock.tiers.GPU]\n[tool.tierlock.tiers.cpu]\n"
        + "[tool.tierlock.tiers.Cpu]\n[tool.tierlock.tiers.web]\nlayered-on = 'nope'\n",
    )
    assert [p.message for p in found] == [
        "tier 'GPU' and tier 'gpu' are two spellings of one name ('gpu')",
        "tier 'Cpu' and tier 'cpu' are two spellings of one name ('cpu')",
        "unknown tier 'nope'; declared tiers: base, gpu, cpu, web",
    ]


def test_every_import_root_that_is_not_a_list_of_names_is_reported(project_dir: Path) -> None:
    found = problems(project_dir, HEAD + "[tool.tierlock.tiers.gpu]\nimport-roots = { alpha = 1, beta = 2 }\n")
    assert [p.where.split()[0] for p in found] == [
        "[tool.tierlock.tiers.gpu.import-roots].alpha",
        "[tool.tierlock.tiers.gpu.import-roots].beta",
    ]


def test_a_ci_require_typo_is_refused_with_the_closest_tier(project_dir: Path) -> None:
    (found,) = problems(project_dir, HEAD + '[tool.tierlock]\nci-require = ["gpux"]\n[tool.tierlock.tiers.gpu]\n')
    assert found.message == "unknown tier 'gpux'; declared tiers: base, gpu"
    assert found.hint == "did you mean 'gpu'?"


def test_a_pyproject_that_is_not_utf8_is_a_config_error_naming_the_byte(project_dir: Path) -> None:
    (project_dir / "pyproject.toml").write_bytes(b'[project]\nname = "caf\xe9"\n')
    with pytest.raises(ConfigError, match=r"is not UTF-8 text \(invalid continuation byte at byte 21\)"):
        load_project(project_dir)
