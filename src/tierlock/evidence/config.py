"""The runtime config as ``tierlock verify`` reads it: found, validated (or its recorded verdict
reused), read at a git ref for ``--config-from``, and the lockfiles its setup depends on.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from tierlock import fsutil
from tierlock.errors import ConfigError, TierlockError, UsageError
from tierlock.evidence import gitbind, plan, receipt


class InvalidConfig(TierlockError):
    """The runtime config did not validate: nothing ran (exit 2); the validator's report is attached."""

    kind = "invalid-config"

    def __init__(self, message: str, result: Any, *, remedy: str) -> None:
        super().__init__(message, remedy=remedy)
        self.result = result


def sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def find_config(config: Path | None, project: Path | None) -> Path:
    """*config* when given (it must exist), else the config discovered from *project* as ``tierlock validate`` does."""
    if config is not None:
        if not fsutil.regular_file(config):  # a FIFO or a folder is refused as such
            raise ConfigError(
                f"{config} does not exist", file=str(config), remedy="pass the path of a runtime config with --config"
            )
        return config
    start = project or Path(".")
    try:  # a named project that does not exist, or whose pyproject.toml is a FIFO, is refused
        first = fsutil.find_pyproject(start).parent
    except fsutil.NoPyproject:
        first = start.resolve()
    # The common case without importing the validator: the first folder discovery looks in holds a
    # config file under one of the names it tries first. Anything else: the validator's own discovery.
    found = next((first / n for n in VALIDATOR_DISCOVERY_FIRST if (first / n).is_file()), None)
    if found is not None:
        return found
    from tierlock.commands.validate import find_config as discover

    return discover(project or Path("."))


#: The first names of :data:`tierlock.validators.DISCOVERY` (a test keeps them equal).
VALIDATOR_DISCOVERY_FIRST = ("tierlock.runtime.json", "tierlock.runtime.toml")
VALIDATION_CACHE = ".validated.json"
#: Changes whenever what the record holds changes: an older record is then simply not used.
VALIDATION_CACHE_FORMAT = b"2"


def _validation_key(path: Path, root: Path) -> str:
    from tierlock._version import __version__

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
        for step in plan.steps(config, name, config_dir=config_dir, checkout=root):
            out.append([str(step.cwd_path), os.path.realpath(step.cwd_path), step.cwd_path.is_dir()])
    return out


def credential_shaped(config: dict[str, Any]) -> bool:
    """Whether a command or argument of *config* holds something the redactor masks (an accepted credential)."""
    from tierlock.validators.credentials import redact

    return any(
        redact(text) != text
        for name in ("setup", "verification")
        for command in config.get(name, [])
        for text in (command["command"], *command.get("args", []))
    )


def validated(path: Path, root: Path, cache: Path | None) -> tuple[dict[str, Any], bool]:
    """The normalized config, validated with every rule of tierlock validate, and whether it is
    :func:`credential_shaped`.

    A config whose bytes (and pyproject.toml's, and tierlock's version) were validated
    before in this checkout, with every command folder resolving as it did then, is
    not validated again: the verdict is recorded in the evidence folder (*cache*).
    """
    config_dir = path.resolve().parent
    key = _validation_key(path, root)
    if cache is not None:
        cached = receipt.read_json(cache)
        if cached is not None and cached.get("key") == key and isinstance(cached.get("config"), dict):
            config: dict[str, Any] = cached["config"]
            try:
                if _folders(config, config_dir, root) == cached.get("folders"):
                    return config, cached.get("credentialShaped") is not False
            except (KeyError, TypeError):
                pass
    from tierlock.validators import validate_runtime_config

    result = validate_runtime_config(path)
    if not result.ok or result.config is None:
        raise InvalidConfig(
            f"{path} is invalid ({len(result.errors)} error(s)): nothing was run",
            result,
            remedy=f"fix the errors above, then: tierlock validate {path}",
        )
    config = result.config
    shaped = credential_shaped(config)
    if cache is not None:
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            folders = _folders(config, config_dir, root)
            document = {"key": key, "config": config, "folders": folders, "credentialShaped": shaped}
            receipt.write_json(cache, document, private=True)
        except OSError:
            pass  # the cache only saves time
    return config, shaped


def from_ref(
    top: Path, ref: str, rel: str, config_path: Path, config_dir: Path
) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """The normalized config committed at *ref* (None when *ref* has none) and where it came from."""
    from tierlock.validators import source as sources
    from tierlock.validators.core import validate_source

    try:
        found = gitbind.blob(top, ref, rel)
    except gitbind.GitUnavailable:
        remotes = gitbind.git(top, "remote", check=False).split()
        remote = ref.split("/", 1)[0] if "/" in ref else None
        remedy = (
            f"git -C {top} fetch {remote}"
            if remote in remotes
            else "pass an existing branch, tag or commit (git branch --all lists them)"
        )
        raise UsageError(f"--config-from {ref}: no such branch, tag or commit in {top}", remedy=remedy) from None
    commit = gitbind.resolve(top, ref)
    where = {"ref": ref, "commit": commit, "path": rel, "blob": None}
    if found is None:
        return None, where
    blob_id, data = found
    where["blob"] = blob_id
    text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    name = f"{ref}:{rel}"
    try:
        if config_path.name == "pyproject.toml":
            src = sources._toml(text, Path(name), sources.RUNTIME_TABLE)
        elif config_path.suffix == ".toml":
            src = sources.parse_toml(text, Path(name))
        else:
            src = sources.parse_json(text, Path(name))
    except sources.SourceError as err:
        raise ConfigError(
            f"{name} cannot be read: {err.message}", file=name, line=err.line, remedy=f"git show {name}"
        ) from None
    result = validate_source(src, checkout=None, config_dir=config_dir)
    if not result.ok or result.config is None:
        raise InvalidConfig(
            f"the config committed at {ref} ({name}) is invalid ({len(result.errors)} error(s)): nothing was run",
            result,
            remedy=f"fix it on {ref}, or pass another --config-from",
        )
    return result.config, where


def lockfile_digests(root: Path, top: Path) -> dict[str, str]:
    """sha256 of the tier lockfiles (every file in ``lock-dir``) and the recognised lockfiles at *root*."""
    from tierlock.setup_derivation import LOCKFILE_COMMANDS, NEEDS_EXPLICIT

    paths = [root / name for name in [*LOCKFILE_COMMANDS, *NEEDS_EXPLICIT]]
    data: dict[str, Any] = {}
    if (root / "pyproject.toml").is_file():
        import tomllib

        try:
            data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8-sig"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            data = {}
    table = data.get("tool", {}).get("tierlock") if isinstance(data.get("tool"), dict) else None
    if isinstance(table, dict):
        lock_dir = table.get("lock-dir", "lockfiles")
        folder = root / (lock_dir if isinstance(lock_dir, str) and lock_dir.strip() else "lockfiles")
        if folder.is_dir():
            paths.extend(sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")))
    out: dict[str, str] = {}
    for path in paths:
        if path.is_file():
            rel = gitbind.relative(top, path) or str(path)
            out[rel] = sha256(path.read_bytes())
    return out
