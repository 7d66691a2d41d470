"""The base's runtime config for ``--config-from REF``: found at REF by the base's own rules, validated.

The base's config is discovered in REF's tree exactly as the working tree's is on disk
(:func:`tierlock.evidence.discovery.at_ref`): whichever file the base uses, whatever file or
``--config`` the branch names. Its verification checks always run, and its setup is the
run's setup (:mod:`tierlock.evidence.prepare`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tierlock.errors import ConfigError, UsageError
from tierlock.evidence import discovery, gitbind
from tierlock.evidence.config import InvalidConfig, credential_shaped
from tierlock.evidence.gitcall import run_git
from tierlock.validators import source
from tierlock.validators.core import validate_source


@dataclass(frozen=True)
class BaseConfig:
    """The config REF holds (None when it holds none), and where it came from."""

    config: dict[str, Any] | None
    where: dict[str, Any]
    """``{"ref", "commit", "path", "blob"}`` as the receipt records it (``path``/``blob`` null without a config)."""
    config_dir: Path
    setup_declared: bool = False
    shaped: bool = False

    @property
    def name(self) -> str:
        """``REF:PATH``, as git spells a file at a ref."""
        return f"{self.where['ref']}:{self.where['path']}"


class BaseNotFound(UsageError):
    """The base's config at REF cannot be found unambiguously (exit 2, nothing runs); *fix* is the
    ``--config-from REF:PATH`` value that names one, when one can be offered."""

    def __init__(self, message: str, fix: str | None, remedy: str | None = None) -> None:
        super().__init__(message, remedy=remedy)
        self.fix = fix

    @classmethod
    def unclear(cls, unclear: discovery.BaseUnclear) -> BaseNotFound:
        fix = f"{unclear.ref}:{unclear.fix}" if unclear.fix else None
        why = f"fix it on {unclear.ref}, or name the base's config: --config-from REF:PATH"
        return cls(unclear.message, fix, None if fix else why)


def _unknown_ref(top: Path, value: str) -> UsageError:
    """REF names no commit: the fetch that brings a remote branch, or the remote branch a bare name stands for
    (``main`` in a CI checkout that has only ``origin/main``: *fix* is ``origin/main``)."""
    message, twin, fetch = discovery.unknown_ref(str(top), value)
    if twin is not None:
        return BaseNotFound(message, twin)
    return UsageError(message, remedy=fetch or "pass an existing branch, tag or commit (git branch --all lists them)")


def _parse(name: str, path: str, data: bytes) -> Any:
    """The source of the config file *path* (its text *data*), parsed as its name says."""

    text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    try:
        if Path(path).name == discovery.PYPROJECT:
            return source._toml(text, Path(name), source.RUNTIME_TABLE)
        if path.endswith(".toml"):
            return source.parse_toml(text, Path(name))
        return source.parse_json(text, Path(name))
    except source.SourceError as err:
        at = f" line {err.line}" if err.line is not None else ""
        raise ConfigError(
            f"{name}{at} cannot be read: {err.message}: nothing was run",
            file=name,
            line=err.line,
            remedy=f"fix it on {name.partition(':')[0]} (git show {name} prints it)",
        ) from None


def read(top: Path, ref: str, start: Path) -> BaseConfig:
    """The base config at *ref* for a run started from *start* (the project folder), validated."""

    try:
        folders, found = discovery.base_at_ref(str(top), ref, str(start))
    except LookupError:
        raise _unknown_ref(top, ref) from None
    except discovery.BaseUnclear as unclear:
        raise BaseNotFound.unclear(unclear) from None
    ref = discovery.split(ref)[0]
    where: dict[str, Any] = {"ref": ref, "commit": gitbind.resolve(top, ref), "path": None, "blob": None}
    if found is None:
        return BaseConfig(None, where, top / (folders[0] if folders else ""))
    path, blob = found
    where.update(path=path, blob=blob)
    status, data = _blob(top, blob)
    name = f"{ref}:{path}"
    if status != 0:  # a partial clone without the blob, a damaged object store: never read as an empty config
        raise ConfigError(
            f"{name} cannot be read: git has no object {blob} in {top}: nothing was run",
            file=name,
            remedy=discovery.fetch_remedy(str(top), ref) or f"git -C {top} fsck   # which objects are missing",
        )
    src = _parse(name, path, data)
    config_dir = (top / path).parent
    # The tiers its setup names are checked against the pyproject found from its folder, when the branch still has
    # that folder; a branch that moved the project away leaves them unchecked (the setup still runs as the base has it).
    result = validate_source(src, checkout=None, config_dir=config_dir if config_dir.is_dir() else None)
    if not result.ok or result.config is None:
        raise InvalidConfig(
            f"the config committed at {ref} ({name}) is invalid ({len(result.errors)} error(s)): nothing was run",
            result,
            remedy=f"fix it on {ref}, or pass another --config-from",
        )
    declared = isinstance(src.value, dict) and "setup" in src.value
    return BaseConfig(result.config, where, config_dir, declared, credential_shaped(result.config))


@dataclass
class RefTree:
    """The files of the folder *folder* (relative to *top*) as the commit *commit* holds them.

    :func:`tierlock.setup_derivation.from_lockfiles` reads it like a folder on disk, so
    the setup of ``--config-from`` is derived from the base's lockfiles and
    ``ci-require``, never from what the branch changed them to.
    """

    top: Path
    commit: str
    folder: str

    @property
    def root(self) -> Path:
        return self.top / self.folder

    def _spec(self, rel: str) -> str:
        return f"{self.commit}:{discovery._join(self.folder, rel)}"

    @functools.cached_property
    def _files(self) -> frozenset[str]:
        """Every file below the folder at the commit, relative to the folder (one ``git ls-tree`` for all)."""
        prefix = f"{self.folder}/" if self.folder else ""
        status, out, _ = run_git(str(self.top), "ls-tree", "-r", "-z", "--name-only", self.commit, "--", prefix or ".")
        if status != 0:
            return frozenset()
        names = out.decode("utf-8", "surrogateescape").split("\0")
        return frozenset(name[len(prefix) :] for name in names if name.startswith(prefix) and name)

    def is_file(self, rel: str) -> bool:
        return rel in self._files

    def read_text(self, rel: str) -> str | None:
        status, data, _ = run_git(str(self.top), "cat-file", "blob", self._spec(rel))
        return data.decode("utf-8", errors="replace").removeprefix("\ufeff") if status == 0 else None


def tree(top: Path, base: BaseConfig) -> RefTree:
    """The base's config folder as its commit holds it (the checkout top when the base has no config)."""
    folder = gitbind.relative(top, base.config_dir) or ""
    return RefTree(top, str(base.where["commit"]), "" if folder == "." else folder)


def _blob(top: Path, blob: str) -> tuple[int, bytes]:
    status, data, _ = run_git(str(top), "cat-file", "blob", blob)
    return status, data
