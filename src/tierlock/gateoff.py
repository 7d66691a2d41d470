"""Whether pytest runs the project's tests without tierlock's plugin: the gate switched off.

``-p no:tierlock`` in the ``addopts`` of the configuration file pytest reads (``pytest.ini``, ``.pytest.ini``,
``pyproject.toml`` ``[tool.pytest.ini_options]``, ``tox.ini`` ``[pytest]``, ``setup.cfg`` ``[tool:pytest]``: the
first that has its section, as pytest picks it) or in ``PYTEST_ADDOPTS``; plugin autoloading disabled
(``PYTEST_DISABLE_PLUGIN_AUTOLOAD``, ``--disable-plugin-autoload``) without ``-p tierlock`` or ``PYTEST_PLUGINS``
naming it; or ``-p no:tierlock`` in a verification command of the runtime config. Then nothing gates the tests of
an absent tier: they skip (``importorskip``) and CI stays green. ``tierlock check`` says so, where, and the edit that
turns it back on (failing in CI, a warning elsewhere).

Light (standard library only): ``check`` is a fast path.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from tierlock.errors import TierlockError

#: The plugin's entry point name (``pytest11: tierlock``).
NAME = "tierlock"


class Off(NamedTuple):
    """One place that switches the gate off: where, what it does, and the edit that turns it back on."""

    where: str
    what: str
    remedy: str

    def render(self) -> str:
        return f"{self.where}: the tierlock pytest gate is off: {self.what}; to fix: {self.remedy}"

    def said(self, strict: bool) -> str:
        """The line ``check`` and ``admit`` print: a problem when *strict* (in CI), else a warning."""
        return self.render() if strict else f"warning: {self.render()} (fails in CI)"

    def to_dict(self) -> dict[str, str]:
        return {"where": self.where, "what": self.what, "remedy": self.remedy}


def plugin_args(words: Sequence[str]) -> list[str]:
    """The ``-p`` arguments in *words*, in order, as pytest reads them (``-p X``, ``-pX``)."""
    out: list[str] = []
    for i, word in enumerate(words):
        if word == "-p" and i + 1 < len(words):
            out.append(words[i + 1].strip())
        elif word.startswith("-p") and len(word) > 2 and not word.startswith("--"):
            out.append(word[2:].strip())
    return out


def blocked(words: Sequence[str]) -> bool | None:
    """Whether *words* block the plugin (True), load it (False), or say nothing of it (None): the last wins."""
    said: bool | None = None
    for arg in plugin_args(words):
        if arg == f"no:{NAME}":
            said = True
        elif arg in (NAME, f"{NAME}.pytest_plugin"):
            said = False
    return said


def gate_off(root: Path, environ: Mapping[str, str] | None = None) -> list[Off]:
    """Every place that switches the gate off for a pytest run in *root* (none: the plugin runs)."""
    env = os.environ if environ is None else environ
    found = read_config(root)
    config_words = found[1] if found else []
    file, section = (found[0].name, found[2]) if found else ("pyproject.toml", "[tool.pytest.ini_options]")
    env_words = _split(env.get("PYTEST_ADDOPTS", ""))
    out: list[Off] = []
    if found and blocked(config_words):
        where = _where(found)
        out.append(Off(where, f"addopts holds -p no:{NAME}", f"remove -p no:{NAME} from addopts in {where}{_AGAIN}"))
    if blocked(env_words):
        out.append(Off("PYTEST_ADDOPTS", f"holds -p no:{NAME}", f"remove -p no:{NAME} from PYTEST_ADDOPTS{_AGAIN}"))
    autoload_off = bool(env.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")) or "--disable-plugin-autoload" in (
        *config_words,
        *env_words,
    )
    loaded = blocked([*config_words, *env_words]) is False or f"{NAME}.pytest_plugin" in _plugins(env)
    if autoload_off and not loaded:
        source = "PYTEST_DISABLE_PLUGIN_AUTOLOAD" if env.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD") else _where(found)
        what = f"plugin autoloading is disabled and nothing loads the {NAME} plugin (-p {NAME})"
        out.append(Off(source, what, f"add -p {NAME} to addopts in {file} {section}{_AGAIN}"))
    out.extend(_verification(root))
    return out


def verdict(root: Path) -> tuple[list[Off], bool]:
    """The places that switch the gate off for *root* (:func:`gate_off`), and whether they fail the command (in CI:
    :func:`tierlock.ci.is_ci`, asked only when there is one) or only warn."""
    off = gate_off(root)
    if not off:
        return off, False
    from tierlock.ci import is_ci

    return off, is_ci()


#: What every remedy ends with: the command that shows the gate on again.
_AGAIN = ", then run: tierlock check"


def _where(found: tuple[Path, list[str], str] | None) -> str:
    """``FILE:LINE`` of the addopts pytest reads (read again only now: the gate is off)."""
    if found is None:
        return "pyproject.toml"
    return f"{found[0].name}:{_line(_text(found[0]), 'addopts', found[2])}"


def _split(text: str) -> list[str]:
    if not any(c in text for c in "'\"\\"):  # (shlex is loaded only for quoted words)
        return text.split()
    import shlex

    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _plugins(env: Mapping[str, str]) -> list[str]:
    return [p.strip() for p in env.get("PYTEST_PLUGINS", "").split(",")]


#: The files pytest reads its configuration from, in its order, with the section that makes each one count.
_FILES = (("pytest.ini", "pytest"), (".pytest.ini", "pytest"), ("tox.ini", "pytest"), ("setup.cfg", "tool:pytest"))


def read_config(root: Path) -> tuple[Path, list[str], str] | None:
    """(file, the words of its ``addopts``, its section) of the configuration pytest reads in *root*."""
    for name, section in _FILES[:2]:
        if (root / name).is_file():  # these count even without the section
            return _ini(root / name, section)
    found = _toml(root / "pyproject.toml")  # (read as its parts, never stat-ed here: a kept answer holds its parts)
    if found is not None:
        return found
    for name, section in _FILES[2:]:
        path = root / name
        if path.is_file() and f"[{section}]" in _text(path):
            return _ini(path, section)
    return None


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _ini(path: Path, section: str) -> tuple[Path, list[str], str]:
    import configparser

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(_text(path))
    except configparser.Error:
        return (path, [], f"[{section}]")
    return (path, _split(parser.get(section, "addopts", fallback="")), f"[{section}]")


def _toml(path: Path) -> tuple[Path, list[str], str] | None:
    """pyproject.toml's pytest table, read as the tier model reads the file (:mod:`tierlock.projectparts`: parsed
    once for every reader of a command)."""
    from tierlock import projectparts

    try:
        data = projectparts.read(path)
    except (OSError, ValueError):
        return None  # (the tier model reports it)
    table = _table(data, "tool", "pytest")
    if not isinstance(table, dict) or not table:
        return None
    section = "[tool.pytest.ini_options]" if "ini_options" in table else "[tool.pytest]"
    options = table.get("ini_options", table)
    value = options.get("addopts", "") if isinstance(options, dict) else ""
    words = _split(value) if isinstance(value, str) else [str(v) for v in value] if isinstance(value, list) else []
    return (path, words, section)


def _line(text: str, key: str, section: str) -> int:
    """The line of *key* in *section* of *text* (the section's own line without it; 1 without either)."""
    start = None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped == section:
            start = number
        elif start is not None and stripped.startswith("["):
            break
        elif start is not None and stripped.split("=", 1)[0].strip() == key:
            return number
    return start or 1


def _verification(root: Path) -> Iterable[Off]:
    """``-p no:tierlock`` in a verification command of the runtime config (as ``tierlock validate`` finds it:
    ``tierlock.runtime.json``, ``tierlock.runtime.toml``, or ``[tool.tierlock.runtime]`` in pyproject.toml)."""
    try:
        found = _runtime_config(root)
    except (OSError, ValueError, RecursionError, TierlockError):
        return []  # (tierlock validate reports it)
    if found is None:
        return []
    path, data = found
    steps = data.get("verification") if isinstance(data, dict) else None
    table = "[tool.tierlock.runtime] " if path.name == "pyproject.toml" else ""
    out: list[Off] = []
    for i, step in enumerate(steps if isinstance(steps, list) else []):
        if not isinstance(step, dict):
            continue
        args = step.get("args")
        words = [str(step.get("command", "")), *(str(a) for a in (args if isinstance(args, list) else []))]
        words = [w for word in words for w in (_split(word) if " " in word else [word])]
        if blocked(words):
            where = f"{path.name}: {table}verification[{i}] ({step.get('key', '')})"
            out.append(Off(where, f"runs pytest with -p no:{NAME}", f"remove -p no:{NAME} from {where}{_AGAIN}"))
    return out


def _runtime_config(root: Path) -> tuple[Path, object] | None:
    """(file, document) of the runtime config, found as ``tierlock validate`` finds it; pyproject.toml's table read
    as its parts, never stat-ed (a kept answer holds pyproject.toml by its parts: one replaced by a link to the same
    parts keeps it)."""
    from tierlock.validators.configfile import DISCOVERY

    for name in DISCOVERY[:2]:
        path = root / name
        if os.path.lexists(path):
            if path.suffix == ".json":
                import json

                return path, json.loads(_text(path))
            import tomllib

            return path, tomllib.loads(_text(path))
    from tierlock import projectparts

    pyproject = root / "pyproject.toml"
    try:
        data = projectparts.read(pyproject)
    except (OSError, ValueError, RecursionError):
        return None
    runtime = _table(data, "tool", "tierlock", "runtime")
    return (pyproject, runtime) if runtime is not None else None


def _table(data: object, *keys: str) -> object:
    """``data[k1][k2]...``, or None where a step is missing or not a table (pyproject.toml's ``tool = 1`` is TOML)."""
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data
