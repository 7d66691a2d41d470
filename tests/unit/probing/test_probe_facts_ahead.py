"""A ``.dist-info`` folder's facts made ahead, while an installer may still write it, are the slow path's facts.

:func:`tierlock.probing.distinfo.prepare` reads a folder's listing and its own files at one moment and makes
its facts from those bytes; :func:`~tierlock.probing.distinfo.read` gives them only when the folder holds the
same listing and the same bytes then. Each shape of folder here is read both ways and every fact compared; a
folder changed after the facts were made ahead (a file rewritten with the same size, one added or deleted)
is read again; a folder that does not look finished is not made ahead at all; facts made for one target's
extension suffixes are not given to another's.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tierlock.probing import SiteIndex, distcache, distfiles, distinfo, metadata, probe_distribution, regular

EXT = ".cpython-311-x86_64-linux-gnu.so"
OTHER_EXT = ".cpython-312-x86_64-linux-gnu.so"
SUFFIXES = (EXT, ".abi3.so", ".so")
OLD = time.time() - 60


def _folder(site: Path, files: dict[str, str], *, record: str | None = None, quoted: bool = False) -> Path:
    """alpha 1.0 in *site*: *files* (paths relative to the site folder) and a RECORD listing them with their sizes,
    INSTALLER and itself (*record*: that text instead)."""
    info = site / "alpha-1.0.dist-info"
    info.mkdir(parents=True)
    files = {"alpha-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: alpha\nVersion: 1.0\n", **files}
    files.setdefault("alpha-1.0.dist-info/INSTALLER", "uv\n")
    rows = []
    for rel, text in files.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(text, newline="")
        rows.append(f'"{rel}",,{len(text.encode())}' if quoted else f"{rel},,{len(text.encode())}")
    rows.append("alpha-1.0.dist-info/RECORD,,")
    (info / "RECORD").write_text(record if record is not None else "\n".join(rows) + "\n")
    return info


def _facts(facts: distinfo.DistInfo) -> dict[str, object]:
    out = {name: getattr(facts, name) for name in distcache.PLAIN}
    return {**out, "source": facts.source, "key": facts.key, "rows": facts.rows, "modules": facts.modules}


def _slow(info: Path, suffixes: tuple[str, ...] = SUFFIXES) -> dict[str, object]:
    (found,) = SiteIndex.scan([info.parent], suffixes).find("alpha")
    return _facts(distinfo._build(found, distinfo._identity(found.path), suffixes))


def _ahead_then_read(info: Path, suffixes: tuple[str, ...] = SUFFIXES) -> tuple[bool, distinfo.DistInfo]:
    (found,) = SiteIndex.scan([info.parent], suffixes).find("alpha")
    made = distinfo.prepare(found, suffixes)
    ahead = distinfo._PREPARED.get((found.path, suffixes))
    facts = distinfo.read(found, suffixes)[0]
    assert (facts is ahead[1]) if made and ahead is not None else not made  # the very facts made ahead are given
    return made, facts


@pytest.fixture(autouse=True)
def _nothing_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(distinfo, "_PREPARED", {})
    monkeypatch.setattr(distinfo, "_MEMO", {})


LONG = "Summary: " + "x" * 8141 + "\n"  # METADATA's Version line then crosses the 8 KiB mark

SHAPES = {
    "plain": ({"alpha/__init__.py": "X = 1\n", "alpha/util.py": ""}, {}),
    "compiled": ({"alpha/__init__.py": "", f"alpha/_speedups{EXT}": "\x7fELF", f"alpha/_old{OTHER_EXT}": "x"}, {}),
    "console scripts": (
        {
            "alpha/__init__.py": "",
            "alpha-1.0.dist-info/entry_points.txt": "[console_scripts]\r\nalpha = alpha:main\r\n[gui_scripts]\r\n",
            "../../../bin/alpha": "#!python\n",
        },
        {},
    ),
    "editable": (
        {
            "alpha-1.0.dist-info/direct_url.json": json.dumps(
                {"url": "file:///src/al%20pha", "dir_info": {"editable": True}}
            ),
            "_alpha.pth": "/src/al pha\n",
        },
        {},
    ),
    "quoted": ({"alpha/a,b.py": "", "alpha/__init__.py": ""}, {"quoted": True}),
    "long headers": (
        {"alpha-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: alpha\n" + LONG + "Version: 1.0\n"},
        {},
    ),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_facts_made_ahead_of_a_finished_folder_are_the_slow_paths_facts(tmp_path: Path, shape: str) -> None:
    files, options = SHAPES[shape]
    info = _folder(tmp_path / "lib" / "site", files, **options)  # type: ignore[arg-type]
    made, facts = _ahead_then_read(info)
    assert made
    assert _facts(facts) == _slow(info)
    assert facts.version_raw == "1.0"


def test_the_version_on_a_line_that_crosses_the_8_kib_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "METADATA"
    text = "Metadata-Version: 2.1\nName: alpha\n" + LONG + "Version: 1.0\n"
    head = len(("Metadata-Version: 2.1\nName: alpha\n" + LONG).encode())
    assert head < 8192 < head + len("Version: 1.0\n")
    path.write_text(text)
    assert metadata.metadata_version(str(path)) == "1.0"
    assert metadata.version_in(text.encode()) == "1.0"


@pytest.mark.parametrize(
    ("change", "expect"),
    [
        ("record", "alpha/util.py (3 bytes, RECORD says 4)"),
        ("metadata", "1.1"),
        ("installer", "INSTALLER missing"),
        ("entry points", "console script"),
        ("direct_url.json", "/elsewhere"),
    ],
)
def test_a_folder_changed_after_its_facts_were_made_ahead_is_read_again(
    tmp_path: Path, change: str, expect: str
) -> None:
    files = {"alpha/util.py": "X=1", "alpha-1.0.dist-info/entry_points.txt": "[console_scripts]\n"}
    files["../../../bin/alpha"] = ""
    info = _folder(tmp_path / "lib" / "site", files)
    (found,) = SiteIndex.scan([info.parent], SUFFIXES).find("alpha")
    assert distinfo.prepare(found, SUFFIXES)
    ahead = distinfo._PREPARED[(found.path, SUFFIXES)][1]
    if change == "record":  # the same size: util.py's recorded size 3 -> 4
        text = (info / "RECORD").read_text()
        (info / "RECORD").write_text(text.replace("alpha/util.py,,3", "alpha/util.py,,4"))
    elif change == "metadata":  # the same size
        (info / "METADATA").write_text((info / "METADATA").read_text().replace("1.0", "1.1"))
    elif change == "installer":
        (info / "INSTALLER").unlink()
    elif change == "entry points":  # the same size
        (info / "entry_points.txt").write_text("[console_scripts]\nb=a:c\n")
    else:
        (info / "direct_url.json").write_text(json.dumps({"url": "file:///elsewhere", "dir_info": {"editable": True}}))
    facts, _ = distinfo.read(found, SUFFIXES)
    assert facts is not ahead
    assert _facts(facts) == _slow(info)
    said = [str(facts.source), facts.version_raw, *facts.unfinished]
    if change == "record":
        said = probe_distribution("alpha", index=SiteIndex.scan([info.parent], SUFFIXES)).reasons  # type: ignore[assignment]
    assert any(expect in str(s) for s in said), said


@pytest.mark.parametrize(
    "unfinished",
    ["no INSTALLER", "the wheel's own RECORD", "no RECORD", "no METADATA", "no Version", "an unreadable RECORD"],
)
def test_a_folder_that_does_not_look_finished_is_not_made_ahead_and_is_read_as_usual(
    tmp_path: Path, unfinished: str
) -> None:
    info = _folder(tmp_path / "lib" / "site", {"alpha/__init__.py": ""})
    if unfinished == "no INSTALLER":
        (info / "INSTALLER").unlink()
    elif unfinished == "the wheel's own RECORD":
        text = (info / "RECORD").read_text()
        (info / "RECORD").write_text("\n".join(r for r in text.splitlines() if "INSTALLER" not in r) + "\n")
    elif unfinished == "no RECORD":
        (info / "RECORD").unlink()
    elif unfinished == "no METADATA":
        (info / "METADATA").unlink()
    elif unfinished == "no Version":
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: alpha\n")
    else:
        (info / "RECORD").write_bytes(b"alpha/__init__.py,,0\n\xff.dist-info/INSTALLER,,\n")
    made, facts = _ahead_then_read(info)
    assert not made
    assert distinfo._PREPARED == {}
    assert _facts(facts) == _slow(info)


def test_facts_made_ahead_for_one_targets_suffixes_are_not_given_for_anothers(tmp_path: Path) -> None:
    info = _folder(tmp_path / "lib" / "site", {"alpha/__init__.py": "", f"alpha/_core{OTHER_EXT}": "\x7fELF"})
    (found,) = SiteIndex.scan([info.parent], SUFFIXES).find("alpha")
    assert distinfo.prepare(found, SUFFIXES)
    other = (OTHER_EXT, ".abi3.so", ".so")
    facts, _ = distinfo.read(found, other)
    assert _facts(facts) == _slow(info, other)
    assert (found.path, SUFFIXES) in distinfo._PREPARED  # kept for its own target, given to no other


def test_an_extension_deleted_after_the_facts_were_made_ahead_is_found_missing(tmp_path: Path) -> None:
    info = _folder(tmp_path / "lib" / "site", {"alpha/__init__.py": "", f"alpha/_speedups{EXT}": "\x7fELF"})
    (found,) = SiteIndex.scan([info.parent], SUFFIXES).find("alpha")
    assert distinfo.prepare(found, SUFFIXES)
    (info.parent / "alpha" / f"_speedups{EXT}").unlink()
    probe = probe_distribution("alpha", index=SiteIndex.scan([info.parent], SUFFIXES))
    assert distinfo._PREPARED == {}  # the probe took them
    assert probe.state == "partial"
    assert any(f"_speedups{EXT}" in reason for reason in probe.reasons), probe.reasons


def test_the_folder_is_read_at_one_moment_listing_first_and_only_the_files_the_facts_are_made_of(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = _folder(tmp_path / "lib" / "site", {"alpha/__init__.py": "", "alpha-1.0.dist-info/top_level.txt": "a\n"})
    opened: list[str] = []
    real = regular.open_bytes

    def counting(file: str, buffering: int = -1) -> object:
        opened.append(os.path.basename(file))
        return real(file, buffering)

    monkeypatch.setattr(distfiles, "open_bytes", counting)
    held = distfiles.take(str(info))
    monkeypatch.undo()
    assert held is not None
    assert sorted(opened) == ["METADATA", "RECORD"]
    assert held.listing == frozenset(os.listdir(info))
    assert held == distfiles.take(str(info))
    assert held != distfiles.take(str(info), frozenset({"REQUESTED"}))


def test_an_editable_install_whose_source_is_no_local_folder_is_said_so_both_ways(tmp_path: Path) -> None:
    url = json.dumps({"url": "https://example.com/src", "dir_info": {"editable": True}})
    info = _folder(tmp_path / "lib" / "site", {"alpha-1.0.dist-info/direct_url.json": url})
    made, facts = _ahead_then_read(info)
    assert made
    assert facts.source is None
    assert (
        facts.source_problem == "editable install with a source that is not a local folder: 'https://example.com/src'"
    )
    assert _facts(facts) == _slow(info)


def test_four_console_scripts_not_installed_are_counted_and_three_named(tmp_path: Path) -> None:
    scripts = "".join(f"s{i} = alpha:main\n" for i in range(4))
    info = _folder(tmp_path / "lib" / "site", {"alpha-1.0.dist-info/entry_points.txt": f"[console_scripts]\n{scripts}"})
    made, facts = _ahead_then_read(info)
    assert not made  # unfinished: read after the backend
    assert facts.unfinished == ["4 console scripts of its entry points are not installed: s0, s1, s2 and 1 more"]


def test_facts_kept_whose_metadata_vanished_under_an_unchanged_folder_are_read_again(tmp_path: Path) -> None:
    info = _folder(tmp_path / "lib" / "site", {"alpha/__init__.py": ""})
    for path in (*info.iterdir(), info):
        os.utime(path, (OLD, OLD))
    index = SiteIndex.scan([info.parent], SUFFIXES)
    assert probe_distribution("alpha", index=index).state == "present"
    assert (str(info), SUFFIXES) in distinfo._MEMO  # settled: kept
    (info / "METADATA").unlink()
    os.utime(info, (OLD, OLD))  # the folder's identity put back: only METADATA's own stat tells
    probe = probe_distribution("alpha", index=SiteIndex.scan([info.parent], SUFFIXES))
    assert probe.state == "partial"
    assert any("METADATA missing" in reason for reason in probe.reasons), probe.reasons


def test_a_folder_written_within_the_last_second_is_not_kept(tmp_path: Path) -> None:
    info = _folder(tmp_path / "lib" / "site", {"alpha/__init__.py": ""})
    (found,) = SiteIndex.scan([info.parent], SUFFIXES).find("alpha")
    distinfo.read(found, SUFFIXES)
    assert distinfo._MEMO == {}


def test_a_kept_folder_deleted_since_is_read_as_gone(tmp_path: Path) -> None:
    info = _folder(tmp_path / "lib" / "site", {"alpha/__init__.py": ""})
    for path in (*info.iterdir(), info):
        os.utime(path, (OLD, OLD))
    (found,) = SiteIndex.scan([info.parent], SUFFIXES).find("alpha")
    distinfo.read(found, SUFFIXES)
    assert (str(info), SUFFIXES) in distinfo._MEMO
    for path in info.iterdir():
        path.unlink()
    info.rmdir()
    facts, confirm = distinfo.read(found, SUFFIXES)
    assert not confirm
    assert facts.record_problem is not None
    assert any("METADATA missing" in problem for problem in facts.problems), facts.problems
