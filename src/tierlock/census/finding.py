"""One place that needs a tier (:class:`Use`) and one census problem (:class:`Finding`).

Apart from :mod:`tierlock.census.report` so that :mod:`tierlock.census.remedy`, which the report calls for
its findings, builds them without importing the report. Plain classes, as in the report (import cost).
"""

from __future__ import annotations

from typing import Any

from tierlock import located


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
        return located.render(self)

    def to_dict(self) -> dict[str, Any]:
        out = located.fields(self)
        if self.lines:
            out["lines"] = self.lines
        if self.roots:
            out["roots"] = self.roots
        if self.fix:
            out["fix"] = self.fix
        return out
