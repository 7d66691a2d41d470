"""An install whose backend started early loads the rest of its modules from one bundle (``_entry._arm``).

Everything an arming imports after its early start (the CLI, the tier model, the lockfiles, the installer:
~240 modules) is imported while the backend runs, on the cores it uses: from the install's bundle of their code
(:mod:`tierlock.codebundle`, as a read-only command's full run) the import system finds and reads one file
instead of one per module. An install that starts nothing early imports as before (it is recorded for the next
one's plan).
"""

from __future__ import annotations

import sys
from typing import Any

import pytest

from tierlock import _entry, armplan, codebundle, earlyarm


@pytest.fixture
def bundles(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The bundles installed (the commands named), with the CLI and the early start stood in for."""
    installed: list[str] = []
    monkeypatch.setattr(codebundle, "install", installed.append)
    monkeypatch.setattr(_entry, "_cli", lambda argv, prog=None: 0)
    monkeypatch.setattr(armplan, "eligible", lambda argv: True)
    monkeypatch.setattr(earlyarm, "finish", lambda code: None)
    return installed


def test_an_install_whose_backend_started_early_loads_its_modules_from_the_install_bundle(
    bundles: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(earlyarm, "start", lambda argv: object())
    assert _entry._arm(["brain"], ["install", "brain"], prog="install-tier") == 0
    assert bundles == ["install"]


def test_an_install_that_starts_nothing_early_is_recorded_and_loads_no_bundle(
    bundles: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded: list[Any] = []

    class Recording:
        @staticmethod
        def end(argv: list[str], code: int) -> None:
            recorded.append((argv, code))

    monkeypatch.setattr(earlyarm, "start", lambda argv: None)
    monkeypatch.setattr(_entry, "_recording", lambda: Recording)
    assert _entry._arm(["brain"], ["install", "brain"], prog="install-tier") == 0
    assert bundles == []
    assert recorded == [(["brain"], 0)]


@pytest.mark.parametrize("early", [True, False], ids=["started-early", "recorded"])
def test_an_arming_runs_with_the_cyclic_collector_held_off_and_gives_it_back_after(
    bundles: list[str], monkeypatch: pytest.MonkeyPatch, early: bool
) -> None:
    import gc

    seen: list[bool] = []

    class Recording:
        @staticmethod
        def end(argv: list[str], code: int) -> None:
            seen.append(gc.isenabled())

    def cli(argv: list[str], prog: str | None = None) -> int:
        seen.append(gc.isenabled())
        return 0

    monkeypatch.setattr(_entry, "_cli", cli)
    monkeypatch.setattr(earlyarm, "start", lambda argv: object() if early else None)
    monkeypatch.setattr(_entry, "_recording", lambda: Recording)
    assert gc.isenabled()
    assert _entry._arm(["brain"], ["install", "brain"], prog="install-tier") == 0
    assert seen == ([False] if early else [False, False])
    assert gc.isenabled()


def test_an_install_the_early_start_cannot_serve_keeps_the_collector_on(
    bundles: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import gc

    seen: list[bool] = []

    def cli(argv: list[str], prog: str | None = None) -> int:
        seen.append(gc.isenabled())
        return 0

    monkeypatch.setattr(armplan, "eligible", lambda argv: False)
    monkeypatch.setattr(_entry, "_cli", cli)
    assert _entry._arm(["brain"], ["install", "brain"], prog="install-tier") == 0
    assert seen == [True]


def test_install_tier_holds_the_collector_off_from_its_start_and_an_install_the_early_start_cannot_serve_gets_it_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gc

    seen: list[tuple[str, bool]] = []

    def fast(argv: list[str], *, command: bool) -> None:
        seen.append(("no-op check", gc.isenabled()))

    def cli(argv: list[str], prog: str | None = None) -> int:
        seen.append(("cli", gc.isenabled()))
        return 0

    def leave(code: int) -> None:
        raise SystemExit(code)

    monkeypatch.setattr(_entry, "_fast", fast)
    monkeypatch.setattr(_entry, "_cli", cli)
    monkeypatch.setattr(_entry, "_exit", leave)
    monkeypatch.setattr(armplan, "eligible", lambda argv: False)
    monkeypatch.setattr(sys, "argv", ["install-tier", "brain", "--dry-run"])
    try:
        with pytest.raises(SystemExit):
            _entry.install_tier()
    finally:
        gc.enable()
    assert seen == [("no-op check", False), ("cli", True)]
