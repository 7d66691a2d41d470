"""The project's tree step of an arming: a failure or an interrupt there is recorded for ``status`` (step
``project-tree``) and raised; a success names the backend that ran.

The step's one collaborator, :func:`tierlock.installer.projecttree.arm_missing` (which runs the real backend, as
``tests/cli/test_project_tree_skipped_then_armed.py`` shows with uv and pip), is replaced here by what it returns or
raises; the record is the real file in a temporary environment.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tierlock.errors import BackendError
from tierlock.installer import failures, projecttree, treestep
from tierlock.installer.request import Request

AGAIN = "install-tier brain --backend uv"


def _job(prefix: Path) -> Any:
    tier = SimpleNamespace(name="brain")
    return SimpleNamespace(tiers=[tier], target=SimpleNamespace(prefix=prefix), local=("app",))


def _arm(monkeypatch: pytest.MonkeyPatch, prefix: Path, outcome: Any, ran: tuple[str | None, str | None]) -> Any:
    seen: dict[str, Any] = {}

    def arm_missing(local: Any, target: Any, ui: Any, backend: Any, **kw: Any) -> Any:
        seen.update(kw, local=local, target=target, ui=ui, backend=backend)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    monkeypatch.setattr(projecttree, "arm_missing", arm_missing)
    project = SimpleNamespace(name="app")
    request = Request(("brain",), backend="uv", index=("--no-index",))
    chooser = object()
    got = treestep.arm(project, request, "ui", _job(prefix), ran, backend=chooser)  # type: ignore[arg-type]
    assert (seen["again"], seen["index"], seen["project"], seen["backend"]) == (AGAIN, ("--no-index",), "app", chooser)
    assert (seen["local"], seen["ui"]) == (("app",), "ui")
    return got


def test_a_failure_at_the_tree_is_recorded_with_its_step_and_raised(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    error = BackendError("uv install of app failed", remedy=f"{AGAIN} --no-install-project")
    with pytest.raises(BackendError):
        _arm(monkeypatch, tmp_path, error, (None, None))
    record = failures.read(tmp_path, "brain")
    assert record is not None
    assert (record["step"], record["tiers"], record["error"]) == ("project-tree", ["brain"], error.to_dict())


def test_an_interrupt_at_the_tree_is_recorded_with_the_same_command_and_raised(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with pytest.raises(KeyboardInterrupt):
        _arm(monkeypatch, tmp_path, KeyboardInterrupt(), (None, None))
    record = failures.read(tmp_path, "brain")
    assert record is not None
    assert record["step"] == "project-tree"
    assert record["error"] == treestep.interrupted(AGAIN).to_dict()
    assert (record["error"]["kind"], record["error"]["remedy"], record["error"]["exit_code"]) == (
        "interrupted",
        AGAIN,
        130,
    )
    assert "interrupted while installing the packages of the project's tree" in record["error"]["message"]


def test_a_success_names_the_backend_that_installed_the_pins_else_the_one_that_armed_the_tree(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    steps = ["step"]
    assert _arm(monkeypatch, tmp_path, (steps, None), ("pip", "24.2")) == (steps, "pip", "24.2")
    assert _arm(monkeypatch, tmp_path, (steps, None), (None, None)) == (steps, None, None)
    tree = SimpleNamespace(name="uv", version=lambda: "0.9.1")
    assert _arm(monkeypatch, tmp_path, (steps, tree), ("pip", "24.2")) == (steps, "pip", "24.2")
    assert _arm(monkeypatch, tmp_path, (steps, tree), (None, None)) == (steps, "uv", "0.9.1")
    assert _arm(monkeypatch, tmp_path, (steps, tree), ("pip", None)) == (steps, "pip", None)  # its version unread
    assert failures.read(tmp_path, "brain") is None
