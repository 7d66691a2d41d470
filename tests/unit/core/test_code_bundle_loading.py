"""A module the bundle serves is made and run by :mod:`tierlock.codebundle` itself, as the import system would.

The bundle stands in front of the import system's ``_find_and_load`` (:func:`tierlock.codebundle._find_and_load`):
a module it serves, with its parent loaded, no other thread started and its finder first on :data:`sys.meta_path`,
is made with the attributes ``module_from_spec`` sets, in its order, put in :data:`sys.modules` while its code
runs (its spec ``_initializing``, its name among its parent's uninitialized submodules), taken out when its code
fails, and set on its parent after. Each test runs a real interpreter on a copy of tierlock's sources and compares
what a module sees while it loads and after with a plain import of the same module.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.unit.core.test_code_bundle import _load, _run, src  # noqa: F401 (src: the fixture)

#: A module of tierlock's package that writes down, while its code runs, what the import system made of it.
SEEING = """
import sys
_parent = sys.modules["tierlock"]
SEEN = {
    "keys": [key for key in globals() if key.startswith("__")],
    "initializing": __spec__._initializing,
    "waiting": list(getattr(_parent.__spec__, "_uninitialized_submodules", [])),
    "on_parent": "seeing" in vars(_parent),
    "in_modules": sys.modules.get(__name__) is not None and sys.modules[__name__].__dict__ is globals(),
    "package": __package__,
    "cached": __cached__ is not None,
}
"""
#: A module that puts another object in its place in :data:`sys.modules`.
REPLACED = "import sys, types\nsys.modules[__name__] = types.SimpleNamespace(STAND_IN=True)\n"
#: A module whose code fails half way.
FAILING = 'VALUE = 1\nraise LookupError("failing on purpose")\n'
#: Run in the copy: install the bundle of ``check`` when *BUNDLED*, import the three modules, and print what each
#: saw and what the import system's ``_load_unlocked`` was handed (the modules it loaded itself).
SCRIPT = """
import _frozen_importlib as bootstrap, importlib, json, sys
from tierlock import codebundle
if BUNDLED:
    codebundle.install("check")
handed = []
real = bootstrap._load_unlocked
bootstrap._load_unlocked = lambda spec: (handed.append(spec.name), real(spec))[1]
import tierlock
m = importlib.import_module("tierlock.seeing")
out = {"seen": m.SEEN, "last": list(sys.modules)[-1], "on_parent": vars(tierlock).get("seeing") is m}
out["initializing"] = m.__spec__._initializing
out["keys"] = [key for key in vars(m) if key.startswith("__")]
out["replaced"] = repr(importlib.import_module("tierlock.replaced"))
try:
    importlib.import_module("tierlock.failing")
except LookupError as exc:
    out["failed"] = [str(exc), "tierlock.failing" in sys.modules, "failing" in vars(tierlock)]
out["handed"] = sorted(name for name in handed if name.startswith("tierlock."))
out["served"] = sorted(name for name in codebundle._served if name in ("tierlock.seeing", "tierlock.replaced"))
codebundle.save()
print(json.dumps(out))
"""


def _modules(src: Path) -> None:  # noqa: F811
    for name, text in (("seeing", SEEING), ("replaced", REPLACED), ("failing", FAILING)):
        (src / "tierlock" / f"{name}.py").write_text(text, encoding="utf-8")


def _seen(src: Path, *, bundled: bool, flags: tuple[str, ...] = ()) -> dict[str, Any]:  # noqa: F811
    proc = _run(src, SCRIPT.replace("BUNDLED", str(bundled)), *flags)
    assert proc.returncode == 0, proc.stderr
    seen: dict[str, Any] = json.loads(proc.stdout.splitlines()[-1])
    return seen


def test_a_module_served_is_made_run_and_set_on_its_parent_as_the_import_system_does_it(src: Path) -> None:  # noqa: F811
    _modules(src)
    plain = _seen(src, bundled=False)
    _seen(src, bundled=True)  # (notes the three modules: the bundle is written)
    served = _seen(src, bundled=True)
    assert served["served"] == ["tierlock.replaced", "tierlock.seeing"]
    assert served["handed"] == []  # (made and run by the bundle, not by the import system)
    assert "tierlock.seeing" in plain["handed"]
    for key in ("seen", "last", "on_parent", "initializing", "keys", "replaced", "failed"):
        assert served[key] == plain[key], key
    assert served["seen"]["initializing"] is True
    assert served["seen"]["waiting"][-1:] == ["seeing"]
    assert served["seen"]["in_modules"] is True
    assert served["seen"]["on_parent"] is False
    assert served["on_parent"] is True
    assert served["failed"] == ["failing on purpose", False, False]


#: Run in the copy: the bundle installed, then a thread started (waiting) before the import, or a finder of the
#: program's own put first on :data:`sys.meta_path` (it finds nothing, and notes what it was asked).
AROUND = """
import _frozen_importlib as bootstrap, importlib, json, sys, threading
from tierlock import codebundle
codebundle.install("check")
handed, asked = [], []
real = bootstrap._load_unlocked
bootstrap._load_unlocked = lambda spec: (handed.append(spec.name), real(spec))[1]
class Hook:
    @staticmethod
    def find_spec(name, path=None, target=None):
        asked.append(name)
        return None
opened = []
sys.addaudithook(lambda event, args: opened.append(str(args[0])) if event == "open" else None)
release = threading.Event()
if WHAT == "thread":
    waiting = threading.Thread(target=release.wait)
    waiting.start()
if WHAT == "hook":
    sys.meta_path.insert(0, Hook)
importlib.import_module("tierlock.seeing")
release.set()
read = [path for path in opened if "seeing." in path]  # (its source or compiled file: not read when served)
print(json.dumps({"handed": handed, "asked": asked, "served": "tierlock.seeing" in codebundle._served, "read": read}))
"""


def test_with_another_thread_started_a_module_served_is_loaded_by_the_import_system_under_its_lock(
    src: Path,  # noqa: F811
) -> None:
    _modules(src)
    _seen(src, bundled=True)
    proc = _run(src, AROUND.replace("WHAT", repr("thread")))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"handed": ["tierlock.seeing"], "asked": [], "served": True, "read": []}


def test_a_finder_put_before_the_bundles_is_asked_first_and_the_module_still_served(src: Path) -> None:  # noqa: F811
    _modules(src)
    _seen(src, bundled=True)
    proc = _run(src, AROUND.replace("WHAT", repr("hook")))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {
        "handed": ["tierlock.seeing"],
        "asked": ["tierlock.seeing"],
        "served": True,
        "read": [],
    }


def test_with_nothing_around_a_module_served_is_loaded_by_the_bundle(src: Path) -> None:  # noqa: F811
    _modules(src)
    _seen(src, bundled=True)
    proc = _run(src, AROUND.replace("WHAT", repr("nothing")))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"handed": [], "asked": [], "served": True, "read": []}


def test_under_python_v_every_import_is_the_import_systems_and_printed(src: Path) -> None:  # noqa: F811
    _load(src, ("tierlock.tiers.loader",))
    proc = _run(src, "from tierlock import codebundle; codebundle.install('check'); import tierlock.tiers.loader", "-v")
    assert proc.returncode == 0, proc.stderr
    for name in ("tierlock.tiers.loader", "tierlock.tiers.model"):  # (its parent loaded first, and one it imports)
        assert f"import '{name}' # <tierlock.codebundle._Loader" in proc.stderr


#: Run in the copy: a served module imported by its full name while its parent package is not loaded yet.
NESTED = """
import _frozen_importlib as bootstrap, json, sys
from tierlock import codebundle
codebundle.install("check")
handed = []
real = bootstrap._load_unlocked
bootstrap._load_unlocked = lambda spec: (handed.append(spec.name), real(spec))[1]
import tierlock.tiers.loader
print(json.dumps([sorted(n for n in handed if n.startswith("tierlock.")), "tierlock.tiers" in sys.modules]))
"""


def test_a_module_served_whose_parent_is_not_loaded_yet_is_loaded_by_the_bundle_after_its_parent(
    src: Path,  # noqa: F811
) -> None:
    _load(src, ("tierlock.tiers.loader",))
    proc = _run(src, NESTED)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [[], True]
