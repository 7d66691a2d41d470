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


def test_a_toml_syntax_error_names_its_line_and_column_in_the_remedy(project_dir: Path) -> None:
    (project_dir / "pyproject.toml").write_text('[project]\nname = "me"\nversion = \n', encoding="utf-8")
    with pytest.raises(ConfigError) as exc:
        load_project(project_dir)
    assert exc.value.remedy == "fix the syntax at line 3, column 11"
    assert exc.value.problems[0].line == 3


def test_a_problem_is_placed_on_the_line_of_its_key(project_dir: Path) -> None:
    (found,) = problems(project_dir, HEAD + "[tool.tierlock]\nlock-dirr = 'locks'\n")
    assert found.message == "unknown key 'lock-dirr'"
    assert found.hint == "did you mean 'lock-dir'?"
    lines = (project_dir / "pyproject.toml").read_text(encoding="utf-8").splitlines()
    assert found.line == lines.index("lock-dirr = 'locks'") + 1


def test_every_bad_requirement_of_an_extra_is_reported(project_dir: Path) -> None:
    text = HEAD.replace('gpu = ["alpha"]', 'gpu = [1, "not a requirement!", 2]') + "[tool.tierlock.tiers.gpu]\n"
    assert [p.message.split(":")[0] for p in problems(project_dir, text)] == [
        "must be a requirement string, not an integer",
        "invalid requirement 'not a requirement!'",
        "must be a requirement string, not an integer",
    ]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("5", 'must be "extra:NAME" or "group:NAME", not 5'),
        ("'gpu'", 'must be "extra:NAME" or "group:NAME", not \'gpu\''),
        ("'feature:gpu'", 'must start with "extra:" or "group:", not \'feature:\''),
    ],
)
def test_a_source_that_names_no_extra_or_group_is_refused_saying_the_form(
    project_dir: Path, source: str, message: str
) -> None:
    (found,) = problems(project_dir, HEAD + f"[tool.tierlock.tiers.gpu]\nsource = {source}\n")
    assert found.message == message


def test_a_runtime_key_that_is_not_a_table_is_refused(project_dir: Path) -> None:
    (found,) = problems(project_dir, HEAD + "[tool.tierlock]\nruntime = 'tierlock.runtime.json'\n")
    assert found.message == "must be a table, not a string"


def test_every_layered_on_that_is_not_a_name_is_reported(project_dir: Path) -> None:
    found = problems(
        project_dir, HEAD + "[tool.tierlock.tiers.gpu]\nlayered-on = 1\n[tool.tierlock.tiers.cpu]\nlayered-on = 2\n"
    )
    assert [(p.message, p.where.split("]")[0]) for p in found] == [
        ("must be a tier name, not an integer", "[tool.tierlock.tiers.gpu"),
        ("must be a tier name, not an integer", "[tool.tierlock.tiers.cpu"),
    ]


def test_the_default_probe_names_each_distribution_once(project_dir: Path) -> None:
    text = HEAD.replace('gpu = ["alpha"]', "gpu = ['alpha>=1', \"alpha<3; python_version < '4'\", 'me[cpu]']")
    (project_dir / "pyproject.toml").write_text(text + "[tool.tierlock.tiers.gpu]\n", encoding="utf-8")
    assert load_project(project_dir).tiers["gpu"].probe == ("alpha", "beta")  # type: ignore[index]


def test_every_bad_probe_name_is_reported(project_dir: Path) -> None:
    found = problems(project_dir, HEAD + "[tool.tierlock.tiers.gpu]\nprobe = ['a.b', 'A_B', 'bad name!', 'c', 'C']\n")
    assert [p.message for p in found] == [
        "'A_B' and 'a.b' are two spellings of one distribution ('a-b')",
        "'bad name!' is not a valid distribution name",
        "'C' and 'c' are two spellings of one distribution ('c')",
    ]


@pytest.mark.parametrize(
    ("conflicts", "messages"),
    [
        ('"gpu"', ["must be an array of arrays of tier names, not a string"]),
        ('["gpu", "cpu"]', ['must be an array of tier names such as ["a", "b"], not a string'] * 2),
        (
            '[[1, 2, "gpu", "cpu"]]',
            ["must hold tier names (strings), not an integer", "must hold tier names (strings), not an integer"],
        ),
        ('[["base", "gpu", "cpu"]]', ["base is part of every tier; it cannot conflict with one"]),
    ],
)
def test_every_malformed_conflict_set_is_reported_once(project_dir: Path, conflicts: str, messages: list[str]) -> None:
    tiers = "[tool.tierlock.tiers.gpu]\n[tool.tierlock.tiers.cpu]\n"
    found = problems(project_dir, HEAD + f"[tool.tierlock]\nconflicts = {conflicts}\n" + tiers)
    assert [p.message for p in found] == messages


@pytest.mark.parametrize("lock_dir", ["5", "'  '"])
def test_a_lock_dir_that_is_no_folder_name_is_refused(project_dir: Path, lock_dir: str) -> None:
    (found,) = problems(project_dir, HEAD + f"[tool.tierlock]\nlock-dir = {lock_dir}\n")
    assert found.message == "must be a non-empty string (a folder relative to the project root)"


def test_dynamic_dependencies_are_refused_for_the_base_tier(project_dir: Path) -> None:
    text = '[project]\nname = "me"\nversion = "0.1"\ndynamic = ["dependencies"]\n[tool.tierlock]\n'
    (found,) = problems(project_dir, text)
    assert found.message.startswith("the base tier needs static [project].dependencies")
