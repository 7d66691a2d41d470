"""A FIFO standing where an installed file was is never waited on: the probe says what is wrong and ends.

``open()`` of a FIFO waits for a writer, forever. Before, a FIFO in place of a compiled file, of METADATA, RECORD
or WHEEL, or of any file ``--deep`` hashes, held ``tierlock probe``, ``status``, ``admit``, the pytest gate and
``install-tier``'s verification until the CI job's time limit killed them; a recorded run of a read-only command
hung at its end too, digesting what it had opened. Every test runs under an alarm: a wait fails it, never hangs it.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.unit.probing.test_probe_rewritten_in_place import EXTENSION, _install, built  # noqa: F401 (a fixture)
from tests.unit.probing.test_probe_whole_again import _cold, _forget
from tierlock import keptfirst, keptrun
from tierlock.probing import SiteIndex, distribution, regular

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")


class Waited(BaseException):
    """Raised by the alarm: no ``except OSError`` (``TimeoutError`` is one) of the code under test takes it."""


@pytest.fixture
def alarm() -> Iterator[None]:
    """A wait of more than ten seconds raises instead of hanging the run."""

    def waited(_signum: int, _frame: object) -> None:
        raise Waited("waited on a FIFO")

    before = signal.signal(signal.SIGALRM, waited)
    signal.alarm(10)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)


@pytest.fixture
def site(tmp_path: Path, built: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> Path:  # noqa: F811
    monkeypatch.delenv("LD_LIBRARY_PATH", raising=False)
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(tmp_path / "cache"))
    _forget(monkeypatch)
    folder = tmp_path / "site"
    folder.mkdir()
    _install(folder, built)
    return folder


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


@pytest.mark.parametrize(
    ("rel", "reason"),
    [
        (EXTENSION, f"file has another size than RECORD says: {EXTENSION} (0 bytes, RECORD says"),
        ("alpha.libs/libalphavnd.so.1", "file has another size than RECORD says: alpha.libs/libalphavnd.so.1 (0 bytes"),
        ("alpha/__init__.py", "file has another size than RECORD says: alpha/__init__.py (0 bytes"),
        ("alpha-1.0.dist-info/METADATA", "METADATA unreadable in"),
        ("alpha-1.0.dist-info/RECORD", "RECORD unreadable in"),
        ("alpha-1.0.dist-info/INSTALLER", ""),
    ],
)
@pytest.mark.parametrize("deep", [False, True], ids=["probe", "deep"])
@pytest.mark.usefixtures("alarm")
def test_a_fifo_in_place_of_an_installed_file_is_said_and_never_waited_on(
    site: Path, monkeypatch: pytest.MonkeyPatch, rel: str, reason: str, deep: bool
) -> None:
    _fifo(site / rel)
    result = distribution.probe_distribution("alpha", index=SiteIndex.scan([site]), locked_version="1.0", deep=deep)
    assert result.to_dict() == _cold(site, monkeypatch, deep=deep)
    if reason:
        assert result.state == "partial"
        assert any(reason in r for r in result.reasons), result.reasons


def test_a_fifo_in_place_of_the_wheel_file_is_read_as_none(site: Path, alarm: None) -> None:
    (site / "alpha-1.0.dist-info" / "WHEEL").write_text("Wheel-Version: 1.0\nTag: py3-none-any\n")
    _fifo(site / "alpha-1.0.dist-info" / "WHEEL")
    result = distribution.probe_distribution("alpha", index=SiteIndex.scan([site]), locked_version="1.0")
    assert result.state == "present"  # (RECORD does not list it: what matters is that the probe ended)


def test_a_recorded_runs_digest_of_a_fifo_is_its_identity_never_a_wait(tmp_path: Path, alarm: None) -> None:
    fifo = tmp_path / "RECORD"
    os.mkfifo(fifo)
    assert keptfirst.digest(str(fifo)) == keptrun.stat_sig(str(fifo))
    (tmp_path / "file").write_bytes(b"x")
    assert isinstance(keptfirst.digest(str(tmp_path / "file")), bytes)
    assert keptfirst.digest(str(tmp_path / "none")) == keptfirst.failed(FileNotFoundError(2, "none"))


def test_only_a_regular_file_is_opened_to_be_read(tmp_path: Path, alarm: None) -> None:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "folder").mkdir()
    (tmp_path / "file").write_bytes(b"bytes\r\nmore")
    for name in ("fifo", "folder", "none"):
        with pytest.raises(OSError, match=r"not a regular file|Is a directory|No such file"):
            regular.open_bytes(str(tmp_path / name))
    with regular.open_bytes(str(tmp_path / "file"), buffering=0) as fh:
        assert fh.read() == b"bytes\r\nmore"
    with regular.open_text(str(tmp_path / "file"), errors="replace") as text:
        assert text.read() == "bytes\nmore"
