# ruff: noqa: F811  (pytest fixtures imported from the installer's end-to-end tests are redefined as parameters)
"""An arming whose backend started early gives the slow path's answer when things go wrong around that backend.

Real ``install-tier`` processes arm real venvs with real uv (``tests/cli/test_install_early.py``'s world), behind a
wrapper that can, on request: sleep before running uv (an interrupt before anything is installed), install only
one root of the tier and then sleep (an interrupt half-way), sleep after uv (an interrupt before the verification),
or delete the compiled files uv just wrote (what the verification after the backend must find). Each case runs
with the backend started early from the kept plan and on the slow path (no cache folder: no plan), and checks
the same outcome: exit 130 with the install's message and no receipt, ``probe`` saying what is there (``absent``,
``partial``) in between, and the same command completing it; a compiled file gone is exit 3 and no receipt.
The cases share a world per path and backend (:func:`worlds`: the project, the wrapper, and on the early path the
plan kept once), each arming a fresh copy of the empty venv of its own.
Every case runs with uv and with pip (the real pip run in the target, watched from inside as
``tests/cli/test_install_early.py``'s :data:`~tests.cli.test_install_early.PIP_WATCH`).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.test_install_cli import Kit, empty_venv, index_env, kit, uv_cache, wheel_dir, wheels  # noqa: F401
from tests.cli.test_install_early import BACKENDS, Arming, _plain, venv_told  # noqa: F401
from tests.support.env import bin_dir, clean_env
from tests.support.interpreters import PYENV
from tests.support.kept import backdate
from tests.support.tierproject import tree_snapshot

pytestmark = pytest.mark.slow

#: The wrapper: notes the command (as the shell wrapper of test_install_early does), then does what the flag files
#: next to it ask.
WRAPPER = """#!{python}
import os, subprocess, sys, time
root = {root!r}
args = sys.argv[1:]
if args[:2] != ["pip", "install"]:
    os.execv({uv!r}, [{uv!r}, *args])
with open(root + "/uv.log", "a") as fh:
    fh.write(" ".join(args) + "\\n")
open(root + "/uv.log.pid", "w").write(str(os.getpid()))
if os.path.exists(root + "/hold"):
    open(root + "/uv.log.waiting", "w").close()
    time.sleep(30)
if os.path.exists(root + "/half"):
    req = args[args.index("-r") + 1]
    blocks = open(req).read().replace(chr(92) + chr(10), " ").splitlines()  # a pin with its hashes, one a block
    half = root + "/half.txt"
    open(half, "w").write(chr(10).join(b for b in blocks if b.startswith("corelib")) + chr(10))
    args[args.index("-r") + 1] = half
status = subprocess.call([{uv!r}, *args])
if os.path.exists(root + "/unlink"):
    prefix = os.path.dirname(os.path.dirname(args[args.index("--python") + 1]))
    for where, _dirs, names in os.walk(prefix):
        for name in names:
            if name.endswith(".so"):
                os.unlink(os.path.join(where, name))
open(root + "/uv.log.done", "w").write(str(status))
if os.path.exists(root + "/slow") or os.path.exists(root + "/half"):
    time.sleep(30)
    open(root + "/uv.log.slept", "a").write(str(os.getpid()) + chr(10))
sys.exit(status)
"""


class Hostile(Arming):
    """:class:`Arming` whose uv wrapper can be told to stall, install half, or delete what it wrote."""

    def __init__(self, root: Path, kit: Kit, backend: str = "uv", told: Path | None = None) -> None:
        super().__init__(root, kit, backend, told)
        self.kept_plans: dict[Path, bytes] = {}
        self.cases = 0

    def wrapper(self, path: Path) -> Path:
        text = WRAPPER.format(python=sys.executable, root=str(self.root), uv=str(bin_dir() / "uv"))
        path.write_text(text, encoding="utf-8")
        path.chmod(0o755)
        backdate(path)
        return path

    def flag(self, name: str, on: bool = True) -> None:
        path = self.root / name
        if on:
            path.write_text("", encoding="utf-8")
        else:
            path.unlink(missing_ok=True)

    def ready(self, early: bool) -> dict[str, str]:
        """The environment of an arming on the path asked: the plan kept first (early), or no cache folder."""
        if early:
            self.kept_first()
            self.kept_plans = {plan: plan.read_bytes() for plan in self.plans()}
            return self.env
        return {**self.env, "TIERLOCK_CACHE_DIR": ""}

    def next_case(self, early: bool) -> Path:
        """A fresh copy of the empty venv for the next case in this world (one shared by cases): no flag or
        backend's note of a case before it left, and on the early path the plan as :meth:`ready` kept it (a case
        that completed its install by the same command again kept that arming's plan in its place)."""
        for name in (*FLAGS, "uv.log.done", "uv.log.waiting", "uv.log.pid", "half.txt"):
            (self.root / name).unlink(missing_ok=True)
        if early:
            for plan, data in self.kept_plans.items():
                if not plan.is_file() or plan.read_bytes() != data:
                    plan.write_bytes(data)
        self.cases += 1
        return self.venv(f"case-{self.cases}")


#: What a case asks of the wrapper by a file of that name beside it (:data:`WRAPPER`).
FLAGS = ("hold", "half", "slow", "unlink")

#: One world per path (``True``: early, the plan kept once; ``False``: the slow path, no cache folder): the world
#: and the environment its armings run with.
Worlds = dict[bool, tuple[Hostile, dict[str, str]]]


@pytest.fixture(scope="module", params=BACKENDS)
def worlds(
    tmp_path_factory: pytest.TempPathFactory, kit: Kit, venv_told: Path, request: pytest.FixtureRequest
) -> Worlds:
    """One world per path and backend, shared by the module's cases (each arms a fresh venv of its own in it:
    :meth:`Hostile.next_case`); the project tree checked unchanged after each case (:func:`cases`)."""
    backdate(kit.empty_venv)
    made: Worlds = {}
    for early in (True, False):
        root = tmp_path_factory.mktemp(f"{'early' if early else 'slow'}-{request.param}")
        world = Hostile(root, kit, request.param, told=venv_told)
        made[early] = (world, world.ready(early))
    return made


@pytest.fixture
def cases(worlds: Worlds) -> Iterator[Worlds]:
    """The module's :func:`worlds`; after the case, each world's project tree as it was."""
    yield worlds
    for world, _env in worlds.values():
        assert tree_snapshot(world.project) == world.frozen, "tierlock wrote into the project tree"


@pytest.fixture(params=BACKENDS)
def hostile(tmp_path: Path, kit: Kit, request: pytest.FixtureRequest) -> Iterator[Hostile]:
    backdate(kit.empty_venv)
    world = Hostile(tmp_path, kit, request.param)
    yield world
    assert tree_snapshot(world.project) == world.frozen, "tierlock wrote into the project tree"


def _wait_for(path: Path) -> None:
    deadline = time.monotonic() + 60
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert path.exists(), f"the backend never reached {path.name}"


@pytest.mark.parametrize("early", [True, False], ids=["early", "slow-path"])
@pytest.mark.parametrize(
    ("point", "between"),
    [("hold", "absent"), ("half", "partial"), ("slow", "present")],
    ids=["before-the-backend-installs", "half-installed", "after-the-backend-before-verification"],
)
def test_an_interrupt_around_the_backend_leaves_no_receipt_and_the_same_command_completes_it(
    cases: Worlds, early: bool, point: str, between: str
) -> None:
    hostile, env = cases[early]
    venv = hostile.next_case(early)
    before = len(hostile.runs())
    hostile.flag(point)
    proc = subprocess.Popen(hostile.argv(venv), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for(hostile.root / ("uv.log.waiting" if point == "hold" else "uv.log.done"))
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert hostile.runs()[before:] == ["early" if early else "own"]
    assert json.loads(out)["error"]["exit_code"] == 130
    assert not (venv / "tierlock" / "receipts" / "brain.json").exists()
    assert [p.name for p in hostile.tmp.iterdir() if p.name.startswith("tierlock-")] == []
    assert hostile.present(venv) == between
    hostile.flag(point, on=False)
    code, doc, runs = hostile.arm(venv, env=env)
    assert code == 0, doc
    assert len(runs) == (0 if between == "present" else 1), "one backend run, when something was missing"
    assert hostile.present(venv) == "present"
    assert (venv / "tierlock" / "receipts" / "brain.json").is_file()


@pytest.mark.parametrize("early", [True, False], ids=["early", "slow-path"])
def test_a_compiled_file_deleted_right_after_the_backend_ends_fails_the_verification(
    cases: Worlds, early: bool
) -> None:
    hostile, env = cases[early]
    venv = hostile.next_case(early)
    hostile.flag("unlink")
    code, doc, runs = hostile.arm(venv, env=env)
    assert runs == ["early" if early else "own"]
    assert code == 3, doc
    assert "still not present" in doc["error"]["message"]
    assert any(".so" in problem for problem in json.dumps(doc["error"]).split('"')), doc
    assert not (venv / "tierlock" / "receipts" / "brain.json").exists()
    assert hostile.present(venv) == "partial"
    hostile.flag("unlink", on=False)
    code, doc, _runs = hostile.arm(venv, env=env)
    assert code == 0, doc
    assert hostile.present(venv) == "present"


def test_armings_into_venvs_of_another_python_start_early_and_give_the_slow_paths_document(hostile: Hostile) -> None:
    python = PYENV / "3.12.1" / "bin" / "python3.12"
    if not python.exists():
        pytest.skip("Python 3.12.1 is not installed here")
    template = hostile.root / "template312"
    subprocess.run([str(python), "-m", "venv", "--without-pip", str(template)], check=True, env=clean_env())
    backdate(template)
    docs = []
    # A plan is kept only when nothing it rests on outside the target changed in the last two seconds (the other
    # test worker may be writing the 3.12 standard library's byte code meanwhile): up to six armings, the last early.
    for name in ("a", "b", "c", "d", "e", "f"):
        venv = hostile.root / f"py312-{name}"
        subprocess.run(["cp", "-a", str(template), str(venv)], check=True)
        code, doc, runs = hostile.arm(venv, tier="base")  # (brain's compiled file is built for this Python)
        assert code == 0, doc
        docs.append((doc, venv, runs))
        if len(docs) >= 3 and runs == ["early"]:
            break
    assert docs[-1][2] == ["early"], f"a plan kept by the armings before starts the backend early: {docs}"
    slow = hostile.root / "py312-slow"
    subprocess.run(["cp", "-a", str(template), str(slow)], check=True)
    code, doc, runs = hostile.arm(slow, tier="base", env={**hostile.env, "TIERLOCK_CACHE_DIR": ""})
    assert (code, runs) == (0, ["own"])
    assert _plain(docs[-1][0], docs[-1][1]) == _plain(doc, slow), "the same document as the slow path's"
    assert hostile.present(docs[-1][1], "base") == "present"
    assert (docs[-1][1] / "lib" / "python3.12" / "site-packages" / "basepkg").is_dir()
