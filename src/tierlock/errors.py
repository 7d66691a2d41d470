"""The one error hierarchy of tierlock.

Every error carries structured fields (what, where, the remedy) and an exit
code; the CLI turns them into messages in exactly one place
(:func:`tierlock.cli.main`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

# The exit codes are defined in :mod:`tierlock.exitcodes` (which imports nothing, for the fast
# paths) and named here, beside the errors that carry them.
from tierlock.exitcodes import (
    EXIT_BACKEND,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TIER_MISSING,
    EXIT_USAGE,
)
from tierlock.frozen import Frozen

__all__ = [
    "EXIT_BACKEND",
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_TIER_MISSING",
    "EXIT_USAGE",
    "BackendError",
    "CheckFailed",
    "ConfigError",
    "Interrupted",
    "Problem",
    "ProblemCollector",
    "TierlockError",
    "UnknownTierError",
    "UsageError",
]


class Problem(Frozen):
    """One problem found by a validator: what is wrong and where (immutable, compared and hashed by value)."""

    _fields = ("message", "where", "file", "line", "column", "hint")

    message: str
    where: str
    file: str | None
    line: int | None
    column: int | None
    hint: str | None

    def __init__(  # noqa: PLR0917 (the dataclass's signature: callers pass message and where by position)
        self,
        message: str,
        where: str = "",
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
        hint: str | None = None,
    ) -> None:
        self._init(message, where, file, line, column, hint)

    def render(self) -> str:
        place = ""
        if self.file:
            place = self.file
            if self.line is not None:
                place += f":{self.line}"
                if self.column is not None:
                    place += f":{self.column}"
        parts = [p for p in (place, self.where) if p]
        prefix = " ".join(parts)
        text = f"{prefix}: {self.message}" if prefix else self.message
        if self.hint:
            text += f" ({self.hint})"
        return text

    def to_dict(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "where": self.where,
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "hint": self.hint,
        }


class TierlockError(Exception):
    """Root of every error tierlock raises on purpose."""

    exit_code: int = EXIT_USAGE
    kind: str = "error"

    def __init__(
        self,
        message: str,
        *,
        remedy: str | None = None,
        file: str | None = None,
        line: int | None = None,
        tier: str | None = None,
        package: str | None = None,
        problems: Sequence[Problem] = (),
        detail: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.remedy = remedy
        self.file = file
        self.line = line
        self.tier = tier
        self.package = package
        self.problems: tuple[Problem, ...] = tuple(problems)
        self.detail = detail

    def lines(self) -> list[str]:
        """The human-readable message, one entry per line."""
        out = [self.message]
        out.extend(f"  - {p.render()}" for p in self.problems)
        if self.detail:
            out.extend(f"  | {d}" for d in self.detail.rstrip().splitlines())
        if self.remedy:
            out.append(f"  to fix: {self.remedy}")
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "message": self.message,
            "exit_code": self.exit_code,
            "file": self.file,
            "line": self.line,
            "tier": self.tier,
            "package": self.package,
            "remedy": self.remedy,
            "remedy_argv": _argv(self.remedy),
            "problems": [p.to_dict() for p in self.problems],
        }


def _argv(remedy: str | None) -> list[list[str]] | None:
    from tierlock.remedies import argv_of

    return argv_of(remedy)


class ConfigError(TierlockError):
    """pyproject.toml or a config table is missing or invalid (exit 2)."""

    exit_code = EXIT_USAGE
    kind = "config"


class UsageError(TierlockError):
    """Bad flags or arguments, an unknown tier (exit 2)."""

    exit_code = EXIT_USAGE
    kind = "usage"


class UnknownTierError(UsageError):
    """A tier name that the project does not declare."""

    kind = "unknown-tier"

    def __init__(self, name: str, declared: Iterable[str], *, file: str | None = None) -> None:
        import difflib

        names = list(declared)
        hint = difflib.get_close_matches(name, names, n=1)
        message = f"unknown tier {name!r}; declared tiers: {', '.join(names) or '(none)'}"
        if hint:
            message += f" (did you mean {hint[0]!r}?)"
        super().__init__(
            message,
            tier=name,
            file=file,
            remedy="name a declared tier, or declare it under [tool.tierlock.tiers] (tierlock init proposes them)",
        )


class CheckFailed(TierlockError):
    """A check ran and found problems (exit 1)."""

    exit_code = EXIT_FAILED
    kind = "check"


class BackendError(TierlockError):
    """An installer or lock backend (uv, pip, pip-tools) failed or is missing (exit 3)."""

    exit_code = EXIT_BACKEND
    kind = "backend"


class ProblemCollector:
    """Collects problems so that validation reports every one at once."""

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value (as a dataclass would be)

    def __init__(self, problems: list[Problem] | None = None) -> None:
        self.problems: list[Problem] = [] if problems is None else problems

    def __repr__(self) -> str:
        return f"{type(self).__qualname__}(problems={self.problems!r})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            assert isinstance(other, ProblemCollector)
            return self.problems == other.problems
        return NotImplemented

    def add(self, message: str, where: str = "", **kwargs: Any) -> None:
        self.problems.append(Problem(message, where, **kwargs))

    def __bool__(self) -> bool:
        return bool(self.problems)


class Interrupted(TierlockError):
    """SIGINT or SIGTERM stopped the command (exit 130); the message says what was left and how to finish."""

    exit_code = EXIT_INTERRUPTED
    kind = "interrupted"
