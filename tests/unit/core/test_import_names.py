"""The import names guessed for a distribution nothing installed speaks for (a tier not armed)."""

from __future__ import annotations

import pytest

from tierlock.importnames import import_names


@pytest.mark.parametrize(
    ("dist", "names"),
    [
        ("python-dotenv", ("dotenv",)),
        ("Python_Jose", ("jose",)),
        ("python.magic", ("magic",)),
        ("python-dateutil", ("dateutil",)),
        ("python-json-logger", ("pythonjsonlogger",)),
        ("python-utils", ("python_utils",)),
        ("PyYAML", ("yaml",)),
        ("zope.interface", ("zope_interface",)),
        ("typing-extensions", ("typing_extensions",)),
        ("python", ("python",)),
        ("python-", ("python_",)),
        ("brainpkg", ("brainpkg",)),
    ],
)
def test_a_python_prefixed_distribution_is_imported_without_its_prefix_and_known_ones_by_their_table(
    dist: str, names: tuple[str, ...]
) -> None:
    assert import_names(dist) == names
