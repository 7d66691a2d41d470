"""``[tool.uv] environments`` and ``required-environments`` against what uv.lock was made for (pure over data).

uv records the environments it resolved for as ``supported-markers`` and the ones every package must have a
wheel for as ``required-markers``, each marker simplified (``python_version`` written as ``python_full_version``,
what ``requires-python`` decides dropped). ``uv lock --check`` fails when the declaration changed; here the two
are compared by the environments they take in (the markers of each side joined with ``or``, equivalent on every
environment that could tell them apart), so another spelling is no drift and only a change found for certain is
reported: ``uv lock`` always clears it. A marker that cannot be parsed is left to uv, which refuses it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from packaging.markers import InvalidMarker, Marker

from tierlock.lockfiles.markers import equivalent

#: ``[tool.uv]`` key -> the uv.lock key that records it.
KEYS = {"environments": "supported-markers", "required-environments": "required-markers"}


def changes(uv_table: Mapping[str, Any], document: Mapping[str, Any], requires_python: str | None) -> list[str]:
    """What ``[tool.uv]`` (*uv_table*) declares of the environments that the lock (*document*) was not made for."""
    out: list[str] = []
    for key, recorded in KEYS.items():
        declared, locked = _texts(uv_table.get(key)), _texts(document.get(recorded))
        try:
            first, second = _either(declared), _either(locked)
        except InvalidMarker:
            continue  # not markers: uv refuses them
        if not equivalent(first, second, requires_python):
            shown = ", ".join(declared) or "(none)"
            out.append(f"[tool.uv].{key}: {', '.join(locked) or '(none)'} became {shown}")
    return out


def _texts(value: object) -> list[str]:
    """The marker texts of a list (one string: a list of it, as uv reads it); anything else: none."""
    if isinstance(value, str):
        value = [value]
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _either(texts: list[str]) -> Marker | None:
    """The environments any of *texts* takes in, as one marker (None: no texts, every environment)."""
    return Marker(" or ".join(f"({text})" for text in texts)) if texts else None
