"""Each tier's part of a uv.lock that real uv wrote, and its drift from pyproject.toml, without running uv.

``data/uv.lock`` is what uv 0.13.9 wrote (offline) for the project of
``tests/support/uvproject.py``; the expected parts are what ``uv export`` listed
for each selection when it was written (``test_uvlock.py`` keeps comparing with
live uv). These tests are pure and fast: the mutation runs of the uv.lock
modules use them.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from packaging.markers import Marker

from tests.support.uvproject import MEMBER, PYPROJECT
from tierlock.lockfiles.uvdrift import Member, drift
from tierlock.lockfiles.uvlock import parse
from tierlock.lockfiles.uvselect import select

DATA = Path(__file__).parent / "data" / "uv.lock"
BASE = {"alpha==1.1", "beta==1.0", "winonly==1.0 ; sys_platform == 'win32'"}
DELTA = {"delta==1.0 ; python_full_version < '3.12'", "delta==2.0 ; python_full_version >= '3.12'"}
EXPORTED = {
    "base": BASE,
    "brain": BASE | DELTA | {"corelib==2.0", "gamma==1.0"},
    "old": BASE | {"corelib==1.0"},
    "test": BASE | DELTA | {"testkit==1.0"},
    "tools": BASE | DELTA | {"testkit==1.0"},
    "brain+tools": BASE | DELTA | {"corelib==2.0", "gamma==1.0", "testkit==1.0"},
}
SELECTIONS = {
    "base": ((), ()),
    "brain": (("brain",), ()),
    "old": (("old",), ()),
    "test": ((), ("test",)),
    "tools": ((), ("tools",)),
    "brain+tools": (("brain",), ("tools",)),
}


def _lock(path: Path = DATA) -> object:
    return parse(DATA.read_text(encoding="utf-8"), path)


def _same(entries: object, exported: set[str]) -> bool:
    """The entries equal uv's lines: names, versions and markers (compared as markers)."""
    mine = {(str(e.name), str(e.version), str(e.marker) if e.marker else None) for e in entries}  # type: ignore[attr-defined]
    theirs = set()
    for line in exported:
        pin, _, marker = line.partition(" ; ")
        name, _, version = pin.partition("==")
        theirs.add((name, version, str(Marker(marker)) if marker else None))
    return mine == theirs


@pytest.mark.parametrize("selection", list(SELECTIONS))
def test_each_selection_is_what_uv_export_listed(selection: str) -> None:
    extras, groups = SELECTIONS[selection]
    chosen = select(_lock(), "proj", extras, groups)  # type: ignore[arg-type]
    assert chosen.problems == ()
    assert _same(chosen.entries, EXPORTED[selection])
    assert [(p.name, p.editable, p.path.name) for p in chosen.local] == [
        ("member", True, "member"),
        ("proj", True, "data"),
    ]


def test_every_entry_names_its_folder_of_wheels_and_carries_its_file_and_line() -> None:
    chosen = select(_lock(), "proj", ("brain",), ())  # type: ignore[arg-type]
    wheels = str((DATA.parent.parent / "wheels").resolve())
    assert {e.index for e in chosen.entries} == {wheels}
    corelib = next(e for e in chosen.entries if e.name == "corelib")
    (file,) = corelib.files
    assert (file.kind, file.filename, file.path) == (
        "wheel",
        "corelib-2.0-py3-none-any.whl",
        f"{wheels}/corelib-2.0-py3-none-any.whl",
    )
    assert corelib.hashes == ()  # a folder of wheels: uv records no hash (install-tier hashes the file)
    assert DATA.read_text().splitlines()[corelib.line - 1] == "[[package]]"  # type: ignore[operator]
    assert DATA.read_text().splitlines()[corelib.line] == 'name = "corelib"'  # type: ignore[index]


def test_the_lock_as_parsed_names_its_schema_members_and_conflict() -> None:
    lock = _lock()
    assert (lock.version, lock.revision, lock.requires_python) == (1, 5, ">=3.11")  # type: ignore[attr-defined]
    assert lock.members == ("member", "proj")  # type: ignore[attr-defined]
    assert lock.conflicts == ((("proj", "extra", "brain"), ("proj", "extra", "old")),)  # type: ignore[attr-defined]
    assert lock.problems == ()  # type: ignore[attr-defined]


def _members(pyproject: str = PYPROJECT, member: str = MEMBER) -> list[Member]:
    return [Member("proj", ".", tomllib.loads(pyproject)), Member("member", "packages/member", tomllib.loads(member))]


def _drift(pyproject: str = PYPROJECT, member: str = MEMBER) -> list[tuple[str | None, str]]:
    return [(d.source, d.detail) for d in drift(_lock(), _members(pyproject, member), "proj")]  # type: ignore[arg-type]


def test_the_declarations_the_lock_was_made_from_are_no_drift() -> None:
    assert _drift() == []


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ('"alpha>=1"', '"Alpha >= 1.0"'),
        ("\"winonly; sys_platform == 'win32'\"", '"winonly ; sys_platform == \\"win32\\""'),
        ("python_version < '3.12'", "python_full_version < '3.12'"),
        ('tools = ["beta", { include-group = "test" }]', 'tools = [{ include-group = "test" }, "beta"]'),
        ("old = [", "Old = ["),
        ('requires-python = ">=3.11"', 'requires-python = ">= 3.11"'),
    ],
    ids=[
        "a name and a version respelled",
        "marker quoting",
        "python_version",
        "a group reordered",
        "an extra's case",
        "spaces",
    ],
)
def test_another_spelling_of_the_same_declarations_is_no_drift(before: str, after: str) -> None:
    assert before in PYPROJECT
    assert _drift(PYPROJECT.replace(before, after, 1)) == []


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        ('"member"]', '"member", "beta"]', [("project.dependencies", "beta added")]),
        ('"alpha>=1"', '"alpha>=1.1"', [("project.dependencies", "alpha>=1 became alpha>=1.1")]),
        (
            '"corelib>=2"',
            '"corelib>=1"',
            [("extra:brain", 'corelib>=2; extra == "brain" became corelib>=1 (extra brain)')],
        ),
        (
            'old = ["corelib<2"]',
            'old = ["corelib<2"]\nnew = ["beta"]',
            [("extra:new", "beta (extra new) added"), ("extra:new", "extra new added")],
        ),
        (
            'old = ["corelib<2"]',
            'old = ["corelib<2", "beta; sys_platform == \'linux\'"]',
            [("extra:old", "beta; sys_platform == 'linux' (extra old) added")],
        ),
        (
            'tools = ["beta"',
            'tools = ["alpha"',
            [("group:tools", "group tools: alpha added"), ("group:tools", "group tools: beta removed")],
        ),
        ('tools = ["beta", { include-group = "test" }]', "", [("group:tools", "dependency group tools removed")]),
        ('requires-python = ">=3.11"', 'requires-python = ">=3.12"', [(None, "requires-python >=3.11 became >=3.12")]),
        ('version = "0.1.0"', 'version = "0.2.0"', [("project.dependencies", "version 0.1.0 became 0.2.0")]),
        (
            'conflicts = [[{ extra = "brain" }, { extra = "old" }]]',
            'conflicts = [[{ extra = "brain" }, { extra = "old" }], [{ group = "test" }, { extra = "old" }]]',
            [(None, "[tool.uv].conflicts changed (1 set(s) locked, 3 declared)")],  # and tools, which includes test
        ),
        ('members = ["packages/member"]', "members = []", [(None, "workspace member member removed")]),
    ],
    ids=[
        "a dependency added",
        "a specifier changed",
        "an extra's specifier changed",
        "an extra added",
        "a marked requirement added to an extra",
        "a group changed",
        "a group removed",
        "requires-python",
        "the version",
        "a conflict added",
        "a member removed",
    ],
)
def test_a_change_is_drift_naming_whose_declaration_it_is_and_what_changed(
    before: str, after: str, expected: list[tuple[str | None, str]]
) -> None:
    assert before in PYPROJECT
    pyproject = PYPROJECT.replace(before, after, 1)
    members = _members(pyproject)
    if "members = []" in pyproject:
        members = members[:1]
    found = [(d.source, d.detail) for d in drift(_lock(), members, "proj")]  # type: ignore[arg-type]
    assert found == expected


def test_a_members_change_is_drift_of_the_whole_lock_named_after_the_member() -> None:
    assert _drift(member=MEMBER.replace('"beta<2"', '"beta<3"')) == [(None, "member: beta<2 became beta<3")]


def test_dynamic_dependencies_are_not_compared() -> None:
    pyproject = PYPROJECT.replace('version = "0.1.0"', 'version = "0.1.0"\ndynamic = ["dependencies"]')
    pyproject = pyproject.replace('"member"]', '"member", "beta"]')
    assert _drift(pyproject) == []


def _project(tmp_path: Path, pyproject: str = PYPROJECT) -> Path:
    import shutil

    from tests.support.uvproject import write_project

    root = write_project(tmp_path / "proj", pyproject)
    shutil.copy(DATA, root / "uv.lock")
    return root


def test_check_reads_every_tier_from_the_one_lock_and_counts_it_once(tmp_path: Path) -> None:
    from tierlock.lockfiles.check import check
    from tierlock.tiers import load_project

    report = check(load_project(_project(tmp_path)))
    assert report.ok
    assert (report.tiers, report.lockfiles, report.packages) == (("base", "brain", "old", "test", "tools"), 1, 7)
    assert report.entries == 9  # corelib and delta twice: brain and old, and below and from Python 3.12


def test_check_of_named_tiers_leaves_out_drift_of_the_others_and_every_tier_reports_it(tmp_path: Path) -> None:
    from tierlock.lockfiles.check import check
    from tierlock.tiers import load_project

    project = load_project(_project(tmp_path, PYPROJECT.replace('old = ["corelib<2"]', 'old = ["corelib<1.5"]')))
    assert check(project, ["brain"]).ok
    (finding,) = check(project, ["old"]).findings
    assert (finding.tier, finding.kind, finding.file, finding.remedy) == ("old", "input-drift", "uv.lock", "uv lock")
    assert finding.detail.startswith('uv.lock is out of date for pyproject.toml: corelib<2; extra == "old" became')
    extra = load_project(
        _project(tmp_path / "2", PYPROJECT.replace('old = ["corelib<2"]', 'old = ["corelib<2"]\nnew = []'))
    )
    assert [(f.tier, f.detail.split(": ", 1)[1]) for f in check(extra).findings] == [("base", "extra new added")]


def test_a_missing_lock_is_one_finding_per_tier_whose_remedy_is_uv_lock(tmp_path: Path) -> None:
    from tierlock.lockfiles.check import check
    from tierlock.tiers import load_project

    root = _project(tmp_path)
    (root / "uv.lock").unlink()
    report = check(load_project(root), ["brain"])
    assert [(f.tier, f.kind, f.remedy) for f in report.findings] == [
        ("base", "missing", "uv lock"),
        ("brain", "missing", "uv lock"),
    ]
    assert report.lockfiles == 0


def test_a_member_the_workspace_declares_and_the_lock_lacks_is_drift() -> None:
    members = [
        *_members(),
        Member("extra-member", "packages/extra", tomllib.loads('[project]\nname = "extra-member"\n')),
    ]
    found = [(d.source, d.detail) for d in drift(_lock(), members, "proj")]  # type: ignore[arg-type]
    assert found == [(None, "workspace member extra-member added")]


def test_constraints_declared_after_locking_are_drift() -> None:
    pyproject = PYPROJECT.replace("[tool.uv]\n", '[tool.uv]\nconstraint-dependencies = ["beta<2"]\n')
    assert _drift(pyproject) == [(None, "[tool.uv].constraint-dependencies: beta<2 added")]


def test_unreadable_items_of_the_lock_are_skipped_and_the_rest_read() -> None:
    from tierlock.lockfiles.uvdrift import _from_lock, _version_differs

    read = _from_lock(
        [{"no": "name"}, "text", {"name": "a", "specifier": "not a specifier"}, {"name": "B", "extras": ["X"]}]
    )
    assert [(r.name, r.extras) for r in read] == [("b", ("x",))]
    assert _version_differs("1.0", "1") is False
    assert _version_differs("a.b", "a.b") is False
    assert _version_differs("a.b", "a.c") is True


def test_a_workspace_members_check_reads_the_lock_and_the_declarations_at_the_workspace_root(tmp_path: Path) -> None:
    from tierlock.lockfiles.check import check
    from tierlock.tiers import load_project

    root = _project(tmp_path)
    member = root / "packages" / "member"
    pyproject = member / "pyproject.toml"
    pyproject.write_text(MEMBER + '\n[tool.tierlock]\nlock = "../../uv.lock"\n', encoding="utf-8")
    assert check(load_project(member)).ok
    pyproject.write_text(pyproject.read_text().replace('"beta<2"', '"beta<1.5"'), encoding="utf-8")
    (finding,) = check(load_project(member)).findings
    assert finding.detail == "../../uv.lock is out of date for pyproject.toml: beta<2 became beta<1.5"


def test_a_package_from_a_wheel_file_names_that_file_for_each_of_its_wheels(tmp_path: Path) -> None:
    text = (
        'version = 1\nrevision = 3\nrequires-python = ">=3.11"\n\n'
        '[[package]]\nname = "proj"\nversion = "0.1.0"\nsource = { editable = "." }\n'
        'dependencies = [{ name = "local" }]\n\n'
        '[[package]]\nname = "local"\nversion = "1.0"\nsource = { path = "wheels/local-1.0-py3-none-any.whl" }\n'
        'wheels = [{ filename = "local-1.0-py3-none-any.whl", hash = "sha256:00" }]\n'
    )
    lock = parse(text, tmp_path / "uv.lock")
    (entry,) = select(lock, "proj").entries
    (file,) = entry.files
    assert file.path == str(tmp_path / "wheels" / "local-1.0-py3-none-any.whl")
    assert entry.url == (tmp_path / "wheels" / "local-1.0-py3-none-any.whl").as_uri()


READS = """\
[project]
name = "My.Proj"
dependencies = ["my-proj[base-extra]", "alpha"]

[project.optional-dependencies]
Fast = ["gamma", "not a requirement ][", 7]
full = ["MY_PROJ[fast]", "other[full]", "my-proj"]
every = ["my-proj[full, Extra.Two] ; python_version >= '3.12'"]
extra_two = []
base-extra = []

[dependency-groups]
suite = ["my-proj[fast]", { include-group = "Lint" }, { include-group = 7 }]
lint = ["ruff"]
ci = [{ include-group = "suite" }]
"""


def test_each_declaration_reads_the_extras_it_names_the_project_with_and_the_groups_it_includes_at_any_depth() -> None:
    from tierlock.lockfiles.committed import sources_read

    reads = sources_read(tomllib.loads(READS), "my-proj")
    assert reads == {
        "project.dependencies": {"project.dependencies", "extra:base-extra"},
        "extra:fast": {"extra:fast"},
        "extra:full": {"extra:full", "extra:fast"},
        "extra:every": {"extra:every", "extra:full", "extra:fast", "extra:extra-two"},
        "extra:extra-two": {"extra:extra-two"},
        "extra:base-extra": {"extra:base-extra"},
        "group:suite": {"group:suite", "extra:fast", "group:lint"},
        "group:lint": {"group:lint"},
        "group:ci": {"group:ci", "group:suite", "extra:fast", "group:lint"},
    }


@pytest.mark.parametrize(
    "text",
    ["", "project = 1\ndependency-groups = 2", '[project]\noptional-dependencies = 3\ndependencies = "x"'],
    ids=["nothing", "not tables", "not lists"],
)
def test_declarations_of_the_wrong_type_read_nothing(text: str) -> None:
    from tierlock.lockfiles.committed import sources_read

    assert sources_read(tomllib.loads(text), "my-proj") == {"project.dependencies": {"project.dependencies"}}


def test_without_a_project_name_no_requirement_names_the_project() -> None:
    from tierlock.lockfiles.committed import sources_read

    reads = sources_read(tomllib.loads('[project.optional-dependencies]\nfull = ["proj[fast]"]\nfast = []'), "")
    assert reads["extra:full"] == {"extra:full"}


def test_a_problem_of_the_lock_every_tier_reads_is_one_finding_with_its_own_remedy(tmp_path: Path) -> None:
    """A package's version edited by hand: the lock cannot be read as uv writes it, whichever tier reads it; the
    finding is reported once (on the first tier), and its remedy is the lock made again, not ``uv lock``."""
    from tierlock.lockfiles.check import check
    from tierlock.lockfiles.uvlock import DAMAGED
    from tierlock.tiers import load_project

    root = _project(tmp_path)
    lock = root / "uv.lock"
    lock.write_text(lock.read_text().replace('name = "alpha"\nversion = "1.1"', 'name = "alpha"\nversion = "1.0"'))
    report = check(load_project(root), ["brain", "old"])
    (finding,) = report.findings
    assert (finding.tier, finding.kind, finding.remedy) == ("base", "integrity", DAMAGED)
    assert finding.detail == "alpha 1.0: its wheel alpha-1.1-py3-none-any.whl is of version 1.1"
