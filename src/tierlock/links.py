"""Where the published documentation lives (user-facing messages link here, never to a local docs/ path)."""

from __future__ import annotations

DOCS = "https://github.com/tierlock/tierlock/blob/main/docs"


def doc(page: str) -> str:
    """The published address of the documentation page *page* (``reference/config.md``)."""
    return f"{DOCS}/{page}"
