"""A subprocess environment free of this machine's pip and uv configuration."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path


def clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """os.environ without PIP_*/UV_*/VIRTUAL_ENV, with pip's config files disabled."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PIP_", "UV_")) and k not in {"VIRTUAL_ENV", "PYTHONPATH", "CONDA_PREFIX"}
    }
    env["PIP_CONFIG_FILE"] = os.devnull
    env["UV_NO_CONFIG"] = "1"
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_NO_INPUT"] = "1"
    env["UV_NO_PROGRESS"] = "1"
    env.update(extra or {})
    return env


def make_venv(path: Path) -> Path:
    """Create a real virtual environment without pip (pip and uv target it from outside).

    Returns the environment's python.
    """
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True, env=clean_env())
    return path / "bin" / "python"


def site_packages(venv: Path) -> Path:
    return next((venv / "lib").glob("python3*/site-packages"))


def bin_dir() -> Path:
    """The folder of the running interpreter's console scripts (tierlock, uv, pip-compile)."""
    return Path(sys.executable).parent
