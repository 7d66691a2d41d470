"""Immutable value classes that cost nothing to define: the hot-path stand-in for a frozen dataclass.

Building a ``@dataclass`` runs ``exec`` for each method it writes (0.5-1 ms a class) and ``dataclasses``
imports ``inspect``; the modules every command loads (the errors, the tier reader, the platforms, the lock
reader) define their small value classes on :class:`Frozen` instead. A subclass names its fields in order
in ``_fields`` (its ``__match_args__`` too) and sets them in its ``__init__`` through :meth:`Frozen._init`;
it then compares, hashes and shows itself as the frozen dataclass did, and refuses to be changed. The type
checker reads every subclass as a frozen dataclass (``dataclass_transform``), so an assignment to a field is
refused before it runs as well. What a value changed in place shares with them (its equality and its repr) is
:class:`Fields`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:

    def dataclass_transform(**_options: object) -> Any:
        """At run time nothing: the checker alone reads the subclasses as frozen dataclasses."""
        return lambda cls: cls


T = TypeVar("T")


class Fields:  # noqa: PLW1641 (an __eq__ without __hash__: unhashable, as a plain dataclass; Frozen hashes)
    """Equal by the values of its fields in order and shown as ``Name(field=value, ...)``, as a dataclass is: what
    :class:`Frozen` and a value class that is changed in place (a plain dataclass's stand-in, unhashable as that
    is) share. A subclass names its fields in order in ``_fields`` (its ``__match_args__`` too)."""

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    __match_args__: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # matched by position as the dataclass was (mypy refuses the plain assignment to this name)
        setattr(cls, "__match_args__", cls._fields)  # noqa: B010

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__qualname__}({shown})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            assert isinstance(other, Fields)
            return self._values() == other._values()
        return NotImplemented


@dataclass_transform(frozen_default=True, eq_default=True)
class Frozen(Fields):
    """Equal and hashed by the values of its fields in order, shown as ``Name(field=value, ...)``, immutable."""

    __slots__ = ()

    def _init(self, *values: object) -> None:
        for name, value in zip(self._fields, values, strict=True):
            object.__setattr__(self, name, value)

    def __hash__(self) -> int:
        return hash(self._values())

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")


def replace(value: T, /, **changes: Any) -> T:
    """A copy of *value* with the fields named in *changes* set to new values, as ``dataclasses.replace``.

    *value* is a :class:`Frozen` (rebuilt through its ``__init__`` with every field by keyword) or a
    dataclass (handed to ``dataclasses.replace``); a name that is not a field is a ``TypeError``.
    """
    if not isinstance(value, Frozen):
        import dataclasses

        return dataclasses.replace(value, **changes)  # type: ignore[type-var]
    unknown = set(changes) - set(value._fields)
    if unknown:
        raise TypeError(f"{type(value).__qualname__} has no field {sorted(unknown)[0]!r}")
    built: Any = type(value)
    return built(**{name: changes.get(name, getattr(value, name)) for name in value._fields})  # type: ignore[no-any-return]
