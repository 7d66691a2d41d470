"""How to add a package to the environment tierlock itself runs from (for remedies that must work as printed).

tierlock is installed as a tool (pipx, ``uv tool``) or into a project's
environment; a missing helper such as uv belongs next to it, where
:func:`tierlock.lockfiles.resolvers.choose` looks first.
"""

from __future__ import annotations

import importlib.util
import shlex
import sys
from pathlib import Path

from tierlock.errors import UsageError


def install_command(package: str, *, prefix: str | None = None, executable: str | None = None) -> str:
    """The one command that installs *package* into tierlock's own environment.

    pipx environments get ``pipx inject tierlock PACKAGE``; an environment with
    pip gets ``PYTHON -m pip install PACKAGE``; otherwise the ``uv`` extra is
    named through pip on PATH.
    """
    prefix = prefix if prefix is not None else sys.prefix
    executable = executable if executable is not None else sys.executable
    parts = Path(prefix).parts
    if "pipx" in parts and "venvs" in parts:
        return f"pipx inject tierlock {package}"
    if importlib.util.find_spec("pip") is not None:
        return f"{shlex.quote(executable)} -m pip install {package}"
    return f"pip install {package}"


def tool_requirement(extra: str = "uv") -> str:
    """``tierlock[EXTRA]`` as this tierlock was installed: from its own source when it came from a folder, a
    wheel or a repository (PEP 610 ``direct_url.json``), else by name from the package index."""
    import json
    from importlib import metadata

    try:
        text = metadata.distribution("tierlock").read_text("direct_url.json")
        url = json.loads(text)["url"] if text else None
    except (metadata.PackageNotFoundError, ValueError, KeyError, TypeError):
        url = None
    name = f"tierlock[{extra}]"
    if isinstance(url, str) and url:
        vcs = json.loads(text or "{}").get("vcs_info", {}).get("vcs")
        return f"{name} @ {vcs}+{url}" if vcs and not url.startswith(f"{vcs}+") else f"{name} @ {url}"
    return name


def tool_install_command() -> str:
    """The command that installs this tierlock as a tool, isolated from any project (``uv tool install``)."""
    return f"uv tool install {shlex.quote(tool_requirement())}"


def no_lock_backend_remedy() -> str:
    """The remedy when neither uv nor pip-compile can be found."""
    return install_command("uv")


NO_LOCK_BACKEND = (
    "no lock backend: neither uv nor pip-compile (pip-tools) is installed next to tierlock or on PATH; "
    "install tierlock with its uv extra (tierlock[uv]) "
    "or add uv to tierlock's environment"
)


# -- the CLI's own dependencies -----------------------------------------------------

# The modules of the ``cli`` extra, and which are missing, are :mod:`tierlock._entry`'s (the console script
# asks before importing anything else); :func:`missing_cli_error` says what to run when one is.


def _is_uv_tool(prefix: str) -> bool:
    return Path(prefix, "uv-receipt.toml").is_file()


def cli_install_command(*, prefix: str | None = None, executable: str | None = None) -> str:
    """The one command that gives this tierlock its CLI: the ``cli`` extra into its own environment.

    A tool environment (``uv tool``, pipx) is installed again with the ``uv`` extra (the recommended tool
    install); an environment with pip gets ``PYTHON -m pip install 'tierlock[cli]'``; one without pip (made
    by uv) gets ``uv pip install --python PYTHON 'tierlock[cli]'``.
    """
    prefix = prefix if prefix is not None else sys.prefix
    executable = executable if executable is not None else sys.executable
    parts = Path(prefix).parts
    if _is_uv_tool(prefix):
        return f"uv tool install --force {shlex.quote(tool_requirement())}"
    if "pipx" in parts and "venvs" in parts:
        return f"pipx install --force {shlex.quote(tool_requirement())}"
    requirement = shlex.quote(tool_requirement("cli"))
    if importlib.util.find_spec("pip") is not None:
        return f"{shlex.quote(executable)} -m pip install {requirement}"
    return f"uv pip install --python {shlex.quote(executable)} {requirement}"


def missing_cli_error(missing: list[str]) -> UsageError:
    """The error the console scripts give when the CLI's dependencies are not installed next to tierlock."""
    names = ", ".join(missing)
    return UsageError(
        f"the tierlock command-line tool needs {names} (the cli extra), which {'is' if len(missing) == 1 else 'are'} "
        f"not installed in {sys.prefix}: tierlock installed without an extra is the pytest plugin alone",
        package=missing[0],
        remedy=cli_install_command(),
    )
