"""One shortest remedy for several missing tiers (tierlock.remedies)."""

from __future__ import annotations

from tierlock.admission import probe_verdict
from tierlock.probing.distribution import DistributionProbe
from tierlock.probing.tier import TierProbe
from tierlock.remedies import covering, install_remedy, layers_from_pyproject

NARWHALS = {"base": None, "arrow": "base", "polars": "base", "pandas": "arrow"}


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
