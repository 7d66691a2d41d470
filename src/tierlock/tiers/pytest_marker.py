"""Register the ``tier`` marker in the project's own pytest configuration.

A suite marked ``@pytest.mark.tier("brain")`` must still run without the
plugin (``-p no:tierlock``) under ``--strict-markers`` and
``filterwarnings = error``; that needs the marker declared where pytest reads
its configuration. pytest reads the first of ``pytest.ini``, ``.pytest.ini``,
``pyproject.toml`` (``[tool.pytest]`` or ``[tool.pytest.ini_options]``),
``tox.ini`` (``[pytest]``) and ``setup.cfg`` (``[tool:pytest]``) in the rootdir;
the marker goes there. TOML is edited with a tomlkit round-trip, INI files by
inserting lines, so every other byte stays as it was.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from tierlock import fsutil

MARKER = "tier(name, ...): the test needs these dependency tiers (tierlock)"


@dataclass(frozen=True)
class MarkerEdit:
    file: Path
    where: str
    """``[tool.pytest.ini_options].markers``, ``[pytest] markers`` ..."""
    text: str
    """The file's whole new text."""


def config_file(root: Path, pyproject_text: str) -> tuple[Path, str]:
    """The file pytest takes its configuration from in *root*, and the section it reads."""

    for name, section in (("pytest.ini", "pytest"), (".pytest.ini", "pytest")):
        if (root / name).is_file():
            return root / name, section
    try:
        tool = tomllib.loads(pyproject_text).get("tool", {})
    except tomllib.TOMLDecodeError:
        tool = {}
    pytest_table = tool.get("pytest") if isinstance(tool, dict) else None
    if isinstance(pytest_table, dict):
        if "ini_options" in pytest_table:
            return root / "pyproject.toml", "tool.pytest.ini_options"
        if pytest_table:
            return root / "pyproject.toml", "tool.pytest"
    for name, section in (("tox.ini", "pytest"), ("setup.cfg", "tool:pytest")):
        path = root / name
        if path.is_file() and _ini_section(fsutil.read_text(path), section) is not None:
            return path, section
    return root / "pyproject.toml", "tool.pytest.ini_options"


def register(root: Path, pyproject_text: str) -> MarkerEdit | None:
    """The edit that declares the ``tier`` marker, or None when the configuration already declares it."""
    path, section = config_file(root, pyproject_text)
    if path.name == "pyproject.toml":
        text = _toml(pyproject_text, section)
    else:
        text = _ini(fsutil.read_text(path), section)
    if text is None:
        return None
    where = f"[{section}].markers" if path.name == "pyproject.toml" else f"[{section}] markers"
    return MarkerEdit(path, where, text)


def _declared(markers: object) -> bool:
    items = markers if isinstance(markers, list) else str(markers).splitlines()
    return any(re.match(r"\s*tier\s*(\(|:|$)", str(item)) for item in items)


def _toml(text: str, section: str) -> str | None:
    import tomlkit

    document = tomlkit.parse(text)
    tool = document.get("tool")
    if tool is None:
        tool = tomlkit.table(is_super_table=True)
        document.add("tool", tool)
    table = tool
    for part in section.split(".")[1:]:
        if part not in table:
            table[part] = tomlkit.table(is_super_table=part == "pytest" and section.endswith("ini_options"))
        table = table[part]
    markers = table.get("markers")
    if markers is not None and _declared(markers):
        return None
    if markers is None:
        array = tomlkit.array()
        array.append(MARKER)
        array.multiline(True)
        table["markers"] = array
    elif isinstance(markers, str):  # an ini-style string value
        table["markers"] = markers.rstrip("\n") + "\n" + MARKER
    else:
        markers.append(MARKER)
    return tomlkit.dumps(document)


def _ini_section(text: str, section: str) -> tuple[int, int] | None:
    """(index of the header line, index after the section's last line) in ``text.splitlines()``."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == f"[{section}]"), None)
    if start is None:
        return None
    end = next((i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("[")), len(lines))
    return start, end


def _ini(text: str, section: str) -> str | None:
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines()
    span = _ini_section(text, section)
    if span is None:
        if text and not text.endswith(("\n", "\r")):
            text += newline
        return text + f"{newline if text.strip() else ''}[{section}]{newline}markers ={newline}    {MARKER}{newline}"
    start, end = span
    key = next((i for i in range(start + 1, end) if re.match(r"markers\s*[=:]", lines[i])), None)
    if key is None:
        lines[start + 1 : start + 1] = ["markers =", f"    {MARKER}"]
    else:
        last = key
        while last + 1 < end and lines[last + 1][:1] in (" ", "\t") and lines[last + 1].strip():
            last += 1
        value = [lines[key].split("=", 1)[-1] if "=" in lines[key] else lines[key].split(":", 1)[-1]]
        value += lines[key + 1 : last + 1]
        if _declared(value):
            return None
        lines[last + 1 : last + 1] = [f"    {MARKER}"]
    return newline.join(lines) + (newline if text.endswith(("\n", "\r")) else "")
