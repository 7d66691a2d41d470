"""The census's answer: per tier, the files its globs cover, the places that need it, and the findings.

The classes here are plain classes, not dataclasses: the pytest plugin
imports the census on runs where a tier is missing, and building a dataclass
costs about a millisecond at import.
"""

from __future__ import annotations

from typing import Any

from tierlock.census.finding import Finding, Use

__all__ = ["Census", "CensusTier", "Finding", "TierReport", "Use"]


class CensusTier:
    """What the census needs of one tier."""

    def __init__(
        self,
        name: str,
        roots: tuple[str, ...],
        globs: tuple[str, ...],
        covered_by: tuple[str, ...] = (),
        accept: tuple[str, ...] = (),
        *,
        required: bool = False,
    ) -> None:
        self.name = name
        self.roots = roots
        """Top-level import names."""
        self.globs = globs
        self.covered_by = covered_by
        """Other tiers whose globs or markers also cover this tier (those layered on it)."""
        self.accept = accept
        """Globs of files whose use of the tier is accepted outside its ``tests`` globs."""
        self.required = required
        """Named in an explicit ``ci-require``: it gates tests even without ``tests`` globs (by markers)."""

    @property
    def gates(self) -> bool:
        return bool(self.globs) or self.required


class TierReport:
    """One tier's part of the census."""

    def __init__(self, tier: str, globs: tuple[str, ...], *, gates: bool | None = None) -> None:
        self.tier = tier
        self.globs = globs
        self.glob_matches: dict[str, int] = {}
        self.glob_hints: dict[str, str] = {}
        """A glob matching no file -> the same glob over the closest existing folder or file."""
        self.covered: list[str] = []
        self.inside: list[Use] = []
        self.outside: list[Use] = []
        """Uses outside the gates, that this tier is the smallest gating tier for."""
        self.elsewhere: list[Use] = []
        """Uses outside its gates whose root a smaller tier provides (each names that tier)."""
        self.accepted: list[Use] = []
        self.fixtures: list[Use] = []
        self.run_time: list[Use] = []
        """Uses under a condition that picks the root by name (``if "pandas" in name``): left to the plugin."""
        self.markers = 0
        """``tier(...)`` markers of this tier in the tests read."""
        self._gates = bool(globs) if gates is None else gates

    @property
    def gates(self) -> bool:
        return self._gates

    def to_dict(self) -> dict[str, Any]:
        return {
            "tier": self.tier,
            "globs": [{"glob": g, "files": self.glob_matches[g]} for g in self.globs],
            "gates": self.gates,
            "covered": self.covered,
            "importers_inside": [u.to_dict() for u in self.inside],
            "importers_outside": [u.to_dict() for u in self.outside],
            "importers_elsewhere": [u.to_dict() for u in self.elsewhere],
            "accepted": [u.to_dict() for u in self.accepted],
            "fixtures": [u.to_dict() for u in self.fixtures],
            "left_to_run_time": [u.to_dict() for u in self.run_time],
            "markers": self.markers,
        }


class Census:
    """The census: per tier its report, and how many files were read, parsed and taken from the cache."""

    def __init__(self, tiers: tuple[TierReport, ...], files_read: int, files_parsed: int, files_cached: int) -> None:
        self.tiers = tiers
        self.files_read = files_read
        self.files_parsed = files_parsed
        self.files_cached = files_cached
        """Files whose facts came from the cache (unchanged size and mtime)."""
        self.modules_read = 0
        """Project modules (not tests) read to follow imports."""
        self.tests: dict[str, list[tuple[str, int]]] = {}
        """Test file -> (test, line of its first decorator) of each test it holds (for the parsed files)."""
        self.test_files: list[str] = []
        """Every test file read (not the conftests)."""
        self.warnings: list[Finding] = []
        """Problems that do not fail ``check`` (a tier gated by markers only that CI does not require)."""
        self.cache_entry: dict[str, Any] | None = None
        """The new per-file cache entry when it changed (the caller stores it)."""

    def tier(self, name: str) -> TierReport:
        for report in self.tiers:
            if report.tier == name:
                return report
        raise KeyError(name)

    def importer_files(self, tier: str) -> set[str]:
        """Every file that needs *tier* (covered or not)."""
        report = self.tier(tier)
        return {u.file for u in (*report.inside, *report.outside, *report.elsewhere, *report.accepted)}

    def findings(self) -> list[Finding]:
        from tierlock.census.remedy import findings

        return findings(self)

    def to_dict(self) -> dict[str, Any]:
        found = self.findings()
        return {
            "ok": not found,
            "files_read": self.files_read,
            "files_parsed": self.files_parsed,
            "files_cached": self.files_cached,
            "modules_read": self.modules_read,
            "tiers": [t.to_dict() for t in self.tiers],
            "findings": [f.to_dict() for f in found],
            "warnings": [w.to_dict() for w in self.warnings],
        }
