"""One file of RECORD that the probe checked (:attr:`~tierlock.probing.distprobe.DistributionProbe.files`).

A module of its own so that a run that never asks for the files does not build the class: a ``NamedTuple``
compiles its source (``collections.namedtuple``) and each field's annotation when it is made.
"""

from __future__ import annotations

from typing import NamedTuple


class InstalledFile(NamedTuple):
    """One file of RECORD that the probe checked."""

    path: str
    """Absolute path of the file."""
    record_path: str
    """The path as written in RECORD (relative to the site folder)."""
    size: int | None
    """The size RECORD gives, or None when RECORD gives none."""
    hash: str | None
    """RECORD's ``algorithm=urlsafe-b64-digest``, or None."""
