"""How much a listing shows: the first few items, a count of the rest with how to see them, all of them on -v."""

from __future__ import annotations

from tierlock import volume


def test_the_volume_helpers_cut_only_past_their_limits() -> None:
    reasons = [f"r{n}" for n in range(volume.REASONS)]
    assert volume.joined(reasons, verbose=False) == "; ".join(reasons)
    longer = [*reasons, "r9"]
    assert volume.joined(longer, verbose=False, hint="h") == "; ".join([*reasons, "and 1 more reason (h)"])
    assert volume.joined(longer, verbose=True) == "; ".join(longer)
    lines = [f"l{n}" for n in range(volume.PACKAGES + 2)]
    assert volume.capped(lines, verbose=False) == [*lines[: volume.PACKAGES], "and 2 more packages"]
    assert volume.capped(lines[: volume.PACKAGES], verbose=False) == lines[: volume.PACKAGES]
    assert volume.capped(lines, verbose=True) == lines
    assert volume.shorten("a: partial — x; y; z; w", verbose=False) == "a: partial — x; y; z; and 1 more reason"
    assert volume.shorten("no dash here", verbose=False) == "no dash here"


def test_more_counts_in_the_singular_and_the_plural_and_names_the_hint() -> None:
    assert volume.more(1, "package") == "and 1 more package"
    assert volume.more(2, "package", "-v") == "and 2 more packages (-v)"


def test_a_line_with_exactly_the_shown_number_of_reasons_is_left_whole() -> None:
    reasons = "; ".join(f"r{n}" for n in range(volume.REASONS))
    assert volume.shorten(f"a: partial — {reasons}", verbose=False) == f"a: partial — {reasons}"
    assert volume.shorten(f"a: partial — {reasons}; r9", verbose=True) == f"a: partial — {reasons}; r9"


def test_short_listings_are_left_whole() -> None:
    assert volume.joined(["only"], verbose=False) == "only"
    assert volume.capped(["one", "two"], verbose=False) == ["one", "two"]
    assert volume.joined([], verbose=False) == ""
    assert volume.capped([], verbose=False) == []


def test_the_limits_are_the_documented_three_reasons_and_five_packages() -> None:
    """docs/reference/probe.md and pytest-plugin.md promise these numbers."""
    assert (volume.REASONS, volume.PACKAGES) == (3, 5)
