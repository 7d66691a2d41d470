"""A committed lockfile holding any bytes (a merge conflict, a truncated write, an editor's encoding, a binary
pasted over it) read by the commands that read locks: a verdict or a usage error naming the file, never an
internal error. The readers' own properties are elsewhere (``test_pylock_of_any_shape``,
``test_uvlock_arbitrary_input``); this runs each command as the person does, in-process."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.cli import run_cli
from tests.support.tierproject import build_wheelhouse, make_project
from tests.support.uvproject import build_uv_wheelhouse, locked_project, uv_env

#: The commands that read a tier's lock without installing anything.
COMMANDS = (
    ("check",),
    ("check", "--json"),
    ("export", "brain"),
    ("probe", "brain", "--python", sys.executable),
    ("status", "--python", sys.executable),
)


@pytest.fixture(scope="module", params=["requirements", "uv.lock"])
def project(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A project and the lockfile its brain tier is read from: tierlock's own, or the project's uv.lock."""
    folder = tmp_path_factory.mktemp("bytes")
    if request.param == "requirements":
        root = make_project(folder / "proj", build_wheelhouse(folder / "wheels"))
        (root / "tests" / "brain").mkdir(parents=True)
        (root / "tests" / "brain" / "test_core.py").write_text("import corelib\n", encoding="utf-8")
        return root, root / "lockfiles" / "brain.txt"
    env = uv_env(build_uv_wheelhouse(folder / "wheels"), folder / "uv-cache")
    root = locked_project(folder / "proj", env)
    return root, root / "uv.lock"


def _edits() -> st.SearchStrategy[tuple[int, int, bytes]]:
    """Where in the valid lock, how many bytes to cut there, and what to put in their place."""
    return st.tuples(st.integers(0, 10_000), st.integers(0, 64), st.binary(max_size=24))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(_edits(), min_size=1, max_size=4), whole=st.none() | st.binary(max_size=300))
def test_any_bytes_in_a_lockfile_give_each_command_a_verdict_naming_the_file_never_an_internal_error(
    project: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
    edits: list[tuple[int, int, bytes]],
    whole: bytes | None,
) -> None:
    root, lock = project
    valid = lock.read_bytes()
    data = bytearray(valid) if whole is None else bytearray(whole)
    for at, cut, put in edits:
        at %= len(data) + 1
        data[at : at + cut] = put
    try:
        lock.write_bytes(bytes(data))
        for command in COMMANDS:
            code, out, err = run_cli(capsys, "--project", str(root), *command)
            said = out + err
            assert "internal error" not in said, (command, bytes(data), said)
            assert "Traceback" not in said, (command, said)
            assert code in (0, 1, 2), (command, code, said)
            if code and command[0] == "check":
                assert lock.name in said, (command, said)
            if "--json" in command:
                json.loads(out)
    finally:
        lock.write_bytes(valid)
