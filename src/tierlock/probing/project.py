"""The project itself in a tier's closure: fsspec's ``gs`` tier needs gcsfs, and gcsfs requires fsspec.

tierlock never installs the project from an index (its lockfile entry is left
out of every install), so when a package of the tier requires the project, the
verdict says whether the project is installed in the target and whether its
version satisfies every such requirement (``Requires-Dist`` of the requiring
packages as installed, their markers evaluated for the target). The project's
own files are probed like any distribution's. The command that fixes it
installs the project from its source folder, without its dependencies (the
tiers arm those), with the project's backend: ``uv pip install --python PY
--no-deps -e ROOT``, or pip's equivalent.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from tierlock.probing import metadata
from tierlock.probing.distprobe import DistributionProbe
from tierlock.probing.distribution import probe_distribution
from tierlock.probing.site import SiteIndex, normalize

_NAME = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
Need = tuple[str, str, str]
"""(the requiring package, its version, the requirement as written: ``app>=0.2``)."""


def needs_of(name: str, closure: Sequence[DistributionProbe], environment: Mapping[str, str]) -> list[Need]:
    """The requirements on the project *name* of every probed package of *closure*, whose markers hold in
    *environment* (``extra`` markers: only without an extra, as the closure was resolved)."""
    out: list[Need] = []
    for dist in closure:
        if dist.dist_info_dir is None or dist.name == name:
            continue
        for line in metadata.requires_dist(os.path.join(dist.dist_info_dir, "METADATA")):
            named = _NAME.match(line)
            if named is None or normalize(named.group(1)) != name:
                continue  # the cheap test first: most lines name other packages
            requirement = _applies(line, environment)
            if requirement is not None and normalize(requirement[0]) == name:
                out.append((dist.name, dist.version_text or "?", requirement[1]))
    return out


def _applies(line: str, environment: Mapping[str, str]) -> tuple[str, str] | None:
    """(name, the requirement without its marker) when *line* parses and its marker holds, else None."""
    from packaging.requirements import InvalidRequirement, Requirement

    from tierlock.lockfiles.markers import applies

    try:
        requirement = Requirement(line)
    except InvalidRequirement:
        return None
    if requirement.marker is not None and not applies(requirement.marker, dict(environment)):
        return None
    return requirement.name, f"{requirement.name}{requirement.specifier}"


def project_probe(
    name: str, root: Path, index: SiteIndex, needs: Sequence[Need], *, deep: bool = False
) -> DistributionProbe:
    """The verdict on the project *name* (source folder *root*) in the target of *index*, for *needs*."""
    wanted = "; ".join(f"{who} {version} requires {spec}" for who, version, spec in needs)
    found = probe_distribution(name, index=index, deep=deep)
    if found.state == "absent":
        reason = f"the project {name} is not installed in this environment ({wanted}; its source is {root})"
        return DistributionProbe(name, "absent", [reason], notes=list(found.notes))
    unmet = [(who, spec) for who, _version, spec in needs if not _satisfies(found.version_text, spec)]
    if not unmet:
        return found
    required = ", ".join(f"{spec} (required by {who} {v})" for who, v, spec in needs if (who, spec) in unmet)
    reason = f"the project {name} is installed at {found.version_text}, which does not satisfy {required}"
    if found.editable_source is not None and Path(found.editable_source).resolve() == root.resolve():
        reason += (
            " (an editable install of this source: installing it again reads its version anew; if that is still "
            f"{found.version_text}, the lock chose packages for a newer {name} than this checkout)"
        )
    return DistributionProbe(
        name,
        "partial",
        [*found.reasons, reason],
        notes=list(found.notes),
        version_text=found.version_text,
        dist_info_dir=found.dist_info_dir,
        files_checked=found.files_checked,
        records=found.records,
        editable_source=found.editable_source,
        import_roots=found.import_roots,
    )


def in_running_interpreter(
    name: str, root: Path, index: SiteIndex, probed: Sequence[DistributionProbe], *, backend: str, install: str
) -> tuple[DistributionProbe | None, str | None]:
    """The project's verdict when the probe runs inside the target (the pytest plugin), and the command that
    fixes the tier when the project is not installed as required (*install* arms the tier)."""
    import sys

    from packaging.markers import default_environment

    needs = needs_of(name, probed, {k: str(v) for k, v in default_environment().items()})
    if not needs:
        return None, None
    itself = project_probe(name, root, index, needs)
    if itself.present:
        return itself, None
    fix = install_command(sys.executable, root, backend, [Path(s) for s in index.sites], sys.version_info[:3])
    return itself, f"{fix} && {install}" if any(not d.present for d in probed) else fix


def _satisfies(version: str | None, spec: str) -> bool:
    from packaging.requirements import Requirement
    from packaging.version import InvalidVersion

    if version is None:
        return False
    try:
        return Requirement(spec).specifier.contains(version, prereleases=True)
    except InvalidVersion:
        return False


def installed_origin(dist_info: str) -> tuple[str, bool] | None:
    """(the folder URL, editable) that ``direct_url.json`` records, or None (not installed from a folder)."""
    try:
        with open(os.path.join(dist_info, "direct_url.json"), encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    url = data.get("url") if isinstance(data, dict) else None
    dir_info = data.get("dir_info") if isinstance(data, dict) else None
    if not isinstance(url, str) or not url.startswith("file:") or not isinstance(dir_info, dict):
        return None
    return url, bool(dir_info.get("editable"))


def same_folder(url: str, folder: Path) -> bool:
    """Whether the ``file:`` *url* names *folder* (the same file: a link or another spelling is the same)."""
    from urllib.parse import unquote, urlsplit

    try:
        return os.path.samefile(unquote(urlsplit(url).path), folder)
    except OSError:
        return False


def own_install(name: str, root: Path, index: SiteIndex, *, deep: bool = False) -> DistributionProbe | None:
    """The project *name* installed in the target of *index* from its own folder *root* (by ``install-tier``,
    ``uv sync``, ``pip install -e .``), when that install is not whole: a console script that runs another
    environment's Python (the venv copied or moved), a file it installed gone. None when it is whole, not
    installed, or installed from elsewhere (an index, another checkout): nothing here says it should be."""
    found = index.find(name)
    origin = installed_origin(found[0].path) if found else None
    if origin is None or not same_folder(origin[0], root):
        return None
    verdict = probe_distribution(name, index=index, deep=deep)
    return None if verdict.present else verdict


def install_command(
    python: str | os.PathLike[str], root: Path, backend: str, sites: Sequence[Path], version: Sequence[int]
) -> str:
    """The command that installs the project at *root* into the environment of *python* (whose site folders
    are *sites*, whose Python is *version*), without its dependencies, with *backend* (``auto``: uv when there is
    one, else pip), runnable as printed."""
    import shlex
    import shutil

    from tierlock.installer import backends

    uv = backends.find_uv() if backend in ("auto", "uv") else None
    if uv is not None:
        found = shutil.which("uv")
        program = "uv" if found and os.path.realpath(found) == os.path.realpath(uv) else str(uv)
        return shlex.join([program, "pip", "install", "--python", os.fspath(python), "--no-deps", "-e", str(root)])
    if any((site / "pip" / "__init__.py").is_file() for site in sites):
        return shlex.join([os.fspath(python), "-m", "pip", "install", "--no-deps", "-e", str(root)])
    if backends.own_pip_sites(version):  # (this interpreter's pip runs on the target's Python)
        import sys

        return shlex.join(
            [sys.executable, "-m", "pip", "--python", os.fspath(python), "install", "--no-deps", "-e", str(root)]
        )
    # No pip that runs there: the target's own, from its standard library, first.
    ensure = shlex.join([os.fspath(python), "-m", "ensurepip"])
    return f"{ensure} && " + shlex.join([os.fspath(python), "-m", "pip", "install", "--no-deps", "-e", str(root)])
