"""The version of an executable's distribution, read from its RECORD in this interpreter's site-packages.

On its own (no :mod:`dataclasses`, no :mod:`re`): an install asks uv's version in a thread while its backend runs
(:func:`tierlock.installer.backendrun.background`), on the cores the backend uses; :mod:`tierlock.lockfiles.resolvers`
(which also gives it) costs milliseconds more to import.
"""

from __future__ import annotations

import os
import sysconfig
from pathlib import Path

__all__ = ["installed_version"]


def installed_version(executable: str, distribution: str) -> str | None:
    """The version of *distribution* when its RECORD lists *executable* with its exact size (no process).

    Reads only this interpreter's site-packages: the executable must be one that
    ``pip install uv`` put next to it. None when that cannot be established.
    """
    exe = os.path.realpath(executable)
    try:
        size = os.stat(exe).st_size
    except OSError:
        return None
    prefix = f"{distribution}-"
    for site in dict.fromkeys((sysconfig.get_path("platlib"), sysconfig.get_path("purelib"))):
        try:
            infos = [e.name for e in os.scandir(site) if e.name.startswith(prefix) and e.name.endswith(".dist-info")]
        except OSError:
            continue
        for info in infos:
            try:
                record = Path(site, info, "RECORD").read_text(encoding="utf-8")
            except OSError:
                continue
            for line in record.splitlines():
                path, _, rest = line.partition(",")
                recorded = path.endswith(os.path.basename(executable)) and rest.rpartition(",")[2] == str(size)
                if recorded and os.path.realpath(os.path.join(site, path)) == exe:
                    return info[len(prefix) : -len(".dist-info")]
    return None
