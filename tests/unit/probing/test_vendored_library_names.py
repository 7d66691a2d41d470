"""Which missing libraries are a wheel's own (auditwheel's hashed names, in ``<name>.libs/``): the package's
reinstall brings them back, not the system's package manager (:func:`tierlock.probing.libproblems.vendored`,
:func:`tierlock.probing.libremedy.only_libraries`)."""

from __future__ import annotations

from typing import NamedTuple

import pytest

from tierlock.probing.libproblems import Missing, vendored
from tierlock.probing.libremedy import only_libraries, system_remedy


@pytest.mark.parametrize(
    "library",
    [
        "libjpeg-8a13c6e0.so.62.4.0",  # Pillow 11.3.0
        "libscipy_openblas64_-6bb31eeb.so",  # numpy 2.2.5, asked for by its extension in 2.2.6's folder
        "libgfortran-040039e1-0352e75f.so.5.0.0",  # numpy: hashed twice
        "libk5crypto-b1f99d5c.so.3.1",  # psycopg-binary
        "libXau-154567c4.so.6.0.0",
    ],
)
def test_a_library_named_as_auditwheel_vendors_it_is_the_wheels(library: str) -> None:
    assert vendored(library)


@pytest.mark.parametrize(
    "library",
    [
        "libGL.so.1",  # opencv-python's wheel needs it from the system (apt-get install libgl1)
        "libz.so.1",
        "libLLVM-17.so.1",
        "libstdc++.so.6",
        "libz-1a2b.so.1.2.13",  # four hex digits: no auditwheel name
        "libcore-0A1B2C3D.so.1",  # auditwheel writes lower case
        "libcore-0a1b2c3d.so.x",
        "libcore-0a1b2c3d.so1",
        "libcore-0a1b2c3d.dylib",
        "libcore0a1b2c3d.so.1",
        "libcore-0a1b2c3d9.so.1",  # nine
    ],
)
def test_a_system_library_name_is_not(library: str) -> None:
    assert not vendored(library)


class Probed(NamedTuple):
    present: bool
    reasons: list[str]
    missing_libraries: tuple[tuple[str, str, str | None], ...]


def _probed(*libraries: str, other: tuple[str, ...] = ()) -> Probed:
    rows = tuple(("pkg/_native.so", lib, None) for lib in libraries)
    return Probed(False, [Missing(*row).describe() for row in rows] + list(other), rows)


def test_only_a_missing_system_library_is_the_systems_to_provide() -> None:
    assert only_libraries(_probed("libGL.so.1"))
    assert system_remedy([_probed("libGL.so.1")]) is not None
    assert not only_libraries(_probed("libGL.so.1", other=("file listed in RECORD is missing: pkg/x.py",)))
    assert not only_libraries(_probed())


@pytest.mark.parametrize("libraries", [("libcore-9f8e7d6c.so.1",), ("libGL.so.1", "libcore-9f8e7d6c.so.1")])
def test_a_missing_vendored_library_is_mended_by_the_packages_reinstall(libraries: tuple[str, ...]) -> None:
    probed = _probed(*libraries)
    assert not only_libraries(probed)
    assert system_remedy([probed, _probed("libGL.so.1")]) is None


def test_the_reason_says_whose_library_it_is() -> None:
    assert Missing("pkg/_native.so", "libGL.so.1").describe() == (
        "compiled artifact pkg/_native.so needs libGL.so.1, which the dynamic loader cannot find"
    )
    assert Missing("pkg/_native.so", "libz-0a1b2c3d.so.1", "libpng-1b2c3d4e.so.16").describe() == (
        "compiled artifact pkg/_native.so needs libz-0a1b2c3d.so.1 (through libpng-1b2c3d4e.so.16), which the "
        "dynamic loader cannot find (a library the package's wheel vendors, by its hashed name: only its own "
        "install provides it)"
    )


def test_problems_are_equal_by_their_fields_only() -> None:
    """(A probe's reasons are compared and kept by these values: libcache, the verdicts of two probes.)"""
    from tierlock.probing.libproblems import Unloadable

    one = Missing("pkg/_native.so", "libz-0a1b2c3d.so.1")
    assert one == Missing("pkg/_native.so", "libz-0a1b2c3d.so.1")
    assert one != Missing("pkg/_native.so", "libz-0a1b2c3d.so.1", "libpng.so.16")
    assert one != Missing("pkg/_other.so", "libz-0a1b2c3d.so.1")
    assert one != ("pkg/_native.so", "libz-0a1b2c3d.so.1", None)
    assert len({one, Missing("pkg/_native.so", "libz-0a1b2c3d.so.1")}) == 1
    refused = Unloadable("pkg/_native.so", "is not an ELF file (an empty file)")
    assert refused == Unloadable("pkg/_native.so", "is not an ELF file (an empty file)")
    assert refused != Unloadable("pkg/_native.so", "is built for aarch64")
    assert refused != ("pkg/_native.so", "is not an ELF file (an empty file)")
