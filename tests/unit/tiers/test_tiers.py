"""The tier model: reading tiers from standard metadata and validating [tool.tierlock]."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from tierlock import load_project
from tierlock.errors import ConfigError, UnknownTierError
from tierlock.tiers import BASE


def write(folder: Path, text: str) -> Path:
    path = folder / "pyproject.toml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


GOOD = """\
[project]
name = "My_App"
requires-python = ">=3.11"
dependencies = ["httpx>=0.27", "attrs"]

[project.optional-dependencies]
brain = ["numpy>=2", "scipy>=1.13; sys_platform != 'win32'"]
all = ["my-app[brain]", "rich"]

[dependency-groups]
docs = ["mkdocs>=1.5"]
ci = [{include-group = "docs"}, "pytest>=8"]

[tool.tierlock]
lock-dir = "locks"
format = "requirements"
backend = "uv"

[tool.tierlock.tiers.brain]
tests = ["tests/brain/**"]
import-roots = { scipy = ["scipy"] }

[tool.tierlock.tiers.ci]
source = "group:ci"
layered-on = "brain"
probe = ["pytest"]

[tool.tierlock.tiers.all]
"""


def problems_of(exc: pytest.ExceptionInfo[ConfigError]) -> list[str]:
    return [p.render() for p in exc.value.problems]


def test_base_tier_is_project_dependencies(project_dir: Path) -> None:
    write(project_dir, GOOD)
    project = load_project(project_dir)
    base = project.tiers[BASE]
    assert base.source == "project.dependencies"
    assert [str(r) for r in base.requirements] == ["httpx>=0.27", "attrs"]
    assert base.layered_on is None
    assert base.probe == ("httpx", "attrs")
    assert project.name == "my-app"


def test_opt_in_tier_defaults_to_the_extra_of_its_name(project_dir: Path) -> None:
    write(project_dir, GOOD)
    brain = load_project(project_dir).tier("brain")
    assert brain.source == "extra:brain"
    assert all(isinstance(r, Requirement) for r in brain.requirements)
    assert [r.name for r in brain.requirements] == ["numpy", "scipy"]
    assert brain.layered_on == "base"
    assert brain.probe == ("numpy", "scipy")
    assert brain.import_roots == {"scipy": ("scipy",)}
    assert brain.tests == ("tests/brain/**",)
    assert brain.lockfile == project_dir / "locks" / "brain.txt"


def test_group_tier_resolves_include_group(project_dir: Path) -> None:
    write(project_dir, GOOD)
    project = load_project(project_dir)
    ci = project.tier("ci")
    assert [str(r) for r in ci.requirements] == ["mkdocs>=1.5", "pytest>=8"]
    assert ci.include_groups == ("docs",)
    assert ci.probe == ("pytest",)
    assert [t.name for t in project.chain("ci")] == ["base", "brain", "ci"]
    closure = [r.name for r in project.closure_requirements("ci")]
    assert closure == ["httpx", "attrs", "numpy", "scipy", "mkdocs", "pytest"]


def test_self_referencing_extra_expands_to_that_extras_requirements(project_dir: Path) -> None:
    write(project_dir, GOOD)
    tier = load_project(project_dir).tier("all")
    assert [r.name for r in tier.requirements] == ["numpy", "scipy", "rich"]


def test_ci_require_defaults_to_tiers_that_gate_tests(project_dir: Path) -> None:
    write(project_dir, GOOD)
    project = load_project(project_dir)
    assert project.ci_require == ("brain",)
    assert project.tier("brain").ci_required
    assert not project.tier("ci").ci_required


def test_tier_lookup_accepts_any_spelling_and_lists_declared_tiers_when_unknown(project_dir: Path) -> None:
    write(project_dir, GOOD)
    project = load_project(project_dir)
    assert project.tier("Brain").name == "brain"
    with pytest.raises(UnknownTierError) as exc:
        project.tier("brian")
    assert "declared tiers: base, brain, ci, all" in exc.value.message
    assert "did you mean 'brain'" in exc.value.message
    assert exc.value.exit_code == 2


def test_pylock_format_names_pylock_files(project_dir: Path) -> None:
    write(project_dir, GOOD.replace('format = "requirements"', 'format = "pylock"'))
    assert load_project(project_dir).tier("brain").lockfile.name == "pylock.brain.toml"


def test_project_without_table_has_only_the_base_tier(project_dir: Path) -> None:
    write(project_dir, '[project]\nname = "x"\ndependencies = ["attrs"]\n')
    project = load_project(project_dir)
    assert not project.configured
    assert list(project.tiers) == ["base"]


def test_project_is_found_upward_from_a_subfolder(project_dir: Path) -> None:
    write(project_dir, GOOD)
    sub = project_dir / "src" / "pkg"
    sub.mkdir(parents=True)
    assert load_project(sub).root == project_dir


def test_missing_pyproject_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match=r"no pyproject\.toml") as exc:
        load_project(tmp_path / "empty")
    assert exc.value.remedy == "run tierlock inside a project, or pass --project DIR"


def test_invalid_toml_reports_line_and_column(project_dir: Path) -> None:
    write(project_dir, '[project]\nname = "x"\ndependencies = ["attrs",\n[tool]\n')
    with pytest.raises(ConfigError) as exc:
        load_project(project_dir)
    problem = exc.value.problems[0]
    assert problem.line == 4
    assert problem.column is not None
    assert problem.message.startswith("invalid TOML")


def test_every_problem_is_reported_at_once_with_its_place(project_dir: Path) -> None:
    write(
        project_dir,
        """\
        [project]
        name = "x"
        dependencies = ["attrs", "bad req ~~ 1"]

        [project.optional-dependencies]
        brain = ["numpy"]

        [dependency-groups]
        lint = ["ruff"]

        [tool.tierlock]
        lock_dir = "x"
        format = "pylok"
        ci-require = ["brain", "nope"]

        [tool.tierlock.tiers.brain]
        prob = ["numpy"]
        tests = "tests/brain"

        [tool.tierlock.tiers.vision]
        layered-on = "brain"

        [tool.tierlock.tiers.docs]
        source = "group:documentation"

        [tool.tierlock.tiers.lint]
        probe = ["ruff", "Ruff", 3]
        """,
    )
    with pytest.raises(ConfigError) as exc:
        load_project(project_dir)
    text = "\n".join(problems_of(exc))
    assert exc.value.exit_code == 2
    expected = [
        "[project].dependencies[1]: invalid requirement 'bad req ~~ 1'",
        "[tool.tierlock].lock_dir: unknown key 'lock_dir' (did you mean 'lock-dir'?)",
        "[tool.tierlock].format: must be one of requirements, pylock, not 'pylok' (did you mean 'pylock'?)",
        "[tool.tierlock].ci-require[1]: unknown tier 'nope'",
        "[tool.tierlock.tiers.brain].prob: unknown key 'prob' (did you mean 'probe'?)",
        "[tool.tierlock.tiers.brain].tests: must be an array of strings, not a string",
        "[tool.tierlock.tiers.vision]: no extra or dependency group called 'vision'; extras: brain; "
        "dependency groups: lint",
        "[tool.tierlock.tiers.docs].source: no dependency group called 'documentation'",
        "[tool.tierlock.tiers.lint].probe[1]: 'Ruff' and 'ruff' are two spellings of one distribution",
        "[tool.tierlock.tiers.lint].probe[2]: must be a string, not an integer",
    ]
    for item in expected:
        assert item in text, f"{item!r} not in:\n{text}"
    assert len(exc.value.problems) == len(expected)


def test_problem_names_the_file_and_line_of_the_key(project_dir: Path) -> None:
    path = write(
        project_dir,
        """\
        [project]
        name = "x"
        [project.optional-dependencies]
        brain = ["numpy"]
        [tool.tierlock.tiers.brain]
        tests = []
        probe = ["numpy", ""]
        """,
    )
    with pytest.raises(ConfigError) as exc:
        load_project(project_dir)
    (problem,) = exc.value.problems
    assert problem.file == str(path)
    assert problem.line == 7
    assert problem.render().startswith(f"{path}:7 [tool.tierlock.tiers.brain].probe[1]:")


def test_a_name_that_is_both_an_extra_and_a_group_needs_an_explicit_source(project_dir: Path) -> None:
    body = """\
        [project]
        name = "x"
        [project.optional-dependencies]
        brain = ["numpy"]
        [dependency-groups]
        brain = ["scipy"]
        [tool.tierlock.tiers.brain]
        """
    write(project_dir, body)
    with pytest.raises(ConfigError) as exc:
        load_project(project_dir)
    assert "'brain' is both an extra and a dependency group" in problems_of(exc)[0]
    write(project_dir, body + 'source = "group:brain"\n')
    assert [r.name for r in load_project(project_dir).tier("brain").requirements] == ["scipy"]


def test_layered_on_cycle_and_unknown_tier_are_reported(project_dir: Path) -> None:
    write(
        project_dir,
        """\
        [project]
        name = "x"
        [project.optional-dependencies]
        a = ["attrs"]
        b = ["six"]
        c = ["idna"]
        [tool.tierlock.tiers.a]
        layered-on = "b"
        [tool.tierlock.tiers.b]
        layered-on = "a"
        [tool.tierlock.tiers.c]
        layered-on = "brian"
        """,
    )
    with pytest.raises(ConfigError) as exc:
        load_project(project_dir)
    text = "\n".join(problems_of(exc))
    assert "layered-on forms a cycle: a -> b -> a" in text
    assert "[tool.tierlock.tiers.c].layered-on: unknown tier 'brian'" in text
    assert len(exc.value.problems) == 2


def test_two_spellings_of_one_tier_name_are_an_error(project_dir: Path) -> None:
    write(
        project_dir,
        """\
        [project]
        name = "x"
        [project.optional-dependencies]
        brain = ["numpy"]
        [tool.tierlock.tiers.brain]
        [tool.tierlock.tiers.Brain]
        """,
    )
    with pytest.raises(ConfigError) as exc:
        load_project(project_dir)
    assert "tier 'Brain' and tier 'brain' are two spellings of one name" in problems_of(exc)[0]


def test_base_tier_accepts_probe_and_tests_but_not_a_source(project_dir: Path) -> None:
    write(
        project_dir,
        """\
        [project]
        name = "x"
        dependencies = ["attrs"]
        [tool.tierlock.tiers.base]
        tests = ["tests/**"]
        source = "extra:x"
        """,
    )
    with pytest.raises(ConfigError) as exc:
        load_project(project_dir)
    assert "[tool.tierlock.tiers.base].source: unknown key 'source'" in problems_of(exc)[0]


def test_bad_import_roots_and_wrong_types_are_reported(project_dir: Path) -> None:
    write(
        project_dir,
        """\
        [project]
        name = "x"
        [project.optional-dependencies]
        brain = ["numpy"]
        [tool.tierlock]
        tiers = { brain = { import-roots = { numpy = ["num-py"] }, layered-on = 3 } }
        backend = "conda"
        """,
    )
    with pytest.raises(ConfigError) as exc:
        load_project(project_dir)
    text = "\n".join(problems_of(exc))
    assert "[tool.tierlock.tiers.brain.import-roots].numpy[0]: 'num-py' is not a top-level import name" in text
    assert "[tool.tierlock.tiers.brain].layered-on: must be a tier name, not an integer" in text
    assert "[tool.tierlock].backend: must be one of auto, uv, pip, not 'conda'" in text


def test_pyproject_with_bom_is_read(project_dir: Path) -> None:
    (project_dir / "pyproject.toml").write_bytes(b'\xef\xbb\xbf[project]\nname = "x"\ndependencies = ["attrs"]\n')
    assert [r.name for r in load_project(project_dir).tier("base").requirements] == ["attrs"]


HEAD = '[project]\nname = "x"\nversion = "1"\n'
BAD_INPUTS = [
    (
        "unknown key",
        HEAD + "[tool.tierlock]\nlockdir = 'x'\n",
        "[tool.tierlock].lockdir: unknown key 'lockdir' (did you mean 'lock-dir'?)",
    ),
    (
        "wrong type",
        HEAD + "[tool.tierlock]\nformat = 3\n",
        "[tool.tierlock].format: must be one of requirements, pylock",
    ),
    (
        "missing source",
        HEAD + "[project.optional-dependencies]\nbrain = []\n[tool.tierlock.tiers.gpu]\n",
        "[tool.tierlock.tiers.gpu]: no extra or dependency group called 'gpu'; extras: brain",
    ),
    (
        "layered-on cycle",
        HEAD + "[project.optional-dependencies]\na = []\nb = []\n"
        "[tool.tierlock.tiers.a]\nlayered-on = 'b'\n[tool.tierlock.tiers.b]\nlayered-on = 'a'\n",
        "layered-on forms a cycle: a -> b -> a",
    ),
    (
        "unknown tier in ci-require",
        HEAD + "[tool.tierlock]\nci-require = ['gpu']\n",
        "[tool.tierlock].ci-require[0]: unknown tier 'gpu'",
    ),
    (
        "bad requirement",
        HEAD + "[project.optional-dependencies]\nbrain = ['numpy', 'scipy>>1']\n[tool.tierlock.tiers.brain]\n",
        "[project.optional-dependencies].brain[1]: invalid requirement 'scipy>>1': Expected",
    ),
    (
        "unresolvable include-group",
        HEAD + "[dependency-groups]\nbrain = [{include-group = 'nope'}]\n[tool.tierlock.tiers.brain]\n",
        "[dependency-groups].brain: cannot resolve dependency group: Dependency group 'nope' not found",
    ),
    ("invalid TOML", HEAD + "[tool.tierlock\n", "pyproject.toml:4:"),
]


@pytest.mark.parametrize(("text", "message"), [c[1:] for c in BAD_INPUTS], ids=[c[0] for c in BAD_INPUTS])
def test_every_bad_input_exits_2_with_its_place_and_writes_nothing(
    text: str, message: str, project_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tierlock.cli import main

    path = project_dir / "pyproject.toml"
    path.write_text(text, encoding="utf-8")
    before = sorted(p.name for p in project_dir.iterdir())
    assert main(["--project", str(project_dir), "tiers"]) == 2
    assert message in capsys.readouterr().err
    assert path.read_text(encoding="utf-8") == text
    assert sorted(p.name for p in project_dir.iterdir()) == before


@pytest.mark.parametrize(
    ("value", "line", "why"),
    [("1" * 5000, 5, "an integer of more than 4300 digits"), ("[" * 1200 + "]" * 1200, 5, "nesting deeper than 100")],
    ids=["huge-integer", "deep-nesting"],
)
def test_a_pyproject_python_cannot_parse_is_a_config_error_with_its_line(
    tmp_path: Path, value: str, line: int, why: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(f'[project]\nname = "x"\nversion = "1"\n[tool.other]\nv = {value}\n')
    with pytest.raises(ConfigError) as exc:
        load_project(tmp_path)
    assert why in exc.value.message
    assert exc.value.line == line
