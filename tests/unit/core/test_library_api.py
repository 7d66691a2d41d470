"""The library API's documented examples run as written, the errors each function raises among them."""

from __future__ import annotations

import doctest

import tierlock


def test_the_examples_in_the_library_api_docstring_run_as_written() -> None:
    flags = doctest.ELLIPSIS
    result = doctest.testmod(tierlock, optionflags=flags, raise_on_error=False)
    assert result.attempted >= 10
    assert result.failed == 0


def test_every_name_the_library_api_lists_is_there() -> None:
    assert [name for name in tierlock.__all__ if getattr(tierlock, name, None) is None] == []
