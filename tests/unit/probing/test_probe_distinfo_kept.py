"""What a ``.dist-info`` folder says is read once and kept while the folder is unchanged; any change is seen.

The facts are kept per process, keyed by the folder's identity and the
target's extension suffixes, only once the folder is older than the file
system's clock tick (here: its files are dated back). A probe that finds them
kept stats the folder, METADATA, RECORD and every installed file - nothing is
read again - and still sees a METADATA rewritten in place, a file gone, an
INSTALLER removed, and another target's suffixes.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.support.binaries import loadable_stub
from tests.support.wheels import EXT_SUFFIX
from tierlock.probing import SiteIndex, distinfo, keptrows, probe_distribution

OLD = time.time() - 60


def _site(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    info = site / "alpha-1.0.dist-info"
    (site / "alpha").mkdir(parents=True)
    info.mkdir()
    files: dict[str, str | bytes] = {
        "alpha/__init__.py": "X = 1\n",
        f"_alpha_speedups{EXT_SUFFIX}": loadable_stub(64),
        "alpha-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: alpha\nVersion: 1.0\n",
        "alpha-1.0.dist-info/INSTALLER": "uv\n",
    }
    rows = []
    for rel, text in files.items():
        data = text if isinstance(text, bytes) else text.encode()
        (site / rel).write_bytes(data)
        rows.append(f"{rel},,{len(data)}")
    rows.append("alpha-1.0.dist-info/RECORD,,")
    (info / "RECORD").write_text("\n".join(rows) + "\n")
    for folder, dirs, names in os.walk(site):
        for name in [*dirs, *names]:
            os.utime(os.path.join(folder, name), (OLD, OLD))
    return site


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every time a folder's files are read (not merely stat-ed)."""
    seen: list[str] = []
    build = distinfo._build

    def counting(info: object, key: object, suffixes: object) -> distinfo.DistInfo:
        seen.append(str(getattr(info, "path", "")))
        return build(info, key, suffixes)  # type: ignore[arg-type]

    monkeypatch.setattr(distinfo, "_build", counting)
    return seen


def test_an_unchanged_folder_is_read_once_and_its_verdict_given_again(tmp_path: Path, reads: list[str]) -> None:
    site = _site(tmp_path)
    first = probe_distribution("alpha", paths=[site], locked_version="1.0")
    again = probe_distribution("alpha", paths=[site], locked_version="1.0")
    assert (first.state, again.state) == ("present", "present")
    assert len(reads) == 1
    assert again.files_checked == first.files_checked == 5


def test_a_metadata_rewritten_in_place_is_read_again(tmp_path: Path, reads: list[str]) -> None:
    site = _site(tmp_path)
    assert probe_distribution("alpha", paths=[site], locked_version="1.0").state == "present"
    metadata = site / "alpha-1.0.dist-info" / "METADATA"
    metadata.write_text(metadata.read_text().replace("1.0", "2.0"))  # the same size, the folder untouched
    result = probe_distribution("alpha", paths=[site], locked_version="1.0")
    assert result.reasons == ["installed version 2.0 differs from the locked 1.0"]
    assert len(reads) == 2


def test_a_file_gone_or_an_installer_removed_is_seen_with_the_folder_kept(tmp_path: Path, reads: list[str]) -> None:
    site = _site(tmp_path)
    assert probe_distribution("alpha", paths=[site]).state == "present"
    (site / "alpha" / "__init__.py").unlink()
    assert probe_distribution("alpha", paths=[site]).reasons[0] == (
        "file listed in RECORD is missing: alpha/__init__.py"
    )
    assert len(reads) == 1  # the folder itself did not change
    (site / "alpha" / "__init__.py").write_text("X = 1\n")
    (site / "alpha-1.0.dist-info" / "INSTALLER").unlink()
    assert any(r.startswith("INSTALLER missing in") for r in probe_distribution("alpha", paths=[site]).reasons)
    assert len(reads) == 2


def test_the_kept_facts_are_the_targets_own(tmp_path: Path, reads: list[str]) -> None:
    site = _site(tmp_path)
    own = SiteIndex.scan([site], (EXT_SUFFIX, ".abi3.so", ".so"))
    other = SiteIndex.scan([site], (".cpython-39-x86_64-linux-gnu.so", ".abi3.so", ".so"))
    assert probe_distribution("alpha", index=own).import_roots == ("alpha", "_alpha_speedups")
    built_elsewhere = probe_distribution("alpha", index=other)
    assert built_elsewhere.import_roots == ("alpha",)  # no module a 3.9 interpreter imports
    assert built_elsewhere.reasons == [
        f"compiled extension _alpha_speedups{EXT_SUFFIX} is built for another Python "
        "(this one imports .cpython-39-x86_64-linux-gnu.so, .abi3.so, .so)"
    ]
    assert len(reads) == 2


def test_a_build_for_another_python_beside_the_targets_own_is_no_fault(tmp_path: Path) -> None:
    site = _site(tmp_path)
    record = site / "alpha-1.0.dist-info" / "RECORD"
    other = "_alpha_speedups.cpython-39-x86_64-linux-gnu.so"
    (site / other).write_bytes(b"\x7fELF")
    record.write_text(f"{other},,4\n" + record.read_text())
    assert probe_distribution("alpha", paths=[site]).state == "present"


def test_a_compiled_module_whose_name_is_no_identifier_still_suits_its_python(tmp_path: Path) -> None:
    # mypyc names its shared runtime after a hash: 6ec57f84c680d3a3778b__mypyc.cpython-311-x86_64-linux-gnu.so
    site = _site(tmp_path)
    record = site / "alpha-1.0.dist-info" / "RECORD"
    runtime = f"6ec57f84c680d3a3778b__mypyc{EXT_SUFFIX}"
    (site / runtime).write_bytes(loadable_stub(64))
    record.write_text(f"{runtime},,64\n" + record.read_text())
    result = probe_distribution("alpha", paths=[site])
    assert result.state == "present", result.reasons
    assert "6ec57f84c680d3a3778b__mypyc" not in result.import_roots


def test_a_verdict_given_again_still_sees_a_leftover_or_a_second_dist_info_appear(tmp_path: Path) -> None:
    site = _site(tmp_path)
    assert probe_distribution("alpha", paths=[site]).state == "present"
    assert probe_distribution("alpha", paths=[site]).state == "present"  # given again
    (site / "~lpha").mkdir()
    assert any(r.startswith("leftover ~lpha beside it") for r in probe_distribution("alpha", paths=[site]).reasons)
    (site / "~lpha").rmdir()
    other = _site(tmp_path / "other")
    two = probe_distribution("alpha", paths=[site, other])
    assert two.reasons[0].startswith("2 .dist-info folders for alpha on the path")


def test_an_editable_install_is_never_given_again_without_looking_at_its_source(tmp_path: Path) -> None:
    site = _site(tmp_path)
    source = tmp_path / "checkout"
    (source / "alpha").mkdir(parents=True)
    (source / "alpha" / "__init__.py").write_text("")
    info = site / "alpha-1.0.dist-info"
    (info / "direct_url.json").write_text(f'{{"url": "{source.as_uri()}", "dir_info": {{"editable": true}}}}')
    for path in (info, info / "direct_url.json"):
        os.utime(path, (OLD, OLD))
    assert probe_distribution("alpha", paths=[site]).state == "present-editable"
    assert probe_distribution("alpha", paths=[site]).state == "present-editable"
    (source / "alpha" / "__init__.py").unlink()
    (source / "alpha").rmdir()
    source.rmdir()
    gone = probe_distribution("alpha", paths=[site])
    assert gone.reasons == [f"editable install whose source folder {source} is missing"]


def test_console_scripts_an_installer_never_wrote_are_named_up_to_three_then_counted(tmp_path: Path) -> None:
    site = _site(tmp_path)
    info = site / "alpha-1.0.dist-info"
    scripts = "".join(f"tool{i} = alpha:main\n" for i in range(5))
    (info / "entry_points.txt").write_text(f"[console_scripts]\n{scripts}")
    assert probe_distribution("alpha", paths=[site]).reasons == [
        "5 console scripts of its entry points are not installed: tool0, tool1, tool2 and 2 more"
    ]


# -- kept across processes (on disk) ---------------------------------------------------------------


def _new_process() -> None:
    """What a new process starts from: the facts written at exit, nothing in memory."""
    from tierlock.probing import distcache

    distcache.save_all()
    distinfo._MEMO.clear()
    distcache._FILES.clear()


@pytest.fixture
def kept_on_disk(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(folder))
    monkeypatch.setattr(distinfo, "_MEMO", {})
    from tierlock.probing import distcache

    monkeypatch.setattr(distcache, "_FILES", {})
    return folder


def test_a_second_process_takes_an_unchanged_folders_facts_from_disk_without_reading_record(
    tmp_path: Path, reads: list[str], kept_on_disk: Path
) -> None:
    site = _site(tmp_path)
    first = probe_distribution("alpha", paths=[site], locked_version="1.0")
    _new_process()
    again = probe_distribution("alpha", paths=[site], locked_version="1.0")
    assert len(reads) == 1
    assert next(p.name for p in kept_on_disk.iterdir()).startswith("distinfo-")
    assert (again.state, again.files_checked, again.records) == (first.state, first.files_checked, first.records)
    assert again.import_roots == first.import_roots


def test_a_file_gone_is_seen_by_a_process_that_took_the_facts_from_disk(
    tmp_path: Path, reads: list[str], kept_on_disk: Path
) -> None:
    site = _site(tmp_path)
    assert probe_distribution("alpha", paths=[site], locked_version="1.0").state == "present"
    _new_process()
    (site / f"_alpha_speedups{EXT_SUFFIX}").unlink()
    result = probe_distribution("alpha", paths=[site], locked_version="1.0")
    assert result.state == "partial"
    assert any("_alpha_speedups" in reason for reason in result.reasons)
    assert len(reads) == 1  # the facts came from disk; the verdict came from the stat of every file


def test_a_record_rewritten_is_read_again_by_the_next_process(
    tmp_path: Path, reads: list[str], kept_on_disk: Path
) -> None:
    site = _site(tmp_path)
    assert probe_distribution("alpha", paths=[site], locked_version="1.0").state == "present"
    _new_process()
    record = site / "alpha-1.0.dist-info" / "RECORD"
    record.write_text(record.read_text() + "alpha/extra.py,,3\n")
    os.utime(record, (OLD + 1, OLD + 1))
    result = probe_distribution("alpha", paths=[site], locked_version="1.0")
    assert len(reads) == 2
    assert result.state == "partial"
    assert any("alpha/extra.py" in reason for reason in result.reasons)


def test_another_targets_suffixes_are_kept_apart(tmp_path: Path, reads: list[str], kept_on_disk: Path) -> None:
    site = _site(tmp_path)
    index = SiteIndex.scan([site])
    other = SiteIndex.scan([site], suffixes=(".cpython-39-x86_64-linux-gnu.so", ".abi3.so", ".so"))
    assert probe_distribution("alpha", index=index, locked_version="1.0").state == "present"
    _new_process()
    probe_distribution("alpha", index=other, locked_version="1.0")
    assert len(reads) == 2
    _new_process()
    assert len(list(kept_on_disk.iterdir())) == 2


def test_a_record_row_without_a_size_still_has_every_file_stat_ed_from_kept_facts(
    tmp_path: Path, reads: list[str], kept_on_disk: Path
) -> None:
    site = _site(tmp_path)
    record = site / "alpha-1.0.dist-info" / "RECORD"
    rows = record.read_text().splitlines()
    first = rows[0].split(",")[0]
    rows[0] = f"{first},,"  # the first file listed without a size; the others with theirs
    record.write_text("\n".join(rows) + "\n")
    os.utime(record, (OLD, OLD))
    assert probe_distribution("alpha", paths=[site], locked_version="1.0").state == "present"
    _new_process()
    (site / f"_alpha_speedups{EXT_SUFFIX}").unlink()  # listed after the size-less row
    result = probe_distribution("alpha", paths=[site], locked_version="1.0")
    assert len(reads) == 1
    assert result.state == "partial"


def test_an_editable_installs_source_is_given_again_from_kept_facts(
    tmp_path: Path, reads: list[str], kept_on_disk: Path
) -> None:
    site = _site(tmp_path)
    source = tmp_path / "src-tree"
    source.mkdir()
    info = site / "alpha-1.0.dist-info"
    (info / "direct_url.json").write_text(f'{{"url": "{source.as_uri()}", "dir_info": {{"editable": true}}}}')
    for path in (info / "direct_url.json", info):
        os.utime(path, (OLD, OLD))
    first = probe_distribution("alpha", paths=[site], locked_version="1.0")
    _new_process()
    again = probe_distribution("alpha", paths=[site], locked_version="1.0")
    assert len(reads) == 1
    assert again.editable_source == first.editable_source == source
    assert again.state == first.state


def test_kept_facts_of_another_schema_are_not_used(
    tmp_path: Path, reads: list[str], kept_on_disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tierlock.probing import distcache

    site = _site(tmp_path)
    probe_distribution("alpha", paths=[site], locked_version="1.0")
    _new_process()
    monkeypatch.setattr(distcache, "SCHEMA", distcache.SCHEMA + 1)
    assert probe_distribution("alpha", paths=[site], locked_version="1.0").state == "present"
    assert len(reads) == 2


def test_a_kept_entry_of_another_shape_is_read_again(tmp_path: Path, reads: list[str], kept_on_disk: Path) -> None:
    import marshal

    from tierlock.probing import distcache

    site = _site(tmp_path)
    probe_distribution("alpha", paths=[site], locked_version="1.0")
    _new_process()
    (kept,) = kept_on_disk.iterdir()
    data = marshal.loads(kept.read_bytes())
    for entry in data["entries"].values():
        entry[2 + distcache.PLAIN.index("records")] = [1]  # rows that are not (path, rel, size, hash)
    kept.write_bytes(marshal.dumps(data))
    assert probe_distribution("alpha", paths=[site], locked_version="1.0").state == "present"
    assert len(reads) == 2


def test_every_folder_is_kept_up_to_the_limit_and_then_the_memory_starts_again(
    tmp_path: Path, reads: list[str], kept_on_disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tierlock.probing import distcache

    monkeypatch.setattr(distcache, "_KEEP", 2)
    sites = [_site(tmp_path / str(i)) for i in range(3)]
    for site in sites[:2]:
        probe_distribution("alpha", paths=[site], locked_version="1.0")
    entries = {path for f in distcache._FILES.values() for path in f.entries}
    assert len(entries) == 2  # one file per site folder, one folder in each
    _new_process()
    for site in sites[:2]:
        probe_distribution("alpha", paths=[site], locked_version="1.0")
    assert len(reads) == 2  # both kept


def test_one_site_folder_keeps_as_many_folders_as_the_limit_allows(
    tmp_path: Path, reads: list[str], kept_on_disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tierlock.probing import distcache

    monkeypatch.setattr(distcache, "_KEEP", 2)
    site = _site(tmp_path)
    for name in ("beta", "gamma"):  # two more folders in the same site
        info = site / f"{name}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
        (info / "INSTALLER").write_text("uv\n")
        (info / "RECORD").write_text(f"{name}-1.0.dist-info/METADATA,,\n{name}-1.0.dist-info/RECORD,,\n")
        for path in (*info.iterdir(), info):
            os.utime(path, (OLD, OLD))
    for name in ("alpha", "beta"):
        probe_distribution(name, paths=[site], locked_version="1.0")
    (kept,) = distcache._FILES.values()
    assert len(kept.entries) == 2
    probe_distribution("gamma", paths=[site], locked_version="1.0")
    assert len(kept.entries) == 1  # the limit reached: the memory started again with the newest


def test_a_library_user_s_process_writes_what_it_learnt_when_it_ends(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.support.env import clean_env

    site = _site(tmp_path)
    cache = tmp_path / "cache"
    code = f"from tierlock.probing import probe_distribution; probe_distribution('alpha', paths=[{str(site)!r}])"
    proc = subprocess.run(
        [sys.executable, "-c", code],
        env=clean_env({"TIERLOCK_CACHE_DIR": str(cache)}),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    # the folder's facts, and the library verdict of its extension (a file that is no ELF object needs nothing)
    assert sorted(p.name.rsplit("-", 1)[0] for p in cache.iterdir()) == ["distinfo", "libraries", "moved-libraries"]


def test_a_kept_entry_whose_rows_do_not_add_up_is_read_again_when_they_are_looked_into(
    tmp_path: Path, reads: list[str], kept_on_disk: Path
) -> None:
    import marshal

    from tierlock.probing import distcache

    site = _site(tmp_path)
    probe_distribution("alpha", paths=[site], locked_version="1.0")
    _new_process()
    (kept,) = kept_on_disk.iterdir()
    data = marshal.loads(kept.read_bytes())
    for entry in data["entries"].values():
        at = 2 + distcache.PLAIN.index("records")
        sizes, hashes, fulls = marshal.loads(entry[at])  # (kept as their bytes: decoded when looked into)
        entry[at] = marshal.dumps((sizes[:-1], hashes, fulls))  # a size fewer than the rows
    kept.write_bytes(marshal.dumps(data))
    probed = probe_distribution("alpha", paths=[site], locked_version="1.0")
    assert probed.state == "present"
    assert len(reads) == 1  # a probe that finds every file there with its size does not look into the rows
    assert all(len(row) == 4 for row in probed.records)  # looked into: read again from the folder
    assert len(reads) == 2


def test_a_probe_of_kept_facts_that_finds_every_file_whole_does_not_decode_the_rows(
    tmp_path: Path, reads: list[str], kept_on_disk: Path
) -> None:
    site = _site(tmp_path)
    first = probe_distribution("alpha", paths=[site], locked_version="1.0")
    _new_process()
    again = probe_distribution("alpha", paths=[site], locked_version="1.0")
    assert len(reads) == 1
    assert isinstance(again.records, keptrows.Rows)
    assert again.records._rows is None  # not decoded: the probe needed their number alone
    assert again.files_checked == first.files_checked == len(again.records)
    assert again.records._rows is None
    assert again.records == first.records  # looked into: the rows RECORD lists, as read the first time
    assert tuple(again.records) == tuple(first.records)
    assert again.files == first.files
    assert len(reads) == 1


def test_kept_rows_come_back_as_read_with_their_hashes_and_the_paths_that_leave_the_site_folder(
    tmp_path: Path, reads: list[str], kept_on_disk: Path
) -> None:
    """(A console script, ``../../bin/alpha``, is kept by its normalized path; every other row's is the site folder's
    prefix and its RECORD path, not kept twice.)"""
    site = _site(tmp_path)
    script = tmp_path / "bin" / "alpha"
    script.parent.mkdir()
    script.write_text("#!python\n")
    record = site / "alpha-1.0.dist-info" / "RECORD"
    text = record.read_text().replace("alpha/__init__.py,,", "alpha/__init__.py,sha256=abc,")
    record.write_text(text + "../bin/alpha,sha256=def,10\n")
    for path in (record, script, script.parent, record.parent):
        os.utime(path, (OLD, OLD))
    first = probe_distribution("alpha", paths=[site], locked_version="1.0")
    _new_process()
    again = probe_distribution("alpha", paths=[site], locked_version="1.0")
    assert isinstance(again.records, keptrows.Rows)
    assert tuple(again.records) == tuple(first.records)
    assert (str(script), "../bin/alpha", 10, "sha256=def") in tuple(again.records)
    assert ("sha256=abc") in [row[3] for row in again.records]
    assert len(reads) == 1


def test_kept_rows_that_do_not_decode_are_read_again_from_the_folder(
    tmp_path: Path, reads: list[str], kept_on_disk: Path
) -> None:
    import marshal

    from tierlock.probing import distcache

    site = _site(tmp_path)
    first = probe_distribution("alpha", paths=[site], locked_version="1.0")
    _new_process()
    (kept,) = kept_on_disk.iterdir()
    data = marshal.loads(kept.read_bytes())
    for entry in data["entries"].values():
        entry[2 + distcache.PLAIN.index("records")] = b"\xff not marshal"
    kept.write_bytes(marshal.dumps(data))
    again = probe_distribution("alpha", paths=[site], locked_version="1.0")
    assert again.state == "present"
    assert list(again.records) == list(first.records)
    assert len(reads) == 2


def test_kept_rows_not_decoded_are_kept_again_as_they_were(tmp_path: Path, kept_on_disk: Path) -> None:
    import marshal

    from tierlock.probing import distcache

    site = _site(tmp_path)
    probe_distribution("alpha", paths=[site], locked_version="1.0")
    _new_process()
    (kept,) = kept_on_disk.iterdir()
    before = marshal.loads(kept.read_bytes())["entries"]
    probed = probe_distribution("alpha", paths=[site], locked_version="1.0", import_roots=["alpha"])  # a new verdict
    assert isinstance(probed.records, keptrows.Rows)
    _new_process()
    after = marshal.loads(kept.read_bytes())["entries"]
    at = 2 + distcache.PLAIN.index("records")
    assert [e[at] for e in after.values()] == [e[at] for e in before.values()]
    assert probe_distribution("alpha", paths=[site], locked_version="1.0").state == "present"


def test_a_whole_verdict_learnt_from_facts_read_back_from_disk_is_kept_on_disk_too(
    tmp_path: Path, kept_on_disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tierlock.probing import distribution

    site = _site(tmp_path)
    probe_distribution("alpha", paths=[site], locked_version="1.0")
    _new_process()  # the facts come back from disk; a verdict for other roots is new
    assert probe_distribution("alpha", paths=[site], locked_version="1.0", import_roots=["alpha"]).state == "present"
    _new_process()
    full: list[str] = []
    reasons = distribution._folder_reasons

    def counting(name: str, *args: object) -> tuple[list[str], str | None]:
        full.append(name)
        return reasons(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(distribution, "_folder_reasons", counting)
    assert probe_distribution("alpha", paths=[site], locked_version="1.0", import_roots=["alpha"]).state == "present"
    assert full == []  # given from disk, every file stat-ed
