"""A failed import noted as the code wrote it (``import BrainPkg``) still names its tier, which owns the root as the
tier declares it (``brainpkg``): an error naming the root after it is attributed to the tier."""

from __future__ import annotations

from tierlock.pytest_plugin.failedimports import named_after_failure


def test_an_error_after_a_failed_import_spelled_otherwise_is_the_tiers() -> None:
    owners = {"brainpkg": "brain"}
    error = RuntimeError("this needs brainpkg, which is not installed")
    assert named_after_failure(error, owners, {}, ["BrainPkg"]) == ("brain", "brainpkg")
    assert named_after_failure(error, owners, {}, ["brainpkg"]) == ("brain", "brainpkg")
    assert named_after_failure(error, owners, {}, ["otherpkg"]) is None
