"""Which config env values ``tierlock verify`` masks in a failing check's tail: from four characters on
(shorter ones, like ``1`` or ``on``, would mask noise all over the output)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.gitrepo import check, make_repo
from tierlock.cli import main

PRINTS = "import os\nprint('short', os.environ['SHORT'])\nprint('long', os.environ['LONG'])\nraise SystemExit(1)\n"


pytestmark = pytest.mark.usefixtures("git_identity")


def test_env_values_of_four_characters_are_masked_and_of_three_are_not(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    repo = make_repo(
        tmp_path / "r", {"prints.py": PRINTS}, [check("env", "prints.py", env={"SHORT": "xyz", "LONG": "wxyz"})]
    )
    capsys.readouterr()
    code = main(["--project", str(repo), "verify", "--json", "--kill-grace", "0.5"])
    document = json.loads(capsys.readouterr().out)
    assert code == 1
    assert document["commands"][0]["tail"] == ["short xyz", "long [env LONG]"]
