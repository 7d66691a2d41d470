"""The plugin's remedy for a tier another armed tier's receipt blocks: it carries ``--replace-armed``.

Seen on narwhals: ``ibis`` armed pins ``sqlglot`` 30.31.0, the ``sqlframe`` lock 30.29.0. A strict run printed
``to fix: install-tier sqlframe --python ...``, which install-tier refuses as printed ("arming sqlframe would
replace sqlglot pinned by the armed tier(s) ibis ..."); ``tierlock probe`` printed the same command with
``--replace-armed``. Here: the ``siblings`` layout of the remedy walker (brain and fast pin ``corelib``
differently), brain made stale by ``install-tier fast --replace-armed``, brain required in CI; the plugin runs in
the scene's own venv (pytest and tierlock reached through a ``.pth``), and its remedy is run exactly as printed.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from pathlib import Path

from tests.support.remedyscene import Parts, scene_for
from tests.support.remedystates import State
from tests.support.remedytour import plugin_ready
from tests.support.remedywalk import Scene, present
from tierlock.pytest_plugin import EXIT_TIER_MISSING

TEST = "import corelib\n\n\ndef test_brain():\n    assert corelib\n"


def _stale_brain(scene: Scene) -> None:
    pyproject = scene.root / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    pyproject.write_text(text.replace("[tool.tierlock]\n", '[tool.tierlock]\nci-require = ["brain"]\n'), "utf-8")
    (scene.root / "tests").mkdir()
    (scene.root / "tests" / "test_brain.py").write_text(TEST, encoding="utf-8")
    scene.arm("brain")
    scene.arm("fast", flags=("--replace-armed",))
    plugin_ready(scene)


def _strict_run(name: str, make: Callable[[Scene], None], tmp_path: Path, parts: Parts) -> tuple[Scene, str, list[str]]:
    """A scene made by *make*, pytest run there under ``CI=true``: (the scene, what it printed, each fix)."""
    scene = scene_for(State(name, "siblings", make, ("probe", "brain"), present("brain")), tmp_path, parts)
    scene_env = scene.env
    scene.env = lambda: {**scene_env(), "CI": "true"}  # type: ignore[method-assign]
    code, text = _pytest(scene)
    assert code == EXIT_TIER_MISSING, text
    return scene, text, [line.split("to fix:", 1)[1].strip() for line in text.splitlines() if "to fix:" in line]


def _pytest(scene: Scene) -> tuple[int, str]:
    argv = [str(scene.python), "-m", "pytest", "-p", "no:cacheprovider", "tests"]
    done = scene.run(argv)
    return done.returncode, done.stdout + done.stderr


def test_a_strict_runs_remedy_for_a_tier_a_sibling_receipt_blocks_is_accepted_as_printed(
    tmp_path: Path, walk_parts: Parts
) -> None:
    scene, text, remedies = _strict_run("stale brain under pytest", _stale_brain, tmp_path, walk_parts)
    assert remedies == [f"install-tier brain --python {scene.python} --replace-armed"], text
    done = scene.run(shlex.split(remedies[0]))
    assert done.returncode == 0, "\n".join(scene.log[-2:])
    code, text = _pytest(scene)
    assert code == 0, text
    assert "1 passed" in text
    assert "tierlock: brain present" in text, text  # (fast is stale now: not required, it fails nothing)


def _stale_brain_both_required(scene: Scene) -> None:
    _stale_brain(scene)
    pyproject = scene.root / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    pyproject.write_text(text.replace('ci-require = ["brain"]', 'ci-require = ["brain", "fast"]'), "utf-8")


def test_a_strict_run_needing_two_tiers_whose_locks_disagree_names_the_lock_fix_not_a_rearm_that_loops(
    tmp_path: Path, walk_parts: Parts
) -> None:
    """brain and fast are both required and pin ``corelib`` differently: ``install-tier brain --replace-armed``
    would make fast stale, and fast's remedy then brain again. The run says no install holds both and its remedy
    is ``tierlock check``, which names the two tiers and the edit that lets their locks agree."""
    scene, text, remedies = _strict_run("both required", _stale_brain_both_required, tmp_path, walk_parts)
    assert remedies == ["tierlock check"], text
    assert "--replace-armed" not in text
    assert "its lock and fast's pin a package differently, and this run needs both" in text, text
    done = scene.run(shlex.split(remedies[0]))
    assert done.returncode != 0
    said = done.stdout + done.stderr
    assert "brain and fast can be armed together but their locks disagree on" in said, said
    assert "corelib" in said, said


def test_admits_remedy_for_a_tier_a_sibling_receipt_blocks_is_accepted_as_printed(
    tmp_path: Path, walk_parts: Parts
) -> None:
    """``tierlock admit`` in CI, brain required and made stale by ``install-tier fast --replace-armed``: its probe
    part's remedy carries ``--replace-armed`` as probe's and status's do (install-tier refused it without)."""
    scene = scene_for(
        State("stale brain under admit", "siblings", _stale_brain, ("probe", "brain"), present("brain")),
        tmp_path,
        walk_parts,
    )
    done = scene.tierlock("--json", "admit")
    assert done.returncode != 0, done.stdout
    probe = json.loads(done.stdout)["probe"]
    assert probe["remedy"] == f"install-tier brain --python {scene.python} --replace-armed", probe
    for argv in probe["remedy_argv"]:
        assert scene.run(argv).returncode == 0, "\n".join(scene.log[-2:])
    assert json.loads(scene.tierlock("--json", "admit").stdout)["probe"]["verdict"] == "pass"
