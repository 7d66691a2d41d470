"""A uv too old to hash every wheel of a pylock lock is refused before it runs, naming both versions and the command
that brings a new enough one; the requirements format still locks with it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tierlock.errors import BackendError
from tierlock.lockfiles.resolvers import PYLOCK_MIN_UV, CompileRequest, UvBackend


def _fake_uv(folder: Path, version: str) -> Path:
    """A stand-in uv on the far side of the process boundary: it only says its version, and records any other call."""
    folder.mkdir(parents=True, exist_ok=True)
    uv = folder / "uv"
    uv.write_text(
        f'#!/bin/sh\nif [ "$1" = "--version" ]; then echo "uv {version}"; exit 0; fi\necho "$@" > "{folder}/called"\n',
        encoding="utf-8",
    )
    uv.chmod(0o755)
    return uv


def _request(tmp_path: Path, fmt: str, constraints: Path | None = None) -> CompileRequest:
    (tmp_path / "in.txt").write_text("alpha\n", encoding="utf-8")
    return CompileRequest(tmp_path / "in.txt", tmp_path / "out", constraints, fmt, None, cwd=tmp_path)


def test_a_uv_older_than_the_pylock_floor_is_refused_naming_both_versions(tmp_path: Path) -> None:
    uv = _fake_uv(tmp_path / "bin", "0.12.10")
    with pytest.raises(BackendError) as caught:
        UvBackend(str(uv)).compile(_request(tmp_path, "pylock"))
    assert caught.value.exit_code == 3
    assert f"uv 0.12.10 ({uv}) cannot write a pylock lockfile" in caught.value.message
    assert f"needs uv {PYLOCK_MIN_UV} or newer" in caught.value.message
    assert caught.value.remedy is not None
    assert caught.value.remedy.endswith(f"install 'uv>={PYLOCK_MIN_UV}'")
    assert not (tmp_path / "bin" / "called").exists()  # refused before uv ran


@pytest.mark.parametrize("version", [PYLOCK_MIN_UV, "0.13.0", "1.0.0"])
def test_a_uv_at_or_above_the_floor_is_asked_for_a_pylock(tmp_path: Path, version: str) -> None:
    uv = _fake_uv(tmp_path / "bin", version)
    UvBackend(str(uv)).compile(_request(tmp_path, "pylock"))
    assert "--format pylock.toml" in (tmp_path / "bin" / "called").read_text(encoding="utf-8")


def test_an_old_uv_still_locks_the_requirements_format_with_the_constraint_spelling_it_knows(tmp_path: Path) -> None:
    uv = _fake_uv(tmp_path / "bin", "0.5.0")
    (tmp_path / "c.txt").write_text("", encoding="utf-8")
    UvBackend(str(uv)).compile(_request(tmp_path, "requirements", tmp_path / "c.txt"))
    called = (tmp_path / "bin" / "called").read_text(encoding="utf-8")
    assert "--format" not in called
    assert f"--constraint {tmp_path / 'c.txt'}" in called
