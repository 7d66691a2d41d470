"""What a ``python -X importtime`` run loaded, read from its standard error."""

from __future__ import annotations

#: How every line ``-X importtime`` writes begins.
PREFIX = "import time:"


def loaded(stderr: str) -> set[str]:
    """Every module the ``-X importtime`` lines of *stderr* name."""
    return {line.rpartition("|")[2].strip() for line in stderr.splitlines() if line.startswith(PREFIX)}


def without_importtime(stderr: str) -> str:
    """*stderr* without its ``-X importtime`` lines: what the program itself wrote."""
    return "\n".join(line for line in stderr.splitlines() if not line.startswith(PREFIX))
