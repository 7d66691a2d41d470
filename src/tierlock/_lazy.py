"""Lazy package attributes (PEP 562): names imported on first use, so importing a package stays light."""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: ``typing`` costs start-up time on the fast paths
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any


def attributes(package: str, table: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for *package* that imports ``table[name]`` on first use and keeps the value."""

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        # __import__, not importlib.import_module: the same import, but one that ``-X importtime`` reports.
        value = getattr(__import__(module, fromlist=[name]), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__


def literals(module: str, aliases: Mapping[str, tuple[str, ...]]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for *module* that makes each ``Literal`` alias of *aliases* (name -> its values) at
    its first use and keeps it: a full run never looks at them (each costs typing's caches ~80 k instructions when
    made), the type checker reads them under ``TYPE_CHECKING``."""

    def __getattr__(name: str) -> Any:
        values = aliases.get(name)
        if values is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        from typing import Literal

        value = Literal.__getitem__(values)  # (a run-time form the checker does not read as a type)
        setattr(sys.modules[module], name, value)
        return value

    return __getattr__
