"""Two versions' ``.dist-info`` folders of one package side by side (a tool that installed over it and left the old
one, a folder copied in): ``importlib.metadata`` may read the stray one, and the probe finds the package partial. Its
printed fix, ``install-tier``, must not answer from the receipt (whose files all still hold): before, it said
"already present (...); nothing to do" and the tier stayed partial. Real uv and pip, wheels written at test time.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.cli.test_install_cli import index_env
from tests.support.env import bin_dir, clean_env, make_venv, site_packages
from tests.support.tierproject import build_wheelhouse, make_project

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return build_wheelhouse(tmp_path_factory.mktemp("wheels"))


@pytest.mark.parametrize("backend", ["uv", "pip"])
def test_a_stray_dist_info_beside_an_armed_package_is_repaired_by_the_printed_fix(
    tmp_path: Path, wheels: dict[str, Path], backend: str
) -> None:
    root = make_project(tmp_path / "proj", wheels)
    venv = tmp_path / "venv"
    python = make_venv(venv)
    env = clean_env(
        {**index_env(wheels["corelib-1.0"].parent, tmp_path / "uv-cache"), "TIERLOCK_CACHE_DIR": str(tmp_path / "c")}
    )
    fix = shlex.join(["install-tier", "brain", "--python", str(python), "--backend", backend])

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        program = shutil.which(argv[0], path=str(bin_dir())) or argv[0]
        return subprocess.run([program, *argv[1:]], cwd=root, env=env, capture_output=True, text=True, check=False)

    assert run(*shlex.split(fix)).returncode == 0
    other = tmp_path / "other"  # corelib 2.0 as another tool installed it elsewhere: its .dist-info copied in
    installed = run("uv", "pip", "install", "--target", str(other), "--no-deps", "corelib==2.0")
    assert installed.returncode == 0, installed.stderr
    shutil.copytree(other / "corelib-2.0.dist-info", site_packages(venv) / "corelib-2.0.dist-info")
    found = [
        str(python),
        "-c",
        "import importlib.metadata as m; print(sorted(d.version for d in m.distributions(name='corelib')))",
    ]
    assert subprocess.run(found, capture_output=True, text=True, check=True).stdout.strip() == "['1.0', '2.0']"

    probed = run("tierlock", "probe", "brain", "--python", str(python))
    assert probed.returncode == 1
    assert "2 .dist-info folders for corelib on the path" in probed.stdout
    shown = shlex.join(["install-tier", "brain", "--python", str(python)])
    assert f"brain is partial; to fix: {shown}" in probed.stdout

    repaired = run(*shlex.split(shown), "--backend", backend)  # as printed (the backend named: both are tried)
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert "already present" not in repaired.stdout
    assert not (site_packages(venv) / "corelib-2.0.dist-info").exists()
    assert subprocess.run(found, capture_output=True, text=True, check=True).stdout.strip() == "['1.0']"
    assert run("tierlock", "probe", "brain", "--python", str(python)).returncode == 0
    assert "already present" in run(*shlex.split(shown), "--backend", backend).stdout
