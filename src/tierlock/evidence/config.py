"""The runtime config as ``tierlock verify`` reads it: found, validated (or its recorded verdict
reused), and the lockfiles its setup depends on. The base's config at a git ref
(``--config-from``) is read by :mod:`tierlock.evidence.refconfig`.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tomllib
from pathlib import Path
from typing import Any, NamedTuple

from tierlock import fsutil, secretargs
from tierlock._version import __version__
from tierlock.errors import ConfigError, TierlockError
from tierlock.evidence import discovery, gitbind, steps, store
from tierlock.links import doc
from tierlock.setup_derivation import LOCKFILE_COMMANDS, NEEDS_EXPLICIT
from tierlock.validators import validate_runtime_config
from tierlock.validators.credentials import redact
from tierlock.validators.source import SourceError, load


class InvalidConfig(TierlockError):
    """The runtime config did not validate: nothing ran (exit 2); the validator's report is attached."""

    kind = "invalid-config"

    def __init__(self, message: str, result: Any, *, remedy: str) -> None:
        super().__init__(message, remedy=remedy)
        self.result = result


def sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def find_config(config: Path | None, project: Path | None) -> Path:
    """*config* when given (it must exist), else the config discovered from *project* (:mod:`.discovery`)."""
    if config is not None:
        if not fsutil.regular_file(config):  # a FIFO or a folder is refused as such
            raise ConfigError(
                f"{config} does not exist", file=str(config), remedy="pass the path of a runtime config with --config"
            )
        return config
    with contextlib.suppress(fsutil.NoPyproject):  # a named project that is not there, a FIFO pyproject: refused
        fsutil.find_pyproject(project or Path("."))
    start = str(project or Path("."))
    _refuse_special(start)
    found = discovery.on_disk(start)
    if found is not None:
        return Path(found)

    folder = discovery.folders(start)[0]
    raise ConfigError(
        f"no runtime config found in {folder}: looked for {', '.join(discovery.NAMES)} "
        "and [tool.tierlock.runtime] in pyproject.toml",
        remedy=f"create tierlock.runtime.json as described at {doc('reference/runtime-config.md')}, or pass FILE",
    )


def _refuse_special(start: str) -> None:
    """Refuse what discovery would pass over: the first entry that exists in a folder it looks in (and any
    ``pyproject.toml`` there) is a regular file of at most 64 MiB, else :class:`~tierlock.fsutil.FileRefused`
    (a FIFO, a device, a folder), as ``tierlock validate`` says."""
    for folder in discovery.folders(start):
        first = next((n for n in discovery.NAMES if os.path.lexists(os.path.join(folder, n))), None)
        if first is not None and fsutil.regular_file(os.path.join(folder, first)):
            return
        fsutil.regular_file(os.path.join(folder, discovery.PYPROJECT))


VALIDATION_CACHE = ".validated.json"
#: Changes whenever what the record holds changes: an older record is then simply not used.
VALIDATION_CACHE_FORMAT = b"3"


def _validation_key(path: Path, root: Path) -> str:
    config_dir = path.resolve().parent
    pyproject = next(
        (f / "pyproject.toml" for f in (config_dir, *config_dir.parents) if (f / "pyproject.toml").is_file()), None
    )
    h = hashlib.sha256()
    for part in (
        VALIDATION_CACHE_FORMAT,
        __version__.encode(),
        str(path.resolve()).encode(),
        str(root).encode(),
        fsutil.read_bytes(path),  # a FIFO or /dev/zero is refused, never waited on or read without end
        fsutil.read_bytes(pyproject) if pyproject is not None else b"-",
    ):
        h.update(hashlib.sha256(part).digest())
    return h.hexdigest()


def _folders(config: dict[str, Any], config_dir: Path, root: Path) -> list[list[str | bool]]:
    """Each command's folder, where it resolves now (symlinks followed), and whether it exists."""
    out: list[list[str | bool]] = []
    for name in ("setup", "verification"):
        for step in steps.steps(config, name, config_dir=config_dir, checkout=root):
            out.append([str(step.cwd_path), os.path.realpath(step.cwd_path), step.cwd_path.is_dir()])
    return out


def credential_shaped(config: dict[str, Any]) -> bool:
    """Whether a command or argument of *config* holds something the redactor masks (an accepted credential)."""

    for name in ("setup", "verification"):
        for command in config.get(name, []):
            words = [command["command"], *command.get("args", [])]
            if any(redact(text) != text for text in words) or any(secretargs.found(words)):
                return True
    return False


class Validated(NamedTuple):
    """A config that passed every rule of ``tierlock validate``."""

    config: dict[str, Any]
    """The normalized config."""
    shaped: bool
    """Whether a command or argument is :func:`credential_shaped`."""
    setup_declared: bool
    """Whether the file has a ``setup`` key at all (``"setup": []`` means no setup; no key: derive one)."""


def setup_declared(path: Path) -> bool:
    """Whether the runtime config at *path* names a ``setup`` list (an empty one included)."""

    try:
        document = load(path).value  # of a pyproject.toml: its [tool.tierlock.runtime] table
    except SourceError:
        return False
    return isinstance(document, dict) and "setup" in document


def validated(path: Path, root: Path, cache: Path | None) -> Validated:
    """The normalized config, validated with every rule of tierlock validate (see :class:`Validated`).

    A config whose bytes (and pyproject.toml's, and tierlock's version) were validated
    before in this checkout, with every command folder resolving as it did then, is
    not validated again: the verdict is recorded in the evidence folder (*cache*).
    """
    config_dir = path.resolve().parent
    key = _validation_key(path, root)
    if cache is not None:
        cached = store.read_json(cache)
        if cached is not None and cached.get("key") == key and isinstance(cached.get("config"), dict):
            config: dict[str, Any] = cached["config"]
            try:
                if _folders(config, config_dir, root) == cached.get("folders"):
                    shaped = cached.get("credentialShaped") is not False
                    return Validated(config, shaped, cached.get("setupDeclared") is not False)
            except (KeyError, TypeError):
                pass

    result = validate_runtime_config(path)
    if not result.ok or result.config is None:
        raise InvalidConfig(
            f"{path} is invalid ({len(result.errors)} error(s)): nothing was run",
            result,
            remedy=f"fix the errors above, then: tierlock validate {path}",
        )
    config = result.config
    found = Validated(config, credential_shaped(config), setup_declared(path))
    if cache is not None:
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            document = {
                "key": key,
                "config": config,
                "folders": _folders(config, config_dir, root),
                "credentialShaped": found.shaped,
                "setupDeclared": found.setup_declared,
            }
            store.write_json(cache, document, private=True)
        except OSError:
            pass  # the cache only saves time
    return found


def lockfile_digests(root: Path, top: Path) -> dict[str, str]:
    """sha256 of the tier lockfiles (every file in ``lock-dir``, the ``lock`` the tiers read) and the recognised
    lockfiles at *root*."""

    paths = [root / name for name in [*LOCKFILE_COMMANDS, *NEEDS_EXPLICIT]]
    data: dict[str, Any] = {}
    if (root / "pyproject.toml").is_file():
        try:
            data = tomllib.loads(fsutil.read_text(root / "pyproject.toml"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            data = {}
    table = data.get("tool", {}).get("tierlock") if isinstance(data.get("tool"), dict) else None
    if isinstance(table, dict):
        lock_dir = table.get("lock-dir", "lockfiles")
        folder = root / (lock_dir if isinstance(lock_dir, str) and lock_dir.strip() else "lockfiles")
        if folder.is_dir():
            paths.extend(sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")))
        if isinstance(table.get("lock"), str):  # [tool.tierlock].lock: the project's uv.lock or pylock
            paths.append(root / table["lock"])
    out: dict[str, str] = {}
    for path in paths:
        if path.is_file():
            rel = gitbind.relative(top, path) or str(path)
            out[rel] = sha256(fsutil.read_bytes(path))
    return out
