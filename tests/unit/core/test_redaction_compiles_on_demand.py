"""The credential search compiles its patterns when a text first holds a cue, not when it is imported.

Every command prints through :func:`tierlock.redaction.redact`; most print no text with a credential's
cue, so the ~25 patterns of the search stay uncompiled (a fresh interpreter each time: the patterns are
module state). A line with a credential is still found and masked.
"""

from __future__ import annotations

import subprocess
import sys

from tests.support.env import clean_env

_COUNT = """
import re
from tierlock.redaction import redact
from tierlock import secretkeys, secretshapes
print(redact({line!r}))
lazy = [v for m in (secretkeys, secretshapes) for v in vars(m).values() if isinstance(v, secretkeys.LazyPattern)]
lazy += [p for p, _ in secretkeys._NAMED] + list(secretkeys._KINDS.values())
print(len(lazy), sum(p._compiled is not None for p in lazy), secretshapes._starts.cache_info().currsize)
"""


def _run(line: str) -> list[str]:
    code = _COUNT.format(line=line)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=clean_env())
    return proc.stdout.splitlines()


def test_a_plain_line_compiles_none_of_the_credential_patterns() -> None:
    shown, counts = _run("ok: 3 tier(s), 3 lockfile(s), 19 package(s) checked; every lockfile matches")
    assert shown.startswith("ok: 3 tier(s)")
    total, compiled, shapes = map(int, counts.split())
    assert total >= 20
    assert (compiled, shapes) == (0, 0)


def test_a_line_with_a_cue_compiles_what_it_needs_and_masks_the_credential() -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    shown, counts = _run(f"pushing with Authorization: Bearer {token}")
    assert token not in shown
    _total, compiled, shapes = map(int, counts.split())
    assert compiled > 0
    assert shapes == 1
