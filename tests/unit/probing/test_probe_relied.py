"""The libraries outside the site folders a receipt records (:mod:`tierlock.probing.relied`): the verdicts walked
once for every package of a tier give each package what it alone would be given, in the order the verdicts were."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tierlock.probing import libraries, relied

_ID = (0, 0, 0, 0)


def _one_by_one(paths: Iterable[str], sites: Sequence[str]) -> list[tuple[str, int]]:
    """What a receipt recorded of one package before the walk was shared: every verdict looked at per package."""
    inside = tuple(dict.fromkeys(p + os.sep for s in sites for p in (os.path.normpath(s), os.path.realpath(s))))
    wanted = set(paths)
    out: dict[str, int] = {}
    for (path, _environment), (_identity, libs) in libraries._VERDICTS.items():
        if path in wanted:
            for library, (size, *_rest) in libs:
                if not os.path.normpath(library).startswith(inside):
                    out.setdefault(library, size)
    return list(out.items())


@pytest.fixture
def verdicts(monkeypatch: pytest.MonkeyPatch) -> dict[tuple[str, str], object]:
    kept: dict[tuple[str, str], object] = {}
    monkeypatch.setattr(libraries, "_VERDICTS", kept)
    return kept


def test_each_package_is_given_the_libraries_its_own_extensions_rely_on_in_the_order_they_were_found(
    tmp_path: Path, verdicts: dict[tuple[str, str], object]
) -> None:
    site, other = str(tmp_path / "site"), str(tmp_path / "other")
    a, b, c = f"{site}/a/_a.so", f"{site}/b/_b.so", f"{other}/c/_c.so"
    verdicts[b, "env1"] = (_ID, (("/usr/lib/libz.so.1", (11, 0, 0)), (f"{site}/b.libs/libin.so", (5, 0, 0))))
    verdicts[a, "env1"] = (_ID, (("/usr/lib/liby.so.1", (22, 0, 0)), ("/usr/lib/libz.so.1", (12, 0, 0))))
    verdicts[c, "env2"] = (_ID, (("/opt/libc.so", (33, 0, 0)),))
    verdicts[a, "env2"] = (_ID, (("/opt/liba2.so", (44, 0, 0)), ("/usr/lib/liby.so.1", (99, 0, 0))))
    groups = [([a, f"{site}/a/x.py"], [site]), ([b], [site]), ([c, a], [other]), ([], [site])]
    assert relied.relied_outside_each(groups) == [
        [("/usr/lib/liby.so.1", 22), ("/usr/lib/libz.so.1", 12), ("/opt/liba2.so", 44)],
        [("/usr/lib/libz.so.1", 11)],
        [("/usr/lib/liby.so.1", 22), ("/usr/lib/libz.so.1", 12), ("/opt/libc.so", 33), ("/opt/liba2.so", 44)],
        [],
    ]
    assert [relied.relied_outside(paths, sites) for paths, sites in groups] == [
        _one_by_one(paths, sites) for paths, sites in groups
    ]


_NAMES = st.sampled_from(["a", "b", "c", "d"])
_LIBS = st.sampled_from(["/usr/lib/l1.so", "/usr/lib/l2.so", "SITE/p.libs/l3.so", "SITE/../x/l4.so", "/opt/l5.so"])


@settings(max_examples=150, deadline=None)
@given(
    found=st.lists(
        st.tuples(_NAMES, st.sampled_from(["e1", "e2"]), st.lists(st.tuples(_LIBS, st.integers(0, 9)), max_size=4)),
        max_size=8,
    ),
    asked=st.lists(st.lists(_NAMES, max_size=4), max_size=5),
)
def test_the_shared_walk_gives_every_package_what_a_walk_of_its_own_gives(
    found: list[tuple[str, str, list[tuple[str, int]]]], asked: list[list[str]]
) -> None:
    site = "/tmp/tierlock-relied-site"
    kept: dict[tuple[str, str], object] = {}
    for name, environment, libs in found:
        kept[f"{site}/{name}.so", environment] = (
            _ID,
            tuple((lib.replace("SITE", site), (size, 0, 0)) for lib, size in libs),
        )
    was = libraries._VERDICTS
    libraries._VERDICTS = kept  # type: ignore[assignment]
    try:
        groups = [([f"{site}/{name}.so" for name in names], [site]) for names in asked]
        assert relied.relied_outside_each(groups) == [_one_by_one(paths, sites) for paths, sites in groups]
    finally:
        libraries._VERDICTS = was
