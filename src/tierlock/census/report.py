"""The census's answer: per tier, the files its globs cover, the places that need it, and the findings.

The classes here are plain classes, not dataclasses: the pytest plugin
imports the census on runs where a tier is missing, and building a dataclass
costs about a millisecond at import.
"""

from __future__ import annotations

from typing import Any


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


class Use:
    """One place that needs a tier."""

    def __init__(
        self,
        file: str,
        line: int,
        how: str,
        module_level: bool = False,
        *,
        root: str = "",
        scope: str | None = None,
        test: str | None = None,
    ) -> None:
        self.file = file
        self.line = line
        self.how = how
        """``import pyarrow``, ``importorskip('pyarrow')``, ``tier('arrow') marker``, ``fixture t (...)``."""
        self.module_level = module_level
        self.root = root
        self.scope = scope or ("module" if module_level else "test")
        """``module`` (fails at import: only a glob gates it), ``file`` (every test), ``test`` (one test)."""
        self.test = test
        """The test that needs it (scope ``test``)."""
        self.tier = ""
        """For a use left to a smaller tier: that tier."""

    def __repr__(self) -> str:
        return f"Use({self.render()!r})"

    def render(self) -> str:
        return f"{self.file}:{self.line}: {self.how}"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"file": self.file, "line": self.line, "how": self.how, "module_level": self.module_level}
        out["scope"] = self.scope
        if self.root:
            out["root"] = self.root
        if self.test:
            out["test"] = self.test
        if self.tier:
            out["tier"] = self.tier
        return out


class Finding:
    """A census problem ``tierlock check`` reports: kind ``census-importer``, ``census-glob`` or ``census-ci``."""

    def __init__(self, tier: str, kind: str, file: str, line: int | None, detail: str, remedy: str) -> None:  # noqa: PLR0917
        self.tier = tier
        self.kind = kind
        self.file = file
        self.line = line
        self.detail = detail
        self.remedy = remedy
        self.lines: list[int] = []
        self.roots: list[str] = []
        """The import roots the file needs (of the tier's)."""
        self.fix: dict[str, Any] = {}
        """What the remedy changes, as data: ``{"tests": [globs to add]}`` or ``{"mark": [tests]}``."""

    def __repr__(self) -> str:
        return f"Finding({self.render()!r})"

    def render(self) -> str:
        place = f"{self.file}:{self.line}" if self.line else self.file
        return f"{place}: {self.tier}: {self.kind}: {self.detail}"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "tier": self.tier,
            "kind": self.kind,
            "file": self.file,
            "line": self.line,
            "detail": self.detail,
            "remedy": self.remedy,
        }
        if self.lines:
            out["lines"] = self.lines
        if self.roots:
            out["roots"] = self.roots
        if self.fix:
            out["fix"] = self.fix
        return out


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
