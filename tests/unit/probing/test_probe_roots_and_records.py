"""Import roots, RECORD rows and ``.dist-info`` folder names, read as the probe reads them (pure functions and
files laid out by hand)."""

from __future__ import annotations

import hashlib
from base64 import urlsafe_b64encode
from pathlib import Path

from tierlock.probing import SiteIndex, probe_distribution
from tierlock.probing.roots import find_root, providers

SUFFIXES = (".cpython-313-x86_64-linux-gnu.so", ".abi3.so", ".so")


def test_the_modules_record_paths_provide_are_named_for_the_target() -> None:
    rels = [
        "six.py",
        "typing_extensions.py",
        "pkg/__init__.py",
        "pkg/sub/mod.py",
        "_cffi_backend.cpython-313-x86_64-linux-gnu.so",
        "_old.cpython-312-x86_64-linux-gnu.so",
        "_rust.abi3.so",
        "pkg.libs/libz.so.1",
        "pkg-1.0.dist-info/METADATA",
        "pkg-1.0.data/scripts/tool.py",
        "__pycache__/x.py",
        "../../bin/tool.py",
        "1bad.py",
        "licenses/LICENSE",
    ]
    assert providers(rels, SUFFIXES) == {
        "six": ["six.py"],
        "typing_extensions": ["typing_extensions.py"],
        "pkg": ["pkg/__init__.py", "pkg/sub/mod.py"],
        "_cffi_backend": ["_cffi_backend.cpython-313-x86_64-linux-gnu.so"],
        "_rust": ["_rust.abi3.so"],
    }


def test_a_root_hollow_in_one_place_is_found_in_the_next(tmp_path: Path) -> None:
    (tmp_path / "checkout" / "pkg").mkdir(parents=True)  # an empty folder first (a src layout's leftover)
    (tmp_path / "checkout" / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "checkout" / "src" / "pkg" / "__init__.py").write_text("")
    places = [str(tmp_path / "checkout"), str(tmp_path / "checkout" / "src")]
    assert find_root("pkg", places, SUFFIXES) == "ok"
    assert find_root("pkg", places[:1], SUFFIXES) == str(tmp_path / "checkout" / "pkg")


def _dist(site: Path, rows: list[str], *, direct_url: str | None = None) -> Path:
    info = site / "alpha-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: alpha\nVersion: 1.0\n")
    (info / "INSTALLER").write_text("pip\n")
    if direct_url is not None:
        (info / "direct_url.json").write_text(direct_url)
    own = ["alpha-1.0.dist-info/METADATA,,", "alpha-1.0.dist-info/INSTALLER,,4", "alpha-1.0.dist-info/RECORD,,"]
    (info / "RECORD").write_text("\n".join([*rows, *own]) + "\n")
    return info


def _row(site: Path, rel: str, data: bytes, *, quoted: bool = False) -> str:
    (site / rel).parent.mkdir(parents=True, exist_ok=True)
    (site / rel).write_bytes(data)
    digest = urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f'"{rel}","sha256={digest}",{len(data)}' if quoted else f"{rel},sha256={digest},{len(data)}"


def test_a_quoted_record_keeps_its_hashes_for_a_deep_probe(tmp_path: Path) -> None:
    site = tmp_path / "site"
    _dist(site, [_row(site, "alpha/__init__.py", b"X = 1\n", quoted=True)])
    assert probe_distribution("alpha", paths=[site], deep=True).state == "present"
    (site / "alpha" / "__init__.py").write_bytes(b"X = 2\n")
    assert probe_distribution("alpha", paths=[site], deep=True).reasons == [
        "file does not match its RECORD hash: alpha/__init__.py"
    ]


def test_a_data_folder_at_the_top_hides_no_import_root_after_it(tmp_path: Path) -> None:
    site = tmp_path / "site"
    rows = [_row(site, "licenses/LICENSE", b"MIT\n"), "alpha/__init__.py,,6"]
    _dist(site, rows)
    result = probe_distribution("alpha", paths=[site])
    assert result.import_roots == ("alpha",)
    assert result.reasons == [
        "file listed in RECORD is missing: alpha/__init__.py",
        f"import root 'alpha' (recorded) is missing from {site}",
    ]


def test_a_local_folder_installed_without_editable_is_no_editable_install(tmp_path: Path) -> None:
    site = tmp_path / "site"
    source = tmp_path / "src"
    source.mkdir()
    url = f'{{"url": "{source.as_uri()}", "dir_info": {{"editable": false}}}}'
    _dist(site, [_row(site, "alpha/__init__.py", b"X = 1\n")], direct_url=url)
    result = probe_distribution("alpha", paths=[site])
    assert (result.state, result.editable_source, result.notes) == ("present", None, [])


def test_only_an_editable_install_without_roots_says_only_its_source_was_checked(tmp_path: Path) -> None:
    site = tmp_path / "site"
    _dist(site, [])  # nothing but its own .dist-info
    assert probe_distribution("alpha", paths=[site]).notes == []
    source = tmp_path / "checkout"
    source.mkdir()
    (site / "alpha-1.0.dist-info" / "direct_url.json").write_text(
        f'{{"url": "{source.as_uri()}", "dir_info": {{"editable": true}}}}'
    )
    assert "no import roots declared or recorded: only the source folder was checked" in (
        probe_distribution("alpha", paths=[site]).notes
    )


def test_the_version_in_a_dist_info_folder_name_is_kept_whole(tmp_path: Path) -> None:
    site = tmp_path / "site"
    for name in ("alpha-1.0.dist-info", "b-2.dist-info", "Zope.Interface-7.1.dist-info"):
        (site / name).mkdir(parents=True)
    index = SiteIndex.scan([site])
    assert [(d.name, d.folder_version) for d in index.find("alpha")] == [("alpha", "1.0")]
    assert [(d.name, d.folder_version) for d in index.find("b")] == [("b", "2")]
    assert [d.folder_version for d in index.find("zope-interface")] == ["7.1"]
