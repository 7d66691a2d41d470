"""Where a lock's packages come from: registry files and files inside the project pass; a ``file:`` URL or
a path that leads anywhere else, a file on another host, or another scheme is a finding with its line (in
both lockfile formats), and the fix it names converges.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest

from tests.support.tierproject import write_pyproject
from tierlock.lockfiles import read
from tierlock.lockfiles.check import check
from tierlock.lockfiles.locks import LockfileError
from tierlock.lockfiles.origins import problem
from tierlock.tiers import Project, load_project

H = "a" * 64


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    write_pyproject(folder)
    (folder / "lockfiles").mkdir()
    (folder / "vendor").mkdir()
    (tmp_path / "proj-evil").mkdir()
    return folder


INSIDE = [
    "https://files.pythonhosted.org/packages/ab/cd/x-1.0-py3-none-any.whl",
    "http://mirror.example/simple/x/x-1.0-py3-none-any.whl",
    "HTTPS://files.example/x-1.0-py3-none-any.whl",
    "file://{root}/vendor/x-1.0-py3-none-any.whl",
    "file://localhost{root}/vendor/x-1.0-py3-none-any.whl",
    "file:{root}/vendor/x-1.0-py3-none-any.whl",
    "FILE://{root}/vendor/x-1.0-py3-none-any.whl",
    "file://{root}/vendor/a%20b-1.0-py3-none-any.whl",
    "../vendor/x-1.0-py3-none-any.whl",
    "{root}/vendor/x-1.0-py3-none-any.whl",
]
OUTSIDE = [
    ("file:///tmp/x-1.0-py3-none-any.whl", "a file outside the project"),
    ("file://{root}/../x-1.0-py3-none-any.whl", "a file outside the project"),
    ("file://{root}/vendor/%2e%2e/%2e%2e/x-1.0-py3-none-any.whl", "a file outside the project"),
    ("file://{root}-evil/x-1.0-py3-none-any.whl", "a file outside the project"),
    ("file://{root}/link-out/x-1.0-py3-none-any.whl", "a file outside the project"),
    ("file://fileserver/share/x-1.0-py3-none-any.whl", "a file on another host"),
    ("ftp://mirror.example/x-1.0-py3-none-any.whl", "a ftp: URL"),
    ("../../x-1.0-py3-none-any.whl", "a file outside the project"),
    ("/tmp/x-1.0-py3-none-any.whl", "a file outside the project"),
]


@pytest.mark.parametrize("location", INSIDE)
def test_registry_files_and_files_inside_the_project_are_no_finding(location: str, root: Path) -> None:
    where = location.format(root=root)
    assert problem(where, is_path=False, base=root / "lockfiles", root=root) is None


@pytest.mark.parametrize(("location", "what"), OUTSIDE)
def test_anything_else_is_named_for_what_it_is(location: str, what: str, root: Path) -> None:
    (root / "link-out").symlink_to(root.parent / "proj-evil", target_is_directory=True)
    where = location.format(root=root)
    assert problem(where, is_path=False, base=root / "lockfiles", root=root) == f"names {what} ({where})"


def test_a_pylock_path_is_read_from_the_lockfiles_folder(root: Path) -> None:
    base = root / "lockfiles"
    assert problem("../vendor/x.whl", is_path=True, base=base, root=root) is None
    assert (
        problem("../../x.whl", is_path=True, base=base, root=root) == "names a file outside the project (../../x.whl)"
    )


PYLOCK = """\
lock-version = "1.0"
created-by = "uv"

[[packages]]
name = "basepkg"
version = "1.0"
[[packages.wheels]]
url = "https://files.example/basepkg-1.0-py3-none-any.whl"
hashes = {{ sha256 = "{h}" }}

[[packages]]
name = "helper"
version = "1.0"
[[packages.wheels]]
{where}
hashes = {{ sha256 = "{h}" }}
"""


@pytest.mark.parametrize(
    "where",
    ['path = "../../elsewhere/helper-1.0-py3-none-any.whl"', 'url = "file:///tmp/helper-1.0-py3-none-any.whl"'],
    ids=["path", "file URL"],
)
def test_a_pylock_wheel_outside_the_project_is_a_finding_at_its_package(where: str, root: Path) -> None:
    (root / "pyproject.toml").write_text(
        (root / "pyproject.toml")
        .read_text(encoding="utf-8")
        .replace('lock-dir = "lockfiles"', 'lock-dir = "lockfiles"\nformat = "pylock"'),
        encoding="utf-8",
    )
    project = load_project(root)
    lockfile = project.tier("base").lockfile
    lockfile.write_text(PYLOCK.format(h=H, where=where), encoding="utf-8")
    assert [p.kind for p in read(lockfile).problems] == ["header"]  # well formed: only where it points is wrong
    report = check(project, ["base"])
    found = [f for f in report.findings if f.kind == "outside-project"]
    assert [(f.tier, f.line) for f in found] == [("base", 11)]
    assert found[0].detail.startswith("helper names a")


def _declared_outside(root: Path) -> tuple[Project, Path]:
    """The project with brain's helper declared at a wheel outside it (``helper @ file:///...``), and that wheel."""
    outside = root.parent / "elsewhere" / "helper-1.0-py3-none-any.whl"
    pyproject = root / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text(encoding="utf-8").replace('"helper>=1"', f'"helper @ {outside.as_uri()}"'),
        encoding="utf-8",
    )
    return load_project(root), outside


def test_a_location_the_project_declares_itself_is_fixed_in_pyproject_not_by_locking_again(root: Path) -> None:
    project, outside = _declared_outside(root)
    lockfile = project.tier("brain").lockfile
    lockfile.write_text(f"helper @ {outside.as_uri()} --hash=sha256:{H}\n", encoding="utf-8")
    [found] = [f for f in check(project, ["brain"]).findings if f.kind == "outside-project"]
    assert found.line == 1
    assert found.remedy == "point helper at a file inside the project in pyproject.toml, then run: tierlock lock brain"


def test_a_lock_a_backend_would_write_naming_a_declared_outside_file_is_refused_with_the_pyproject_fix(
    root: Path,
) -> None:
    from tierlock.lockfiles.origins import refuse_foreign

    project, outside = _declared_outside(root)
    tier = project.tier("brain")
    tier.lockfile.write_text(f"helper @ {outside.as_uri()} --hash=sha256:{H}\n", encoding="utf-8")
    entries = read(tier.lockfile).lock.entries
    with pytest.raises(LockfileError) as refused:
        refuse_foreign(project, tier, entries, "uv")
    assert refused.value.message == "uv would lock brain to 1 file(s) outside the project; nothing was written"
    assert refused.value.remedy == "point helper at a file inside the project in pyproject.toml"


def test_an_install_is_not_chained_after_a_fix_in_words_the_check_that_lists_each_fix_is_printed(root: Path) -> None:
    from types import SimpleNamespace

    from tierlock.installer.rearm import relocked
    from tierlock.probing import TierProbe

    project, outside = _declared_outside(root)
    project.tier("brain").lockfile.write_text(f"helper @ {outside.as_uri()} --hash=sha256:{H}\n", encoding="utf-8")
    project.tier("base").lockfile.write_text("", encoding="utf-8")
    remedies = {f.remedy for f in check(project, ["brain"]).findings}
    assert "tierlock lock base" in remedies  # (a base lockfile without its header) beside the edit in words
    probed = cast(TierProbe, SimpleNamespace(tier="brain"))
    # before: `tierlock lock base brain && point helper at ..., then run: tierlock lock brain && install-tier brain`
    assert relocked(project, probed, "install-tier brain") == "tierlock check brain"
