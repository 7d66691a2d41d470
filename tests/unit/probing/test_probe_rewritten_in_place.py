"""A file rewritten in place with its size and modification time put back is another file for every kept verdict.

``cp -p OTHER FILE`` onto an installed file writes into the same inode and copies OTHER's modification time;
``touch -r`` and ``rsync -t --inplace`` do the same. A same-size build of another version (or of another machine)
then has the inode, size and modification time the kept verdicts were keyed by: the whole verdict of the
distribution, the library verdict of an extension, the facts of its ``.dist-info``. Only the time the file's status
last changed (``st_ctime``, which no call sets) says it is another file. Each test keeps a verdict (in this process,
then on disk for the next one), rewrites a file so, and compares the verdict with a process that keeps nothing.
"""

from __future__ import annotations

import os
import struct
import subprocess
from pathlib import Path

import pytest

from tests.support.native import build_extension, build_library, needs_compiler
from tests.support.wheels import EXT_SUFFIX
from tests.unit.probing.test_probe_whole_again import OLD, _backdate, _cold, _forget, _hash, _next_process
from tierlock.probing import DistributionProbe, SiteIndex, distribution, elf, wholekept

pytestmark = needs_compiler

EXTENSION = f"alpha/_native{EXT_SUFFIX}"
VENDORED = "alpha.libs/libalphavnd.so.1"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """An extension needing a vendored library (``alpha.libs``) that needs ``libkeptdep.so.1``, found through an
    absolute runpath; and a build of each of another version, of the same size, needing a library that is nowhere:
    the extension ``libalphavnq.so.1``, the vendored library ``libgonedep.so.1``."""
    root = tmp_path_factory.mktemp("in-place")
    dep = build_library(root / "lib", "libkeptdep.so.1")
    runpath = str(dep.path.parent)
    gone = build_library(root / "gone", "libgonedep.so.1")  # linked against, then never found
    vendored = build_library(root / "vnd", "libalphavnd.so.1", needs=[dep], runpath=runpath)
    unvendored = build_library(root / "vnq", "libalphavnq.so.1")
    out = {
        "dep": dep.path,
        "vendored": vendored.path,
        "other-vendored": build_library(root / "other", "libalphavnd.so.1", needs=[gone], runpath=runpath).path,
    }
    for tag, needs in (("", vendored), ("other-", unvendored)):
        out[f"{tag}extension"] = build_extension(
            root / f"{tag}ext", "_native", EXT_SUFFIX, needs=[needs], runpath="$ORIGIN/../alpha.libs"
        )
    for name in ("vendored", "extension"):
        assert out[name].stat().st_size == out[f"other-{name}"].stat().st_size  # the case: the same size
    return out


def _install(site: Path, built: dict[str, Path], version: str = "1.0") -> None:
    """alpha as an installer leaves it: its module, extension and vendored library, METADATA and RECORD."""
    info = f"alpha-{version}.dist-info"
    files: dict[str, bytes] = {
        "alpha/__init__.py": b"from ._native import value\n",
        EXTENSION: built["extension"].read_bytes(),
        VENDORED: built["vendored"].read_bytes(),
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: alpha\nVersion: {version}\n".encode(),
        f"{info}/INSTALLER": b"uv\n",
    }
    rows = []
    for rel, data in files.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_bytes(data)
        rows.append(f"{rel},{_hash(data)},{len(data)}")
    rows.append(f"{info}/RECORD,,")
    (site / info / "RECORD").write_text("\n".join(rows) + "\n")
    _backdate(site)


@pytest.fixture
def site(tmp_path: Path, built: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("LD_LIBRARY_PATH", raising=False)
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(tmp_path / "cache"))
    _forget(monkeypatch)
    folder = tmp_path / "site"
    folder.mkdir()
    _install(folder, built)
    return folder


@pytest.fixture
def elf_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every compiled file the probe opened to read its ELF header (what a kept library verdict spares)."""
    reads: list[str] = []
    real = elf.read_file

    def counting(path: str) -> elf.ElfInfo | None:
        reads.append(path)
        return real(path)

    monkeypatch.setattr(elf, "read_file", counting)
    return reads


def _probe(site: Path) -> DistributionProbe:
    return distribution.probe_distribution("alpha", index=SiteIndex.scan([site]), locked_version="1.0")


def _kept(site: Path, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """Probe until the verdict is kept whole (*how*: ``process``, or ``disk`` for a next process reading it)."""
    taken: list[bool] = []
    again = wholekept.again

    def counting(*args: object) -> DistributionProbe | None:
        result = again(*args)  # type: ignore[arg-type]
        taken.append(result is not None)
        return result

    with monkeypatch.context() as watch:
        watch.setattr(wholekept, "again", counting)
        assert _probe(site).state == "present"
        assert _probe(site).state == "present"
    assert taken[-1] is True  # the short way: the verdict is kept
    if how == "disk":
        _next_process(monkeypatch)


def _cp_p(source: Path, installed: Path) -> None:
    """``cp -p`` of a file of another version dated like the installed one (both unpacked from archives of one
    date) onto it: the same inode, size and modification time; other bytes."""
    before = installed.stat()
    os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns))
    subprocess.run(["cp", "-p", str(source), str(installed)], check=True)
    after = installed.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (before.st_ino, before.st_size, before.st_mtime_ns)


@pytest.mark.parametrize("how", ["process", "disk"])
@pytest.mark.parametrize("which", ["extension", "vendored"])
def test_a_compiled_file_rewritten_in_place_with_its_size_and_time_put_back_is_read_again(
    site: Path, built: dict[str, Path], monkeypatch: pytest.MonkeyPatch, how: str, which: str
) -> None:
    _kept(site, monkeypatch, how)
    _cp_p(built[f"other-{which}"], site / (EXTENSION if which == "extension" else VENDORED))
    result = _probe(site)
    assert result.state == "partial"
    wanted = ("libalphavnq.so.1", None) if which == "extension" else ("libgonedep.so.1", "libalphavnd.so.1")
    assert [(library, by) for _artifact, library, by in result.missing_libraries] == [wanted]
    assert result.to_dict() == _cold(site, monkeypatch)


@pytest.mark.parametrize("how", ["process", "disk"])
def test_a_metadata_rewritten_in_place_with_its_size_and_time_put_back_is_read_again(
    site: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    _kept(site, monkeypatch, how)
    metadata = site / "alpha-1.0.dist-info" / "METADATA"
    other = site.parent / "METADATA"
    other.write_text(metadata.read_text().replace("1.0", "3.0"))  # another installer's, of the same size
    _cp_p(other, metadata)
    result = _probe(site)
    assert result.reasons == ["installed version 3.0 differs from the locked 1.0"]
    assert result.to_dict() == _cold(site, monkeypatch)


def _linked(site: Path, to: Path) -> Path:
    """A copy of *site* whose files are hard links of its own (as uv links them from its cache)."""
    for folder, _dirs, names in os.walk(site):
        (to / os.path.relpath(folder, site)).mkdir(parents=True, exist_ok=True)
        for name in names:
            os.link(os.path.join(folder, name), to / os.path.relpath(folder, site) / name)
    _backdate(to, OLD)  # (the files' times as they were: the same inodes)
    return to


def _another_machine(built: dict[str, Path], into: Path) -> Path:
    """The extension as built for another machine (its ELF header's machine field): one the loader refuses."""
    data = bytearray(built["extension"].read_bytes())
    order = "<" if data[5] == 1 else ">"
    machine = struct.unpack(order + "H", data[18:20])[0]
    data[18:20] = struct.pack(order + "H", 62 if machine == 183 else 183)
    out = into / built["extension"].name
    out.write_bytes(bytes(data))
    return out


@pytest.mark.parametrize("other", ["needs-a-library-gone", "another-machine"])
def test_a_verdict_carried_to_hard_links_is_taken_until_a_file_is_rewritten_in_place_through_them(
    site: Path,
    built: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    *,
    elf_reads: list[str],
    other: str,
) -> None:
    """What uv does from its cache: a new environment's files are hard links of the first's (their status change
    time moves with each link). The library verdict learnt for the same files at the same places carries over; once
    a file is written in place through a link, the first environment's probe sees it and forgets the verdict it
    lent, and the environments linked to it, before or after, read their files again."""
    _kept(site, monkeypatch, "disk")
    before = _linked(site, tmp_path / "before")
    elf_reads.clear()
    result = _probe(before)
    assert result.state == "present"
    assert [p for p in elf_reads if p.startswith(str(before))] == []  # carried over: no extension read
    assert result.to_dict() == _cold(before, monkeypatch)
    _next_process(monkeypatch)
    replacement = built["other-extension"] if other == "needs-a-library-gone" else _another_machine(built, tmp_path)
    _cp_p(replacement, site / EXTENSION)  # through every link: one inode
    assert _probe(site).state == "partial"
    assert _probe(site).to_dict() == _cold(site, monkeypatch)
    _next_process(monkeypatch)
    after = _linked(site, tmp_path / "after")
    for linked in (before, after):
        result = _probe(linked)
        assert result.state == "partial"
        assert result.to_dict() == _cold(linked, monkeypatch)
