"""The backends' small parts: the uv asked for and missing, each one's version, the project's folders in a command,
and the causes of a failure cut to what a screen holds. Real files and a real executable in ``tmp_path``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.targets import a_target
from tierlock.errors import TierlockError
from tierlock.installer import backends


def test_the_uv_backend_asked_for_and_missing_is_an_error_naming_where_it_was_looked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(backends.UV_ENV, str(tmp_path / "uv"))
    with pytest.raises(TierlockError) as caught:
        backends.choose("uv", a_target(tmp_path / "venv"))
    assert f"${backends.UV_ENV}={tmp_path / 'uv'}" in caught.value.message
    assert caught.value.remedy == "pip install uv, or pass --backend pip"


@pytest.mark.parametrize(("prints", "version"), [("uv 0.9.9 (abc 2026-01-01)", "0.9.9"), ("uv", "?"), ("", "?")])
def test_a_uv_of_its_own_tells_its_version_by_running_it(tmp_path: Path, prints: str, version: str) -> None:
    uv = tmp_path / "uv"
    uv.write_text(f"#!/bin/sh\necho '{prints}'\n", encoding="utf-8")
    uv.chmod(0o755)
    assert backends.UvBackend(uv).version() == version


def test_pips_version_is_read_from_its_folder_in_the_site_it_runs_from(tmp_path: Path) -> None:
    (tmp_path / "pip-25.0.dist-info").mkdir()
    pip = backends.PipBackend(python=tmp_path / "python", target_flag=False, sites=(tmp_path,))
    assert pip.version() == "25.0"


def test_the_projects_folders_are_given_editable_or_not_as_they_are_installed(tmp_path: Path) -> None:
    folders = [(tmp_path / "app", True, "app"), (tmp_path / "lib", False, "lib")]
    argv = backends.UvBackend(tmp_path / "uv").local_argv(a_target(tmp_path / "venv"), folders, ())
    assert argv[-3:] == ["-e", str(tmp_path / "app"), str(tmp_path / "lib")]


def test_the_causes_of_a_failure_past_what_a_screen_holds_end_with_how_many_more_there_are() -> None:
    output = "\n".join(f"error: cause number {n}" for n in range(15))
    found = backends.causes(output)
    assert len(found) == backends.MAX_CAUSES
    assert found[: backends.MAX_CAUSES - 1] == [f"error: cause number {n}" for n in range(11)]
    assert found[-1] == "... and 4 more line(s) (run with -v)"


def _pip_site(folder: Path, metadata: str | None, version: str = "26.3") -> Path:
    """A site folder holding a pip (its package, and its dist-info whose METADATA is *metadata*; None: none)."""
    (folder / "pip").mkdir(parents=True)
    (folder / "pip" / "__init__.py").write_text("", encoding="utf-8")
    (folder / "pip" / "__pip-runner__.py").write_text("", encoding="utf-8")
    info = folder / f"pip-{version}.dist-info"
    info.mkdir()
    if metadata is not None:
        (info / "METADATA").write_text(metadata, encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    ("metadata", "expected"),
    [
        ("Metadata-Version: 2.1\nName: pip\nRequires-Python: >=3.10\n\nbody\n", ">=3.10"),
        ("Name: pip\nrequires-python :  >=3.9 \n", ">=3.9"),  # the key in any case, the value stripped
        ("Name: pip\n\nRequires-Python: >=3.12\n", ""),  # in the description, not a header
        ("Name: pip\n", ""),
        (None, ""),  # no METADATA
    ],
)
def test_pips_requires_python_is_read_from_its_metadata_headers(
    tmp_path: Path, metadata: str | None, expected: str
) -> None:
    assert backends.pip_requires_python((tmp_path / "empty", _pip_site(tmp_path / "site", metadata))) == expected


def test_no_pip_dist_info_says_no_requires_python(tmp_path: Path) -> None:
    tmp_path.joinpath("pipx-1.0.dist-info").mkdir()
    assert backends.pip_requires_python((tmp_path,)) == ""


@pytest.mark.parametrize(
    ("spec", "version", "runs"),
    [
        (">=3.10", (3, 9, 18), False),
        (">=3.10", (3, 10, 0), True),
        (">=3.9.2", (3, 9, 5), True),  # the micro version counts
        (">=3.9.2", (3, 9, 1), False),
        (">=3.10", (3, 13, 0, "final", 0), True),  # a sys.version_info: its first three parts
        ("<3.13,>=3.9", (3, 13, 0), False),
        ("", (3, 8, 18), True),  # says nothing: runs
        ("not a specifier", (3, 9, 18), True),  # unreadable: runs, as it did
    ],
)
def test_pip_runs_on_the_pythons_its_requires_python_admits(
    tmp_path: Path, spec: str, version: tuple[object, ...], runs: bool
) -> None:
    site = _pip_site(tmp_path / "site", f"Name: pip\nRequires-Python: {spec}\n")
    assert backends.pip_runs_on((site,), version) is runs  # type: ignore[arg-type]


def test_the_pip_beside_tierlock_serves_only_a_target_whose_python_it_runs_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    own = _pip_site(tmp_path / "lib" / "site-packages", "Name: pip\nRequires-Python: >=3.10\n")
    monkeypatch.setattr("sys.path", [str(own)])
    monkeypatch.setenv(backends.UV_ENV, str(tmp_path / "no-uv"))
    older = a_target(tmp_path / "old", tmp_path / "old-site", version=(3, 9, 18))
    newer = a_target(tmp_path / "new", tmp_path / "new-site", version=(3, 12, 1))
    assert backends.own_pip_sites() == (own,)
    assert backends.own_pip_sites((3, 9, 18)) == ()
    assert backends.own_pip_sites((3, 12, 1)) == (own,)
    assert backends.find_pip(older) is None
    found = backends.find_pip(newer)
    assert found is not None
    assert found.runner == own / "pip" / "__pip-runner__.py"
    for preference, uv in (("pip", ""), ("auto", ", and uv is not installed")):
        with pytest.raises(TierlockError) as caught:
            backends.choose(preference, older)
        assert caught.value.message == (
            "the pip beside tierlock (pip 26.3, Requires-Python >=3.10) does not run on Python 3.9.18 of "
            f"{tmp_path / 'old'}, which has no pip of its own{uv}; nothing was installed"
        )
        assert caught.value.remedy == f"{tmp_path / 'old' / 'bin' / 'python'} -m ensurepip"
    _pip_site(tmp_path / "old-site", "Name: pip\nRequires-Python: >=3.7\n", "23.0.1")  # ensurepip's pip
    mine = backends.find_pip(older)
    assert mine is not None
    assert (mine.python, mine.target_flag, mine.runner) == (older.python, False, None)
    monkeypatch.setattr("sys.path", [str(tmp_path / "nowhere")])
    with pytest.raises(TierlockError) as caught:
        backends.choose("pip", newer)
    assert "no installer backend" in caught.value.message


def test_a_uv_repair_reads_uvs_cache_first_and_its_retry_without_it_is_the_installers(tmp_path: Path) -> None:
    """A repair from a whole cache costs no download (a large wheel is not fetched again); only a repair uv left
    damaged (its cache's copy damaged in place through a hard link) is made again with ``--no-cache``, by
    :mod:`tierlock.installer.applying` (tests/cli/test_uv_repair_without_cache.py)."""
    uv = backends.UvBackend(tmp_path / "uv")
    target, requirements = a_target(tmp_path), tmp_path / "r.txt"
    repairing = uv.install_argv(target, requirements, reinstall=["corelib"])
    assert repairing[-2:] == ["--reinstall-package", "corelib"]
    assert "--no-cache" not in repairing
    assert "--no-cache" not in uv.install_argv(target, requirements, reinstall=[])
