# ruff: noqa: F811  (pytest fixtures imported from other end-to-end tests are redefined as parameters)
"""A module put first on ``sys.path`` after ``lock`` was kept, or after an arming's plan was kept: the next run does
what a run that keeps nothing does (``TIERLOCK_CACHE_DIR`` empty).

A ``PYTHONPATH`` folder (or the current folder of ``python -m tierlock``) that gains a module named as one the
command imports - ``packaging``, or ``token`` of the standard library, which ``tokenize`` imports - makes the full run
import it (here: it raises). The kept lock must not print its kept report, the early backend must not start (it
would install the tier that the full run never reaches), as :mod:`tierlock.keptrun` refuses a read-only answer
(:func:`tierlock.keptsig.shadows`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_install_cli import Kit, empty_venv, index_env, kit, uv_cache, wheel_dir, wheels  # noqa: F401
from tests.cli.test_install_early import Arming, venv_told  # noqa: F401
from tests.cli.test_lock_kept import Project, settled  # noqa: F401
from tests.support.kept import backdate
from tests.support.lockproj import build_wheel_dir

SHADOWS = ["packaging.py", "token.py"]


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path, build_wheel_dir(tmp_path / "wheels"))


def _kept_with(project: Project, pythonpath: str) -> None:
    """Lock with *pythonpath* until a run is answered from the kept lock."""
    first, _ = project.run(PYTHONPATH=pythonpath)
    assert first.returncode == 0, first.stdout + first.stderr
    for _attempt in range(3):
        again, kept = project.run(PYTHONPATH=pythonpath)
        assert again.returncode == 0, again.stdout + again.stderr
        if kept:
            return
    raise AssertionError("the lock was never answered from what it kept")


def _earlier(root: Path) -> Path:
    """A folder to put first on the search path, named apart from the venvs the arming makes in *root*."""
    folder = root / "put-first"
    folder.mkdir()
    backdate(folder)
    return folder


@pytest.mark.parametrize("shadow", SHADOWS)
def test_a_module_put_first_on_the_search_path_after_a_kept_lock_gives_the_full_locks_answer(
    project: Project, shadow: str
) -> None:
    first = _earlier(project.root)
    _kept_with(project, str(first))
    (first / shadow).write_text('raise ImportError("the module of the project")\n', encoding="utf-8")
    full, _ = project.run(cache=False, PYTHONPATH=str(first))
    assert full.returncode != 0
    assert "the module of the project" in full.stderr
    after, _ = project.run(PYTHONPATH=str(first))
    assert (after.returncode, after.stdout) == (full.returncode, full.stdout)
    assert "the module of the project" in after.stderr


@pytest.fixture
def arming(tmp_path: Path, kit: Kit, venv_told: Path) -> Arming:
    backdate(kit.empty_venv)
    return Arming(tmp_path, kit, "uv", told=venv_told)


@pytest.mark.slow
@pytest.mark.parametrize("shadow", SHADOWS)
def test_a_module_put_first_on_the_search_path_after_an_arming_was_kept_starts_no_backend_early(
    arming: Arming, shadow: str
) -> None:
    first = _earlier(arming.root)
    arming.env["PYTHONPATH"] = str(first)
    arming.kept_first()
    (first / shadow).write_text('raise ImportError("the module of the project")\n', encoding="utf-8")
    slow, _doc, slow_runs = arming.arm(arming.venv("slow"), env={**arming.env, "TIERLOCK_CACHE_DIR": ""})
    assert "the module of the project" in arming.last_err
    venv = arming.venv("second")
    code, _doc, runs = arming.arm(venv)
    assert "the module of the project" in arming.last_err
    assert (code, runs) == (slow, slow_runs) == (slow, [])
    (first / shadow).unlink()
    assert arming.present(venv) == "absent"


@pytest.mark.slow
@pytest.mark.parametrize(
    "where",
    ["uv.toml", "pyproject.toml", "up/uv.toml", "config/uv/uv.toml", "config/other.toml"],
    ids=["here", "here-pyproject", "above", "user", "a-file-uv-does-not-read"],
)
def test_a_uv_configuration_file_put_where_uv_reads_it_since_the_plan_was_kept_is_no_early_start(
    arming: Arming, where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """uv reads its configuration from the working folder and each one above it, the user's and the system's
    folders (the tests' runs say ``UV_NO_CONFIG``; here uv reads them): a file put there after the plan was kept
    may change what uv does with the kept command, so the plan no longer holds."""
    here = arming.root / "up" / "work"
    here.mkdir(parents=True)
    backdate(arming.root / "up")
    monkeypatch.chdir(here)
    del arming.env["UV_NO_CONFIG"]
    arming.env["XDG_CONFIG_HOME"] = str(arming.root / "config")
    arming.env["XDG_CONFIG_DIRS"] = str(arming.root / "system")
    arming.kept_first()
    path = arming.root / where if where.startswith(("up/", "config/")) else here / where
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "no-cache = true\n" if path.name == "uv.toml" else "[tool.uv]\nno-cache = true\n"
    path.write_text(text, encoding="utf-8")
    code, _doc, runs = arming.arm(arming.venv("second"))
    assert (code, runs) == (0, ["early" if where == "config/other.toml" else "own"]), arming.last_err
    assert arming.present(arming.root / "second") == "present"


@pytest.mark.parametrize("spoilt", ["argv", "files", "seed"])
def test_a_kept_lock_whose_last_compile_is_spoilt_leaves_no_compile_running_and_no_scratch_folder(
    project: Project, spoilt: str
) -> None:
    """A kept lock's entry (the cache is the user's files: an older tierlock's, a disk's, a hostile edit) whose
    last compile cannot be started: the compiles started before it are ended and their folders removed, and the
    lock runs in full (the answer of a run that keeps nothing)."""
    import marshal

    _kept_with(project, "")
    entries = [p for p in project.cache.glob("runs-*.marshal") if (marshal.loads(p.read_bytes()) or {}).get("kind")]
    assert len(entries) == 1
    entry = marshal.loads(entries[0].read_bytes())
    assert len(entry["compiles"]) >= 2, "a lock of more than one tier"
    last = entry["compiles"][-1]
    if spoilt == "seed":
        last["seed"] = str(project.root / "no-such-lockfile.txt")
    else:
        del last[spoilt]
    entries[0].write_bytes(marshal.dumps(entry))
    full, _ = project.run(cache=False, PYTHONPATH="")
    after, kept = project.run(PYTHONPATH="")
    assert not kept
    assert (after.returncode, after.stdout) == (full.returncode, full.stdout)
    assert project.scratch_left() == []


@pytest.mark.slow
@pytest.mark.parametrize("value", ["0", "false", "OFF"])
def test_a_uv_toml_put_in_the_working_folder_while_uv_no_config_says_false_is_no_early_start(
    arming: Arming, value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``UV_NO_CONFIG=0`` (``false``, ``off``: uv's false words) has uv read its configuration files as without it:
    a ``uv.toml`` put in the working folder after the plan was kept changes what uv reads, so the plan no longer
    holds."""
    here = arming.root / "work"
    here.mkdir()
    backdate(here)
    monkeypatch.chdir(here)
    arming.env["UV_NO_CONFIG"] = value
    arming.env["XDG_CONFIG_HOME"] = str(arming.root / "config")
    arming.env["XDG_CONFIG_DIRS"] = str(arming.root / "system")
    arming.kept_first()
    (here / "uv.toml").write_text("no-cache = true\n", encoding="utf-8")
    code, _doc, runs = arming.arm(arming.venv("second"))
    assert (code, runs) == (0, ["own"]), arming.last_err
