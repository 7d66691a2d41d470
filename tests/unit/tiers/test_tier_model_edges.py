"""Tier-model edges a plausible regression would slip through: dotted names, several self-referenced extras,
dependency groups included more than one level deep.

Each test here was shown to fail on the regression it names (the mutant applied by hand) and to pass on the code.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

import tierlock
from tests.support.env import clean_env, make_venv
from tests.support.probe_env import uv_install
from tests.support.wheels import _record_hash


def write(folder: Path, text: str) -> Path:
    path = folder / "pyproject.toml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def dotted_wheel(dest: Path) -> Path:
    """A wheel whose ``.dist-info`` keeps the dots of its name (``zope.interface-5.0.dist-info``, as of old)."""
    dest.mkdir(parents=True, exist_ok=True)
    dist_info = "zope.interface-5.0.dist-info"
    contents = {
        "zope/interface/__init__.py": b"X = 1\n",
        f"{dist_info}/METADATA": b"Metadata-Version: 2.1\nName: zope.interface\nVersion: 5.0\n",
        f"{dist_info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{dist_info}/top_level.txt": b"zope\n",
    }
    record = [f"{path},{_record_hash(data)},{len(data)}" for path, data in contents.items()]
    contents[f"{dist_info}/RECORD"] = ("\n".join([*record, f"{dist_info}/RECORD,,"]) + "\n").encode()
    wheel = dest / "zope.interface-5.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        for path, data in contents.items():
            zf.writestr(path, data)
    return wheel


@pytest.mark.parametrize("spelling", ["zope.interface", "zope-interface", "Zope_Interface", "zope..interface"])
def test_a_dist_info_folder_with_dots_in_its_name_is_found_under_every_spelling_of_the_name(
    tmp_path: Path, spelling: str
) -> None:
    house = tmp_path / "wheels"
    dotted_wheel(house)
    python = make_venv(tmp_path / "venv")
    uv_install(python, house, "zope.interface")
    site = next((tmp_path / "venv" / "lib").glob("python3*/site-packages"))
    assert (site / "zope.interface-5.0.dist-info").is_dir()  # the dots survived the install
    project = tmp_path / "proj"
    project.mkdir()
    write(
        project,
        f"""\
        [project]
        name = "proj"
        version = "0.1"

        [project.optional-dependencies]
        brain = ["{spelling}>=5"]

        [tool.tierlock.tiers.brain]
        """,
    )
    result = tierlock.probe("brain", project=project, python=python)
    assert [(r.name, r.state) for r in result.roots] == [("zope-interface", "present")]
    assert result.state == "present"
    single = tierlock.probe_distribution(spelling, paths=[site])
    assert single.state == "present", single.reasons


SELF = """\
[project]
name = "My.App"
version = "0.1"

[project.optional-dependencies]
a = ["alpha"]
b = ["beta>=2"]
c = ["my_app[b]", "gamma"]
both = ["{both}"]

[tool.tierlock.tiers.both]
"""


@pytest.mark.parametrize(
    ("both", "expected"),
    [
        ("my-app[a,b]", ["alpha", "beta>=2"]),
        ("My.App[b,a]", ["alpha", "beta>=2"]),
        ("my_app[a,c]", ["alpha", "beta>=2", "gamma"]),
        ("my-app[c,a,b]", ["alpha", "beta>=2", "gamma"]),
    ],
)
def test_every_extra_of_a_self_reference_is_expanded_not_only_the_first(
    project_dir: Path, both: str, expected: list[str]
) -> None:
    write(project_dir, SELF.format(both=both))
    tier = tierlock.load_project(project_dir).tiers["both"]  # type: ignore[index]
    assert sorted(str(r) for r in tier.requirements) == expected


NESTED = """\
[project]
name = "proj"
version = "0.1"

[dependency-groups]
top = [{include-group = "middle"}, "alpha"]
middle = [{include-group = "Bottom"}, "beta"]
bottom = [{include-group = "deepest"}, "gamma"]
deepest = ["delta"]

[tool.tierlock.tiers.top]
source = "group:top"
"""


def test_groups_included_at_any_depth_are_all_recorded_for_the_tier(project_dir: Path) -> None:
    write(project_dir, NESTED)
    tier = tierlock.load_project(project_dir).tiers["top"]  # type: ignore[index]
    assert sorted(str(r) for r in tier.requirements) == ["alpha", "beta", "delta", "gamma"]
    assert sorted(tier.include_groups) == ["bottom", "deepest", "middle"]


def test_the_models_literal_aliases_are_made_when_first_asked_with_the_values_they_had() -> None:
    code = (
        "import typing\n"
        "from tierlock.tiers import loader, model, platforms\n"
        "made = [name for name in ('LockFormat', 'BackendName') if name in vars(model)] + "
        "[name for name in ('OS',) if name in vars(platforms)]\n"
        "assert model.LockFormat == typing.Literal['requirements', 'pylock']\n"
        "assert model.BackendName == typing.Literal['auto', 'uv', 'pip']\n"
        "assert platforms.OS == typing.Literal['linux', 'macos', 'windows']\n"
        "assert model.LockFormat is model.LockFormat\n"
        "print(made)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, env=clean_env())
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        _ = __import__("tierlock.tiers.model", fromlist=["x"]).Nothing
