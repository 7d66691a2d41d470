"""A backend's own temporary folders are made inside the install's scratch folder, which is removed whatever the
backend did: a pip killed before it could remove its ``pip-install-*`` (a second interrupt cuts its grace short, as
a loaded machine showed) leaves nothing in the user's temporary folder.

The backend is a stand-in at the process boundary: a real ``python -c`` that makes a folder where ``tempfile`` puts
it and leaves it there, as a killed backend does.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from tierlock.installer import backends

LEAVES = "import tempfile, sys; print(tempfile.mkdtemp(prefix='pip-install-')); sys.exit(int(sys.argv[1]))"


class _Leaves:
    name = "pip"

    def __init__(self, code: int) -> None:
        self.code = code

    def install_argv(self, target: object, requirements: Path, **_: object) -> list[str]:
        assert requirements.is_file()
        return [sys.executable, "-c", LEAVES, str(self.code)]


@pytest.mark.parametrize("code", [0, 1])
def test_what_the_backend_leaves_in_its_temporary_folder_is_gone_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    user = tmp_path / "user-tmp"
    user.mkdir()
    monkeypatch.setenv("TMPDIR", str(user))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # read TMPDIR again
    target = cast(Any, SimpleNamespace(prefix=tmp_path / "venv"))
    try:
        result = backends.execute(_Leaves(code), target, ["x==1"], reinstall=[])  # type: ignore[arg-type]
        made = Path(result.stdout.strip())
    except backends.InstallFailed as failed:
        made = Path(str(failed.detail).strip().splitlines()[-1])
    assert made.name.startswith("pip-install-")
    assert user in made.parents  # made below the user's temporary folder (inside tierlock's own)
    assert not made.exists()
    assert list(user.iterdir()) == []
