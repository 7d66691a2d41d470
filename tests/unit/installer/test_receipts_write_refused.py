"""A receipt the system will not write is a backend error (exit 3) naming the receipt, never a raw OSError."""

from __future__ import annotations

from pathlib import Path

import pytest

from tierlock.errors import EXIT_BACKEND, BackendError
from tierlock.installer import receipts


def test_a_receipt_that_cannot_be_written_is_exit_3_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "tierlock").write_text("a file where the receipts folder goes")
    with pytest.raises(BackendError) as caught:
        receipts.write(tmp_path, {"schema": receipts.SCHEMA, "tier": "brain", "packages": []})
    error = caught.value
    assert error.exit_code == EXIT_BACKEND
    assert error.tier == "brain"
    assert error.file == str(receipts.receipt_path(tmp_path, "brain"))
    assert "could not write the receipt" in error.message
    assert "packages of tier brain are installed and verified" in error.message
