"""The backends' small parts: the uv asked for and missing, each one's version, the project's folders in a command,
and the causes of a failure cut to what a screen holds. Real files and a real executable in ``tmp_path``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.targets import a_target
from tierlock.errors import TierlockError
from tierlock.installer import backends


def test_the_uv_backend_asked_for_and_missing_is_an_error_naming_where_it_was_looked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(backends.UV_ENV, str(tmp_path / "uv"))
    with pytest.raises(TierlockError) as caught:
        backends.choose("uv", a_target(tmp_path / "venv"))
    assert f"${backends.UV_ENV}={tmp_path / 'uv'}" in caught.value.message
    assert caught.value.remedy == "pip install uv, or pass --backend pip"


@pytest.mark.parametrize(("prints", "version"), [("uv 0.9.9 (abc 2026-01-01)", "0.9.9"), ("uv", "?")])
def test_a_uv_of_its_own_tells_its_version_by_running_it(tmp_path: Path, prints: str, version: str) -> None:
    uv = tmp_path / "uv"
    uv.write_text(f"#!/bin/sh\necho '{prints}'\n", encoding="utf-8")
    uv.chmod(0o755)
    assert backends.UvBackend(uv).version() == version


def test_pips_version_is_read_from_its_folder_in_the_site_it_runs_from(tmp_path: Path) -> None:
    (tmp_path / "pip-25.0.dist-info").mkdir()
    pip = backends.PipBackend(python=tmp_path / "python", target_flag=False, sites=(tmp_path,))
    assert pip.version() == "25.0"


def test_the_projects_folders_are_given_editable_or_not_as_they_are_installed(tmp_path: Path) -> None:
    folders = [(tmp_path / "app", True, "app"), (tmp_path / "lib", False, "lib")]
    argv = backends.UvBackend(tmp_path / "uv").local_argv(a_target(tmp_path / "venv"), folders, ())
    assert argv[-3:] == ["-e", str(tmp_path / "app"), str(tmp_path / "lib")]


def test_the_causes_of_a_failure_past_what_a_screen_holds_end_with_how_many_more_there_are() -> None:
    output = "\n".join(f"error: cause number {n}" for n in range(15))
    found = backends.causes(output)
    assert len(found) == backends.MAX_CAUSES
    assert found[: backends.MAX_CAUSES - 1] == [f"error: cause number {n}" for n in range(11)]
    assert found[-1] == "... and 4 more line(s) (run with -v)"
