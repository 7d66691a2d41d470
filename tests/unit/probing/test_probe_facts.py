"""The pytest plugin's probe from cached facts (``tierlock.probing.facts``): the same verdict as the
default probe (roots in full, the rest of the closure by its compiled files), and facts read back only
in their own shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from tierlock.probing.facts import ProjectFacts, TierFacts, probe_facts


def _dist(site: Path, name: str, files: dict[str, str], missing: tuple[str, ...] = ()) -> None:
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "INSTALLER").write_text("pip\n")
    rows = []
    for rel, text in files.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(text)
        rows.append(f"{rel},,")
    rows += [f"{rel},," for rel in missing]
    rows += [f"{name}-1.0.dist-info/{n},," for n in ("METADATA", "INSTALLER", "RECORD")]
    (info / "RECORD").write_text("\n".join(rows) + "\n")


def _facts(tmp_path: Path) -> ProjectFacts:
    tier = TierFacts(
        name="brain",
        probe=("alpha",),
        import_roots={},
        tests=("tests/brain/**",),
        install_command="install-tier brain",
        lockfile="lockfiles/brain.txt",
        lock_used=True,
        locked={"alpha": "1.0"},
        closure={"beta": "1.0"},
    )
    return ProjectFacts(root=str(tmp_path), configured=True, ci_require=(), tiers=(tier,), stdlib="/nowhere")


def test_every_file_of_the_closure_beyond_the_roots_is_probed(tmp_path: Path) -> None:
    site = tmp_path / "site"
    _dist(site, "alpha", {"alpha/__init__.py": ""})
    _dist(site, "beta", {"beta/__init__.py": ""})
    [verdict] = probe_facts(_facts(tmp_path), [site])
    assert (verdict.tier, verdict.state, verdict.present) == ("brain", "present", True)
    record = site / "beta-1.0.dist-info" / "RECORD"
    record.write_text("beta/util.py,,\n" + record.read_text())  # a pure-Python file it lists, gone
    [verdict] = probe_facts(_facts(tmp_path), [site])
    assert (verdict.state, verdict.present) == ("partial", False)
    assert [d.name for d in verdict.broken] == ["beta"]
    assert verdict.broken[0].reasons == ["file listed in RECORD is missing: beta/util.py"]


def test_facts_read_back_are_the_facts_written_and_any_other_shape_is_refused(tmp_path: Path) -> None:
    facts = _facts(tmp_path)
    again = ProjectFacts.from_json(facts.to_json())
    assert again.to_json() == facts.to_json()
    data = facts.to_json()
    data["tiers"][0]["locked"] = {"alpha": None}  # not compared: no lock entry applies
    data["tiers"][0]["closure"] = {"beta": None}
    assert ProjectFacts.from_json(data).to_json() == data
    for key, wrong in (("root", 1), ("configured", "yes"), ("ci_require", "brain"), ("tiers", {})):
        data = facts.to_json()
        data[key] = wrong
        with pytest.raises(ValueError, match="expected"):
            ProjectFacts.from_json(data)


def test_a_cache_entry_whose_facts_miss_a_field_is_not_used(tmp_path: Path) -> None:
    from tierlock.probing.facts import entry, from_entry

    key: list[object] = ["k", 1]
    good = entry(key, {}, ProjectFacts(root=str(tmp_path), configured=True, ci_require=(), tiers=(), stdlib="/x"))
    assert from_entry(good, key) is not None
    broken = {**good, "facts": {"root": str(tmp_path)}}  # the other fields are missing
    assert from_entry(broken, key) is None


def test_a_tier_of_the_facts_is_found_by_its_name(tmp_path: Path) -> None:
    first = _facts(tmp_path).tiers[0]
    second = TierFacts(
        name="gs",
        probe=(),
        import_roots={},
        tests=(),
        install_command="install-tier gs",
        lockfile="lockfiles/gs.txt",
        lock_used=False,
        locked={},
        closure={},
    )
    facts = ProjectFacts(root=str(tmp_path), configured=True, ci_require=(), tiers=(first, second), stdlib="/x")
    assert facts.tier("gs") is second
    assert facts.tier("brain") is first
    with pytest.raises(KeyError):
        facts.tier("other")
