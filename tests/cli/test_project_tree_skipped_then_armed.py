"""The project's tree step: skipped once, then asked for; failing; interrupted. Real uv and real pip.

``install-tier brain --no-install-project`` wrote a receipt the no-op fast path took as proof for a later plain
``install-tier brain``: "nothing to do", and the project was never installed (``uv sync`` after ``uv sync
--no-install-project`` installs it). A build of the project that failed after the tier's packages were in was
recorded nowhere, so ``tierlock status`` called the tier present and said nothing. Here the ``single`` layout of
the remedy walker is made a package (an in-tree build backend, so it installs editable offline), armed with each
backend in both orders, broken in the ways a user's project breaks, and interrupted in the middle of that step.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.interpreters import interpreter, make_venv_with
from tests.support.probe_env import BACKEND
from tests.support.remedyscene import Parts, scene_for
from tests.support.remedystates import State
from tests.support.remedywalk import Scene, command, copy_tree, present, read, walk

BUILD = '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n\n'

#: Appended to the backend: while ``SLOW`` is in the project folder, the build says it started and waits.
SLOW_BUILD = """

_build_editable = build_editable


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    import time
    here = os.path.dirname(os.path.abspath(__file__))
    if os.path.exists(os.path.join(here, "SLOW")):
        open(os.path.join(here, "STARTED"), "w").close()
        time.sleep(120)
    return _build_editable(wheel_directory, config_settings, metadata_directory)
"""

BACKENDS = ["uv", "pip"]


def packaged(scene: Scene, name: str = "app") -> None:
    """The project made a package that builds editable offline (``app`` 0.1.0, ``src/app``)."""
    pyproject = scene.root / "pyproject.toml"
    pyproject.write_text(BUILD + pyproject.read_text(encoding="utf-8"), encoding="utf-8")
    (scene.root / "backend.py").write_text(BACKEND.format(name=name, version="0.1.0") + SLOW_BUILD, "utf-8")
    (scene.root / "src" / name).mkdir(parents=True)
    (scene.root / "src" / name / "__init__.py").write_text("X = 1\n", encoding="utf-8")


def _scene(tmp_path: Path, parts: Parts, setup: Callable[[Scene], None] = packaged) -> Scene:
    return scene_for(State("project tree", "single", setup, ("status", "brain"), present("brain")), tmp_path, parts)


def _install(scene: Scene, backend: str, *flags: str) -> tuple[int, dict[str, object]]:
    done = scene.run(["install-tier", "brain", *scene.where(), "--backend", backend, *flags, "--json"])
    return done.returncode, json.loads(done.stdout)


def _status(scene: Scene) -> tuple[dict[str, object], str]:
    """The status row of brain (``--json``) and the human report."""
    document = json.loads(scene.tierlock("status", "brain", "--json").stdout)
    return document["tiers"][0], scene.tierlock("status", "brain").stdout


def _local(document: dict[str, object]) -> list[tuple[object, object]]:
    rows = document["local_packages"]
    assert isinstance(rows, list)
    return [(row["name"], row["action"]) for row in rows]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_plain_install_after_one_without_the_project_installs_the_project(
    tmp_path: Path, walk_parts: Parts, backend: str
) -> None:
    scene = _scene(tmp_path, walk_parts)
    code, skipped = _install(scene, backend, "--no-install-project")
    assert (code, skipped["result"], _local(skipped)) == (0, "installed", []), skipped
    assert "app" not in scene.installed()
    receipt = scene.receipt("brain")
    assert receipt is not None
    assert receipt["without_project"] is True
    row, text = _status(scene)
    assert (row["state"], row["without_project"], row["remedy"]) == ("present", True, None), row
    assert "; without the project itself (--no-install-project)" in text, text

    # the flag again: the receipt proves it (a command without the project asks nothing of it)
    code, again = _install(scene, backend, "--no-install-project")
    assert (code, again["result"], again["receipts"]) == (0, "unchanged", []), again

    # the plain command, as a user types it after the first (the console script's own fast path first)
    plain = scene.run(["install-tier", "brain", *scene.where(), "--backend", backend])
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert "nothing to do" not in plain.stdout, plain.stdout
    assert f"brain: installed - app from the project tree (3 package(s) already present) with {backend} in " in (
        plain.stdout
    ), plain.stdout
    assert scene.installed().get("app") == "0.1.0"
    receipt = scene.receipt("brain")
    assert receipt is not None
    assert "without_project" not in receipt
    assert "app" in {p["name"] for p in receipt["packages"]}
    row, text = _status(scene)
    assert (row["state"], row["without_project"], row["remedy"]) == ("present", False, None), row
    assert "without the project itself" not in text
    code, noop = _install(scene, backend)
    assert (code, noop["result"], noop["backend"]) == (0, "unchanged", None), noop


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_install_without_the_project_after_a_plain_one_changes_nothing_and_the_plain_one_stays_a_no_op(
    tmp_path: Path, walk_parts: Parts, backend: str
) -> None:
    scene = _scene(tmp_path, walk_parts)
    first = scene.run(["install-tier", "brain", *scene.where(), "--backend", backend])
    assert first.returncode == 0, first.stdout + first.stderr
    said = f"brain: installed - 3 installed of 3 package(s), and app from the project tree, with {backend} in "
    assert said in first.stdout, first.stdout
    code, skipped = _install(scene, backend, "--no-install-project")
    assert (code, skipped["result"]) == (0, "unchanged"), skipped  # never removes the project (additive)
    assert scene.installed().get("app") == "0.1.0"
    receipt = scene.receipt("brain")
    assert receipt is not None
    assert "without_project" not in receipt
    code, plain = _install(scene, backend)
    assert (code, plain["result"], plain["backend"]) == (0, "unchanged", None), plain
    row, _text = _status(scene)
    assert (row["state"], row["without_project"]) == ("present", False)


def _backend_raises(scene: Scene) -> None:
    packaged(scene)
    (scene.root / "backend.py").write_text("raise RuntimeError('this build backend is broken')\n", "utf-8")


def _backend_not_on_the_index(scene: Scene) -> None:
    packaged(scene)
    pyproject = scene.root / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8").replace("requires = []", 'requires = ["no-such-backend>=1"]')
    pyproject.write_text(text, encoding="utf-8")


def _requires_not_a_list(scene: Scene) -> None:
    """A ``[build-system]`` the build frontends refuse (tierlock itself reads the file fine)."""
    packaged(scene)
    pyproject = scene.root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace("requires = []", 'requires = "x"'), "utf-8")


BROKEN = {"backend raises": _backend_raises, "backend missing": _backend_not_on_the_index}
BROKEN["requires not a list"] = _requires_not_a_list


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("broken", sorted(BROKEN))
def test_a_failed_project_build_is_recorded_status_shows_it_and_its_printed_remedy_converges(
    tmp_path: Path, walk_parts: Parts, backend: str, broken: str
) -> None:
    scene = _scene(tmp_path, walk_parts, BROKEN[broken])
    code, failed = _install(scene, backend)
    assert code == 3, failed
    error = failed["error"]
    assert isinstance(error, dict)
    again = ["install-tier", "brain", *scene.where(), "--backend", backend]
    assert error["remedy_argv"] == [[*again, "--no-install-project"]], error
    assert "the tier's own packages are installed, the project app itself is not" in error["message"]
    assert scene.receipt("brain") is None
    record = json.loads((scene.venv / "tierlock" / "failures" / "brain.json").read_text(encoding="utf-8"))
    assert record["step"] == "project-tree"

    row, text = _status(scene)
    assert row["state"] == "present", row  # the tier's packages are all in
    assert row["last_failure"] == record
    problems = row["problems"]
    assert isinstance(problems, list), row
    assert problems[0].startswith("the last install-tier of brain failed ("), row
    assert "the last install-tier of brain failed" in text
    assert row["remedy_argv"] == error["remedy_argv"]
    assert f"to fix: {error['remedy']}" in text, text

    # the printed remedies, run as printed (status is asked after each), reach a healthy state
    assert walk(scene, command(scene, ("status", "brain")), present("brain")) == 1
    row, text = _status(scene)
    assert (row["without_project"], row["last_failure"]) == (True, None), row
    assert not (scene.venv / "tierlock" / "failures" / "brain.json").exists()

    # the plain command tries the project again, and says the same (it does not answer "nothing to do")
    code, retried = _install(scene, backend)
    assert code == 3, retried
    assert read(scene, command(scene, ("status", "brain"))).remedy_argv == [[*again, "--no-install-project"]]

    # the build fixed: the plain command installs the project and status forgets the failure
    (scene.root / "pyproject.toml").write_text(
        (scene.root / "pyproject.toml")
        .read_text(encoding="utf-8")
        .replace('"no-such-backend>=1"', "")
        .replace('requires = "x"', "requires = []"),
        encoding="utf-8",
    )
    (scene.root / "backend.py").write_text(BACKEND.format(name="app", version="0.1.0"), "utf-8")
    code, fixed = _install(scene, backend)
    assert (code, _local(fixed)) == (0, [("app", "install")]), fixed
    row, _text = _status(scene)
    assert (row["state"], row["remedy"], row["last_failure"], row["without_project"]) == ("present", None, None, False)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_interrupt_while_the_project_builds_exits_130_and_the_rerun_completes(
    tmp_path: Path, walk_parts: Parts, backend: str
) -> None:
    scene = _scene(tmp_path, walk_parts)
    (scene.root / "SLOW").touch()
    argv = ["install-tier", "brain", *scene.where(), "--backend", backend]
    with subprocess.Popen(
        argv, cwd=scene.root, env=scene.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        deadline = time.monotonic() + 120
        while not (scene.root / "STARTED").exists():
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the project's build never started"
            time.sleep(0.05)
        os.kill(process.pid, signal.SIGINT)  # what Ctrl-C sends tierlock (its backend has a group of its own)
        out, err = process.communicate(timeout=60)
    assert process.returncode == 130, out + err
    assert "interrupted" in err, err
    assert "no receipt was written" in err, err
    assert err.count("ERROR") == 1, err
    assert scene.receipt("brain") is None
    assert "corelib" in scene.installed()  # the tier's packages were in before the project step
    assert "app" not in scene.installed()

    (scene.root / "SLOW").unlink()
    row, text = _status(scene)  # the interrupt is recorded: status says the project's step did not finish
    assert row["state"] == "present", row
    record = row["last_failure"]
    assert isinstance(record, dict), row
    assert record["step"] == "project-tree", row
    assert "interrupted while installing the packages of the project's tree" in text, text
    assert row["remedy_argv"] == [argv], row
    assert walk(scene, command(scene, ("status", "brain")), present("brain")) == 1  # the same command, as printed
    assert scene.installed().get("app") == "0.1.0"
    receipt = scene.receipt("brain")
    assert receipt is not None
    assert "app" in {p["name"] for p in receipt["packages"]}
    row, _text = _status(scene)
    assert (row["state"], row["remedy"], row["last_failure"]) == ("present", None, None), row


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_project_whose_installed_files_went_missing_is_installed_again_by_the_plain_command(
    tmp_path: Path, walk_parts: Parts, backend: str
) -> None:
    """The project's ``.dist-info`` still says it was installed from its folder, but a file its RECORD lists is gone
    (the editable ``.pth``: ``import app`` fails): the receipt's sizes send the command the full way, and the full
    way must reinstall it rather than call it installed and write a receipt that is wrong again at once."""
    scene = _scene(tmp_path, walk_parts)
    code, armed = _install(scene, backend)
    assert (code, _local(armed)) == (0, [("app", "install")]), armed
    (scene.site / "_app_editable.pth").unlink()
    code, repaired = _install(scene, backend)
    assert code == 0, repaired
    assert _local(repaired) == [("app", "install")], repaired
    assert (scene.site / "_app_editable.pth").is_file()
    code, noop = _install(scene, backend)
    assert (code, noop["result"], noop["backend"]) == (0, "unchanged", None), noop


@pytest.mark.parametrize("backend", BACKENDS)
def test_on_another_python_than_tierlocks_the_plain_install_after_one_without_the_project_installs_it(
    tmp_path: Path, walk_parts: Parts, backend: str
) -> None:
    """tierlock on 3.11 arms a 3.12 venv (the ``aggregate`` layout's pure ``a`` tier, project ``proj``)."""
    root = copy_tree(walk_parts.layouts["aggregate"], tmp_path / "project")
    make_venv_with(interpreter("3.12.1").python, tmp_path / "venv")
    scene = Scene("aggregate on 3.12", root, tmp_path / "venv", walk_parts.wheels, walk_parts.cache)
    packaged(scene, "proj")
    flags = [*scene.where(), "--backend", backend]
    skipped = scene.run(["install-tier", "a", *flags, "--no-install-project"])
    assert skipped.returncode == 0, skipped.stdout + skipped.stderr
    assert "proj" not in scene.installed()
    plain = scene.run(["install-tier", "a", *flags])
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert "a: installed - proj from the project tree (" in plain.stdout, plain.stdout
    assert scene.installed().get("proj") == "0.1.0"
    assert "python3.12" in str(scene.site)
    again = scene.run(["install-tier", "a", *flags])
    assert "nothing to do" in again.stdout, again.stdout
