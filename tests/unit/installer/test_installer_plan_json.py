"""The plan as ``install --json`` shows it per package: versions found and locked, and why."""

from __future__ import annotations

from packaging.utils import canonicalize_name
from packaging.version import Version

from tierlock.installer.plan import Installed, State, make_plan
from tierlock.lockfiles.locks import LockEntry

HASH = "sha256:" + "a" * 64


def entry(name: str, version: str) -> LockEntry:
    return LockEntry(canonicalize_name(name), Version(version), None, (HASH,))


def found(name: str, version: str | None, state: State = "present") -> Installed:
    return Installed(canonicalize_name(name), Version(version) if version else None, state)


def test_each_package_shows_the_installed_version_when_there_is_one_and_the_reason() -> None:
    plan = make_plan(
        [entry("absent", "1.0"), entry("husk", "1.0"), entry("lib", "1.0"), entry("old", "2.0"), entry("ok", "3.0")],
        {
            canonicalize_name("husk"): found("husk", None, "partial"),
            canonicalize_name("lib"): found("lib", "1.0", "present-editable"),
            canonicalize_name("old"): found("old", "1.5"),
            canonicalize_name("ok"): found("ok", "3.0"),
        },
    )
    rows = {row["name"]: row for rows in plan.to_dict().values() for row in rows}
    assert rows["absent"] == {"name": "absent", "version": "1.0", "installed_version": None, "reason": "not installed"}
    assert rows["husk"]["installed_version"] is None
    assert rows["lib"] == {
        "name": "lib",
        "version": "1.0",
        "installed_version": "1.0",
        "reason": "editable install of the locked version (kept)",
    }
    assert rows["old"]["installed_version"] == "1.5"
    assert rows["old"]["reason"] == "1.5 installed, 2.0 locked"
    assert rows["ok"] == {"name": "ok", "version": "3.0", "installed_version": "3.0", "reason": "present"}
