"""What the project's tree step decides per local package, from the files of the target: installed from its folder
the same way and at the same version, and whole; else installed again (and why). Files only: a site folder written
as an installer leaves it (``direct_url.json``, RECORD with sizes)."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from tierlock.installer import projecttree
from tierlock.lockfiles.locks import LocalPackage
from tierlock.probing import SiteIndex


def _installed(site: Path, source: Path, *, editable: bool = True, version: str = "0.1.0", url: str = "") -> None:
    """``app`` installed from *source* as pip and uv leave it: its .pth, METADATA, direct_url.json and RECORD."""
    info = site / f"app-{version}.dist-info"
    info.mkdir(parents=True)
    files = {
        "_app_editable.pth": f"{source}/src\n",
        f"{info.name}/METADATA": f"Metadata-Version: 2.1\nName: app\nVersion: {version}\n",
        f"{info.name}/direct_url.json": json.dumps(
            {"url": url or source.as_uri(), "dir_info": {"editable": True} if editable else {}}
        ),
        f"{info.name}/INSTALLER": "uv\n",
    }
    rows = []
    for rel, text in files.items():
        (site / rel).write_text(text, encoding="utf-8")
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        rows.append(f"{rel},sha256={digest},{len(text.encode())}")
    (info / "RECORD").write_text("\n".join([*rows, f"{info.name}/RECORD,,"]) + "\n", encoding="utf-8")


@pytest.fixture
def source(tmp_path: Path) -> Path:
    (tmp_path / "app" / "src").mkdir(parents=True)
    return tmp_path / "app"


def _decide(site: Path, source: Path, *, editable: bool = True, version: str | None = "0.1.0") -> tuple[str, str]:
    package = LocalPackage("app", version, source, editable)  # type: ignore[arg-type]
    step = projecttree.plan([package], SiteIndex.scan([site]))[0]
    return step.action, step.reason


def test_installed_whole_from_its_folder_is_satisfied(tmp_path: Path, source: Path) -> None:
    _installed(tmp_path / "site", source)
    assert _decide(tmp_path / "site", source) == ("satisfied", f"installed editable from {source}")
    assert _decide(tmp_path / "site", source, version=None)[0] == "satisfied"


def test_installed_from_its_folder_but_missing_a_file_is_installed_again(tmp_path: Path, source: Path) -> None:
    _installed(tmp_path / "site", source)
    (tmp_path / "site" / "_app_editable.pth").unlink()
    action, reason = _decide(tmp_path / "site", source)
    assert action == "install"
    assert reason.startswith(f"installed editable from {source}, but ")
    assert "_app_editable.pth" in reason


def test_installed_from_its_folder_with_a_file_resized_is_installed_again(tmp_path: Path, source: Path) -> None:
    _installed(tmp_path / "site", source)
    (tmp_path / "site" / "_app_editable.pth").write_text("/elsewhere/src/and/more\n", encoding="utf-8")
    assert _decide(tmp_path / "site", source)[0] == "install"


def test_not_installed_or_installed_otherwise_is_installed(tmp_path: Path, source: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    assert _decide(site, source) == ("install", "not installed")
    _installed(site, source, editable=False)
    assert _decide(site, source) == ("install", "installed as a copy, not editable")
    assert _decide(site, source, version="0.2.0") == ("install", "installed as a copy, not editable")
    assert _decide(site, source, editable=False, version="0.2.0") == ("install", "0.1.0 installed, 0.2.0 in its folder")
    other = tmp_path / "other"
    other.mkdir()
    assert (
        _decide(site, other, editable=False)[1] == f"installed from {source.as_uri()}, not from its folder from {other}"
    )


def test_the_reason_is_the_probes_first(tmp_path: Path, source: Path) -> None:
    from tierlock.probing import probe_distribution

    site = tmp_path / "site"
    _installed(site, source)
    (site / "_app_editable.pth").unlink()
    (site / "app-0.1.0.dist-info" / "INSTALLER").unlink()
    reasons = probe_distribution("app", index=SiteIndex.scan([site])).reasons
    assert len(reasons) > 1
    assert _decide(site, source)[1] == f"installed editable from {source}, but {reasons[0]}"


def test_a_receipt_records_only_what_was_armed_with_a_version(tmp_path: Path, source: Path) -> None:
    """What a receipt records of the tree's packages: each one installed with a readable version, its files."""
    site = tmp_path / "venv" / "site"
    _installed(site, source)
    target = SimpleNamespace(site_paths=(site,), prefix=tmp_path / "venv", ext_suffixes=None, python=None)
    step = projecttree.plan([LocalPackage("app", "0.1.0", source, True)], SiteIndex.scan([site]))  # type: ignore[arg-type]
    [dist] = projecttree.dists(step, target)  # type: ignore[arg-type]
    assert (dist.name, dist.version, dist.site, dist.project) == ("app", "0.1.0", "site", True)
    assert ("_app_editable.pth", len(f"{source}/src\n")) in dist.files
    metadata = site / "app-0.1.0.dist-info" / "METADATA"
    metadata.write_text("Metadata-Version: 2.1\nName: app\n", encoding="utf-8")  # no version to read
    assert projecttree.dists(step, target) == []  # type: ignore[arg-type]


def test_the_tree_step_wants_each_local_package_once_where_its_marker_holds_for_the_target() -> None:
    from packaging.markers import Marker
    from packaging.utils import canonicalize_name

    def package(name: str, marker: str | None = None) -> LocalPackage:
        return LocalPackage(canonicalize_name(name), "1.0", Path("/p") / name, True, Marker(marker) if marker else None)

    older = package("oldtool", "python_version < '3.12'")
    first = SimpleNamespace(local=(package("app"), older, package("winhelper", "sys_platform == 'win32'")))
    second = SimpleNamespace(local=(package("member"), package("oldtool")))  # a second lock's entry of the same name
    target = {"python_version": "3.12", "sys_platform": "linux"}

    def names(**given: object) -> list[str]:
        chosen = projecttree.wanted([first, second], "app", **given)  # type: ignore[list-item, arg-type]
        return [str(p.name) for p in chosen]

    assert names(install_project=True, environment=target) == ["app", "member", "oldtool"]
    assert names(install_project=False, environment=target) == ["member", "oldtool"]
    assert names(install_project=True, environment={**target, "sys_platform": "win32"}) == [
        "app",
        "member",
        "oldtool",
        "winhelper",
    ]
    older_target = {**target, "python_version": "3.11"}
    alone = projecttree.wanted([first], "app", install_project=False, environment=older_target)  # type: ignore[list-item]
    assert [p.marker for p in alone] == [older.marker]
    assert names(install_project=False, environment=older_target) == ["member", "oldtool"]


def test_an_origin_that_is_no_folder_or_says_nothing_of_one_is_installed_again(tmp_path: Path, source: Path) -> None:
    """``direct_url.json`` names a folder only with a ``file:`` URL and a ``dir_info`` table: an index's URL (with
    an archive's ``dir_info``-less record), a ``dir_info`` that is not a table, or no URL is no folder."""
    site = tmp_path / "site"
    _installed(site, source)
    record = site / "app-0.1.0.dist-info" / "direct_url.json"
    for document in (
        {"url": "https://files.example/app-0.1.0.tar.gz", "dir_info": {"editable": True}},
        {"url": source.as_uri(), "dir_info": "editable"},
        {"url": source.as_uri()},
        {"dir_info": {"editable": True}},
        [source.as_uri()],
    ):
        record.write_text(json.dumps(document), encoding="utf-8")
        assert _decide(site, source) == ("install", f"installed from an index or a wheel, not editable from {source}")


def test_versions_that_are_no_versions_compare_as_written(tmp_path: Path, source: Path) -> None:
    """The same text is the same version (the probe then finds the installed one no valid version); another text
    is another version."""
    site = tmp_path / "site"
    _installed(site, source, version="main")
    broken = f"installed editable from {source}, but METADATA version 'main' is not a valid version"
    assert _decide(site, source, version="main") == ("install", broken)
    assert _decide(site, source, version="trunk") == ("install", "main installed, trunk in its folder")


def test_the_origin_is_the_first_copy_on_the_path_and_an_unreadable_or_missing_record_is_no_folder(
    tmp_path: Path, source: Path
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    _installed(first, source)
    _installed(second, source, url="https://files.example/app-0.1.0.tar.gz")
    package = LocalPackage("app", "0.1.0", source, True)  # type: ignore[arg-type]
    other = f"installed from an index or a wheel, not editable from {source}"
    ours = projecttree.plan([package], SiteIndex.scan([first, second]))[0].reason
    assert ours.startswith(f"installed editable from {source}, but 2 .dist-info folders for app on the path")
    assert projecttree.plan([package], SiteIndex.scan([second, first]))[0].reason == other
    shutil.rmtree(second)
    record = first / "app-0.1.0.dist-info" / "direct_url.json"
    record.write_text("{not json", encoding="utf-8")
    assert _decide(first, source) == ("install", other)
    record.unlink()
    assert _decide(first, source) == ("install", other)


def test_a_folder_that_is_gone_is_not_the_packages_folder(tmp_path: Path, source: Path) -> None:
    gone = tmp_path / "gone"
    site = tmp_path / "site"
    _installed(site, source, url=gone.as_uri())
    assert _decide(site, source) == ("install", f"installed from {gone.as_uri()}, not editable from {source}")


def test_index_option_lines_become_the_backends_arguments_split_at_the_first_space() -> None:
    lines = ["--index-url https://x.example/simple", "--find-links /wheels with spaces"]
    assert projecttree._options(lines) == [
        "--index-url",
        "https://x.example/simple",
        "--find-links",
        "/wheels with spaces",
    ]
    assert projecttree._options([]) == []


def test_a_receipt_skips_a_package_that_is_not_installed_and_records_the_next(tmp_path: Path, source: Path) -> None:
    site = tmp_path / "venv" / "site"
    _installed(site, source)
    target = SimpleNamespace(site_paths=(site,), prefix=tmp_path / "venv", ext_suffixes=None, python=None)
    ghost = LocalPackage("ghost", "1.0", tmp_path / "ghost", True)  # type: ignore[arg-type]
    app = LocalPackage("app", "0.1.0", source, True)  # type: ignore[arg-type]
    steps = projecttree.plan([ghost, app], SiteIndex.scan([site]))
    assert [d.name for d in projecttree.dists(steps, target)] == ["app"]  # type: ignore[arg-type]


class _Ui:
    """A progress display that records what it says, and where (the line or the detail)."""

    def __init__(self, fancy: bool) -> None:
        self.fancy = fancy
        self.said: list[tuple[str, str]] = []

    def line(self, text: str) -> None:
        self.said.append(("line", text))

    def detail(self, text: str) -> None:
        self.said.append(("detail", text))

    def status(self, text: str) -> contextlib.AbstractContextManager[None]:
        self.said.append(("status", text))
        return contextlib.nullcontext()


class _Installs:
    """A backend whose install runs and succeeds but installs nothing (the check after it then fails)."""

    name = "uv"

    def local_argv(self, target: object, folders: object, options: object) -> list[str]:
        return [sys.executable, "-c", "pass"]


@pytest.mark.parametrize(("fancy", "where"), [(True, "line"), (False, "detail")])
def test_each_package_to_arm_is_said_with_its_reason_and_the_satisfied_ones_are_not(
    tmp_path: Path, source: Path, fancy: bool, where: str
) -> None:
    from tierlock.errors import BackendError

    site = tmp_path / "venv" / "site"
    _installed(site, source)
    target = SimpleNamespace(site_paths=(site,), prefix=tmp_path / "venv", ext_suffixes=None, python=None)
    app = LocalPackage("app", "0.1.0", source, True)  # type: ignore[arg-type]
    ghost = LocalPackage("ghost", "1.0", tmp_path / "ghost", True)  # type: ignore[arg-type]
    ui = _Ui(fancy)
    with pytest.raises(BackendError):
        projecttree.arm_missing([app, ghost], target, ui, _Installs, again="install-tier brain")  # type: ignore[arg-type]
    said = [entry for entry in ui.said if "from the project tree: " in entry[1]]
    assert said == [(where, "  from the project tree: ghost: not installed")]


#: The extension-module suffixes of a CPython 3.12 on x86_64 Linux: another Python than the one running tierlock.
PY312 = (".cpython-312-x86_64-linux-gnu.so", ".abi3.so", ".so")


def test_a_compiled_package_of_the_tree_is_judged_by_the_targets_python_not_tierlocks(tmp_path: Path) -> None:
    """A path dependency installed (not editable) into a 3.12 target carries ``_core.cpython-312-...so``: judged
    with tierlock's own suffixes it was "built for another Python", armed again at every install, and still
    "missing" after it (the install failed)."""
    from tests.support.binaries import loadable_stub

    source = tmp_path / "app"
    source.mkdir()
    site = tmp_path / "venv" / "site"
    info = site / "app-0.1.0.dist-info"
    info.mkdir(parents=True)
    stub = loadable_stub(300)
    files = {
        "app/_core.cpython-312-x86_64-linux-gnu.so": stub if isinstance(stub, bytes) else stub.encode(),
        f"{info.name}/METADATA": b"Metadata-Version: 2.1\nName: app\nVersion: 0.1.0\n",
        f"{info.name}/direct_url.json": json.dumps({"url": source.as_uri(), "dir_info": {}}).encode(),
        f"{info.name}/top_level.txt": b"app\n",
        f"{info.name}/INSTALLER": b"uv\n",
    }
    rows = []
    for rel, data in files.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_bytes(data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        rows.append(f"{rel},sha256={digest},{len(data)}")
    (info / "RECORD").write_text("\n".join([*rows, f"{info.name}/RECORD,,"]) + "\n", encoding="utf-8")
    app = LocalPackage("app", "0.1.0", source, False)  # type: ignore[arg-type]
    target = SimpleNamespace(site_paths=(site,), prefix=tmp_path / "venv", ext_suffixes=PY312, python=None)
    (step,) = projecttree.plan_in([app], target)  # type: ignore[arg-type]
    assert (step.action, step.reason) == ("satisfied", f"installed from its folder from {source}")
    (dist,) = projecttree.dists([step], target)  # type: ignore[arg-type]
    written = (site / "app/_core.cpython-312-x86_64-linux-gnu.so").stat().st_mtime_ns
    assert ("app/_core.cpython-312-x86_64-linux-gnu.so", 300, written) in dist.files
