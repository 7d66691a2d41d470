"""The remedy that re-arms a tier carries ``--replace-armed`` exactly when install-tier would refuse without it.

:func:`tierlock.installer.rearm.blocking` is pure over receipts, the tier's pins and what is installed;
:func:`tierlock.remedies.argv_of` turns a printed remedy into the argv lists ``--json`` carries.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import pytest

from tierlock.installer.rearm import FLAG, blocking, with_flag
from tierlock.installer.receipts import Receipt
from tierlock.remedies import argv_of


def receipt(tier: str, **pins: str) -> Receipt:
    data: dict[str, Any] = {"tier": tier, "packages": [{"name": n, "version": v} for n, v in pins.items()]}
    return Receipt(Path(f"/env/tierlock/receipts/{tier}.json"), data)


def test_a_package_another_receipt_pins_at_another_version_blocks_re_arming() -> None:
    armed = {"fast": receipt("fast", corelib="2.0")}
    assert blocking({"corelib": "1.0"}, {"corelib": "2.0"}, armed, skip=["brain"]) == {"fast": ["corelib"]}


def test_a_package_that_is_absent_still_blocks_as_install_tier_installs_it() -> None:
    armed = {"fast": receipt("fast", corelib="2.0")}
    assert blocking({"corelib": "1.0"}, {}, armed, skip=["brain"]) == {"fast": ["corelib"]}


def test_a_package_already_at_the_tiers_version_replaces_nothing() -> None:
    armed = {"fast": receipt("fast", corelib="2.0")}
    assert blocking({"corelib": "1.0"}, {"corelib": "1.0"}, armed, skip=["brain"]) == {}


def test_the_same_version_in_both_never_blocks() -> None:
    armed = {"fast": receipt("fast", corelib="1.0", other="3")}
    assert blocking({"corelib": "1.0"}, {"corelib": "0.1"}, armed, skip=["brain"]) == {}


def test_the_tier_itself_and_those_it_is_layered_on_never_block() -> None:
    armed = {"brain": receipt("brain", corelib="2.0"), "base": receipt("base", corelib="2.0")}
    assert blocking({"corelib": "1.0"}, {"corelib": "2.0"}, armed, skip=["base", "brain"]) == {}


def test_a_pin_the_other_tiers_current_lock_moved_to_the_new_version_does_not_block() -> None:
    armed = {"fast": receipt("fast", corelib="2.0")}
    others = {"fast": {"corelib": "1.0"}}
    assert blocking({"corelib": "1.0"}, {"corelib": "2.0"}, armed, skip=[], others_locked=others) == {}
    moved = {"fast": {"corelib": "3.0"}}
    assert blocking({"corelib": "1.0"}, {"corelib": "2.0"}, armed, skip=[], others_locked=moved) == {
        "fast": ["corelib"]
    }


def test_another_tiers_lock_is_looked_into_only_for_a_package_re_arming_would_replace() -> None:
    """(status and probe ask for the remedy of each tier that is not present: most receipts pin nothing it would
    replace, and reading every other armed tier's lock for each costs a command milliseconds.)"""
    armed = {
        "fast": receipt("fast", corelib="2.0"),
        "quiet": receipt("quiet", corelib="1.0", other="3"),
        "apart": receipt("apart", numpy="2.0"),
    }
    asked: list[str] = []

    class Pins(dict[str, dict[str, str]]):
        def get(self, tier: str, default: Any = None) -> Any:
            asked.append(tier)
            return super().get(tier, default)

    others = Pins(fast={"corelib": "3.0"}, quiet={}, apart={})
    assert blocking({"corelib": "1.0"}, {"corelib": "2.0"}, armed, skip=[], others_locked=others) == {
        "fast": ["corelib"]
    }
    assert asked == ["fast"]


def test_packages_the_tier_does_not_pin_never_block() -> None:
    armed = {"fast": receipt("fast", numpy="2.0")}
    assert blocking({"corelib": "1.0"}, {"numpy": "1.0"}, armed, skip=[]) == {}


def test_every_blocking_package_of_every_tier_is_named() -> None:
    armed = {"fast": receipt("fast", a="2", b="2"), "slow": receipt("slow", b="3")}
    found = blocking({"a": "1", "b": "1"}, {"a": "2", "b": "2"}, armed, skip=[])
    assert found == {"fast": ["a", "b"], "slow": ["b"]}


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("install-tier brain", "install-tier brain --replace-armed"),
        ("install-tier brain --replace-armed", "install-tier brain --replace-armed"),
        ("tierlock lock brain && install-tier brain", "tierlock lock brain && install-tier brain --replace-armed"),
    ],
)
def test_the_flag_goes_once_on_the_last_command(command: str, expected: str) -> None:
    assert with_flag(command) == expected
    assert FLAG == "--replace-armed"


@pytest.mark.parametrize(
    ("remedy", "argv"),
    [
        ("install-tier brain", [["install-tier", "brain"]]),
        ("install-tier brain --python '/a b/python'", [["install-tier", "brain", "--python", "/a b/python"]]),
        (
            "tierlock remove fast && install-tier --armed",
            [["tierlock", "remove", "fast"], ["install-tier", "--armed"]],
        ),
        ("make /site writable, then run the same command", None),
        ("install-tier brain (arms brain alone)", None),
        ("install-tier 'unclosed", None),
        ("install-tier brain &&", None),
        ("", None),
        (None, None),
    ],
)
def test_a_printed_remedy_is_an_argv_list_only_when_it_is_exactly_a_command(
    remedy: str | None, argv: list[list[str]] | None
) -> None:
    assert argv_of(remedy) == argv


def test_a_tier_skipped_first_does_not_hide_a_later_blocking_one() -> None:
    armed = {"base": receipt("base", corelib="2.0"), "fast": receipt("fast", corelib="2.0")}
    assert blocking({"corelib": "1.0"}, {"corelib": "2.0"}, armed, skip=["base"]) == {"fast": ["corelib"]}


def test_the_flag_goes_on_the_last_command_of_a_chain_whose_first_has_it() -> None:
    chain = "install-tier a --replace-armed && install-tier b"
    assert with_flag(chain) == chain + " --replace-armed"


# -- remedy(): the probe's command, with the flag when the receipts in the environment need it --------------

SIBLINGS = """\
[project]
name = "app"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = []

[project.optional-dependencies]
brain = ["corelib>=1"]
fast = ["corelib>=1"]

[tool.tierlock]
lock-dir = "lockfiles"

[tool.tierlock.tiers.brain]
[tool.tierlock.tiers.fast]
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    from tests.support.tierproject import write_lock
    from tests.support.wheels import build_wheel

    (tmp_path / "pyproject.toml").write_text(SIBLINGS)
    one = build_wheel(tmp_path / "wheels", "corelib", "1.0")
    two = build_wheel(tmp_path / "wheels", "corelib", "2.0")
    write_lock(tmp_path, "base", [])
    write_lock(tmp_path, "brain", [("corelib", "1.0", one)])
    write_lock(tmp_path, "fast", [("corelib", "2.0", two)])
    return tmp_path


def _write_receipt(prefix: Path, tier: str, **pins: str) -> None:
    from tierlock.installer import receipts

    folder = receipts.receipts_dir(prefix)
    folder.mkdir(parents=True, exist_ok=True)
    packages = [{"name": n, "version": v, "site": "", "dist_info": "", "files": []} for n, v in pins.items()]
    receipts.write(prefix, {"schema": receipts.SCHEMA, "tier": tier, "packages": packages})


def _probe(command: str, *, installed: str | None = "2.0", present: bool = False) -> Any:
    from tierlock.probing import DistributionProbe, TierProbe

    state: Literal["present", "partial"] = "present" if present else "partial"
    dist = DistributionProbe("corelib", state, version_text=installed, locked_text="1.0")
    return TierProbe("brain", state, (dist,), install_command=command)


def _remedy(root: Path, prefix: Path, probed: Any) -> str:
    from tierlock.installer.rearm import remedy
    from tierlock.tiers import load_project

    return remedy(load_project(root), prefix, probed)


def test_re_arming_over_another_armed_tiers_pin_carries_the_flag(project: Path, tmp_path: Path) -> None:
    _write_receipt(tmp_path / "env", "fast", corelib="2.0")
    assert _remedy(project, tmp_path / "env", _probe("install-tier brain")) == "install-tier brain --replace-armed"
    chain = "uv pip install -e . && install-tier brain"
    assert _remedy(project, tmp_path / "env", _probe(chain)) == chain + " --replace-armed"


def test_no_flag_without_receipts_when_present_or_for_another_kind_of_remedy(project: Path, tmp_path: Path) -> None:
    env = tmp_path / "env"
    assert _remedy(project, env, _probe("install-tier brain")) == "install-tier brain"
    _write_receipt(env, "fast", corelib="2.0")
    assert _remedy(project, env, _probe("install-tier brain", present=True)) == "install-tier brain"
    assert _remedy(project, env, _probe("apt-get install libx")) == "apt-get install libx"
    assert _remedy(project, env, _probe("install-tier brain", installed="1.0")) == "install-tier brain"


def test_a_receipt_whose_tiers_current_lock_moved_to_the_same_pin_needs_no_flag(project: Path, tmp_path: Path) -> None:
    from tests.support.tierproject import write_lock
    from tests.support.wheels import build_wheel

    write_lock(project, "fast", [("corelib", "1.0", build_wheel(tmp_path / "w2", "corelib", "1.0"))])
    _write_receipt(tmp_path / "env", "fast", corelib="2.0")
    assert _remedy(project, tmp_path / "env", _probe("install-tier brain")) == "install-tier brain"


def test_a_receipt_of_an_undeclared_or_unlocked_tier_still_counts(project: Path, tmp_path: Path) -> None:
    _write_receipt(tmp_path / "env", "gone", corelib="2.0")
    assert _remedy(project, tmp_path / "env", _probe("install-tier brain")).endswith(" --replace-armed")
    (project / "lockfiles" / "fast.txt").unlink()
    _write_receipt(tmp_path / "env2", "fast", corelib="2.0")
    assert _remedy(project, tmp_path / "env2", _probe("install-tier brain")).endswith(" --replace-armed")


def test_one_command_covers_the_tiers_others_are_layered_on() -> None:
    from tierlock.remedies import covering, install_remedy

    layers: dict[str, str | None] = {"base": None, "brain": "base", "fast": "brain", "side": "base"}
    assert covering(["brain", "fast", "side", "fast"], layers) == ["fast", "side"]
    assert install_remedy(["brain", "fast"], layers, python="/v b/python") == "install-tier fast --python '/v b/python'"
    assert install_remedy(["brain"], layers, unlocked=["brain"]) == "tierlock lock brain && install-tier brain"
    assert install_remedy([], layers) is None


def test_the_layers_read_from_a_pyproject_follow_layered_on_and_default_to_base() -> None:
    from tierlock.remedies import layers_from_pyproject

    data = {
        "project": {"optional-dependencies": {"Brain_X": []}},
        "dependency-groups": {"tools": []},
        "tool": {"tierlock": {"tiers": {"base": {}, "fast": {"layered-on": "Brain.X"}, "odd": {"layered-on": 3}}}},
    }
    assert layers_from_pyproject(data) == {
        "base": None,
        "brain-x": "base",
        "tools": "base",
        "fast": "brain-x",
        "odd": "base",
    }


def test_one_command_never_names_two_tiers_declared_in_conflict() -> None:
    from tierlock.remedies import install_remedy

    layers: dict[str, str | None] = {"base": None, "brain": "base", "fast": "base", "side": "base"}

    def exclusive(a: str, b: str) -> bool:
        return {a, b} == {"brain", "fast"}

    assert install_remedy(["brain", "fast", "side"], layers, exclusive=exclusive) == "install-tier brain side"
    assert install_remedy(["fast", "brain"], layers, exclusive=exclusive) == "install-tier fast"


# -- rearming(): what re-arming does to the other tiers a command answers for ------------------------------------


def _rearming(root: Path, prefix: Path, wanted: tuple[str, ...], present: tuple[str, ...] = ()) -> Any:
    from tierlock.installer.rearm import rearming
    from tierlock.tiers import load_project

    return rearming(load_project(root), prefix, _probe("install-tier brain"), wanted, present)


def test_re_arming_that_stales_a_tier_the_command_also_wants_names_the_locks_instead(
    project: Path, tmp_path: Path
) -> None:
    from tierlock.installer.rearm import said

    _write_receipt(tmp_path / "env", "fast", corelib="2.0")
    answer = _rearming(project, tmp_path / "env", ("brain", "fast"), ("fast",))
    assert (answer.tier, answer.loops, answer.apart, answer.packages) == ("brain", ("fast",), (), ("corelib",))
    assert answer.command == "install-tier brain --replace-armed"
    assert answer.remedy == "tierlock check brain fast"
    assert said(answer) == (
        "re-arming brain replaces corelib that fast pin(s) at another version, and fast is wanted here too: "
        "re-arming either only makes the other stale; tierlock check names the edit that lets the locks agree"
    )


def test_re_arming_a_tier_asked_alone_keeps_the_flagged_install(project: Path, tmp_path: Path) -> None:
    from tierlock.installer.rearm import said

    _write_receipt(tmp_path / "env", "fast", corelib="2.0")
    answer = _rearming(project, tmp_path / "env", ("brain",), ("fast",))
    assert (answer.loops, answer.apart, answer.packages) == ((), (), ())
    assert answer.remedy == "install-tier brain --replace-armed"
    assert said(answer) is None
    assert _rearming(project, tmp_path / "none", ("brain", "fast")).remedy == "install-tier brain"


def test_a_tier_declared_in_conflict_with_one_present_and_wanted_gets_no_swap(project: Path, tmp_path: Path) -> None:
    from tierlock.installer.rearm import said

    text = (project / "pyproject.toml").read_text()
    (project / "pyproject.toml").write_text(
        text.replace('lock-dir = "lockfiles"', 'lock-dir = "lockfiles"\nconflicts = [["brain", "fast"]]')
    )
    _write_receipt(tmp_path / "env", "fast", corelib="2.0")
    answer = _rearming(project, tmp_path / "env", ("brain", "fast"), ("fast",))
    assert (answer.loops, answer.apart, answer.remedy) == ((), ("fast",), None)
    assert said(answer) == (
        "declared in conflict with fast (present here): one environment holds one of them; "
        "to swap them, run: install-tier brain --replace-armed"
    )
    not_here = _rearming(project, tmp_path / "env", ("brain", "fast"), ())  # fast wanted but not present
    assert (not_here.apart, not_here.remedy) == ((), "install-tier brain --replace-armed")


def test_a_lock_out_of_date_with_the_pyproject_is_locked_again_before_the_install(
    project: Path, tmp_path: Path
) -> None:
    text = (project / "pyproject.toml").read_text()
    (project / "pyproject.toml").write_text(
        text.replace('brain = ["corelib>=1"]', 'brain = ["corelib>=1", "extra>=1"]')
    )
    answer = _rearming(project, tmp_path / "env", ("brain",))
    assert answer.remedy == "tierlock lock brain && install-tier brain"
    assert argv_of(answer.remedy) == [["tierlock", "lock", "brain"], ["install-tier", "brain"]]


def test_a_command_that_locks_first_already_or_installs_no_tier_is_left_as_it_is(project: Path, tmp_path: Path) -> None:
    from tierlock.installer.rearm import relocked
    from tierlock.tiers import load_project

    text = (project / "pyproject.toml").read_text()
    (project / "pyproject.toml").write_text(text.replace('brain = ["corelib>=1"]', 'brain = ["corelib>=2"]'))
    loaded = load_project(project)
    probed = _probe("install-tier brain")
    assert relocked(loaded, probed, "install-tier brain") == "tierlock lock brain && install-tier brain"
    already = "tierlock lock brain && install-tier brain"
    assert relocked(loaded, probed, already) == already
    assert relocked(loaded, probed, "apt-get install libx") == "apt-get install libx"
    (project / "lockfiles" / "brain.txt").unlink()  # no lockfile: the probe's own command locks first
    assert relocked(load_project(project), probed, "install-tier brain") == "install-tier brain"
