"""The library verdicts kept for a target, read while its backend runs (``libraries.preload``).

An arming whose backend was started early waits for it anyway: the verdicts kept for the target's site folders and
those carried over from other environments are read then, and the verification after the backend finds them
parsed (each file read again only when it changed since).
"""

from __future__ import annotations

import marshal
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tierlock.installer import backends
from tierlock.probing import libcache, libraries

VERDICT: libcache.Kept = ((10, 20, 30, 40), ())


@pytest.fixture
def kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, libraries.Session]:
    """A site folder whose own verdicts and carried-over verdicts are kept on disk (nothing read yet)."""
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(libcache, "_READ", {})
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    session = libraries.Session([str(site)], python=sys.executable)
    libcache.save(session.store, session.environment, {str(site / "a.so"): VERDICT})
    libcache.save(session.moved.store, session.moved.environment, {"@0/a.so": VERDICT})
    monkeypatch.setattr(libcache, "_READ", {})
    return site, session


def _parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = marshal.loads

    def loads(data: Any) -> Any:
        calls.append(len(data))
        return real(data)

    monkeypatch.setattr(marshal, "loads", loads)  # (libcache calls it through the module)
    return calls


def test_preloaded_verdicts_are_not_parsed_again_by_the_probe_after_the_backend(
    kept: tuple[Path, libraries.Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    site, _ = kept
    parses = _parses(monkeypatch)
    libraries.preload([str(site)], sys.executable)
    assert len(parses) == 2  # the target's own verdicts and the carried-over ones
    after = libraries.Session([str(site)], python=sys.executable)  # the verification's probe round
    assert after.kept == {str(site / "a.so"): VERDICT}
    assert after.moved.get(str(site / "a.so")) == VERDICT
    assert len(parses) == 2


def test_a_kept_file_changed_after_the_preload_is_read_again(
    kept: tuple[Path, libraries.Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    site, session = kept
    libraries.preload([str(site)], sys.executable)
    libcache.save(session.store, session.environment, {})  # another process rewrote it meanwhile
    parses = _parses(monkeypatch)
    assert libraries.Session([str(site)], python=sys.executable).kept == {}
    assert len(parses) == 1


def test_a_preload_that_fails_is_silent(kept: tuple[Path, libraries.Session], monkeypatch: pytest.MonkeyPatch) -> None:
    site, _ = kept

    def failing(*args: object) -> None:
        raise OSError("no")

    monkeypatch.setattr(libcache, "load", failing)
    libraries.preload([str(site)], sys.executable)  # read when the probe needs them, which says what is wrong


def test_the_verification_s_verdicts_are_read_while_an_early_backend_runs(
    kept: tuple[Path, libraries.Session], monkeypatch: pytest.MonkeyPatch
) -> None:
    site, session = kept
    backends._before_verification(SimpleNamespace(site_paths=[site], python=Path(sys.executable)))  # type: ignore[arg-type]
    assert set(libcache._READ) == {session.store, session.moved.store}
