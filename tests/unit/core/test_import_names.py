"""The import names guessed for a distribution nothing installed speaks for (a tier not armed)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tierlock.importnames import KNOWN_IMPORT_NAMES, import_names


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


@given(st.text(alphabet="aZ09-_.İ ", max_size=12) | st.sampled_from(sorted(KNOWN_IMPORT_NAMES)))
def test_a_distribution_name_is_normalised_as_pep_503s_pattern_does(dist: str) -> None:
    name = re.sub(r"[-_.]+", "-", dist).lower()
    if name in KNOWN_IMPORT_NAMES:
        expected = KNOWN_IMPORT_NAMES[name]
    else:
        expected = ((name[7:] if name.startswith("python-") and name != "python-" else name).replace("-", "_"),)
    assert import_names(dist) == expected
