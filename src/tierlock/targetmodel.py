"""An interpreter and its environment as the interpreter reports them (:class:`Target`).

:mod:`tierlock.environment` finds and asks interpreters; this is the value it hands back, a plain immutable
class (no ``dataclasses`` at import: every command that names an interpreter builds one).
"""

from __future__ import annotations

import sys
import sysconfig
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path

from tierlock.frozen import Frozen


def _own_suffixes() -> tuple[str, ...]:
    import _imp

    return tuple(_imp.extension_suffixes())


class Target(Frozen):
    """An interpreter and its environment, as the interpreter reports them."""

    _fields = (
        "python",
        "prefix",
        "base_prefix",
        "paths",
        "purelib",
        "platlib",
        "stdlib",
        "marker_env",
        "platform",
        "version",
        "ext_suffixes",
        "ext_suffix",
        "libc",
        "bits",
    )

    python: Path
    prefix: Path
    base_prefix: Path
    paths: tuple[Path, ...]
    """The interpreter's import path (``sys.path``), in order: where the probe looks."""
    purelib: Path
    platlib: Path
    stdlib: Path
    marker_env: Mapping[str, str]
    platform: str
    """``sysconfig.get_platform()``, e.g. ``linux-x86_64``."""
    version: tuple[int, int, int]
    ext_suffixes: tuple[str, ...]
    """The file endings the interpreter imports an extension module from (``_imp.extension_suffixes()``:
    ``.cpython-313-x86_64-linux-gnu.so``, ``.abi3.so``, ``.so``), most specific first."""
    ext_suffix: str
    """``sysconfig.get_config_var("EXT_SUFFIX")``: the interpreter's ABI, for its wheel tags."""
    libc: str
    """``os.confstr("CS_GNU_LIBC_VERSION")`` (``glibc 2.36``), or "" where there is none."""
    bits: int

    def __init__(  # noqa: PLR0917 (the signature it had as a dataclass)
        self,
        python: Path,
        prefix: Path,
        base_prefix: Path,
        paths: tuple[Path, ...],
        purelib: Path,
        platlib: Path,
        stdlib: Path,
        marker_env: Mapping[str, str],
        platform: str,
        version: tuple[int, int, int],
        ext_suffixes: tuple[str, ...] | None = None,
        ext_suffix: str | None = None,
        libc: str | None = None,
        bits: int = 64 if sys.maxsize > 2**32 else 32,
    ) -> None:
        self._init(
            python,
            prefix,
            base_prefix,
            paths,
            purelib,
            platlib,
            stdlib,
            marker_env,
            platform,
            version,
            _own_suffixes() if ext_suffixes is None else ext_suffixes,
            str(sysconfig.get_config_var("EXT_SUFFIX") or "") if ext_suffix is None else ext_suffix,
            _own_libc() if libc is None else libc,
            bits,
        )

    @property
    def is_venv(self) -> bool:
        return self.prefix != self.base_prefix

    @property
    def externally_managed(self) -> bool:
        """PEP 668: an ``EXTERNALLY-MANAGED`` marker in the stdlib folder (only outside venvs)."""
        return not self.is_venv and (self.stdlib / "EXTERNALLY-MANAGED").is_file()

    @property
    def site_paths(self) -> tuple[Path, ...]:
        """The import-path folders that hold installed distributions (not the stdlib)."""
        from tierlock.probing.site import site_folders

        return site_folders(str(self.stdlib), [str(p) for p in self.paths])

    @cached_property
    def ordered_tags(self) -> tuple[str, ...]:
        """Wheel tags this interpreter accepts, most preferred first (computed on first use, in this process)."""
        from tierlock import wheeltags

        return wheeltags.ordered_tags(self)

    @property
    def tags(self) -> frozenset[str]:
        """Wheel tags this interpreter accepts, as a set."""
        return frozenset(self.ordered_tags)


def _own_libc() -> str:
    """:func:`tierlock.wheeltags.own_libc` (that module loaded only when this interpreter describes itself)."""
    from tierlock.wheeltags import own_libc

    return own_libc()
