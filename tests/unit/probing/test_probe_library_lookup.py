"""The library lookup's rules one by one, on crafted ELF files in folders of the test's own: the search
order, the tokens a path may hold, ``DF_1_NODEFLIB``, the names the interpreter provides, which files
count as extensions, the verdicts kept on disk, and the remedy that names the system package."""

from __future__ import annotations

import marshal
import os
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.support import binaries
from tierlock import keptfirst
from tierlock.probing import elf, ldpaths, libcache, libraries, libremedy, provider, relied
from tierlock.probing.distribution import DistributionProbe


def lib(folder: Path, name: str, **kwargs: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(binaries.elf(**kwargs))  # type: ignore[arg-type]
    return path


def session(tmp_path: Path, *, library_path: str = "", cache: Path | None = None) -> libraries.Session:
    return libraries.Session([str(tmp_path / "site")], library_path=library_path, cache=str(cache or tmp_path / "none"))


def missing(tmp_path: Path, ext: Path, **kwargs: object) -> list[tuple[str, str | None]]:
    found = session(tmp_path, **kwargs).missing(str(ext), "pkg/_ext.so")  # type: ignore[arg-type]
    return [(m.library, m.via) for m in libs(found)]


def libs(found: Sequence[libraries.Missing | libraries.Unloadable]) -> list[libraries.Missing]:
    """*found*, each a library the loader cannot find (these sessions name no interpreter: nothing is refused)."""
    for m in found:
        assert isinstance(m, libraries.Missing), m
    return [m for m in found if isinstance(m, libraries.Missing)]


@pytest.fixture(autouse=True)
def _no_kept_verdicts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", str(tmp_path / "kept"))
    libraries._VERDICTS.clear()


def test_the_origin_token_in_both_spellings_names_the_extensions_folder(tmp_path: Path) -> None:
    site = tmp_path / "site"
    lib(site / "pkg.libs", "liba.so.1")
    lib(site / "pkg" / "deps", "libb.so.1")
    ext = lib(site / "pkg", "_ext.so", needed=["liba.so.1", "libb.so.1"], runpath="$ORIGIN/../pkg.libs:${ORIGIN}/deps")
    assert missing(tmp_path, ext) == []


def test_lib_and_platform_tokens_are_tried_with_every_likely_value(tmp_path: Path) -> None:
    site = tmp_path / "site"
    lib(site / "pkg" / "lib64" / "x86_64", "libp.so.1")
    ext = lib(site / "pkg", "_ext.so", needed=["libp.so.1"], rpath="$ORIGIN/$LIB/${PLATFORM}")
    assert missing(tmp_path, ext) == []
    ext32 = lib(site / "pkg", "_ext32.so", needed=["libp.so.1"], rpath="$ORIGIN/${LIB}", elf_class=1, machine=3)
    lib(site / "pkg" / "lib32", "libp.so.1", elf_class=1, machine=3)
    assert missing(tmp_path, ext32) == []


def test_a_name_with_a_slash_is_a_path_not_a_search(tmp_path: Path) -> None:
    site = tmp_path / "site"
    lib(site / "pkg" / "sub", "libs.so.1")
    ext = lib(site / "pkg", "_ext.so", needed=["$ORIGIN/sub/libs.so.1", "$ORIGIN/gone/libs.so.1"])
    assert missing(tmp_path, ext) == [("$ORIGIN/gone/libs.so.1", None)]


def test_nodeflib_keeps_the_loader_cache_and_the_default_folders_out_of_the_search(tmp_path: Path) -> None:
    cache = tmp_path / "ld.so.cache"
    system = lib(tmp_path / "sys", "libsys.so.1")
    cache.write_bytes(binaries.ld_cache([("libsys.so.1", str(system))]))
    site = tmp_path / "site"
    plain = lib(site / "pkg", "_plain.so", needed=["libsys.so.1"])
    strict = lib(site / "pkg", "_strict.so", needed=["libsys.so.1"], flags_1=0x800)
    assert missing(tmp_path, plain, cache=cache) == []
    assert missing(tmp_path, strict, cache=cache) == [("libsys.so.1", None)]


def test_the_search_order_is_rpath_then_ld_library_path_then_runpath_then_the_cache(tmp_path: Path) -> None:
    site = tmp_path / "site"
    first = lib(site / "first", "libo.so.1")
    lib(site / "second", "libo.so.1")
    ext = lib(site / "pkg", "_ext.so", needed=["libo.so.1"], rpath=str(first.parent))
    first_info = elf.read_file(str(ext))
    assert first_info is not None
    found = session(tmp_path, library_path=str(site / "second")).find(
        "libo.so.1", first_info, str(ext.parent), [str(first.parent)]
    )
    assert found is not None
    assert found[0] == str(first)
    runpath_ext = lib(site / "pkg", "_run.so", needed=["libo.so.1"], runpath=str(first.parent))
    info = elf.read_file(str(runpath_ext))
    assert info is not None
    found = session(tmp_path, library_path=str(site / "second")).find("libo.so.1", info, str(runpath_ext.parent), [])
    assert found is not None
    assert found[0] == str(site / "second" / "libo.so.1")


def test_an_empty_entry_of_ld_library_path_is_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    lib(tmp_path, "libcwd.so.1")
    ext = lib(tmp_path / "site" / "pkg", "_ext.so", needed=["libcwd.so.1"])
    assert missing(tmp_path, ext, library_path="/nowhere:") == []
    assert missing(tmp_path, ext, library_path="/nowhere") == [("libcwd.so.1", None)]


def test_libpython_is_provided_by_the_interpreter_and_a_library_is_looked_up_once(tmp_path: Path) -> None:
    site = tmp_path / "site"
    lib(site / "pkg", "libdup.so.1", soname="libdup-real.so.1")
    ext = lib(
        site / "pkg", "_ext.so", needed=["libpython3.11.so.1.0", "libdup.so.1", "libdup-real.so.1"], runpath="$ORIGIN"
    )
    assert missing(tmp_path, ext) == []


def test_every_library_missing_is_said_also_after_one_provided_loaded_already_or_missing(tmp_path: Path) -> None:
    site = tmp_path / "site"
    lib(site / "pkg", "libdup.so.1")
    needed = ["libpython3.11.so.1.0", "libdup.so.1", "libdup.so.1", "libgone.so.1", "libgone.so.2"]
    ext = lib(site / "pkg", "_ext.so", needed=needed, runpath="$ORIGIN")
    assert missing(tmp_path, ext) == [("libgone.so.1", None), ("libgone.so.2", None)]


def test_a_library_of_another_class_is_passed_over(tmp_path: Path) -> None:
    site = tmp_path / "site"
    lib(site / "narrow", "libw.so.1", elf_class=1, machine=3)
    wide = lib(site / "wide", "libw.so.1")
    ext = lib(site / "pkg", "_ext.so", needed=["libw.so.1"], rpath=f"{site / 'narrow'}:{wide.parent}")
    assert missing(tmp_path, ext) == []
    wide.unlink()
    assert missing(tmp_path, ext) == [("libw.so.1", None)]


def test_only_extension_modules_are_looked_up_the_libraries_they_load_through_them() -> None:
    assert libraries.is_extension("pkg/_core.cpython-311-x86_64-linux-gnu.so")
    assert libraries.is_extension("pkg/_core.abi3.so")
    assert libraries.is_extension("pkg/core.so")
    assert libraries.is_extension("pkg/_core.cp311-win_amd64.pyd")
    assert libraries.is_extension("libfoo.cpython-311-x86_64-linux-gnu.so")
    assert libraries.is_extension("pkg/libfoo.pypy310-pp73-x86_64-linux-gnu.so")
    assert not libraries.is_extension("pkg.libs/libfoo-ab12.so.1.2")
    assert not libraries.is_extension("pkg/libjax_common.so")
    assert not libraries.is_extension("pkg/libfoo.dylib")
    assert not libraries.is_extension("pkg/foo.dll")


def test_the_default_folders_follow_the_class_and_machine() -> None:
    wide = elf.ElfInfo(2, True, 62)
    assert ldpaths.default_folders(wide) == (
        "/lib/x86_64-linux-gnu",
        "/usr/lib/x86_64-linux-gnu",
        "/lib64",
        "/usr/lib64",
        "/lib",
        "/usr/lib",
    )
    assert ldpaths.default_folders(elf.ElfInfo(1, True, 3))[:4] == (
        "/lib/i386-linux-gnu",
        "/usr/lib/i386-linux-gnu",
        "/lib32",
        "/usr/lib32",
    )
    assert ldpaths.default_folders(elf.ElfInfo(2, False, 9999)) == (
        "/lib64",
        "/usr/lib64",
        "/lib",
        "/usr/lib",
    )


def test_a_kept_verdict_is_written_once_read_by_the_next_session_and_dropped_when_a_library_changes(
    tmp_path: Path,
) -> None:
    site = tmp_path / "site"
    dep = lib(site / "pkg.libs", "libk.so.1")
    ext = lib(site / "pkg", "_ext.so", needed=["libk.so.1"], runpath="$ORIGIN/../pkg.libs")
    first = session(tmp_path)
    assert first.missing(str(ext), "pkg/_ext.so") == []
    libraries.save_all()
    store = first.store
    assert store is not None
    assert os.path.isfile(store)
    libraries._VERDICTS.clear()
    second = session(tmp_path)
    assert str(ext) in second.kept
    assert second.missing(str(ext), "pkg/_ext.so") == []
    assert second._files == {}  # nothing was opened: the verdict was reused after a stat of each file
    dep.write_bytes(binaries.elf(machine=183))  # replaced by a library of another machine
    libraries._VERDICTS.clear()
    assert [m.library for m in libs(session(tmp_path).missing(str(ext), "pkg/_ext.so"))] == ["libk.so.1"]


def test_a_kept_file_that_is_damaged_or_for_another_environment_is_no_cache(tmp_path: Path) -> None:
    environment: list[object] = [["site"], [], "/etc/ld.so.cache", []]
    path = tmp_path / "kept.json"
    libcache.save(str(path), environment, {"/x/_ext.so": ((1, 2, 3, 9), (("/lib/liba.so", (4, 5, 6, 9)),))})
    assert libcache.load(str(path), environment) == {"/x/_ext.so": ((1, 2, 3, 9), (("/lib/liba.so", (4, 5, 6, 9)),))}
    assert libcache.load(str(path), [*environment[:3], [1, 1, 1]]) == {}
    document = marshal.loads(path.read_bytes())
    for damage in ({"schema": 99}, {"verdicts": {"/x": [[1, 2], []]}}, {"verdicts": {"/x": [[1, 2, "3"], []]}}):
        path.write_bytes(marshal.dumps({**document, **damage}))
        assert libcache.load(str(path), environment) == {}
    for broken in (b"", b"{", marshal.dumps([1, 2]), marshal.dumps(document)[:-5]):
        path.write_bytes(broken)
        assert libcache.load(str(path), environment) == {}
    path.write_bytes(marshal.dumps({**document, "environment": [*document["environment"][:-1], [2, 7]]}))
    assert libcache.load(str(path), environment) == {}  # written by another Python
    assert libcache.load(None, environment) == {}
    (tmp_path / "file").write_text("x")  # a file where the cache folder would go: nothing is written, nothing raised
    libcache.save(str(tmp_path / "file" / "sub" / "kept.json"), environment, {})
    libcache.save(None, environment, {})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "kept.json"]


def test_the_cache_folder_follows_the_platforms_convention(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIERLOCK_CACHE_DIR", "")
    assert keptfirst.folder() is None
    assert libcache.path_for(["/site"]) is None
    monkeypatch.delenv("TIERLOCK_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", "/xdg")
    assert keptfirst.folder() == "/xdg/tierlock"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", "/home/me")
    assert keptfirst.folder() == "/home/me/.cache/tierlock"
    a, b = libcache.path_for(["/site"]), libcache.path_for(["/site", "/other"])
    assert a is not None
    assert a != b
    assert a.startswith("/home/me/.cache/tierlock/libraries-")
    assert a.endswith(".marshal")


def probe_of(
    *, reasons: list[str], missing: tuple[tuple[str, str, str | None], ...], state: str = "partial"
) -> DistributionProbe:
    return DistributionProbe("pkg", state, reasons=reasons, missing_libraries=missing)  # type: ignore[arg-type]


def test_the_system_remedy_applies_only_when_every_problem_is_a_missing_library(tmp_path: Path) -> None:
    lacking = probe_of(reasons=["needs libx"], missing=(("pkg/_e.so", "libx.so.1", None),))
    other = probe_of(reasons=["needs libx", "file missing"], missing=(("pkg/_e.so", "libx.so.1", None),))
    whole = probe_of(reasons=[], missing=(), state="present")
    assert libremedy.only_libraries(lacking)
    assert not libremedy.only_libraries(other)
    assert not libremedy.only_libraries(whole)
    assert libremedy.system_remedy([whole]) is None
    assert libremedy.system_remedy([lacking, other]) is None
    remedy = libremedy.system_remedy([lacking, whole])
    assert remedy is not None
    assert "libx.so.1" in remedy


@pytest.mark.parametrize(
    ("library", "package"),
    [
        ("libmariadb.so.3", "libmariadb3"),
        ("libfoo2.so.3", "libfoo2-3"),
        ("libgssapi_krb5.so.2", "libgssapi-krb5-2"),
        ("libssl.so.1.1", "libssl1.1"),
        ("libnoversion.so", None),
        ("notalibrary", None),
    ],
)
def test_debians_naming_rule_names_the_likely_package(library: str, package: str | None) -> None:
    assert provider.debian_package(library) == package


def fake_root(tmp_path: Path, *parts: str) -> Path:
    root = tmp_path / "root"
    marker = root.joinpath(*parts)
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text("")
    return root


def test_a_dpkg_system_names_the_package_whose_file_list_names_the_library(tmp_path: Path) -> None:
    root = fake_root(tmp_path, "var", "lib", "dpkg", "status")
    info = root / "var" / "lib" / "dpkg" / "info"
    info.mkdir()
    (info / "libmariadb3:amd64.list").write_text("/.\n/usr/lib/x86_64-linux-gnu/libmariadb.so.3\n")
    (info / "other.list").write_text("/usr/lib/libother.so.1\n")
    assert provider.dpkg_owner("libmariadb.so.3", str(root)) == "libmariadb3"
    assert provider.command(["libmariadb.so.3"], root=str(root)) == "apt-get install --reinstall libmariadb3"
    assert provider.command(["libmariadb.so.3", "libgone.so.7"], root=str(root)) is None
    assert provider.remedy(["libgone.so.7"], root=str(root)).endswith("it is usually in: apt-get install libgone7")


def test_rpm_and_apk_systems_name_the_library_itself(tmp_path: Path) -> None:
    rpm = fake_root(tmp_path, "var", "lib", "rpm", "Packages")
    assert provider.command(["libmariadb.so.3"], root=str(rpm)) == "dnf install 'libmariadb.so.3()(64bit)'"
    assert provider.command(["libx.so.1"], wide=False, root=str(rpm)) == "dnf install libx.so.1"
    (rpm / "var").rename(tmp_path / "gone")
    apk = fake_root(tmp_path, "lib", "apk", "db", "installed")
    assert provider.command(["libmariadb.so.3"], root=str(apk)) == "apk add so:libmariadb.so.3"


def test_a_system_without_a_known_package_database_is_told_the_library_to_provide(tmp_path: Path) -> None:
    assert provider.command([], root=str(tmp_path)) is None
    assert provider.command(["libq.so.1"], root=str(tmp_path)) is None
    assert provider.remedy(["libq.so.1", "libr.so.2", "libq.so.1"], root=str(tmp_path)) == (
        "provide libq.so.1 and libr.so.2 (the dynamic loader finds it in the loader cache, a default folder or "
        "LD_LIBRARY_PATH)"
    )


def test_the_system_libraries_an_extension_relies_on_are_listed_for_its_receipt(tmp_path: Path) -> None:
    site = tmp_path / "site"
    inside = lib(site / "pkg.libs", "libin.so.1")
    outside = lib(tmp_path / "opt", "libout.so.1")
    ext = lib(
        site / "pkg", "_ext.so", needed=["libin.so.1", "libout.so.1"], runpath=f"$ORIGIN/../pkg.libs:{outside.parent}"
    )
    assert session(tmp_path).missing(str(ext), "pkg/_ext.so") == []
    assert relied.relied_outside([str(ext), str(tmp_path / "unknown.so")], [str(site)]) == [
        (str(outside), outside.stat().st_size)
    ]
    assert str(inside) not in dict(relied.relied_outside([str(ext)], [str(site)]))


def test_what_a_library_from_a_search_path_needs_is_looked_up_too_but_not_what_a_system_library_needs(
    tmp_path: Path,
) -> None:
    opt = tmp_path / "opt"
    lib(opt, "libmid.so.1", needed=["libgone.so.1"])
    ext = lib(tmp_path / "site" / "pkg", "_ext.so", needed=["libmid.so.1"], runpath=str(opt))
    assert missing(tmp_path, ext) == [("libgone.so.1", "libmid.so.1")]
    cache = tmp_path / "ld.so.cache"
    system = lib(tmp_path / "sys", "libsysmid.so.1", needed=["libgone.so.1"])
    cache.write_bytes(binaries.ld_cache([("libsysmid.so.1", str(system))]))
    trusting = lib(tmp_path / "site" / "pkg", "_sys.so", needed=["libsysmid.so.1"])
    assert missing(tmp_path, trusting, cache=cache) == []


@pytest.mark.parametrize(
    ("machine", "elf_class", "multiarch", "platform"),
    [
        (62, 2, "x86_64-linux-gnu", "x86_64"),
        (62, 1, "x86_64-linux-gnux32", "x86_64"),
        (3, 1, "i386-linux-gnu", "i686"),
        (183, 2, "aarch64-linux-gnu", "aarch64"),
        (40, 1, "arm-linux-gnueabihf", "armv7l"),
        (21, 2, "powerpc64le-linux-gnu", "ppc64le"),
        (22, 2, "s390x-linux-gnu", "s390x"),
        (243, 2, "riscv64-linux-gnu", "riscv64"),
        (258, 2, "loongarch64-linux-gnu", ""),
    ],
)
def test_each_machine_searches_its_debian_multiarch_folders_and_names_its_platform(
    tmp_path: Path, machine: int, elf_class: int, multiarch: str, platform: str
) -> None:
    obj = elf.ElfInfo(elf_class, True, machine)
    assert ldpaths.default_folders(obj)[:2] == (f"/lib/{multiarch}", f"/usr/lib/{multiarch}")
    folder = tmp_path / "site" / "pkg" / (platform or "none")
    lib(folder, "libplat.so.1", elf_class=elf_class, machine=machine)
    ext = lib(
        tmp_path / "site" / "pkg",
        "_ext.so",
        needed=["libplat.so.1"],
        rpath="$ORIGIN/$PLATFORM",
        elf_class=elf_class,
        machine=machine,
    )
    assert missing(tmp_path, ext) == ([] if platform else [("libplat.so.1", None)])


def test_a_file_rewritten_with_its_size_and_modification_time_put_back_is_read_again(tmp_path: Path) -> None:
    ext = lib(tmp_path / "site" / "pkg", "_ext.so", needed=["liba.so.1"])
    before = os.stat(ext)
    first = session(tmp_path).read(str(ext))
    assert first is not None
    assert first.needed == ("liba.so.1",)
    with open(ext, "r+b") as fh:  # the same size, inode and mtime: the bytes and the status change time differ
        fh.write(binaries.elf(needed=["libb.so.1"]))
    os.utime(ext, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(ext)
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (before.st_ino, before.st_size, before.st_mtime_ns)
    kept = session(tmp_path).read(str(ext))
    fresh = libraries.Session([str(tmp_path / "site")], fresh=True, library_path="").read(str(ext))
    assert kept is not None
    assert fresh is not None
    assert (kept.needed, fresh.needed) == (("libb.so.1",), ("libb.so.1",))


def test_one_probe_round_shares_one_session_and_a_new_index_or_depth_starts_another() -> None:
    index, other = object(), object()
    first = libraries.session_for(index, ["/site"])
    assert libraries.session_for(index, ["/site"]) is first
    deep = libraries.session_for(index, ["/site"], fresh=True)
    assert deep is not first
    assert deep.fresh
    assert libraries.session_for(other, ["/site"]) is not deep


def test_a_dpkg_file_list_without_an_architecture_names_its_package_whole(tmp_path: Path) -> None:
    root = fake_root(tmp_path, "var", "lib", "dpkg", "status")
    info = root / "var" / "lib" / "dpkg" / "info"
    info.mkdir()
    (info / "libfoo1.list").write_text("/usr/lib/libfoo.so.1\n")
    assert provider.dpkg_owner("libfoo.so.1", str(root)) == "libfoo1"


def _two_environments(tmp_path: Path, *, link: bool) -> tuple[Path, Path, Path]:
    """An extension relying on a library beside it and one outside the site folders, learnt in environment a;
    environment b gets the same files at the same places (hard links, as uv makes them) or copies of them."""
    site_a, site_b = tmp_path / "a" / "site", tmp_path / "b" / "site"
    outside = lib(tmp_path / "opt", "libout.so.1")
    dep = lib(site_a / "pkg.libs", "libk.so.1")
    ext = lib(
        site_a / "pkg", "_ext.so", needed=["libk.so.1", "libout.so.1"], runpath=f"$ORIGIN/../pkg.libs:{outside.parent}"
    )
    first = libraries.Session([str(site_a)], library_path="", cache=str(tmp_path / "none"))
    assert first.missing(str(ext), "pkg/_ext.so") == []
    libraries.save_all()
    libraries._VERDICTS.clear()
    for path in (dep, ext):
        twin = site_b / path.relative_to(site_a)
        twin.parent.mkdir(parents=True, exist_ok=True)
        if link:
            os.link(path, twin)
        else:
            twin.write_bytes(path.read_bytes())
    return site_b, site_b / "pkg" / "_ext.so", outside


def test_a_verdict_learnt_in_one_environment_holds_where_another_has_the_same_files_at_the_same_places(
    tmp_path: Path,
) -> None:
    site, ext, outside = _two_environments(tmp_path, link=True)
    second = libraries.Session([str(site)], library_path="", cache=str(tmp_path / "none"))
    assert second.missing(str(ext), "pkg/_ext.so") == []
    assert second._files == {}  # nothing was opened: a stat of the extension and of each library it relies on
    assert str(ext) in second.kept  # and kept for this environment itself from now on
    assert relied.relied_outside([str(ext)], [str(site)]) == [(str(outside), outside.stat().st_size)]


def test_a_verdict_from_another_environment_is_not_taken_where_a_file_is_not_the_same_or_is_gone(
    tmp_path: Path,
) -> None:
    site, ext, _outside = _two_environments(tmp_path, link=False)
    copied = libraries.Session([str(site)], library_path="", cache=str(tmp_path / "none"))
    assert copied.missing(str(ext), "pkg/_ext.so") == []
    assert str(ext) in copied._files  # read again: its own inode
    libraries._VERDICTS.clear()
    (site / "pkg.libs" / "libk.so.1").unlink()
    gone = libraries.Session([str(site)], library_path="", cache=str(tmp_path / "none"))
    assert [m.library for m in libs(gone.missing(str(ext), "pkg/_ext.so"))] == ["libk.so.1"]


def test_a_kept_place_names_its_site_folder_by_position_and_a_missing_one_is_no_place(tmp_path: Path) -> None:
    from tierlock.probing.libmoved import Moved

    moved = Moved([str(tmp_path / "purelib"), str(tmp_path / "platlib")], ["env"])
    assert moved.relative(str(tmp_path / "platlib" / "pkg" / "_ext.so")) == "@1/pkg/_ext.so"
    assert moved.relative(str(tmp_path / "purelibx" / "pkg.so")) is None
    assert moved.absolute("@1/pkg/_ext.so") == str(tmp_path / "platlib" / "pkg" / "_ext.so")
    assert moved.absolute("@2/pkg/_ext.so") is None
    assert moved.absolute("@3/pkg/_ext.so") is None
    assert moved.absolute("@x/pkg/_ext.so") is None


def test_kept_places_only_looked_up_are_not_written_again(tmp_path: Path) -> None:
    from tierlock.probing.libmoved import Moved

    moved = Moved([str(tmp_path / "site")], ["env"])
    assert moved.get(str(tmp_path / "site" / "pkg" / "_ext.so")) is None
    moved.save()
    assert moved.store is not None
    assert not os.path.exists(moved.store)  # nothing learnt: nothing written
    moved.learn(str(tmp_path / "site" / "pkg" / "_ext.so"), ((1, 2, 3, 9), (("/usr/lib/libc.so.6", (4, 5, 6, 9)),)))
    moved.save()
    written = Path(moved.store).read_bytes()
    Path(moved.store).unlink()
    moved.save()  # written once: nothing new since
    assert not os.path.exists(moved.store)
    Path(moved.store).write_bytes(written)
    again = Moved([str(tmp_path / "other")], ["env"])
    found = again.get(str(tmp_path / "other" / "pkg" / "_ext.so"))
    assert found == ((1, 2, 3, 9), (("/usr/lib/libc.so.6", (4, 5, 6, 9)),))
    assert moved.absolute("/usr/lib/libc.so.6") == "/usr/lib/libc.so.6"


def test_two_environments_that_learn_in_one_process_both_keep_what_they_learnt(tmp_path: Path) -> None:
    from tierlock.probing.libmoved import Moved

    one, two = Moved([str(tmp_path / "one")], ["env"]), Moved([str(tmp_path / "two")], ["env"])
    assert one.get(str(tmp_path / "one" / "a.so")) is None  # each read the file before the other wrote it
    assert two.get(str(tmp_path / "two" / "b.so")) is None
    one.learn(str(tmp_path / "one" / "a.so"), ((1, 1, 1, 1), ()))
    two.learn(str(tmp_path / "two" / "b.so"), ((2, 2, 2, 2), ()))
    one.save()
    two.save()
    three = Moved([str(tmp_path / "three")], ["env"])
    assert three.get(str(tmp_path / "three" / "a.so")) == ((1, 1, 1, 1), ())
    assert three.get(str(tmp_path / "three" / "b.so")) == ((2, 2, 2, 2), ())


def test_a_kept_file_this_process_read_is_parsed_again_only_when_it_changed(tmp_path: Path) -> None:
    environment: list[object] = [["site"], [], "/etc/ld.so.cache", []]
    path = str(tmp_path / "kept.marshal")
    first = {"/x/_ext.so": ((1, 2, 3, 9), (("/lib/liba.so", (4, 5, 6, 9)),))}
    libcache.save(path, environment, first)
    loaded = libcache.load(path, environment)
    loaded["/y/_other.so"] = ((7, 8, 9, 9), ())  # a session adds what it learns to its own copy
    assert libcache.load(path, environment) == first
    assert libcache.load(path, [*environment[:3], [1, 1, 1]]) == {}  # the same file, another environment
    second = {**first, "/z/_new.so": ((3, 2, 1, 0), ())}
    libcache.save(path, environment, second)  # written again (by this process or another)
    assert libcache.load(path, environment) == second


def test_a_probe_round_whose_extensions_this_process_knows_reads_no_kept_file(tmp_path: Path) -> None:
    site = tmp_path / "site"
    lib(site / "pkg.libs", "libk.so.1")
    ext = lib(site / "pkg", "_ext.so", needed=["libk.so.1"], runpath="$ORIGIN/../pkg.libs")
    libraries._VERDICTS.clear()
    assert session(tmp_path).missing(str(ext), "pkg/_ext.so") == []
    again = session(tmp_path)
    assert again.missing(str(ext), "pkg/_ext.so") == []
    assert again._kept is None  # the verdict this process learnt held: the file on disk was not read


def test_the_libraries_of_only_the_extensions_asked_are_listed_whatever_else_was_looked_up_first(
    tmp_path: Path,
) -> None:
    site = tmp_path / "site"
    first_out = lib(tmp_path / "opt1", "libfirst.so.1")
    second_out = lib(tmp_path / "opt2", "libsecond.so.1")
    first = lib(site / "one", "_ext.so", needed=["libfirst.so.1"], runpath=str(first_out.parent))
    second = lib(site / "two", "_ext.so", needed=["libsecond.so.1"], runpath=str(second_out.parent))
    looked = session(tmp_path)
    assert looked.missing(str(first), "one/_ext.so") == []  # learnt first: listed first in what is kept
    assert looked.missing(str(second), "two/_ext.so") == []
    assert relied.relied_outside([str(second)], [str(site)]) == [(str(second_out), second_out.stat().st_size)]
