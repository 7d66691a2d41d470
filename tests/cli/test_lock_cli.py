"""``tierlock lock``: real uv and pip-compile against a local wheel folder (never the registry)."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.support.cli import cli_json, run_cli
from tests.support.env import bin_dir, clean_env, make_venv, site_packages
from tests.support.lockproj import PYPROJECT, offline, write_project
from tierlock.cli import _named_command
from tierlock.distversion import installed_version
from tierlock.errors import BackendError
from tierlock.lockfiles import load, platform_id
from tierlock.lockfiles.lock import LockOptions, lock_project
from tierlock.lockfiles.resolvers import IndexOptions, UvBackend, lock_interpreter
from tierlock.tiers import load_project


@pytest.fixture(scope="session")
def old_wheels(tmp_path_factory: pytest.TempPathFactory, wheels: Path) -> Path:
    """Only the oldest version of each package."""
    folder = tmp_path_factory.mktemp("old-wheels")
    for wheel in wheels.glob("*.whl"):
        if "-1.0-" in wheel.name:
            shutil.copy(wheel, folder)
    return folder


def versions(path: Path) -> dict[str, str]:
    return {e.name: str(e.version) for e in load(path).entries}


def test_lock_writes_each_tier_with_its_full_closure_hashes_and_header(locked: Path) -> None:
    base, brain, tools = (load(locked / "lockfiles" / f"{t}.txt") for t in ("base", "brain", "tools"))
    assert {e.name for e in base.entries} == {"alpha", "beta", "winonly"}
    assert {e.name for e in brain.entries} == {"alpha", "beta", "gamma", "winonly"}
    assert {e.name for e in tools.entries} == {"alpha", "beta", "gamma", "winonly", "delta"}
    assert versions(locked / "lockfiles/tools.txt")["delta"] == "1.0"
    for lock in (base, brain, tools):
        assert lock.header is not None
        assert all(e.hashes and e.hashes[0].startswith("sha256:") for e in lock.entries)
        assert lock.header.backend == "uv"
        assert lock.header.platform is None  # universal
        assert lock.header.requires_python == ">=3.11"
        assert not lock.hand_edited
    winonly = base.get("winonly", {"sys_platform": "win32"})
    assert winonly is not None
    assert str(winonly.marker) == 'sys_platform == "win32"'
    assert base.get("winonly", {"sys_platform": "linux"}) is None
    assert base.header is not None
    assert brain.header is not None
    assert tools.header is not None
    assert brain.header.layered_on == "base"
    assert brain.header.layered_on_digest == base.body_digest
    assert brain.header.inputs == ("alpha>=1", "gamma>=1", 'winonly; sys_platform == "win32"')
    assert brain.header.command == "tierlock lock brain"
    assert tools.header.layered_on == "brain"
    assert tools.header.include_groups == ("extra-tools",)
    for shared in ("alpha", "beta"):
        assert versions(locked / "lockfiles/brain.txt")[shared] == versions(locked / "lockfiles/base.txt")[shared]
    text = (locked / "lockfiles/brain.txt").read_text()
    assert "# via tier brain (pyproject.toml)" in text
    assert "/tmp" not in text  # no temporary paths leak into committed lockfiles


def test_a_tier_lockfile_alone_installs_the_tier_with_pip_require_hashes(
    locked: Path, wheels: Path, tmp_path: Path
) -> None:
    python = make_venv(tmp_path / "venv")
    argv: list[str | Path] = [bin_dir() / "uv", "pip", "install", "--python", python, "--no-deps"]
    argv += ["--require-hashes", "-r", locked / "lockfiles/brain.txt", *offline(wheels)]
    subprocess.run(argv, check=True, env=clean_env(), capture_output=True)
    installed = {p.name.split("-")[0] for p in site_packages(tmp_path / "venv").glob("*.dist-info")}
    assert installed == {"alpha", "beta", "gamma"}


def test_lock_keeps_existing_pins_and_upgrades_only_when_asked(
    tmp_path: Path, wheels: Path, old_wheels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_project(tmp_path / "proj")
    assert run_cli(capsys, "--project", str(folder), "lock", "base", *offline(old_wheels))[0] == 0
    assert versions(folder / "lockfiles/base.txt") == {"alpha": "1.0", "beta": "1.0", "winonly": "1.0"}
    # Newer versions are available now, but the existing pins still hold.
    assert run_cli(capsys, "--project", str(folder), "lock", "base", *offline(wheels))[0] == 0
    assert versions(folder / "lockfiles/base.txt") == {"alpha": "1.0", "beta": "1.0", "winonly": "1.0"}
    code, doc = cli_json(capsys, "--project", str(folder), "lock", "base", "-P", "beta", *offline(wheels))
    assert code == 0
    assert doc["locked"][0]["changes"] == ["beta 1.0 -> 2.0"]
    assert versions(folder / "lockfiles/base.txt") == {"alpha": "1.0", "beta": "2.0", "winonly": "1.0"}
    code, out, _ = run_cli(capsys, "--project", str(folder), "lock", "base", "--upgrade", *offline(wheels))
    assert code == 0
    assert "alpha 1.0 -> 1.1" in out
    assert versions(folder / "lockfiles/base.txt") == {"alpha": "1.1", "beta": "2.0", "winonly": "1.0"}


def test_locking_a_layered_tier_locks_a_missing_or_stale_base_first(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_project(tmp_path / "proj")
    code, doc = cli_json(capsys, "--project", str(folder), "lock", "brain", *offline(wheels))
    assert code == 0
    assert [(d["tier"], d["reason"]) for d in doc["locked"]] == [
        ("base", "missing below brain"),
        ("brain", "requested"),
    ]
    assert not (folder / "lockfiles/tools.txt").exists()
    # The base declaration changes: locking brain relocks base first.
    pyproject = folder / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('"alpha>=1"', '"alpha>=1", "delta"'))
    code, doc = cli_json(capsys, "--project", str(folder), "lock", "brain", *offline(wheels))
    assert code == 0
    assert [(d["tier"], d["reason"]) for d in doc["locked"]] == [
        ("base", "input-drift below brain"),
        ("brain", "requested"),
    ]
    assert versions(folder / "lockfiles/brain.txt")["delta"] == versions(folder / "lockfiles/base.txt")["delta"]
    assert run_cli(capsys, "--project", str(folder), "check", "base", "brain")[0] == 0


def test_pip_tools_makes_a_single_platform_lock_that_records_the_platform(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_project(tmp_path / "proj")
    code, out, err = run_cli(
        capsys, "--project", str(folder), "lock", "base", "brain", "--backend", "pip", *offline(wheels)
    )
    assert code == 0, err
    assert f"this platform only: {platform_id()}" in out
    base, brain = load(folder / "lockfiles/base.txt"), load(folder / "lockfiles/brain.txt")
    assert base.header is not None
    assert base.header.backend == "pip-tools"
    assert base.header.platform == platform_id()
    assert not base.universal
    assert {e.name for e in base.entries} == {"alpha", "beta"}  # winonly's marker is false here
    assert {e.name for e in brain.entries} == {"alpha", "beta", "gamma"}
    assert all(e.hashes for e in brain.entries)
    assert "--find-links" not in (folder / "lockfiles/base.txt").read_text()
    brain_text = (folder / "lockfiles/brain.txt").read_text()
    assert "/tmp" not in brain_text
    assert "# via tier brain (pyproject.toml)" in brain_text
    assert brain.header is not None
    assert brain.header.command == "tierlock lock brain --backend pip"  # auto would pick uv
    assert run_cli(capsys, "--project", str(folder), "check", "base", "brain")[0] == 0
    edit = folder / "pyproject.toml"
    edit.write_text(edit.read_text().replace('"gamma>=1"', '"gamma>=1", "delta"'))
    code, doc = cli_json(capsys, "--project", str(folder), "check", "brain")
    assert code == 1
    assert doc["findings"][0]["remedy"] == f"tierlock --project {folder} lock brain --backend pip"


def test_the_pylock_format_is_written_with_uv_and_read_through_packaging(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_project(tmp_path / "proj", PYPROJECT.replace('lock-dir = "lockfiles"', 'format = "pylock"'))
    wheels = Path(shutil.copytree(wheels, folder / "wheels"))  # a pylock names files inside the project
    code, _, err = run_cli(capsys, "--project", str(folder), "lock", "brain", *offline(wheels))
    assert code == 0, err
    lock = load(folder / "lockfiles/pylock.brain.toml")
    assert lock.format == "pylock"
    assert lock.header is not None
    assert lock.header.layered_on == "base"
    gamma = lock.get("gamma")
    assert gamma is not None
    assert gamma.files[0].kind == "wheel"
    assert gamma.files[0].filename == "gamma-1.0-py3-none-any.whl"
    assert gamma.hashes[0].startswith("sha256:")
    assert run_cli(capsys, "--project", str(folder), "check", "base", "brain")[0] == 0
    pylock = folder / "lockfiles/pylock.brain.toml"
    pylock.write_text(pylock.read_text().replace('name = "gamma"', 'name = "gamma"\nrequires-python = ">=3.11"'))
    code, doc = cli_json(capsys, "--project", str(folder), "check", "brain")
    assert code == 1
    assert [(f["kind"], f["file"]) for f in doc["findings"]] == [("hand-edit", "lockfiles/pylock.brain.toml")]
    code, doc = cli_json(capsys, "--project", str(folder), "lock", "brain", *offline(wheels))
    assert code == 0
    assert [(d["tier"], d["created"], d["changes"]) for d in doc["locked"]] == [("brain", False, [])]
    assert run_cli(capsys, "--project", str(folder), "check", "brain")[0] == 0
    code, _, err = run_cli(capsys, "--project", str(folder), "lock", "--backend", "pip", *offline(wheels))
    assert code == 2
    assert "pip-tools cannot write the pylock format" in err


def test_a_pylock_from_a_wheelhouse_outside_the_project_is_not_written_and_says_where_to_put_it(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_project(tmp_path / "proj", PYPROJECT.replace('lock-dir = "lockfiles"', 'format = "pylock"'))
    code, doc = cli_json(capsys, "--project", str(folder), "lock", "brain", *offline(wheels))
    assert code == 3  # as every tier the backend's output could not be locked for: the others are reported
    failed = {f["tier"]: f for f in doc["failed"]}["base"]
    assert "file(s) outside the project; nothing was written" in failed["message"]
    assert "alpha names a file outside the project (file:///" in failed["detail"]
    assert "put the wheels inside the project" in failed["remedy"]
    assert not (folder / "lockfiles" / "pylock.base.toml").exists()


def test_a_resolver_conflict_shows_the_explanation_and_writes_nothing(
    project: Path, wheels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('brain = ["gamma>=1"]', 'brain = ["gamma>=1", "omega"]'))
    before = {p.name: p.read_bytes() for p in (project / "lockfiles").iterdir()}
    code, _, err = run_cli(capsys, "--project", str(project), "lock", "brain", *offline(wheels))
    assert code == 3
    assert "No solution found" in err
    assert "omega" in err
    assert "to fix:" in err
    assert {p.name: p.read_bytes() for p in (project / "lockfiles").iterdir()} == before
    assert sorted(before) == [f"{t}{s}" for t in ("base", "brain", "tools") for s in (".artifacts.toml", ".txt")]


def test_an_unreachable_index_fails_with_the_backend_output_and_writes_nothing(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UV_HTTP_RETRIES", "0")  # the user's own uv settings are respected
    before = (project / "lockfiles/base.txt").read_bytes()
    code, _, err = run_cli(
        capsys, "--project", str(project), "lock", "base", "--upgrade", "--index-url", "http://127.0.0.1:9/simple"
    )
    assert code == 3
    assert "127.0.0.1:9" in err
    assert (project / "lockfiles/base.txt").read_bytes() == before


def test_lock_respects_the_users_own_uv_settings_in_the_project(
    project: Path, wheels: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # No index flags on the command line: the project's uv.toml alone points uv at the local wheels.
    monkeypatch.delenv("UV_NO_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-user-config"))
    (project / "uv.toml").write_text(f'no-index = true\nfind-links = ["{wheels.as_posix()}"]\n', encoding="utf-8")
    code, _, err = run_cli(capsys, "--project", str(project), "lock", "base", "--backend", "uv", "--upgrade")
    assert code == 0, err
    assert versions(project / "lockfiles/base.txt")["alpha"] == "1.1"
    (project / "uv.toml").unlink()
    code, _, err = run_cli(
        capsys, "--project", str(project), "lock", "base", "--backend", "uv", "--upgrade", "--no-index"
    )
    assert code == 3  # without the user's settings there is nowhere to find alpha
    assert "alpha" in err


def test_a_failing_lock_never_echoes_the_password_of_an_index_url(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UV_HTTP_RETRIES", "0")
    index = "http://alice:s3cret-pw@127.0.0.1:9/simple"
    for extra in ((), ("-v",), ("--json",)):
        code, out, err = run_cli(
            capsys, "--project", str(project), *extra, "lock", "base", "--upgrade", "--index-url", index
        )
        assert code == 3
        assert "s3cret-pw" not in out + err
        assert "alice:****@127.0.0.1:9" in out + err  # the URL is still named, its password masked


def test_a_missing_backend_is_a_clear_error_naming_how_to_get_it(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setattr(sys, "executable", str(empty / "python"))
    code, _, err = run_cli(capsys, "--project", str(project), "lock", "--backend", "uv")
    assert code == 3
    assert "uv is not installed" in err
    assert "pip install uv" in err
    code, _, err = run_cli(capsys, "--project", str(project), "lock", "--backend", "pip")
    assert code == 3
    assert "pip install pip-tools" in err
    code, _, err = run_cli(capsys, "--project", str(project), "lock")
    assert code == 3
    assert "neither uv nor pip-compile" in err


def test_a_backend_that_crashes_midway_leaves_the_lockfile_untouched(project: Path, tmp_path: Path) -> None:
    fake = tmp_path / "crashing-uv"
    fake.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "--version" ]; then echo "uv 0.0.0"; exit 0; fi\n'
        'while [ "$#" -gt 0 ]; do if [ "$1" = "--output-file" ]; then out="$2"; fi; shift; done\n'
        'printf "alpha==1.1 \\\\\\n    --hash=sha256:0123" > "$out"\n'
        "echo 'thread main panicked' >&2\n"
        "kill -SEGV $$\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    before = {p.name: p.read_bytes() for p in (project / "lockfiles").iterdir()}
    with pytest.raises(BackendError) as info:
        lock_project(load_project(project), ["base"], UvBackend(str(fake)), LockOptions(index=IndexOptions()))
    assert "panicked" in "\n".join(info.value.lines())
    assert info.value.exit_code == 3
    assert {p.name: p.read_bytes() for p in (project / "lockfiles").iterdir()} == before


def test_unknown_tier_is_a_usage_error_before_any_work(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "--project", str(project), "lock", "brian")
    assert code == 2
    assert "did you mean 'brain'" in err


def test_the_lock_command_line_runs_as_a_console_script(project: Path, wheels: Path) -> None:
    proc = subprocess.run(
        [bin_dir() / "tierlock", "--project", project, "lock", "base", *offline(wheels)],
        env=clean_env({"PATH": os.environ["PATH"]}),
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "base: lockfiles/base.txt: 3 package(s), unchanged pins" in proc.stdout


def test_a_tier_without_requirements_gets_a_lockfile_with_only_its_header(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_project(tmp_path / "proj", '[project]\nname = "empty"\nversion = "0"\ndependencies = []\n')
    code, _, err = run_cli(capsys, "--project", str(folder), "lock", *offline(wheels))
    assert code == 0, err
    lock = load(folder / "lockfiles/base.txt")
    assert lock.entries == ()
    assert lock.header is not None
    assert lock.header.inputs == ()
    assert run_cli(capsys, "--project", str(folder), "check")[0] == 0


def compiles(started: Sequence[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """The lock compiles among *started* (not the listing of the new pins' files that follows each)."""
    return [a for a in started if a[1:3] == ("pip", "compile") and "--no-deps" not in a]


def test_the_uv_version_comes_from_its_installed_distribution_without_a_process(
    started: list[tuple[str, ...]],
) -> None:
    uv = bin_dir() / "uv"
    reported = subprocess.run([uv, "--version"], capture_output=True, text=True, check=True).stdout.split()[1]
    assert installed_version(str(uv), "uv") == reported
    assert UvBackend(str(uv)).version() == reported
    assert started == []


def test_a_uv_that_no_installed_distribution_records_is_asked_for_its_version(
    tmp_path: Path, started: list[tuple[str, ...]]
) -> None:
    fake = tmp_path / "uv"
    fake.write_text('#!/bin/sh\necho "uv 9.8.7 (fake)"\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    assert installed_version(str(fake), "uv") is None
    assert UvBackend(str(fake)).version() == "9.8.7"
    assert started == [(str(fake), "--version")]


def test_a_locked_header_records_the_version_uv_itself_reports(locked: Path) -> None:
    header = load(locked / "lockfiles/base.txt").header
    assert header is not None
    out = subprocess.run([bin_dir() / "uv", "--version"], capture_output=True, text=True, check=True).stdout
    assert header.backend_version == out.split()[1]


@pytest.fixture
def no_user_uv_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No user uv.toml deciding python-downloads for the test."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


@pytest.mark.usefixtures("no_user_uv_config")
@pytest.mark.parametrize("requires", [">={here}", ">=3.8", None])
def test_uv_compiles_with_this_interpreter_and_never_downloads_one_whatever_the_lock_targets(
    tmp_path: Path,
    wheels: Path,
    capsys: pytest.CaptureFixture[str],
    started: list[tuple[str, ...]],
    requires: str | None,
) -> None:
    here = f"{sys.version_info[0]}.{sys.version_info[1]}"
    replacement = f'requires-python = "{requires.format(here=here)}"' if requires else ""
    folder = write_project(tmp_path / "proj", PYPROJECT.replace('requires-python = ">=3.11"', replacement))
    assert run_cli(capsys, "--project", str(folder), "lock", "base", *offline(wheels))[0] == 0
    (compile_argv,) = compiles(started)
    if requires:
        expected = here if requires.startswith(">={") else "3.8"
        assert compile_argv[compile_argv.index("--python-version") + 1] == expected
    else:
        assert "--python-version" not in compile_argv
    assert compile_argv[compile_argv.index("--python") + 1] == sys.executable
    assert "--no-python-downloads" in compile_argv
    assert lock_interpreter() == sys.executable


def test_uv_may_download_an_interpreter_when_uv_python_downloads_asks_for_it(
    project: Path,
    wheels: Path,
    capsys: pytest.CaptureFixture[str],
    started: list[tuple[str, ...]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("UV_PYTHON_DOWNLOADS", "automatic")
    assert run_cli(capsys, "--project", str(project), "lock", "base", *offline(wheels))[0] == 0
    (compile_argv,) = compiles(started)
    assert "--no-python-downloads" not in compile_argv


def test_uv_may_download_an_interpreter_when_the_projects_uv_settings_say_so(
    project: Path, wheels: Path, capsys: pytest.CaptureFixture[str], started: list[tuple[str, ...]]
) -> None:
    (project / "uv.toml").write_text('python-downloads = "manual"\n')
    assert run_cli(capsys, "--project", str(project), "lock", "base", *offline(wheels))[0] == 0
    (compile_argv,) = compiles(started)
    assert "--no-python-downloads" not in compile_argv


def test_uv_finds_its_own_interpreter_when_uv_python_chooses_one(
    project: Path,
    wheels: Path,
    capsys: pytest.CaptureFixture[str],
    started: list[tuple[str, ...]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("UV_PYTHON", sys.executable)
    assert run_cli(capsys, "--project", str(project), "lock", "base", *offline(wheels))[0] == 0
    (compile_argv,) = compiles(started)
    assert "--python" not in compile_argv
    assert lock_interpreter() is None


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (["lock", "base"], "lock"),
        (["--project", "lock", "check"], "check"),
        (["--pro", "lock", "-q", "check"], "check"),
        (["--project=lock", "--json", "lock"], "lock"),
        (["--help", "lock"], None),
        (["--version"], None),
        (["lokc"], None),
        ([], None),
    ],
)
def test_the_parser_is_built_for_the_named_command_only_when_that_is_certain(
    argv: list[str], command: str | None
) -> None:
    assert _named_command(argv) == command


def test_a_project_folder_named_like_a_command_does_not_confuse_the_parser(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_project(tmp_path / "lock")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, "--project", "lock", "tiers")
    assert code == 0, err
    assert "brain" in out


def test_a_pip_tools_resolver_conflict_shows_pips_explanation_and_writes_nothing(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_project(
        tmp_path / "proj", PYPROJECT.replace('brain = ["gamma>=1"]', 'brain = ["gamma>=1", "omega"]')
    )
    assert run_cli(capsys, "--project", str(folder), "lock", "base", "--backend", "pip", *offline(wheels))[0] == 0
    code, _, err = run_cli(capsys, "--project", str(folder), "lock", "brain", "--backend", "pip", *offline(wheels))
    assert code == 3
    assert "conflicting dependencies" in err  # pip's own explanation, not only traceback frames
    assert "beta<1" in err
    assert "omega" in err
    assert '  File "' not in err
    assert "to fix:" in err
    assert sorted(p.name for p in (folder / "lockfiles").iterdir()) == ["base.txt"]


def test_a_new_lockfile_gets_the_mode_the_umask_allows_not_a_private_one(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_project(tmp_path / "proj")
    umask = os.umask(0o022)
    try:
        assert run_cli(capsys, "--project", str(folder), "lock", "base", *offline(wheels))[0] == 0
    finally:
        os.umask(umask)
    assert stat.S_IMODE((folder / "lockfiles/base.txt").stat().st_mode) == 0o644
    (folder / "lockfiles/base.txt").chmod(0o640)  # a mode the user chose is kept on relock
    assert run_cli(capsys, "--project", str(folder), "lock", "base", "-U", *offline(wheels))[0] == 0
    assert stat.S_IMODE((folder / "lockfiles/base.txt").stat().st_mode) == 0o640


def test_pip_tools_respects_the_users_own_pip_configuration(
    tmp_path: Path, wheels: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # No index flags on the command line: the user's pip.conf alone points pip-compile at the local wheels.
    folder = write_project(tmp_path / "proj")
    config = tmp_path / "pip.conf"
    config.write_text(f"[global]\nno-index = true\nfind-links = {wheels}\n", encoding="utf-8")
    monkeypatch.setenv("PIP_CONFIG_FILE", str(config))
    code, _, err = run_cli(capsys, "--project", str(folder), "lock", "base", "--backend", "pip")
    assert code == 0, err
    assert versions(folder / "lockfiles/base.txt") == {"alpha": "1.1", "beta": "2.0"}
    assert str(wheels) not in (folder / "lockfiles/base.txt").read_text()  # the config is not written into the lock
