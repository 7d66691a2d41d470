"""A locked file built for another Python than the target's: install-tier says so instead of printing itself again.

The walker's ``corelib`` wheel is tagged ``py3-none-any`` but ships ``_core`` built for tierlock's own Python
(3.11), as a mis-built wheel does. Armed into a 3.12 venv, uv installs it, the verifying probe finds the
extension built for another Python, and install-tier printed ``to fix: install-tier brain --python ...``, the
command that had just failed: run as printed it installs the same file and fails the same way, forever. The
remedy now says what would change the outcome (a build for the target's Python in the lock, or another
environment), and it is no command (``remedy_argv`` null): nothing tierlock can run installs another file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.interpreters import interpreter, make_venv_with
from tests.support.remedyscene import Parts
from tests.support.remedywalk import Scene, command, copy_tree, present, walk

OTHER = "3.12.1"


@pytest.fixture
def on_312(tmp_path: Path, walk_parts: Parts) -> Scene:
    python = interpreter(OTHER).python
    root = copy_tree(walk_parts.layouts["single"], tmp_path / "project")
    make_venv_with(python, tmp_path / "venv")
    return Scene("single on 3.12", root, tmp_path / "venv", walk_parts.wheels, walk_parts.cache)


def test_a_locked_wheel_whose_extension_is_built_for_another_python_is_said_so_and_not_retried_as_the_remedy(
    on_312: Scene,
) -> None:
    scene = on_312
    first = scene.run(["install-tier", "brain", *scene.where(), "--json"])
    assert first.returncode == 3, first.stdout + first.stderr
    error = json.loads(first.stdout)["error"]
    assert "corelib==1.0 of brain still hold(s) an extension module built for another Python" in error["message"]
    assert error["remedy_argv"] is None, error
    assert "install-tier" not in error["remedy"]
    assert "a build of corelib==1.0 for the target's Python" in error["remedy"]
    assert scene.receipt("brain") is None
    text = scene.run(["install-tier", "brain", *scene.where()])  # the same answer as text, on the rerun too
    assert text.returncode == 3
    assert f"to fix: install-tier brain --python {scene.python}" not in text.stderr, text.stderr
    probe = json.loads(scene.tierlock("probe", "brain", "--json").stdout)["tiers"][0]
    assert probe["state"] == "partial"
    assert any("is built for another Python" in r for d in probe["closure"] + probe["roots"] for r in d["reasons"])


def test_on_the_other_python_a_husk_of_a_pure_package_is_still_repaired_by_the_printed_remedy(on_312: Scene) -> None:
    """Only a locked build for another Python is hopeless: a file lost from a package the target imports is
    repaired by status's remedy, run as printed, as on tierlock's own Python."""
    scene = on_312
    scene.arm("base")
    (scene.site / "basepkg" / "__init__.py").unlink()
    assert walk(scene, command(scene, ("status", "base")), present("base")) == 1
