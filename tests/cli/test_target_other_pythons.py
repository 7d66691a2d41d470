"""Facts about the target come from the target: a tier armed on another Python is judged by that Python's rules.

tierlock runs on 3.11; the targets are real venvs of 3.9, 3.10, 3.12 and 3.13.
The wheels carry compiled files named for the target's ABI, as real ones do
(``_cffi_backend.cpython-313-x86_64-linux-gnu.so`` at the top of the site
folder, cryptography's ``_rust.abi3.so``), locked with uv in both formats
(requirements and PEP 751 pylock, whose wheel is chosen by the target's tags).
``install-tier``, ``probe``, ``probe --closure``, ``status`` and ``admit``
agree that the tier is present; with the backend's ``.so`` deleted they agree
that it is partial, and the remedy they print, run as printed, makes it present.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.cli import cli_json
from tests.support.interpreters import (
    CRYPTO_PYPROJECT,
    VERSIONS,
    Interpreter,
    crypto_wheels,
    interpreter,
    make_venv_with,
)
from tests.support.lockproj import lock_offline
from tests.support.tierproject import write_lock
from tests.support.verdicts import every_verdict, offline_env, run_remedy


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """cffi for every version (the lock lists them all), one abi3 cryptography."""
    house = tmp_path_factory.mktemp("abi-wheels")
    for version in (*VERSIONS, "3.11.7"):
        try:
            crypto_wheels(house, interpreter(version))
        except pytest.skip.Exception:
            continue
    return house


@pytest.fixture(scope="module")
def pylocked(tmp_path_factory: pytest.TempPathFactory, wheelhouse: Path) -> Path:
    """The project locked once with uv in the pylock format: every cffi wheel listed, the target's tags choose."""
    folder = tmp_path_factory.mktemp("abi-pylock") / "app"
    inside = shutil.copytree(wheelhouse, folder / "wheels")  # a lock names files inside the project only
    return lock_offline(folder, Path(inside), CRYPTO_PYPROJECT.format(format='format = "pylock"\n'))


def project_for(fmt: str, target: Interpreter, pylocked: Path, wheelhouse: Path, folder: Path) -> Path:
    """The project in *fmt*: the shared pylock, or a requirements lock pinning the wheels of *target*."""
    if fmt == "pylock":
        return pylocked  # used in place: its lock names the wheels inside it by their absolute file URLs
    folder.mkdir()
    (folder / "pyproject.toml").write_text(CRYPTO_PYPROJECT.format(format=""), encoding="utf-8")
    cffi = wheelhouse / f"cffi-1.17.1-{target.cp_tag}.whl"
    cryptography = wheelhouse / f"cryptography-44.0.0-{target.abi3_tag}.whl"
    write_lock(folder, "base", [])
    write_lock(folder, "crypto", [("cffi", "1.17.1", cffi), ("cryptography", "44.0.0", cryptography)])
    return folder


@pytest.mark.parametrize("fmt", ["requirements", "pylock"])
@pytest.mark.parametrize("version", VERSIONS)
def test_a_tier_on_another_python_is_present_everywhere_and_its_remedy_converges(  # noqa: PLR0917
    version: str,
    fmt: str,
    pylocked: Path,
    wheelhouse: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    target = interpreter(version)
    root = project_for(fmt, target, pylocked, wheelhouse, tmp_path / "app")
    offline = offline_env(wheelhouse, tmp_path / "uv-cache")
    for key, value in offline.items():
        monkeypatch.setenv(key, value)
    python = make_venv_with(target.python, tmp_path / "venv")

    code, done = cli_json(capsys, "--project", str(root), "install", "crypto", "--python", str(python))
    assert code == 0, done["error"]
    assert done["result"] == "installed"
    site = next((tmp_path / "venv" / "lib").glob("python3*/site-packages"))
    backend = site / f"_cffi_backend{target.ext_suffix}"
    assert backend.is_file()
    assert (site / "cryptography" / "hazmat" / "bindings" / "_rust.abi3.so").is_file()

    whole = every_verdict(capsys, root, python, "crypto")
    assert whole.states == ("present", "present", "present", "pass"), whole.reasons
    assert whole.admit_code == 0
    assert whole.probe["files_checked"] == whole.closure["files_checked"]
    code, again = cli_json(capsys, "--project", str(root), "install", "crypto", "--python", str(python))
    assert (code, again["result"]) == (0, "unchanged")

    backend.unlink()
    broken = every_verdict(capsys, root, python, "crypto")
    assert broken.states == ("partial", "partial", "partial", "fail")
    assert broken.admit_code == 1
    assert f"compiled artifact {backend.name} is missing" in broken.reasons
    remedies = {broken.probe["install_command"], broken.status["remedy"], broken.admit["probe"]["remedy"]}
    assert remedies == {f"install-tier --project {root} crypto --python {python}"}

    fixed = run_remedy(broken.probe["install_command"], cwd=root, env=offline)
    assert fixed.returncode == 0, fixed.stderr
    assert backend.is_file()
    healed = every_verdict(capsys, root, python, "crypto")
    assert healed.states == ("present", "present", "present", "pass"), healed.reasons
