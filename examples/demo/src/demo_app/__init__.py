"""demo-app: a tiny scorer whose fast path needs only the base tier."""

from __future__ import annotations

from dataclasses import dataclass

from tabulate import tabulate


@dataclass(frozen=True)
class Score:
    name: str
    value: float


def mean(scores: list[Score]) -> float:
    """Base tier: plain Python."""
    return sum(s.value for s in scores) / len(scores) if scores else 0.0


def report(scores: list[Score]) -> str:
    """Base tier: a plain-text table (tabulate is pure Python)."""
    return tabulate([(s.name, s.value) for s in scores], headers=["name", "score"])


def normalized(scores: list[Score]) -> list[float]:
    """Brain tier: numpy, imported only when this is called."""
    import numpy as np

    values = np.array([s.value for s in scores], dtype=float)
    spread = values.max() - values.min()
    return [float(v) for v in ((values - values.min()) / spread if spread else values * 0)]
