"""Probe decisions at their edges: a root the lockfile does not list at all, pip's ``~`` leftovers that
only look like a moved-aside package, byte-code rows in RECORD before the files that matter."""

from __future__ import annotations

from pathlib import Path

from tests.unit.probing.test_markers_required import LINUX_311, PYPROJECT
from tierlock.lockfiles.locks import Lock
from tierlock.lockfiles.requirements import parse
from tierlock.probing import probe_distribution
from tierlock.probing.required import required
from tierlock.probing.site import pip_leftover_of
from tierlock.tiers import load_project


def test_a_root_the_lockfile_does_not_list_at_all_is_still_required(project_dir: Path) -> None:
    (project_dir / "pyproject.toml").write_text(PYPROJECT)
    proj = load_project(project_dir)
    parsed = parse("both==2.0\n")  # alpha is missing from the lock (a stale lock): not "pinned only elsewhere"
    lock = Lock(
        path=Path("base.txt"), format="requirements", header=None, entries=tuple(parsed.entries), file_digest=""
    )
    needs = required(proj, proj.tier("base"), LINUX_311, lock)
    assert needs.roots == ("alpha", "both")
    assert not any(note.startswith("alpha") for note in needs.marked_away)


def test_a_tilde_name_whose_last_letter_differs_is_no_leftover_of_the_package() -> None:
    assert pip_leftover_of("~umpy", "numpy")
    assert pip_leftover_of("~-mpy", "numpy")
    assert not pip_leftover_of("~umpx", "numpy")
    assert not pip_leftover_of("~umpy", "numpz")
    assert not pip_leftover_of("~xmpy", "numpy")  # the one character pip put there is not one pip puts


def test_a_missing_file_listed_after_byte_code_rows_makes_the_package_partial(tmp_path: Path) -> None:
    site = tmp_path / "site"
    info = site / "alpha-1.0.dist-info"
    (site / "alpha").mkdir(parents=True)
    info.mkdir()
    (site / "alpha" / "__init__.py").write_text("")
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: alpha\nVersion: 1.0\n")
    (info / "INSTALLER").write_text("pip\n")
    (info / "RECORD").write_text(
        "alpha/__pycache__/__init__.cpython-312.pyc,,\n"
        "alpha/__init__.py,,\n"
        "alpha/_speedups.py,,\n"
        "alpha-1.0.dist-info/METADATA,,\n"
        "alpha-1.0.dist-info/INSTALLER,,\n"
        "alpha-1.0.dist-info/RECORD,,\n"
    )
    result = probe_distribution("alpha", paths=[site])
    assert result.state == "partial"
    assert any("alpha/_speedups.py" in reason for reason in result.reasons), result.reasons


def _hand_site(tmp_path: Path, record: str, *, info: dict[str, str] | None = None, installer: bool = True) -> Path:
    """A site folder holding alpha 1.0 (``alpha/__init__.py``) as an installer leaves it, with *record* as RECORD."""
    site = tmp_path / "site"
    dist_info = site / "alpha-1.0.dist-info"
    (site / "alpha").mkdir(parents=True)
    dist_info.mkdir()
    (site / "alpha" / "__init__.py").write_text("")
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: alpha\nVersion: 1.0\n")
    if installer:
        (dist_info / "INSTALLER").write_text("pip\n")
    for name, text in (info or {}).items():
        (dist_info / name).write_text(text)
    (dist_info / "RECORD").write_text(record)
    return site


_RECORD = (
    "alpha/__init__.py,,0\nalpha-1.0.dist-info/METADATA,,\nalpha-1.0.dist-info/INSTALLER,,\n"
    "alpha-1.0.dist-info/RECORD,,\n"
)


def test_a_quoted_record_with_short_rows_is_read_and_sizes_still_checked(tmp_path: Path) -> None:
    record = '"alpha/__init__.py",,5\nalpha/x.py\nalpha-1.0.dist-info/METADATA,\nalpha-1.0.dist-info/INSTALLER,,\n'
    (tmp_path / "a").mkdir()
    site = _hand_site(tmp_path / "a", record)
    (site / "alpha" / "x.py").write_text("")
    result = probe_distribution("alpha", paths=[site], deep=True)
    assert result.state == "partial"
    assert any("alpha/__init__.py" in r and "size" in r for r in result.reasons), result.reasons


def test_an_install_without_installer_is_partial_as_never_finished(tmp_path: Path) -> None:
    result = probe_distribution("alpha", paths=[_hand_site(tmp_path, _RECORD, installer=False)])
    assert result.state == "partial"
    assert any("INSTALLER missing" in r for r in result.reasons), result.reasons


def test_the_import_roots_come_from_record_not_from_a_stale_top_level_txt(tmp_path: Path) -> None:
    result = probe_distribution("alpha", paths=[_hand_site(tmp_path, _RECORD, info={"top_level.txt": "beta\n"})])
    assert result.state == "present", result.reasons


def test_a_console_script_its_entry_points_name_but_record_does_not_list_makes_it_partial(tmp_path: Path) -> None:
    entry_points = "[gui_scripts]\nalpha-gui = alpha:gui\n\n[console_scripts]\nalpha = alpha:main\n"
    result = probe_distribution("alpha", paths=[_hand_site(tmp_path, _RECORD, info={"entry_points.txt": entry_points})])
    assert result.state == "partial"
    assert any("console scripts of its entry points are not installed" in r for r in result.reasons), result.reasons


def test_importing_the_probe_package_loads_none_of_its_modules_nor_the_tier_model() -> None:
    import subprocess
    import sys

    code = (
        "import sys, tierlock.probing; "
        "print(sorted(m for m in sys.modules if m.startswith(('tierlock.', 'packaging'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['tierlock._lazy', 'tierlock._version', 'tierlock.probing']"


def _meta_site(tmp_path: Path, metadata: str, record: str = _RECORD) -> Path:
    site = _hand_site(tmp_path, record)
    (site / "alpha-1.0.dist-info" / "METADATA").write_text(metadata)
    return site


def test_the_version_is_read_from_the_headers_only_and_without_a_space_after_the_colon(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    tight = _meta_site(tmp_path / "a", "Metadata-Version: 2.1\nName: alpha\nVersion:1.0\n")
    result = probe_distribution("alpha", paths=[tight], locked_version="1.0")
    assert (result.state, result.version_text) == ("present", "1.0")
    in_body = _meta_site(tmp_path / "b", "Metadata-Version: 2.1\nName: alpha\n\nVersion: 1.0\n")
    result = probe_distribution("alpha", paths=[in_body], locked_version="1.0")
    assert result.version_text is None
    assert any("has no Version" in r for r in result.reasons), result.reasons


def test_a_deep_probe_finds_a_file_changed_in_place_at_the_same_size(tmp_path: Path) -> None:
    import base64
    import hashlib

    digest = base64.urlsafe_b64encode(hashlib.sha256(b"A = 1\n").digest()).rstrip(b"=").decode()
    record = f"alpha/__init__.py,sha256={digest},6\n" + _RECORD.split("\n", 1)[1]
    site = _hand_site(tmp_path, record)
    (site / "alpha" / "__init__.py").write_text("A = 1\n")
    same = probe_distribution("alpha", paths=[site], deep=True)
    assert same.state == "present"
    hashes = {f.record_path: f.hash for f in same.files}
    assert hashes["alpha/__init__.py"] == f"sha256={digest}"
    assert hashes["alpha-1.0.dist-info/METADATA"] is None  # RECORD gives none: None, not ""
    (site / "alpha" / "__init__.py").write_text("A = 2\n")
    result = probe_distribution("alpha", paths=[site], deep=True)
    assert result.state == "partial"
    assert any("alpha/__init__.py" in r for r in result.reasons), result.reasons


def test_a_top_level_module_file_is_an_import_root_found_on_disk(tmp_path: Path) -> None:
    record = "beta.py,,0\n" + _RECORD.split("\n", 1)[1]
    site = _hand_site(tmp_path, record)
    (site / "beta.py").write_text("")
    result = probe_distribution("alpha", paths=[site])
    assert (result.state, result.import_roots) == ("present", ("beta",))
    (site / "gamma.py").write_text("")  # a declared root no RECORD row names: looked for on disk
    declared = probe_distribution("alpha", paths=[site], import_roots=["gamma"])
    assert declared.state == "present", declared.reasons
    (site / "gamma.py").unlink()
    assert probe_distribution("alpha", paths=[site], import_roots=["gamma"]).state != "present"


def test_a_dist_info_folder_equals_only_another_dist_info_folder(tmp_path: Path) -> None:
    from tierlock.probing import SiteIndex

    found = SiteIndex.scan([_hand_site(tmp_path, _RECORD)]).find("alpha")
    assert found[0] == SiteIndex.scan([tmp_path / "site"]).find("alpha")[0]
    assert found[0] != "alpha-1.0.dist-info"


def test_a_version_after_eight_kib_of_headers_is_still_read(tmp_path: Path) -> None:
    classifiers = "".join(f"Classifier: Topic :: Software Development :: Item {i:04d}\n" for i in range(200))
    metadata = "Metadata-Version: 2.1\nName: alpha\n" + classifiers + "Version: 1.0\n\nA long description.\n"
    assert len(metadata.encode()) > 8192
    result = probe_distribution("alpha", paths=[_meta_site(tmp_path, metadata)], locked_version="1.0")
    assert (result.state, result.version_text) == ("present", "1.0")


def test_site_folders_are_existing_folders_outside_the_stdlib_unless_named_site_packages(tmp_path: Path) -> None:
    from tierlock.probing.site import site_folders

    stdlib = tmp_path / "lib" / "python3.11"
    (stdlib / "site-packages").mkdir(parents=True)
    (stdlib / "lib-dynload").mkdir()
    user = tmp_path / "user-site"
    user.mkdir()
    (tmp_path / "python311.zip").write_bytes(b"")
    entries = [
        "",
        str(tmp_path / "python311.zip"),
        str(stdlib),
        str(stdlib / "lib-dynload"),
        str(stdlib / "site-packages"),
        str(user),
        str(tmp_path / "gone"),
    ]
    assert site_folders(str(stdlib), entries) == (stdlib / "site-packages", user)


def test_a_version_on_the_last_line_without_a_newline_is_read(tmp_path: Path) -> None:
    site = _meta_site(tmp_path, "Metadata-Version: 2.1\nName: alpha\nVersion: 1.0")
    assert probe_distribution("alpha", paths=[site], locked_version="1.0").version_text == "1.0"


def test_a_dist_info_that_is_a_file_is_partial_with_its_reasons_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "alpha-1.0.dist-info").write_text("not a folder")
    result = probe_distribution("alpha", paths=[tmp_path])
    assert result.state == "partial"
    assert any(r.startswith("METADATA unreadable") and "Not a directory" in r for r in result.reasons), result.reasons


def test_a_record_that_is_not_utf8_is_reported_unreadable(tmp_path: Path) -> None:
    site = _hand_site(tmp_path, _RECORD)
    (site / "alpha-1.0.dist-info" / "RECORD").write_bytes(b"alpha/\xff\xfe.py,,\n")
    result = probe_distribution("alpha", paths=[site])
    assert result.state == "partial"
    assert any(r.startswith("RECORD unreadable") for r in result.reasons), result.reasons


def test_a_site_folder_that_cannot_be_listed_does_not_hide_the_ones_after_it(tmp_path: Path) -> None:
    from tierlock.probing import SiteIndex

    site = _hand_site(tmp_path, _RECORD)
    index = SiteIndex.scan([tmp_path / "gone", site])
    assert [d.name for d in index.find("alpha")] == ["alpha"]


def test_scripts_outside_the_site_folder_are_no_top_level_names_for_leftovers(tmp_path: Path) -> None:
    record = "../../bin/alpha,,\n" + _RECORD
    site = _hand_site(tmp_path, record)
    (site / "~.").mkdir()  # pip's leftover shape for a two-character name: not one of this package's
    result = probe_distribution("alpha", paths=[site])
    assert not any("leftover" in r for r in result.reasons), result.reasons


def test_missing_files_are_named_up_to_three_then_counted(tmp_path: Path) -> None:
    two = "alpha/a.py,,\nalpha/b.py,,\n" + _RECORD
    (tmp_path / "two").mkdir()
    result = probe_distribution("alpha", paths=[_hand_site(tmp_path / "two", two)])
    assert "2 files listed in RECORD are missing: alpha/a.py, alpha/b.py" in result.reasons
    four = "alpha/a.py,,\nalpha/b.py,,\nalpha/c.py,,\nalpha/d.py,,\n" + _RECORD
    (tmp_path / "four").mkdir()
    result = probe_distribution("alpha", paths=[_hand_site(tmp_path / "four", four)])
    assert "4 files listed in RECORD are missing: alpha/a.py, alpha/b.py, alpha/c.py and 1 more" in result.reasons


def test_only_a_deep_probe_says_it_checked_the_hashes(tmp_path: Path) -> None:
    site = _hand_site(tmp_path, _RECORD)
    assert "hashes checked (--deep)" in probe_distribution("alpha", paths=[site], deep=True).notes
    assert "hashes checked (--deep)" not in probe_distribution("alpha", paths=[site]).notes


def test_a_leftover_of_a_recorded_data_folder_that_is_no_import_root_is_seen(tmp_path: Path) -> None:
    record = "alpha_data/table.csv,,2\n" + _RECORD
    site = _hand_site(tmp_path, record)
    (site / "alpha_data").mkdir()
    (site / "alpha_data" / "table.csv").write_text("1\n")
    (site / "~lpha_data").mkdir()  # pip moved the folder aside and was stopped
    result = probe_distribution("alpha", paths=[site])
    assert result.import_roots == ("alpha",)
    assert result.reasons == [f"leftover ~lpha_data beside it in {site}: an interrupted pip uninstall or upgrade"]


def test_a_record_hash_of_an_algorithm_python_does_not_know_never_matches_under_deep(tmp_path: Path) -> None:
    record = "alpha/__init__.py,nosuchhash=AAAA,0\n" + _RECORD.partition("\n")[2]
    site = _hand_site(tmp_path, record)
    result = probe_distribution("alpha", paths=[site], deep=True)
    assert result.reasons == ["file does not match its RECORD hash: alpha/__init__.py"]
    assert probe_distribution("alpha", paths=[site]).state == "present"  # without --deep no hash is read
