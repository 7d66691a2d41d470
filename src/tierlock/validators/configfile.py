"""Where a project's runtime config is: found without loading the validator.

Discovery order in a project folder (first found wins):

1. ``tierlock.runtime.json``
2. ``tierlock.runtime.toml``
3. ``pyproject.toml`` with a ``[tool.tierlock.runtime]`` table

``admit`` asks this on every run; the validator (its rules, the schema, the
position finders) loads only when a config is found.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from tierlock import fsutil, projectparts
from tierlock.errors import ConfigError

DISCOVERY = ("tierlock.runtime.json", "tierlock.runtime.toml", "pyproject.toml")

#: A header naming the table, looked for in a file that is not valid TOML (compiled only then).
_RUNTIME_HEADER = r"^[ \t]*\[\[?[ \t]*tool\.tierlock\.runtime\b"


def has_runtime_table(pyproject: Path) -> bool:
    """Whether *pyproject* names ``[tool.tierlock.runtime]``.

    A file that is not a regular one is refused (:class:`~tierlock.fsutil.FileRefused`), and one that
    cannot be read is a :class:`~tierlock.errors.ConfigError` that says why: never "no runtime config".
    """
    try:
        data = projectparts.read(pyproject)  # the parts: [tool.tierlock] is one of them
    except (FileNotFoundError, UnicodeDecodeError):
        return False
    except OSError as exc:
        raise ConfigError(f"cannot read {pyproject}: {exc.strerror or exc}", file=str(pyproject)) from exc
    except (ValueError, RecursionError):
        # Broken TOML (ValueError: an integer of 4300+ digits) that names the table: validating it
        # reports where it breaks, rather than "no runtime config". The text read again for it.
        try:
            text = fsutil.read_text(pyproject)
        except (OSError, UnicodeDecodeError):
            return False
        return re.search(_RUNTIME_HEADER, text, re.MULTILINE) is not None
    tool = data.get("tool")
    table = tool.get("tierlock") if isinstance(tool, dict) else None
    return isinstance(table, dict) and "runtime" in table


def discover(project_root: str | Path) -> Path | None:
    """The runtime config of the project in *project_root*, or None (see the module docstring)."""
    root = Path(project_root)
    for name in DISCOVERY[:2]:
        if os.path.lexists(root / name):  # a FIFO or a folder of that name is refused when read, not passed over
            return root / name
    pyproject = root / "pyproject.toml"
    if os.path.lexists(pyproject) and has_runtime_table(pyproject):
        return pyproject
    return None
