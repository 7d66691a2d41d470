"""One shortest remedy for several missing tiers (tierlock.remedies)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.support.env import make_venv
from tests.support.tierproject import build_wheelhouse, make_project
from tierlock import remedies
from tierlock.admission import probe_verdict
from tierlock.cli import main
from tierlock.probing.distribution import DistributionProbe
from tierlock.probing.tier import TierProbe
from tierlock.remedies import argv_of, covering, install_remedy, layers_from_pyproject

NARWHALS = {"base": None, "arrow": "base", "polars": "base", "pandas": "arrow"}


def _argv_by_shlex(remedy: str) -> list[list[str]] | None:
    """What ``remedy_argv`` was when every remedy went through :func:`shlex.split` and :func:`shlex.join`."""
    try:
        tokens = shlex.split(remedy)
    except ValueError:
        return None
    parts: list[list[str]] = [[]]
    for token in tokens:
        if token == "&&":
            parts.append([])
        else:
            parts[-1].append(token)
    if not all(parts) or " && ".join(shlex.join(p) for p in parts) != remedy:
        return None
    return parts if all(remedies._program(p[0]) for p in parts) else None


@pytest.mark.parametrize(
    "remedy",
    ["tierlock lock brain && install-tier brain", "install-tier brain --python '/a b/python'", "tierlock  lock brain",
     "tierlock lock brain &&", "&& tierlock lock", "tierlock lock a&&b", "tierlock lock 'unclosed",
     "tierlock lock\tbrain", "tierlock lock brain\n", "edit pyproject.toml", "tierlock lock a#b",
     "tierlock lock $HOME", "uv pip install x==1",
     "install-tier brain --python /x/bin/python && tierlock probe", "tierlock lock ''", "tierlock lock \\x"],
)  # fmt: skip
def test_a_remedys_commands_are_the_words_shlex_splits_it_into(remedy: str) -> None:
    assert argv_of(remedy) == _argv_by_shlex(remedy)


_WORDS = st.one_of(
    st.sampled_from(["tierlock", "install-tier", "uv", "python3.12", "python3.", "/x/tierlock", "'a b'", "mark",
                     "to", "fix:", "''", "'/a b/tierlock'", "'a b/tierlock'", '"q"', "--project", "lock"]),
    st.text(alphabet="ab/.-'\" \t\\:", max_size=6),
)  # fmt: skip


@given(st.lists(_WORDS, max_size=6).map(" ".join), st.text(alphabet="ab '\"/:", max_size=3))
def test_prose_and_commands_of_any_words_read_as_shlex_reads_them(words: str, tail: str) -> None:
    # (a remedy whose first word names no program is told from a command without reading all of it: the same answer)
    for remedy in (words, words + tail, tail + words):
        assert argv_of(remedy) == _argv_by_shlex(remedy)


def test_a_tier_another_is_layered_on_is_left_out_of_the_command() -> None:
    assert install_remedy(["arrow", "polars", "pandas"], NARWHALS) == "install-tier polars pandas"


def test_base_is_left_out_when_an_opt_in_tier_is_named() -> None:
    assert install_remedy(["base", "arrow"], NARWHALS) == "install-tier arrow"


def test_one_tier_alone_is_named() -> None:
    assert install_remedy(["arrow"], NARWHALS) == "install-tier arrow"


def test_nothing_missing_gives_no_remedy() -> None:
    assert install_remedy([], NARWHALS) is None


def test_duplicates_and_cycles_do_not_loop_or_repeat() -> None:
    assert covering(["a", "a", "b"], {"a": "b", "b": "a"}) == []
    assert covering(["x", "x"], {}) == ["x"]


def test_layers_are_read_from_pyproject_with_base_as_the_default() -> None:
    data = {
        "project": {"optional-dependencies": {"Arrow": [], "pandas": []}},
        "dependency-groups": {"docs": []},
        "tool": {"tierlock": {"tiers": {"pandas": {"layered-on": "arrow"}, "base": {"tests": []}}}},
    }
    assert layers_from_pyproject(data) == {"base": None, "arrow": "base", "pandas": "arrow", "docs": "base"}


def _absent(tier: str, root: str) -> TierProbe:
    root_probe = DistributionProbe(name=root, state="absent", reasons=["not installed"])
    return TierProbe(tier=tier, state="absent", roots=(root_probe,), install_command=f"install-tier {tier}")


def test_admit_gives_one_command_for_several_absent_tiers() -> None:
    results = [_absent("arrow", "pyarrow"), _absent("polars", "polars"), _absent("pandas", "pandas")]
    part = probe_verdict(results, (), NARWHALS)
    assert part.remedy == "install-tier polars pandas"


def test_admit_names_the_locks_for_a_tier_whose_re_arming_stales_another_required_one_and_arms_the_rest() -> None:
    results = [_absent("arrow", "pyarrow"), _absent("polars", "polars")]
    why = "re-arming polars replaces numpy that pandas pin(s) at another version, and pandas is wanted here too"
    part = probe_verdict(results, (), NARWHALS, looping={"polars": ("tierlock check polars pandas", why)})
    assert part.remedy == "install-tier arrow && tierlock check polars pandas"
    assert f"tier polars: {why}" in part.problems
    assert f"tier polars: {why}" in (part.brief or [])


def test_admits_one_remedy_for_two_absent_tiers_arms_both_when_run_as_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    wheels = build_wheelhouse(tmp_path / "wheels")
    root = make_project(tmp_path / "app", wheels)
    (root / "tests" / "brain").mkdir(parents=True)
    (root / "tests" / "brain" / "test_core.py").write_text("import corelib\n")  # what brain's tests glob gates
    python = make_venv(tmp_path / "venv")
    for key, value in {
        "UV_NO_INDEX": "1",
        "UV_FIND_LINKS": str(tmp_path / "wheels"),
        "UV_CACHE_DIR": str(tmp_path / "uv-cache"),
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(tmp_path / "wheels"),
    }.items():
        monkeypatch.setenv(key, value)
    admit = ["admit", "--project", str(root), "--python", str(python), "--tier", "base", "--tier", "brain"]
    assert main(admit) == 1
    remedy = json.loads(capsys.readouterr().out)["probe"]["remedy"]
    # base is armed with brain, which is layered on it; in the environment admit looked at, of the project it
    # was given (the remedy runs from the same folder: outside the project)
    assert remedy == shlex.join(["install-tier", "--project", str(root), "brain", "--python", str(python)])
    assert main(["install", *shlex.split(remedy)[1:]], prog="install-tier") == 0  # exactly as printed
    capsys.readouterr()
    assert main(admit) == 0


def test_an_externally_managed_pythons_remedy_makes_a_venv_of_it_and_arms_that_after_locking() -> None:
    command = install_remedy(
        ["b", "a"], {"a": "b"}, python="/usr/bin/python 3", unlocked=["a"], system=True, managed=True
    )
    assert command == (
        "tierlock lock a && '/usr/bin/python 3' -m venv --without-pip .venv && install-tier a --python .venv/bin/python"
    )


def test_a_managed_flag_without_a_named_python_leaves_the_plain_command() -> None:
    assert install_remedy(["a"], {}, managed=True) == "install-tier a"


def test_a_venv_outside_requires_python_is_made_again_first_and_the_install_names_its_folder() -> None:
    from tierlock.outsidepython import Outside

    remade = Outside("the target runs Python 3.8 ...", "rm -f v/bin/python && python3.11 -m venv v", "v")
    results = [_absent("arrow", "pyarrow"), _absent("polars", "polars")]
    named = probe_verdict(results, (), NARWHALS, python="v/bin/python", remade=remade)
    assert named.remedy == "rm -f v/bin/python && python3.11 -m venv v && install-tier arrow polars --python v"
    assert remade.why in named.problems
    default = probe_verdict(results, (), NARWHALS, remade=remade)  # (the project's own .venv: no --python)
    assert default.remedy == "rm -f v/bin/python && python3.11 -m venv v && install-tier arrow polars"


def test_required_tiers_kept_apart_admit_one_jobs_tiers_after_the_probes_own_remedy(tmp_path: Path) -> None:
    from tierlock.admission import Part, _apart
    from tierlock.tiers import load_project

    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "p"\nversion = "1"\n[project.optional-dependencies]\na = ["x"]\nb = ["y"]\n'
        '[tool.tierlock]\nci-require = ["a", "b"]\nconflicts = [["a", "b"]]\n'
        '[tool.tierlock.tiers.a]\nsource = "extra:a"\n[tool.tierlock.tiers.b]\nsource = "extra:b"\n',
        encoding="utf-8",
    )
    project = load_project(tmp_path)
    failed = Part("probe", "fail", {}, ["tier a: x absent"], "install-tier a")
    part = _apart(failed, project, ["a", "b"], ["a"], "/v/bin/python")
    assert part.remedy == "install-tier a && tierlock admit --tier a --python /v/bin/python"
    assert part.problems[0].startswith("ci-require names a, b, but conflicts keeps a and b apart")
    assert _apart(Part("probe", "fail"), project, ["a", "b"], ["a"], None).remedy == "tierlock admit --tier a"
