"""The projects the remedy walker's states are built in: five small layouts over one offline wheel folder.

``single``: one opt-in tier with a compiled package; ``siblings``: two tiers pinning one package
differently (``exclusive`` declares them in ``conflicts``); ``aggregate``: ``all = ["proj[a,b]"]``
layered on ``a``; ``extras``: a tier whose package a non-tier distribution requires through an extra.
Every tier is locked with the wheels' real hashes (:func:`tests.support.tierproject.write_lock`).
"""

from __future__ import annotations

from pathlib import Path

from tests.support.tierproject import write_lock
from tests.support.wheels import build_wheel

# -- the wheels and the projects ---------------------------------------------------------

WHEELS: dict[str, list[tuple[str, tuple[str, ...], bool]]] = {
    "basepkg": [("1.0", (), False)],
    "corelib": [("1.0", (), True), ("2.0", (), True)],
    "helper": [("1.0", (), False)],
    "alib": [("1.0", (), False)],
    "blib": [("1.0", (), False)],
    "xcore": [("1.0", ('xduck>=1; extra == "duck"',), False)],
    "xduck": [("1.0", (), False)],
    "staying": [("1.0", ("xcore[duck]>=1",), False)],
}


def build_wheels(dest: Path) -> dict[str, Path]:
    """Every wheel of the catalogue: ``name-version`` -> its file."""
    out: dict[str, Path] = {}
    for name, versions in WHEELS.items():
        for version, requires, extension in versions:
            files = {"helper/__init__.py": "X = 1\n", "helper/data.txt": "data"} if name == "helper" else None
            out[f"{name}-{version}"] = build_wheel(
                dest, name, version, requires=requires, extension=extension, files=files
            )
    return out


_HEAD = """\
[project]
name = "{name}"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = ["basepkg>=1"]

[project.optional-dependencies]
"""

LAYOUTS: dict[str, str] = {
    "single": _HEAD.format(name="app")
    + """brain = ["corelib>=1", "helper>=1"]

[tool.tierlock]
lock-dir = "lockfiles"

[tool.tierlock.tiers.brain]
source = "extra:brain"
""",
    "siblings": _HEAD.format(name="app")
    + """brain = ["corelib>=1", "helper>=1"]
fast = ["corelib>=1"]

[tool.tierlock]
lock-dir = "lockfiles"

[tool.tierlock.tiers.brain]
source = "extra:brain"

[tool.tierlock.tiers.fast]
source = "extra:fast"
""",
    "exclusive": _HEAD.format(name="app")
    + """brain = ["corelib>=1", "helper>=1"]
fast = ["corelib>=1"]

[tool.tierlock]
lock-dir = "lockfiles"
conflicts = [["brain", "fast"]]

[tool.tierlock.tiers.brain]
source = "extra:brain"

[tool.tierlock.tiers.fast]
source = "extra:fast"
""",
    "aggregate": _HEAD.format(name="proj")
    + """a = ["alib>=1"]
b = ["blib>=1"]
all = ["proj[a,b]"]

[tool.tierlock]
lock-dir = "lockfiles"

[tool.tierlock.tiers.a]
source = "extra:a"

[tool.tierlock.tiers.b]
source = "extra:b"

[tool.tierlock.tiers.all]
source = "extra:all"
layered-on = "a"
""",
    "extras": _HEAD.format(name="app")
    + """ana = ["xcore>=1", "xduck>=1"]

[tool.tierlock]
lock-dir = "lockfiles"

[tool.tierlock.tiers.ana]
source = "extra:ana"
""",
}

#: Per layout: tier -> the (name, version) pins of its lock (base's pins come first in every tier).
PINS: dict[str, dict[str, list[tuple[str, str]]]] = {
    "single": {"brain": [("corelib", "1.0"), ("helper", "1.0")]},
    "siblings": {"brain": [("corelib", "1.0"), ("helper", "1.0")], "fast": [("corelib", "2.0")]},
    "exclusive": {"brain": [("corelib", "1.0"), ("helper", "1.0")], "fast": [("corelib", "2.0")]},
    "aggregate": {"a": [("alib", "1.0")], "b": [("blib", "1.0")], "all": [("alib", "1.0"), ("blib", "1.0")]},
    "extras": {"ana": [("xcore", "1.0"), ("xduck", "1.0")]},
}


def write_layout(root: Path, layout: str, wheels: dict[str, Path]) -> Path:
    """The project *layout* in *root*, every tier locked with the wheels' real hashes."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(LAYOUTS[layout], encoding="utf-8")
    base = [("basepkg", "1.0", wheels["basepkg-1.0"])]
    write_lock(root, "base", base)
    tiers = PINS[layout]
    order = sorted(tiers, key=lambda t: t == "all")  # a tier layered on another is locked after it
    for tier in order:
        write_lock(root, tier, [*base, *((n, v, wheels[f"{n}-{v}"]) for n, v in tiers[tier])])
    return root
