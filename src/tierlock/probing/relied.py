"""The libraries outside the site folders that a tier's extensions rely on, as a receipt records them.

They come from the verdicts this process gave or confirmed (:mod:`tierlock.probing.libraries`: every extension found
whole, with the identity of each library it relies on): a receipt records those outside the site folders with their
sizes, so that the no-op fast path notices one going away. A receipt asks it of every package of its tiers at once
(:func:`relied_outside_each`): the verdicts are walked once for them all, each site folder resolved once.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from itertools import chain

from tierlock.probing import libraries


def relied_outside(paths: Iterable[str], sites: Sequence[str]) -> list[tuple[str, int]]:
    """The libraries outside the site folders *sites* that the extensions at *paths* were last found to rely on,
    with their sizes, in the order the verdicts were given."""
    return relied_outside_each([(paths, sites)])[0]


def relied_outside_each(groups: Iterable[tuple[Iterable[str], Sequence[str]]]) -> list[list[tuple[str, int]]]:
    """:func:`relied_outside` of each (paths, sites) of *groups*, in order."""
    where: dict[str, list[int]] = {}
    """Extension path -> the places of its verdicts (one per search environment) in the order they were given."""
    relied: list[tuple[tuple[str, libraries.Identity], ...]] = []
    for place, ((path, _environment), (_identity, libs)) in enumerate(libraries._VERDICTS.items()):
        where.setdefault(path, []).append(place)
        relied.append(libs)
    insides: dict[tuple[str, ...], tuple[str, ...]] = {}
    answers: list[list[tuple[str, int]]] = []
    for paths, sites in groups:
        key = tuple(sites)
        inside = insides.get(key)
        if inside is None:
            inside = insides[key] = tuple(
                dict.fromkeys(p + os.sep for s in sites for p in (os.path.normpath(s), os.path.realpath(s)))
            )
        out: dict[str, int] = {}
        for place in sorted(chain.from_iterable(map(where.__getitem__, set(filter(where.__contains__, paths))))):
            for library, (size, *_rest) in relied[place]:
                if not os.path.normpath(library).startswith(inside):
                    out.setdefault(library, size)
        answers.append(list(out.items()))
    return answers
