"""What keeps a compiled extension from loading though its files are whole: a library the dynamic loader cannot
find (:class:`Missing`: the system's to provide), or the extension itself, which the target's loader refuses
(:class:`Unloadable`: built for another machine, not an ELF file ...; a reinstall for this platform mends it).
"""

from __future__ import annotations

import re

#: The name auditwheel gives a library it copies into a wheel's ``<name>.libs`` folder: the library's own name
#: with the first 8 hex digits of its hash before ``.so`` (``libjpeg-8a13c6e0.so.62.4.0``,
#: ``libscipy_openblas64_-56d6093b.so``).
_VENDORED = re.compile(r"-[0-9a-f]{8}\.so(?:\.[0-9][0-9.]*)?$")


def vendored(library: str) -> bool:
    """Whether *library* is named as a wheel vendors it (auditwheel's hashed name): no system provides that file, only
    the package's own wheel does, so when the loader cannot find it a reinstall of the package is the fix (an
    extension of another build of the package asks for its own build's copy: the package's files are mixed)."""
    return _VENDORED.search(library) is not None


class Missing:
    """A library the loader cannot find for one compiled extension."""

    __slots__ = ("artifact", "library", "via")

    def __init__(self, artifact: str, library: str, via: str | None = None) -> None:
        self.artifact = artifact
        """The extension's path as RECORD gives it (relative to the site folder)."""
        self.library = library
        """The name it asks for (``libmariadb.so.3``)."""
        self.via = via
        """The file name of the library that needs it, when that is not the extension itself."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Missing) and (self.artifact, self.library, self.via) == (
            other.artifact,
            other.library,
            other.via,
        )

    def __hash__(self) -> int:
        return hash((self.artifact, self.library, self.via))

    def __repr__(self) -> str:
        return f"Missing({self.artifact!r}, {self.library!r}, {self.via!r})"

    def describe(self) -> str:
        through = f" (through {self.via})" if self.via else ""
        text = f"compiled artifact {self.artifact} needs {self.library}{through}, which the dynamic loader cannot find"
        if vendored(self.library):
            text += " (a library the package's wheel vendors, by its hashed name: only its own install provides it)"
        return text


class Unloadable:
    """A compiled extension the target's dynamic loader refuses to load (:func:`tierlock.probing.elfmatch.refused`)."""

    __slots__ = ("artifact", "why")

    def __init__(self, artifact: str, why: str) -> None:
        self.artifact = artifact
        """The extension's path as RECORD gives it (relative to the site folder)."""
        self.why = why
        """Why, as :func:`tierlock.probing.elfmatch.refused` says it."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unloadable) and (self.artifact, self.why) == (other.artifact, other.why)

    def __hash__(self) -> int:
        return hash((self.artifact, self.why))

    def __repr__(self) -> str:
        return f"Unloadable({self.artifact!r}, {self.why!r})"

    def describe(self) -> str:
        return f"compiled extension {self.artifact} {self.why}: the dynamic loader cannot load it"
