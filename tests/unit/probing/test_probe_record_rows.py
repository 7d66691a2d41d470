"""RECORD rows the probe meets outside what installers write: fewer than three fields (a hand-edited or
truncated RECORD). Read from files in a site folder made here, no install needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tierlock.probing import probe_distribution


def _site(tmp_path: Path, extra_row: str, *, make_extra: bool) -> Path:
    site = tmp_path / "site"
    pkg = site / "alpha"
    info = site / "alpha-1.0.dist-info"
    pkg.mkdir(parents=True)
    info.mkdir()
    (pkg / "__init__.py").write_text("")
    if make_extra:
        (pkg / "extra.py").write_text("X = 1\n")
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: alpha\nVersion: 1.0\n")
    (info / "INSTALLER").write_text("pip\n")
    (info / "RECORD").write_text(
        "alpha/__init__.py,,\n"
        f"{extra_row}\n"
        "alpha-1.0.dist-info/METADATA,,\n"
        "alpha-1.0.dist-info/INSTALLER,,\n"
        "alpha-1.0.dist-info/RECORD,,\n"
    )
    return site


@pytest.mark.parametrize("row", ["alpha/extra.py", "alpha/extra.py,"])
def test_a_record_row_with_fewer_than_three_fields_names_a_file_like_any_other(tmp_path: Path, row: str) -> None:
    present = probe_distribution("alpha", paths=[_site(tmp_path / "a", row, make_extra=True)])
    assert present.state == "present", present.reasons
    gone = probe_distribution("alpha", paths=[_site(tmp_path / "b", row, make_extra=False)])
    assert gone.state == "partial"
    assert any("alpha/extra.py" in reason for reason in gone.reasons), gone.reasons


def _reference(text: str) -> list[tuple[str, str, str]]:
    """An unquoted RECORD read one row at a time: each row split on its last two commas (no field of an unquoted
    row holds a comma), missing fields empty, byte-code caches left out."""
    rows = []
    for line in filter(None, text.splitlines()):
        parts = [*line.rsplit(",", 2), "", ""]
        if not parts[0].endswith(".pyc"):
            rows.append((parts[0], parts[1], parts[2]))
    return rows


@pytest.mark.parametrize(
    "text",
    [
        "a/x.py,sha256=abc,12\na/__pycache__/x.cpython-311.pyc,,\nb.dist-info/RECORD,,\n",
        "a/x.py,sha256=abc\na/y.py,sha256=def,3,4\n",  # one comma short on a row, one too many on the next
        "a/x.py\n\na/y.py,,\n",  # a row with one field, an empty line
        "a/x.py,sha256=abc,12\r\na/y.pyc,sha256=d,1\r\n",
        "a/x.py,h.pyc,12\n",  # '.pyc,' inside a row that is no byte-code cache
    ],
)
def test_record_columns_hold_the_same_rows_as_reading_them_one_by_one(tmp_path: Path, text: str) -> None:
    from tierlock.probing import record

    path = tmp_path / "RECORD"
    path.write_bytes(text.encode("utf-8"))
    (rels, hashes, sizes), _ = record.read_rows(str(path))
    assert list(zip(rels, hashes, sizes, strict=True)) == _reference(text)


@pytest.mark.parametrize("size", ["\u00b2", "-3", " 7", "1_000"])
def test_a_record_size_that_is_not_a_plain_number_is_no_size_and_the_file_is_still_checked(
    tmp_path: Path, size: str
) -> None:
    site = _site(tmp_path, f"alpha/extra.py,,{size}", make_extra=True)
    present = probe_distribution("alpha", paths=[site])
    assert present.state == "present", present.reasons
    assert ("alpha/extra.py", None) in [(rel, recorded) for _full, rel, recorded, _hash in present.records]
    (site / "alpha" / "extra.py").unlink()
    gone = probe_distribution("alpha", paths=[site])
    assert gone.state == "partial"
    assert any("alpha/extra.py" in reason for reason in gone.reasons), gone.reasons


@pytest.mark.parametrize(
    "rels",
    [
        ["a/__init__.py", "a/_x.cpython-311-x86_64-linux-gnu.so", "a.libs/libz-1a2b.so.1.2.13", "b/c.py"],
        ["a/x.so.d/y.py", "a/so.py", "a/_k.so", "a/_k.so", "a/lib.so.so", ".so"],  # folders named .so, repeats
        ["a/_x.abi3.so", "a/_y.pyd", "a/z.dll", "a/w.dylib", "a/v.py"],  # other kinds: row by row
        ["one.so"],
        ["", "a/_k.so"],  # an empty path first: the newline that ends it starts the joined text
        ["a/_y.pyd", "a/x.so.d/y.py", "a/_z.so"],  # a .pyd among them: row by row, the same rule
        [],
    ],
)
def test_the_compiled_rows_found_in_the_joined_paths_are_the_ones_the_row_by_row_rule_picks(rels: list[str]) -> None:
    from tierlock.probing import rowfacts
    from tierlock.probing.compiled import is_compiled

    expected = [i for i, rel in enumerate(rels) if is_compiled(rel)]
    assert rowfacts.compiled_rows(rels, "\n".join(rels)) == expected


@pytest.mark.parametrize("rels", [["/abs/file.py", "a/b.py", "top.py", "a", "a/c/d.py"], ["x", "x/y"], []])
def test_the_first_parts_of_the_paths_are_the_ones_partition_gives_folders_marked(rels: list[str]) -> None:
    from tierlock.probing import rowfacts

    expected: dict[str, bool] = {}
    for rel in rels:
        head, sep, _ = rel.partition("/")
        if sep or head not in expected:
            expected[head] = bool(sep)
    assert rowfacts.heads(rels) == expected
    assert list(rowfacts.heads(rels)) == list(expected)


def test_the_files_stat_ed_together_leave_out_metadata_record_and_the_compiled_files_stat_ed_apart(
    tmp_path: Path,
) -> None:
    from tierlock.probing import distinfo
    from tierlock.probing.site import SiteIndex

    site = _site(tmp_path, "alpha/_speed.so,,4", make_extra=False)
    (site / "alpha" / "_speed.so").write_bytes(b"\x7fELF")
    index = SiteIndex.scan([site], (".so",))
    facts, _ = distinfo.read(index.find("alpha")[0], index.suffixes, again=True)
    assert facts.compiled == ((str(site / "alpha" / "_speed.so"), "alpha/_speed.so"),)
    assert facts.compiled_sizes == (4,)
    info = site / "alpha-1.0.dist-info"
    assert sorted(facts.paths) == sorted([str(site / "alpha" / "__init__.py"), str(info / "INSTALLER")])
    assert probe_distribution("alpha", index=index).state == "present"


def test_a_metadata_whose_size_is_not_the_one_record_gives_is_named_with_both_sizes(tmp_path: Path) -> None:
    site = _site(tmp_path, "alpha/extra.py,,6", make_extra=True)
    record = site / "alpha-1.0.dist-info" / "RECORD"
    record.write_text(record.read_text().replace("alpha-1.0.dist-info/METADATA,,", "alpha-1.0.dist-info/METADATA,,7"))
    size = (site / "alpha-1.0.dist-info" / "METADATA").stat().st_size
    result = probe_distribution("alpha", paths=[site])
    assert result.state == "partial"
    assert result.reasons == [
        f"file has another size than RECORD says: alpha-1.0.dist-info/METADATA ({size} bytes, RECORD says 7)"
    ]


def test_a_console_script_recorded_outside_the_site_folder_is_checked_at_its_real_place(tmp_path: Path) -> None:
    site = _site(tmp_path, "../bin/alpha,,3", make_extra=False)
    info = site / "alpha-1.0.dist-info"
    (info / "entry_points.txt").write_text("[console_scripts]\nalpha = alpha:main\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "alpha").write_text("#!\n")
    present = probe_distribution("alpha", paths=[site])
    assert present.state == "present", present.reasons
    assert (str(bin_dir / "alpha"), "../bin/alpha") in [(full, rel) for full, rel, _s, _h in present.records]
    (bin_dir / "alpha").unlink()
    gone = probe_distribution("alpha", paths=[site])
    assert gone.state == "partial"
    assert any("../bin/alpha" in reason for reason in gone.reasons), gone.reasons
