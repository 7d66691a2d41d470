"""A distribution found whole before is confirmed the short way, and that way gives the full probe's verdict.

A probe that finds a distribution's folder kept, with the verdict it gave when every file was there, confirms
it with one ``stat`` of each file (the folder, METADATA, RECORD and the compiled files by their identity, the
others by their size) and the library verdicts of its extension modules learnt in this process. Every test
here takes that short way first (it is checked that it was taken), changes the site as an installer, a user or
a failing disk would, and compares the verdict with the one a cold process gives (nothing kept: the full way).
The extension is a real ELF object built at test time that needs a real library found through its runpath.
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.native import build_extension, build_library, needs_compiler
from tests.support.wheels import EXT_SUFFIX
from tierlock.probing import (
    DistributionProbe,
    SiteIndex,
    distcache,
    distinfo,
    distribution,
    libcache,
    libraries,
    wholekept,
)
from tierlock.probing import site as sitemod

pytestmark = needs_compiler

OLD = time.time() - 60
EXTENSION = f"alpha/_native{EXT_SUFFIX}"


@pytest.fixture(scope="module")
def native(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """An extension module that needs ``libwholedep.so.1``, found through its absolute runpath (built once)."""
    root = tmp_path_factory.mktemp("whole-native")
    library = build_library(root / "lib", "libwholedep.so.1")
    extension = build_extension(root / "ext", "_native", EXT_SUFFIX, needs=[library], runpath=str(library.path.parent))
    return {"library": library.path, "extension": extension}


def _hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _install(site: Path, native: dict[str, Path], version: str = "1.0", when: float = OLD) -> None:
    """alpha *version* as an installer leaves it: its files, METADATA, INSTALLER and a RECORD with sizes and hashes."""
    info = f"alpha-{version}.dist-info"
    files: dict[str, bytes] = {
        "alpha/__init__.py": b"from ._native import value\n",
        "alpha/util.py": b"X = 1\n" * 5,
        EXTENSION: native["extension"].read_bytes(),
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
    _backdate(site, when)


def _backdate(site: Path, when: float = OLD) -> None:
    """Everything older than the file system's clock tick (what a probe may keep); changed later than *when* was."""
    for folder, dirs, names in os.walk(site):
        for name in [*dirs, *names]:
            os.utime(os.path.join(folder, name), (when, when))
    os.utime(site, (when, when))


@pytest.fixture
def site(tmp_path: Path, native: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("LD_LIBRARY_PATH", raising=False)
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(tmp_path / "cache"))
    _forget(monkeypatch)
    folder = tmp_path / "site"
    folder.mkdir()
    _install(folder, native)
    return folder


def _forget(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new process, as far as the probe's memory goes (restored after the test)."""
    for module, name in (
        (distinfo, "_MEMO"),
        (distcache, "_FILES"),
        (sitemod, "_LISTED"),
        (libraries, "_VERDICTS"),
        (libraries, "_READ"),
        (libcache, "_READ"),
    ):
        monkeypatch.setattr(module, name, {})
    monkeypatch.setattr(distcache, "_UNSAVED", [])
    monkeypatch.setattr(libraries, "_UNSAVED", [])
    monkeypatch.setattr(libraries.Session, "last", None)


@pytest.fixture
def short_ways(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each probe took the short way (one entry per probe of a kept whole distribution)."""
    taken: list[bool] = []
    again = wholekept.again

    def counting(*args: object) -> DistributionProbe | None:
        result = again(*args)  # type: ignore[arg-type]
        taken.append(result is not None)
        return result

    monkeypatch.setattr(wholekept, "again", counting)
    return taken


def _probe(site: Path, suffixes: tuple[str, ...] | None = None, deep: bool = False) -> DistributionProbe:
    index = SiteIndex.scan([site], suffixes)
    return distribution.probe_distribution("alpha", index=index, locked_version="1.0", deep=deep)


def _cold(site: Path, monkeypatch: pytest.MonkeyPatch, **how: object) -> dict[str, object]:
    """The verdict of a process that keeps nothing (the full way), as JSON gives it."""
    with monkeypatch.context() as cold:
        cold.setenv("TIERLOCK_CACHE_DIR", "")
        _forget(cold)
        return _probe(site, **how).to_dict()  # type: ignore[arg-type]


def _kept_whole(site: Path, short_ways: list[bool]) -> None:
    """Probe twice: the second probe takes the short way."""
    assert _probe(site).state == "present"
    assert _probe(site).state == "present"
    assert short_ways[-1] is True


def test_an_unchanged_distribution_takes_the_short_way_with_the_full_ways_verdict(
    site: Path, short_ways: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    _kept_whole(site, short_ways)
    result = _probe(site)
    assert short_ways[-1] is True
    assert result.to_dict() == _cold(site, monkeypatch)
    # what to_dict leaves out: the rows a receipt takes, RECORD's own size
    record = site / "alpha-1.0.dist-info" / "RECORD"
    assert result.record_size == record.stat().st_size
    assert [f.record_path for f in result.files][:3] == ["alpha/__init__.py", "alpha/util.py", EXTENSION]


def test_a_module_edited_in_place_with_its_size_kept_is_what_only_deep_sees_both_ways(
    site: Path, short_ways: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    _kept_whole(site, short_ways)
    (site / "alpha" / "util.py").write_bytes(b"Y = 2\n" * 5)
    result = _probe(site)
    assert short_ways[-1] is True  # a size-only check: the same verdict as the full way, which --deep goes past
    assert result.state == "present"
    assert result.to_dict() == _cold(site, monkeypatch)
    deep = _probe(site, deep=True)
    assert deep.reasons == ["file does not match its RECORD hash: alpha/util.py"]
    assert deep.to_dict() == _cold(site, monkeypatch, deep=True)


def test_a_record_edited_in_place_with_its_size_kept_is_read_again(
    site: Path, short_ways: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    _kept_whole(site, short_ways)
    record = site / "alpha-1.0.dist-info" / "RECORD"
    text = record.read_text()
    record.write_text(text.replace(",30\n", ",31\n"))  # util.py's size, one digit: the same size of RECORD
    assert record.stat().st_size == len(text)
    result = _probe(site)
    assert short_ways[-1] is False
    assert result.reasons == ["file has another size than RECORD says: alpha/util.py (30 bytes, RECORD says 31)"]
    assert result.to_dict() == _cold(site, monkeypatch)


def test_a_metadata_rewritten_with_its_size_kept_is_read_again(
    site: Path, short_ways: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    _kept_whole(site, short_ways)
    metadata = site / "alpha-1.0.dist-info" / "METADATA"
    metadata.write_text(metadata.read_text().replace("1.0", "3.0"))
    result = _probe(site)
    assert short_ways[-1] is False
    assert result.reasons == ["installed version 3.0 differs from the locked 1.0"]
    assert result.to_dict() == _cold(site, monkeypatch)


def test_a_deleted_extension_is_partial_both_ways(
    site: Path, short_ways: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    _kept_whole(site, short_ways)
    (site / EXTENSION).unlink()
    result = _probe(site)
    assert result.state == "partial"
    assert f"compiled artifact {EXTENSION} is missing" in result.reasons
    assert result.to_dict() == _cold(site, monkeypatch)


def test_an_extension_rebuilt_with_its_size_kept_has_its_libraries_looked_up_again(
    site: Path, short_ways: list[bool], native: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _kept_whole(site, short_ways)
    data = bytearray((site / EXTENSION).read_bytes())
    data[-1] ^= 1  # the same size, a new modification time: another file for the library check
    (site / EXTENSION).write_bytes(bytes(data))
    result = _probe(site)
    assert short_ways[-1] is False
    assert result.to_dict() == _cold(site, monkeypatch)


def test_a_library_the_extension_needs_gone_is_partial_both_ways_and_present_once_back(
    site: Path, short_ways: list[bool], native: dict[str, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _kept_whole(site, short_ways)
    aside = tmp_path / "aside.so"
    shutil.move(native["library"], aside)
    try:
        result = _probe(site)
        assert short_ways[-1] is False
        assert result.missing_libraries == ((EXTENSION, "libwholedep.so.1", None),)
        assert result.to_dict() == _cold(site, monkeypatch)
    finally:
        shutil.move(aside, native["library"])
    result = _probe(site)
    assert result.state == "present"
    assert result.to_dict() == _cold(site, monkeypatch)


def test_a_dist_info_replaced_by_another_versions_is_probed_anew(
    site: Path, short_ways: list[bool], native: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _kept_whole(site, short_ways)
    shutil.rmtree(site / "alpha-1.0.dist-info")
    _install(site, native, version="2.0", when=OLD + 10)
    result = _probe(site)
    assert result.reasons == ["installed version 2.0 differs from the locked 1.0"]
    assert result.to_dict() == _cold(site, monkeypatch)


def test_a_pip_leftover_beside_it_is_seen_both_ways(
    site: Path, short_ways: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    _kept_whole(site, short_ways)
    (site / "~lpha").mkdir()
    _backdate(site, OLD + 10)
    result = _probe(site)
    assert result.state == "partial"
    assert result.to_dict() == _cold(site, monkeypatch)


def test_a_file_touched_with_its_size_kept_stays_present_and_is_confirmed_the_short_way_after(
    site: Path, short_ways: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    _kept_whole(site, short_ways)
    os.utime(site / EXTENSION, (OLD + 5, OLD + 5))
    result = _probe(site)
    assert short_ways[-1] is False  # a new identity: its library verdict is looked up again
    assert result.to_dict() == _cold(site, monkeypatch)
    assert _probe(site).state == "present"
    assert short_ways[-1] is True


@pytest.mark.parametrize("version", ["3.12.1", "3.13.0"])
def test_another_pythons_target_gets_its_own_verdict_and_the_first_keeps_its_own(
    site: Path, short_ways: list[bool], monkeypatch: pytest.MonkeyPatch, version: str
) -> None:
    python = Path(f"/root/.pyenv/versions/{version}/bin/python")
    if not python.exists():
        pytest.skip(f"no Python {version} under /root/.pyenv/versions")
    out = subprocess.run(
        [str(python), "-c", "import _imp; print('\\n'.join(_imp.extension_suffixes()))"],
        capture_output=True,
        text=True,
        check=True,
    )
    theirs = tuple(out.stdout.split())
    _kept_whole(site, short_ways)
    other = _probe(site, suffixes=theirs)
    assert other.state == "partial"
    assert other.reasons[0].startswith(f"compiled extension {EXTENSION} is built for another Python")
    assert other.to_dict() == _cold(site, monkeypatch, suffixes=theirs)
    assert _probe(site).state == "present"
    assert short_ways[-1] is True


@pytest.fixture
def full_ways(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every probe that went the full way past the file checks (what a kept whole verdict spares)."""
    taken: list[str] = []
    reasons = distribution._folder_reasons

    def counting(name: str, *args: object) -> tuple[list[str], str | None]:
        taken.append(name)
        return reasons(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(distribution, "_folder_reasons", counting)
    return taken


def _next_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process ends (writing what it learnt) and another starts with the same cache folder."""
    distcache.save_all()
    libraries.save_all()
    _forget(monkeypatch)


def test_a_new_process_gives_the_whole_verdict_kept_on_disk_while_every_file_is_as_it_was(
    site: Path, short_ways: list[bool], full_ways: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _kept_whole(site, short_ways)
    _next_process(monkeypatch)
    before = len(full_ways)
    result = _probe(site)
    assert len(full_ways) == before  # the verdict kept on disk, every file stat-ed
    assert result.to_dict() == _cold(site, monkeypatch)
    assert result.record_size == (site / "alpha-1.0.dist-info" / "RECORD").stat().st_size
    assert result.files_checked == 6
    assert distcache._UNSAVED == []  # nothing new learnt: the kept file is not written again
    _next_process(monkeypatch)
    (site / EXTENSION).unlink()
    result = _probe(site)
    assert f"compiled artifact {EXTENSION} is missing" in result.reasons
    assert result.to_dict() == _cold(site, monkeypatch)


def test_a_new_process_after_one_that_was_killed_or_left_a_broken_cache_takes_the_full_way(
    site: Path, short_ways: list[bool], full_ways: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _kept_whole(site, short_ways)
    _forget(monkeypatch)  # killed: nothing written at exit
    before = len(full_ways)
    assert _probe(site).to_dict() == _cold(site, monkeypatch)
    assert len(full_ways) == before + 2  # this probe and the cold one went the full way
    _next_process(monkeypatch)
    for kept in (tmp_path / "cache").iterdir():
        kept.write_bytes(kept.read_bytes()[:40])  # cut short, as by a full disk
    before = len(full_ways)
    assert _probe(site).to_dict() == _cold(site, monkeypatch)
    assert len(full_ways) == before + 2


def _install_pure(site: Path, name: str) -> None:
    """*name* 1.0, pure Python, as an installer leaves it (dated back with the rest of the site)."""
    info = f"{name}-1.0.dist-info"
    files = {
        f"{name}/__init__.py": b"X = 1\n",
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n".encode(),
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
def one_by_one(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The members a tier's round probed one by one (what the round's short way did not give)."""
    from tierlock.probing import verdict

    probed: list[str] = []
    each = distribution.probe_distribution

    def counting(name: str, **how: object) -> DistributionProbe:
        probed.append(name)
        return each(name, **how)  # type: ignore[arg-type]

    monkeypatch.setattr(verdict, "probe_distribution", counting)
    return probed


def _round(site: Path, deep: bool = False) -> list[dict[str, object]]:
    """A tier's round (``probe_parts``): the root alpha (its import root declared) and beta of its closure."""
    from tierlock.probing.verdict import probe_parts

    roots, closure = probe_parts(SiteIndex.scan([site]), [("alpha", "1.0", ["alpha"])], [("beta", "1.0")], deep=deep)
    return [d.to_dict() for d in (*roots, *closure)]


def test_a_rounds_members_all_found_whole_before_are_given_at_once_and_agree_with_the_full_way(
    site: Path, one_by_one: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _install_pure(site, "beta")
    first = _round(site)
    assert one_by_one == ["alpha", "beta"]
    assert _round(site) == first
    assert one_by_one == ["alpha", "beta"]  # the second round: both at once, each file stat-ed once
    with monkeypatch.context() as cold:
        cold.setenv("TIERLOCK_CACHE_DIR", "")
        _forget(cold)
        assert _round(site) == first
    assert _round(site, deep=True)[0]["notes"] == ["hashes checked (--deep)"]  # deep: one by one, hashes read
    assert one_by_one[-2:] == ["alpha", "beta"]


@pytest.mark.parametrize("change", ["extension deleted", "module resized", "library gone", "leftover"])
def test_one_member_changed_sends_the_round_one_by_one_and_only_it_is_partial(
    site: Path,
    one_by_one: list[str],
    monkeypatch: pytest.MonkeyPatch,
    native: dict[str, Path],
    change: str,
) -> None:
    _install_pure(site, "beta")
    _round(site)
    aside = site.parent / "aside.so"
    if change == "extension deleted":
        (site / EXTENSION).unlink()
    elif change == "module resized":
        (site / "beta" / "__init__.py").write_text("X = 22\n")
    elif change == "library gone":
        shutil.move(native["library"], aside)
    else:
        (site / "~eta").mkdir()
        _backdate(site, OLD + 10)
    try:
        before = len(one_by_one)
        result = _round(site)
        assert one_by_one[before:] == ["alpha", "beta"]
        with monkeypatch.context() as cold:
            cold.setenv("TIERLOCK_CACHE_DIR", "")
            _forget(cold)
            assert result == _round(site)
    finally:
        if aside.exists():
            shutil.move(aside, native["library"])
    states = [d["state"] for d in result]
    broken = {"extension deleted": 0, "library gone": 0, "module resized": 1, "leftover": 1}[change]
    assert states == ["partial" if i == broken else "present" for i in range(2)]


def test_a_declared_root_found_only_on_disk_is_looked_for_again_on_every_probe(
    site: Path, short_ways: list[bool], monkeypatch: pytest.MonkeyPatch
) -> None:
    (site / "alpha_plugins").mkdir()
    (site / "alpha_plugins" / "__init__.py").write_text("")  # not in RECORD: a verdict resting on it is not kept
    _backdate(site)

    def probe() -> DistributionProbe:
        index = SiteIndex.scan([site])
        return distribution.probe_distribution(
            "alpha", index=index, locked_version="1.0", import_roots=["alpha_plugins"]
        )

    assert probe().state == "present"
    assert probe().state == "present"
    shutil.rmtree(site / "alpha_plugins")
    result = probe()
    assert result.reasons == [f"import root 'alpha_plugins' (declared) is missing from {site}"]
    assert short_ways == [False, False, False]
