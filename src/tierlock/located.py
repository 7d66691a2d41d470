"""What every finding says the same way, whichever check found it (the lockfiles' drift check, the census).

One line, ``FILE:LINE: TIER: KIND: DETAIL`` (the file alone when there is no line), and the JSON
fields every finding carries. Standard library only (and :mod:`tierlock.remedies`, which is too): the census
reaches it from the plugin's path.
"""

from __future__ import annotations

from typing import Any, Protocol

from tierlock.remedies import argv_of


class Located(Protocol):
    """A finding: a tier's problem of one kind at a place, with the command that fixes it."""

    @property
    def tier(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def file(self) -> str: ...
    @property
    def line(self) -> int | None: ...
    @property
    def detail(self) -> str: ...
    @property
    def remedy(self) -> str: ...


def render(finding: Located) -> str:
    """``pyproject.toml:12: brain: census-glob: ...``."""
    place = f"{finding.file}:{finding.line}" if finding.line else finding.file
    return f"{place}: {finding.tier}: {finding.kind}: {finding.detail}"


def fields(finding: Located) -> dict[str, Any]:
    """The JSON fields of a finding, in the order every document gives them: its remedy twice, as printed and as
    the commands it runs (``remedy_argv``; null when it is an edit to make)."""
    return {
        "tier": finding.tier,
        "kind": finding.kind,
        "file": finding.file,
        "line": finding.line,
        "detail": finding.detail,
        "remedy": finding.remedy,
        "remedy_argv": argv_of(finding.remedy),
    }
