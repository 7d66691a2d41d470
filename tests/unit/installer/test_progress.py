"""The installer's core talks to a Progress, not to a terminal: a library caller can arm a tier silently,
or collect what the installer says with its own object of that shape."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.env import make_venv, site_packages
from tests.support.tierproject import make_project
from tierlock.installer.progress import Progress, Silent
from tierlock.installer.request import Request
from tierlock.installer.run import install
from tierlock.tiers import load_project


class Collected:
    """Progress kept in a list, as a GUI or a service would show it."""

    quiet = False
    fancy = True

    def __init__(self) -> None:
        self.said: list[tuple[str, str]] = []

    def line(self, text: str) -> None:
        self.said.append(("line", text))

    def note(self, text: str) -> None:
        self.said.append(("note", text))

    def detail(self, text: str) -> None:
        self.said.append(("detail", text))

    @contextmanager
    def status(self, text: str) -> Iterator[None]:
        self.said.append(("status", text))
        yield


def _arm(tmp_path: Path, wheelhouse: dict[str, Path], progress: Progress, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = next(iter(wheelhouse.values())).parent
    for key, value in {"UV_NO_INDEX": "1", "UV_FIND_LINKS": str(folder), "PIP_NO_INDEX": "1"}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("PIP_FIND_LINKS", str(folder))
    monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path / "uv-cache"))
    root = make_project(tmp_path / "app", wheelhouse)
    python = make_venv(tmp_path / "venv")
    outcome = install(load_project(root), Request(("brain",), python=str(python)), progress)
    assert (outcome.result, outcome.packages) == ("installed", 3)
    return tmp_path / "venv"


def test_a_silent_install_arms_the_tier_and_prints_nothing(
    tmp_path: Path, wheelhouse: dict[str, Path], monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    venv = _arm(tmp_path, wheelhouse, Silent(), monkeypatch)
    assert (site_packages(venv) / "corelib").is_dir()
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")


def test_a_callers_progress_hears_the_plan_and_the_backend_step(
    tmp_path: Path, wheelhouse: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    heard = Collected()
    _arm(tmp_path, wheelhouse, heard, monkeypatch)
    kinds = {kind for kind, _ in heard.said}
    assert "status" in kinds  # the backend's step, shown while it runs
    assert any("planning 3 package(s) for brain" in text for _, text in heard.said), heard.said
