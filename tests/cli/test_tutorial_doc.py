"""docs/tutorial.md runs as written: every file it shows is written, every command runs, every output matches.

Offline: ``tierlock`` and ``install-tier`` are this checkout's; the package index is a local folder holding
tierlock's built wheel, pytest and tierlock's dependencies (repacked from this environment) and stand-in
``tabulate`` and ``numpy`` wheels. The page names no index: pip and uv get it from their own environment
variables, the way a user's configuration reaches them. To refresh the page after an intended change of
output, run this module with ``TIERLOCK_UPDATE_DOCS=1`` and review the diff.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.support import doctutorial
from tests.support.dist import dependency_wheels, make_dist
from tests.support.env import clean_env
from tests.support.plugin_project import CI_VARS
from tests.support.repack import repack_closure
from tests.support.wheels import build_wheel

pytestmark = pytest.mark.slow

PAGE = Path(__file__).resolve().parents[2] / "docs" / "tutorial.md"

TABULATE = 'def tabulate(rows):\n    return "\\n".join("  ".join(map(str, row)) for row in rows)\n'


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("index")
    make_dist(folder)
    dependency_wheels(folder)
    repack_closure(["pytest"], folder)
    build_wheel(folder, "tabulate", "0.9.0", files={"tabulate/__init__.py": TABULATE})
    build_wheel(folder, "numpy", "2.1.0", extension=True)
    return folder


def _env(index: Path, tools: Path) -> dict[str, str]:
    env = clean_env(
        {
            "PATH": os.pathsep.join([str(tools), "/usr/bin", "/bin"]),
            "PIP_NO_INDEX": "1",
            "PIP_FIND_LINKS": str(index),
            "UV_OFFLINE": "1",
            "UV_FIND_LINKS": str(index),
            "PYTHONUNBUFFERED": "1",
            "NO_COLOR": "1",
        }
    )
    for key in (*CI_VARS, "TIERLOCK_STRICT", "PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER", "COLUMNS", "LINES"):
        env.pop(key, None)
    return env


def _tools(folder: Path) -> Path:
    """A PATH folder with only this checkout's ``tierlock`` and ``install-tier`` (and python3)."""
    folder.mkdir()
    here = Path(sys.executable).parent
    for name in ("tierlock", "install-tier"):
        (folder / name).symlink_to(here / name)
    return folder


def test_the_tutorial_runs_as_written_and_every_output_matches(index: Path, tmp_path: Path) -> None:
    text = PAGE.read_text(encoding="utf-8")
    steps = doctutorial.parse(text)
    commands = [c for s in steps for c in s.commands]
    assert len(commands) >= 15, "the tutorial lost its commands"
    root = tmp_path / "work"
    (root / "tierlock" / "dist").mkdir(parents=True)  # the clone beside the project, with the wheel it built
    for wheel in index.glob("tierlock-*.whl"):
        shutil.copy(wheel, root / "tierlock" / "dist")
    env = _env(index, _tools(tmp_path / "tools"))
    env["UV_CACHE_DIR"] = str(tmp_path / "uv-cache")  # never the user's cache
    results = doctutorial.run(steps, root, env)
    if os.environ.get("TIERLOCK_UPDATE_DOCS") == "1":
        PAGE.write_text(doctutorial.rewrite(text, results, root), encoding="utf-8")
        return
    for result in results:
        command = result.command
        where = f"docs/tutorial.md:{command.line + 1}: $ {command.text}"
        expected = doctutorial.normalize("\n".join(command.expected), Path("/nonexistent"))
        actual = doctutorial.normalize(result.output, root)
        assert result.code == command.exit_code, f"{where}: exit {result.code}\n{result.output}"
        assert actual == expected, f"{where}: output differs from the page"


def test_a_changed_output_fails_the_comparison(tmp_path: Path) -> None:
    page = "```console\n$ echo hello   # exit 0\nhello\n$ echo bye\nhi\n```\n"
    steps = doctutorial.parse(page)
    results = doctutorial.run(steps, tmp_path, clean_env())
    assert [doctutorial.normalize(r.output, tmp_path) for r in results] == ["hello", "bye"]
    assert [r.command.expected for r in results] == [["hello"], ["hi"]]
    rewritten = doctutorial.rewrite(page, results, tmp_path)
    assert rewritten == "```console\n$ echo hello   # exit 0\nhello\n$ echo bye\nbye\n```\n"


def test_files_are_written_and_unrun_blocks_skipped(tmp_path: Path) -> None:
    page = (
        "<!-- file: sub/a.txt -->\n```text\nA\n```\n\n<!-- not run -->\n```console\n$ false\n```\n"
        "```console\n$ cat sub/a.txt\nA\n$ false   # exit 1\n```\n"
    )
    results = doctutorial.run(doctutorial.parse(page), tmp_path, clean_env())
    assert [(r.command.text, r.code, r.output) for r in results] == [("cat sub/a.txt", 0, "A\n"), ("false", 1, "")]
