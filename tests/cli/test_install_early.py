# ruff: noqa: F811  (pytest fixtures imported from the installer's end-to-end tests are redefined as parameters)
"""Arming again starts the backend early from the kept plan, and only when every fact of that plan holds.

Real ``install-tier`` processes (the console script: the early start happens before the CLI loads) arm real
venvs with real uv from a local wheel folder. The uv they run is a small wrapper (``$TIERLOCK_UV``) that notes
each command line and then runs the real uv: an early start hands uv a requirements file in a folder named
``tierlock-early-*``, the install's own step one in ``tierlock-install-*``, so a test tells which one ran
and how many backends ran in all. With pip (``Arming(..., backend="pip")``), the real pip that tierlock runs
in the target is watched the same way from inside: a ``sitecustomize`` on ``PYTHONPATH`` (:data:`PIP_WATCH`)
notes each pip command line the target's interpreter starts. The project and the venv
template are dated back a minute (a plan resting on a file modified within the file system's clock tick is
never kept).
"""

from __future__ import annotations

import fcntl
import json
import marshal
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_install_cli import Kit, empty_venv, index_env, kit, uv_cache, wheel_dir, wheels  # noqa: F401
from tests.support.env import bin_dir, clean_env
from tests.support.interpreters import PYENV
from tests.support.kept import backdate
from tests.support.tierproject import make_project, tree_snapshot
from tierlock.keptrun import SETTLE_NS

pytestmark = pytest.mark.slow

#: A little over the time a kept plan asks of everything it looked at since its last change.
SETTLE_S = SETTLE_NS / 1e9 + 0.1

WRAPPER = """#!/bin/sh
[ "$1 $2" = "pip install" ] || exec "{uv}" "$@"
echo $$ > "{log}.pid"
printf '%s\\n' "$*" >> "{log}"
"{uv}" "$@"
status=$?
echo $status > "{log}.done"
if [ -e "{slow}" ]; then sleep 30; fi
exit $status
"""


#: What a venv of a pip arming runs at each start of its interpreter (its ``sitecustomize``): a pip ``install``
#: run by tierlock (pip's ``__pip-runner__.py``) notes its command line and process id in ``uv.log`` as the uv
#: wrapper of the uv armings does, and on request (a flag file beside it) holds before pip runs (``hold``),
#: installs only the tier's ``corelib`` (``half``), deletes the compiled files pip wrote (``unlink``), and holds
#: after pip (``slow``, ``half``); ``uv.log.done`` once pip has ended (the hostile tests' wrapper does the same
#: with uv: ``tests/cli/test_install_early_hostile.py``).
PIP_WATCH = """import os, sys, time
root = os.environ.get("TIERLOCK_TEST_PIP_WATCH")
args = sys.argv[1:]
if root and sys.argv[0].endswith("__pip-runner__.py") and args[:1] == ["install"]:
    with open(root + "/uv.log", "a") as fh:
        fh.write(" ".join(args) + "\\n")
    open(root + "/uv.log.pid", "w").write(str(os.getpid()))
    if os.path.exists(root + "/hold"):
        open(root + "/uv.log.waiting", "w").close()
        time.sleep(30)
    if os.path.exists(root + "/half"):
        where = sys.argv.index("-r") + 1
        blocks = open(sys.argv[where]).read().replace(chr(92) + chr(10), " ").splitlines()
        open(root + "/half.txt", "w").write(chr(10).join(b for b in blocks if b.startswith("corelib")) + chr(10))
        sys.argv[where] = root + "/half.txt"
    real_exit = sys.exit

    def _exit(status=0):
        if os.path.exists(root + "/unlink"):
            for where, _dirs, names in os.walk(sys.prefix):
                for name in names:
                    if name.endswith(".so"):
                        os.unlink(os.path.join(where, name))
        open(root + "/uv.log.done", "w").write(str(status))
        if os.path.exists(root + "/slow") or os.path.exists(root + "/half"):
            time.sleep(30)
            open(root + "/uv.log.slept", "a").write(str(os.getpid()) + chr(10))
        real_exit(status)

    sys.exit = _exit
"""


class Arming:
    """One test's project, kept-plan cache, uv wrapper (with pip: :data:`PIP_WATCH`), and fresh copies of the
    session's empty venv. *told*: a cache folder whose ``venv-*`` entries (:func:`venv_told`) the kept-plan cache
    starts with."""

    def __init__(self, root: Path, kit: Kit, backend: str = "uv", told: Path | None = None) -> None:
        self.root = root
        self.kit = kit
        self.backend = backend
        self.project = make_project(root / "proj", kit.wheels)
        self.cache = root / "cache"
        if told is not None:
            self.cache.mkdir()
            for entry in told.glob("venv-*.marshal"):
                shutil.copy2(entry, self.cache / entry.name)
        self.log = root / "uv.log"
        self.slow = root / "slow"
        self.uv = self.wrapper(root / "uv-wrapper")
        self.env = clean_env({**index_env(kit.wheel_dir, kit.uv_cache), "TIERLOCK_CACHE_DIR": str(self.cache)})
        self.env["TIERLOCK_UV"] = str(self.uv)
        self.tmp = root / "tmp"
        self.tmp.mkdir()
        self.env["TMPDIR"] = str(self.tmp)
        self.kept_in = root
        if backend == "pip":  # every interpreter started with this environment runs PIP_WATCH (tierlock asks a
            # target's isolated: -I, which reads no PYTHONPATH; a file in the target would be a fact of its own)
            watched = root / "pip-watch"
            watched.mkdir()
            (watched / "sitecustomize.py").write_text(PIP_WATCH, encoding="utf-8")
            backdate(watched)
            self.env["PYTHONPATH"] = str(watched)
            self.env["TIERLOCK_TEST_PIP_WATCH"] = str(root)
            self.env["PIP_NO_CACHE_DIR"] = "1"  # (this machine's pip cache neither read nor written)
        backdate(self.project)
        self.frozen = tree_snapshot(self.project)

    def wrapper(self, path: Path) -> Path:
        path.write_text(WRAPPER.format(log=self.log, uv=bin_dir() / "uv", slow=self.slow), encoding="utf-8")
        path.chmod(0o755)
        backdate(path)
        return path

    def venv(self, name: str) -> Path:
        """A fresh copy of the empty venv at *name* (made the same way as every other copy)."""
        venv = self.root / name
        shutil.copytree(self.kit.empty_venv, venv, symlinks=True)
        return venv

    def argv(self, venv: Path, *extra: str, tier: str = "brain") -> list[str]:
        return [
            str(bin_dir() / "install-tier"),
            tier,
            "--project",
            str(self.project),
            "--python",
            str(venv / "bin" / "python"),
            "--backend",
            self.backend,
            "--json",
            *extra,
        ]

    def arm(
        self, venv: Path, *extra: str, tier: str = "brain", env: dict[str, str] | None = None
    ) -> tuple[int, Any, list[str]]:
        """Arm *tier* into *venv*: exit code, JSON document, and the backend runs it caused (``early``/``own``)."""
        before = self.runs()
        proc = subprocess.run(
            self.argv(venv, *extra, tier=tier), env=env or self.env, capture_output=True, text=True, check=False
        )
        document = json.loads(proc.stdout) if proc.stdout.strip() else None
        self.last_err = proc.stderr
        return proc.returncode, document, self.runs()[len(before) :]

    def runs(self) -> list[str]:
        if not self.log.exists():
            return []
        lines = self.log.read_text(encoding="utf-8").splitlines()
        return ["early" if "tierlock-early-" in line else "own" for line in lines if " install " in f" {line} "]

    def plans(self) -> list[Path]:
        return sorted(self.cache.glob("arms-*.marshal"))

    def present(self, venv: Path, tier: str = "brain") -> str:
        proc = subprocess.run(
            [
                str(bin_dir() / "tierlock"),
                "--project",
                str(self.project),
                "--json",
                "probe",
                tier,
                "--python",
                str(venv / "bin" / "python"),
            ],
            env={**self.env, "TIERLOCK_CACHE_DIR": ""},
            capture_output=True,
            text=True,
            check=False,
        )
        return str(json.loads(proc.stdout)["tiers"][0]["state"])

    def kept_first(self) -> Any:
        """Armings into venvs made like the others until one keeps the plan (the first into a kind of venv asks
        its interpreter, a process started: that run keeps none; the next one is told what it would say, and so
        is the first when the cache starts with what a venv of that kind says: :func:`venv_told`). A run that
        looked at something modified less than two seconds before it started keeps none either (on a loaded
        machine the one before it can end that close, or a test beside it write the shared uv cache): the
        armings after the second wait those two seconds out first."""
        for attempt, name in enumerate(("warm", "warm2", "first", "again")):
            if attempt >= 2:
                time.sleep(SETTLE_S)
            code, doc, runs = self.arm(self.venv(name))
            assert code == 0, self.last_err
            assert runs == ["own"]
            if self.plans():
                self.kept_in = self.root / name
                return doc
        raise AssertionError(f"no plan kept after four armings: {self.last_err}")


#: Both backends get the early start (pip's run by the target's interpreter, watched by :data:`PIP_WATCH`).
BACKENDS = ["uv", "pip"]


@pytest.fixture(scope="session")
def venv_told(tmp_path_factory: pytest.TempPathFactory, kit: Kit) -> Path:
    """A cache folder holding what tierlock keeps of a venv made like the session's empty venv (``venv-*``: its
    interpreter's answer, which any venv made the same way gives; :mod:`tierlock.targetcache`), kept by a ``probe``
    of a copy of it. An arming whose cache starts with it is told what its venv says, as the second arming into a
    kind of venv is: its first arming keeps the plan (one real install less per world)."""
    root = tmp_path_factory.mktemp("venv-told")
    told = root / "cache"
    project = make_project(root / "proj", kit.wheels)
    venv = root / "venv"
    shutil.copytree(kit.empty_venv, venv, symlinks=True)
    argv = [str(bin_dir() / "tierlock"), "--project", str(project), "--json", "probe", "brain"]
    argv += ["--python", str(venv / "bin" / "python")]
    subprocess.run(argv, env=clean_env({"TIERLOCK_CACHE_DIR": str(told)}), capture_output=True, check=False)
    assert list(told.glob("venv-*.marshal")), "the probe kept what a venv of that kind says"
    backdate(told)
    return told


@pytest.fixture(params=BACKENDS)
def arming(tmp_path: Path, kit: Kit, venv_told: Path, request: pytest.FixtureRequest) -> Iterator[Arming]:
    backdate(kit.empty_venv)
    world = Arming(tmp_path, kit, request.param, told=venv_told)
    yield world
    assert tree_snapshot(world.project) == world.frozen, "tierlock wrote into the project tree"


def _plain(document: Any, venv: Path) -> Any:
    """*document* with the target's folder as ``ENV`` and without the times (what differs between two armings)."""
    text = json.dumps(document, sort_keys=True).replace(str(venv), "ENV")

    def timeless(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: timeless(v) for k, v in value.items() if not k.startswith("duration") and k != "backend_s"}
        if isinstance(value, list):
            return [timeless(v) for v in value]
        return value

    return timeless(json.loads(text))


def test_the_second_arming_into_a_fresh_venv_starts_the_kept_backend_early_and_takes_it_over(arming: Arming) -> None:
    doc1 = arming.kept_first()
    code, doc2, runs = arming.arm(arming.venv("second"))
    assert code == 0, doc2
    assert runs == ["early"], "exactly one backend ran: the one started early, taken over by the install"
    assert doc2["result"] == "installed"
    assert _plain(doc2, arming.root / "second") == _plain(doc1, arming.kept_in), "the same document"
    assert arming.present(arming.root / "second") == "present"
    assert (arming.root / "second" / "tierlock" / "receipts" / "brain.json").is_file()
    assert 0 < doc2["backend_s"] < 60, "the early backend's run is timed from its own start"


def test_a_changed_pyproject_is_no_early_start_and_the_install_follows_it(arming: Arming) -> None:
    arming.kept_first()
    pyproject = arming.project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    backdate(arming.project)
    arming.frozen = tree_snapshot(arming.project)
    code, _doc, runs = arming.arm(arming.venv("second"))
    assert (code, runs) == (0, ["own"])
    assert arming.present(arming.root / "second") == "present"


def test_a_changed_lockfile_of_the_same_size_is_no_early_start_and_drift_is_refused_as_before(arming: Arming) -> None:
    arming.kept_first()
    lock = arming.project / "lockfiles" / "brain.txt"
    text = lock.read_text(encoding="utf-8")
    lock.write_text(text.replace("helper==1.0", "helper==1.1"), encoding="utf-8")  # same size, other bytes
    os.utime(lock, ns=(lock.stat().st_atime_ns, lock.stat().st_mtime_ns))
    backdate(arming.project)  # even its modification time as it was: its bytes tell
    arming.frozen = tree_snapshot(arming.project)
    venv = arming.venv("second")
    code, doc, runs = arming.arm(venv)
    assert runs == [], "no backend ran: the lockfile's change is refused before any backend starts"
    assert code != 0
    assert doc["ok"] is False
    assert not (venv / "tierlock" / "install.lock").exists() or arming.present(venv) == "absent"


def test_another_backend_executable_in_the_environment_is_no_early_start(arming: Arming) -> None:
    if arming.backend != "uv":
        pytest.skip("uv's executable is chosen by $TIERLOCK_UV; pip's is the target's interpreter (another venv below)")
    arming.kept_first()
    other = arming.wrapper(arming.root / "uv-other")
    code, _doc, runs = arming.arm(arming.venv("second"), env={**arming.env, "TIERLOCK_UV": str(other)})
    assert (code, runs) == (0, ["own"])


def test_a_venv_of_another_python_is_no_early_start(arming: Arming) -> None:
    python = PYENV / "3.12.1" / "bin" / "python3.12"
    if not python.exists():
        pytest.skip("Python 3.12.1 is not installed here")
    code, _doc, runs = arming.arm(arming.venv("first"), tier="base")
    assert (code, runs) == (0, ["own"])
    other = arming.root / "other"
    subprocess.run([str(python), "-m", "venv", "--without-pip", str(other)], check=True, env=clean_env())
    backdate(other)
    code, doc, runs = arming.arm(other, tier="base")
    assert (code, runs) == (0, ["own"]), doc
    assert arming.present(other, "base") == "present"


def test_a_venv_that_holds_a_package_already_is_no_early_start(arming: Arming) -> None:
    arming.kept_first()
    venv = arming.venv("second")
    code, _doc, _runs = arming.arm(venv, tier="base")  # basepkg there (another plan, of the base tier)
    assert code == 0
    code, doc, runs = arming.arm(venv)
    assert (code, runs) == (0, ["own"])
    assert doc["result"] == "installed"
    assert arming.present(venv) == "present"


def test_a_held_install_lock_is_no_early_start_and_the_install_waits_for_it(arming: Arming) -> None:
    arming.kept_first()
    before = len(arming.runs())
    venv = arming.venv("second")
    (venv / "tierlock").mkdir()
    fd = os.open(venv / "tierlock" / "install.lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    proc = subprocess.Popen(
        arming.argv(venv), env=arming.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        time.sleep(1.5)
        assert arming.runs()[before:] == [], "no backend ran while another install held the lock"
    finally:
        os.close(fd)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "waiting for another tierlock install" in err
    assert arming.runs()[before:] == ["own"]
    assert arming.present(venv) == "present"


def test_an_early_backend_whose_command_is_not_the_installs_is_waited_for_and_the_right_install_follows(
    arming: Arming,
) -> None:
    arming.kept_first()
    (plan,) = arming.plans()
    data = marshal.loads(plan.read_bytes())
    lines = data["command"]["requirements"].decode().split("\n")
    data["command"]["requirements"] = "\n".join(line for line in lines if not line.startswith("helper")).encode()
    plan.write_bytes(marshal.dumps(data))  # a plan that no longer leads to the install's command
    venv = arming.venv("second")
    code, doc, runs = arming.arm(venv)
    assert code == 0, doc
    assert runs == ["early", "own"], "the early backend ended before the install's own ran"
    assert arming.present(venv) == "present"
    assert arming.plans() == [], "the plan that led elsewhere is not kept"


def test_an_interrupt_during_the_early_backend_stops_it_and_the_same_command_repairs(arming: Arming) -> None:
    arming.kept_first()
    before = len(arming.runs())
    venv = arming.venv("second")
    arming.slow.write_text("", encoding="utf-8")  # the backend sleeps after installing: the signal lands in it
    proc = subprocess.Popen(
        arming.argv(venv), env=arming.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    done = Path(f"{arming.log}.done")
    done.unlink(missing_ok=True)
    deadline = time.monotonic() + 60
    while not done.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert arming.runs()[before:] == ["early"]
    time.sleep(0.2)  # uv has installed; the wrapper sleeps
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert json.loads(out)["error"]["exit_code"] == 130
    message = json.loads(out)["error"]["message"]
    assert "interrupted" in message
    assert "repairs what is half-installed" in message, "it says what the rerun does, never that nothing was done"
    assert not (venv / "tierlock" / "receipts" / "brain.json").exists()
    assert not _running(int(Path(f"{arming.log}.pid").read_text(encoding="utf-8"))), "the early backend was stopped"
    assert [p.name for p in arming.tmp.iterdir() if p.name.startswith("tierlock-")] == []
    arming.slow.unlink()
    code, doc, runs = arming.arm(venv)
    assert code == 0, doc
    assert runs == [], "the packages are all there: the rerun verifies them and writes the receipt"
    assert doc["result"] == "unchanged"
    assert arming.present(venv) == "present"


def _running(pid: int) -> bool:
    """Whether process *pid* is there and not a zombie (its parent, tierlock, ended without reaping it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_dry_run_starts_no_backend_even_with_a_plan_kept(arming: Arming) -> None:
    arming.kept_first()
    code, doc, runs = arming.arm(arming.venv("second"), "--dry-run")
    assert (code, runs) == (0, [])
    assert doc["result"] == "planned"


def test_an_empty_cache_folder_setting_keeps_no_plan_and_starts_nothing_early(arming: Arming) -> None:
    env = {**arming.env, "TIERLOCK_CACHE_DIR": ""}
    for name in ("first", "second"):
        code, _doc, runs = arming.arm(arming.venv(name), env=env)
        assert (code, runs) == (0, ["own"])
    assert arming.plans() == []


# -- pip's own configuration: its variables and files are facts of the plan ---------------------------------------
@pytest.fixture
def pip_arming(tmp_path: Path, kit: Kit, venv_told: Path) -> Iterator[Arming]:
    backdate(kit.empty_venv)
    world = Arming(tmp_path, kit, "pip", told=venv_told)
    yield world
    assert tree_snapshot(world.project) == world.frozen, "tierlock wrote into the project tree"


def _compiled(venv: Path) -> list[str]:
    """The bytecode files pip wrote for the tier's pure-Python package."""
    return sorted(p.name for p in venv.glob("lib/python3*/site-packages/helper/**/*.pyc"))


def test_a_pip_variable_set_since_the_plan_was_kept_is_no_early_start_and_pip_runs_as_it_says(
    pip_arming: Arming,
) -> None:
    pip_arming.kept_first()
    assert _compiled(pip_arming.kept_in), "pip compiles what it installs unless told not to"
    venv = pip_arming.venv("second")
    code, doc, runs = pip_arming.arm(venv, env={**pip_arming.env, "PIP_COMPILE": "false"})
    assert (code, runs) == (0, ["own"]), doc
    assert _compiled(venv) == [], "the install's own pip ran with the variable set now"
    assert pip_arming.present(venv) == "present"


def test_a_pip_configuration_file_edited_since_the_plan_was_kept_is_no_early_start(pip_arming: Arming) -> None:
    config = pip_arming.root / "pip.conf"
    config.write_text("[global]\ntimeout = 30\n", encoding="utf-8")
    backdate(config)
    pip_arming.env["PIP_CONFIG_FILE"] = str(config)
    pip_arming.kept_first()
    config.write_text("[global]\ntimeout = 31\n", encoding="utf-8")
    backdate(config)  # even its time as before: its bytes tell
    code, doc, runs = pip_arming.arm(pip_arming.venv("second"))
    assert (code, runs) == (0, ["own"]), doc


def test_a_pip_configuration_file_put_in_the_target_is_no_early_start(pip_arming: Arming) -> None:
    """pip reads a ``pip.conf`` in the environment it runs in (its site configuration): a venv that has one is not
    made the same way. (pip reads its files only when ``PIP_CONFIG_FILE`` is not the null device: one of the test's
    here, the user's and the XDG folders the test's; of this machine's, ``/etc/pip.conf`` is read.)"""
    config = pip_arming.root / "pip.conf"
    config.write_text("[global]\n", encoding="utf-8")
    backdate(config)
    pip_arming.env["PIP_CONFIG_FILE"] = str(config)
    pip_arming.env["HOME"] = str(pip_arming.root / "home")
    pip_arming.env["XDG_CONFIG_HOME"] = str(pip_arming.root / "home" / ".config")
    pip_arming.env["XDG_CONFIG_DIRS"] = str(pip_arming.root / "etc-xdg")
    pip_arming.kept_first()
    venv = pip_arming.venv("second")
    (venv / "pip.conf").write_text("[install]\nno-compile = yes\n", encoding="utf-8")
    backdate(venv)
    code, doc, runs = pip_arming.arm(venv)
    assert (code, runs) == (0, ["own"]), doc
    assert pip_arming.present(venv) == "present"


def test_a_credential_in_a_backend_variable_never_lands_in_a_kept_file_and_its_change_is_no_early_start(
    pip_arming: Arming,
) -> None:
    """The plan rests on every ``PIP_*`` variable (an extra index's URL may carry a token): by a digest of its value,
    never the value. The same value is an early start; another one is not."""
    secret = "s3cr3t-t0ken-in-the-url"
    pip_arming.env["PIP_EXTRA_INDEX_URL"] = f"https://user:{secret}@example.invalid/simple"
    pip_arming.kept_first()
    kept = [p for p in pip_arming.cache.rglob("*") if p.is_file()]
    assert pip_arming.plans(), "a plan is kept"
    assert [p.name for p in kept if secret.encode() in p.read_bytes()] == []
    code, doc, runs = pip_arming.arm(pip_arming.venv("same"))
    assert (code, runs) == (0, ["early"]), doc
    other = {**pip_arming.env, "PIP_EXTRA_INDEX_URL": "https://user:another@example.invalid/simple"}
    code, doc, runs = pip_arming.arm(pip_arming.venv("changed"), env=other)
    assert (code, runs) == (0, ["own"]), doc
    assert secret not in json.dumps(doc)
