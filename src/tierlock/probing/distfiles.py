"""A ``.dist-info`` folder's own files turned into facts: METADATA's version, RECORD's rows, an editable
install's source, the signs of an unfinished install.

Each reader takes the folder from disk, or from :class:`Held`: the folder's listing and the bytes of the
files the facts are made of, read at one moment (:func:`take`). Facts made from held bytes while an
installer may still be writing the folder are given later only when a second :func:`take` holds the same
listing and the same bytes (:func:`tierlock.probing.distinfo.prepare`): whatever the installer did in
between, the facts are then those of the folder as it is.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from tierlock.probing import metadata, record
from tierlock.probing.regular import open_bytes, open_text

if TYPE_CHECKING:
    from tierlock.probing.distinfo import DistInfo

#: The files of a ``.dist-info`` folder the facts are made of (besides its listing).
NAMES = ("METADATA", "RECORD", "entry_points.txt", "direct_url.json", "WHEEL")


class Held:
    """A folder's listing and the bytes of those of :data:`NAMES` it lists, read at one moment."""

    __slots__ = ("data", "listing")

    def __init__(self, listing: frozenset[str], data: dict[str, bytes]) -> None:
        self.listing = listing
        self.data = data

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Held) and self.listing == other.listing and self.data == other.data

    __hash__ = None  # type: ignore[assignment]


def take(path: str, needs: frozenset[str] = frozenset()) -> Held | None:
    """The folder *path* as :class:`Held`; None when it or one of its listed files cannot be read, or when it does
    not list every name of *needs* (then no file is read)."""
    try:
        listing = frozenset(os.listdir(path))
    except OSError:
        return None
    if not needs <= listing:
        return None
    data: dict[str, bytes] = {}
    for name in NAMES:
        if name in listing:
            try:
                with open_bytes(f"{path}{os.sep}{name}", buffering=0) as fh:
                    data[name] = fh.read()
            except OSError:
                return None
    return Held(listing, data)


def build(facts: DistInfo, held: Held | None) -> None:
    """Fill *facts* from the folder's own files (*held*: from those bytes, else from disk)."""
    _metadata(facts, held)
    if held is not None:
        facts.listing = held.listing
    else:
        try:  # one listing serves the editable check and the unfinished-install checks
            facts.listing = frozenset(os.listdir(facts.path))
        except OSError:
            facts.listing = None
    _editable(facts, held)
    _wheel(facts, held)
    rows, lists_installer = _record(facts, held)
    from tierlock.probing import roots, rowfacts  # (a full run whose facts are kept reads no RECORD)

    if rows is not None:
        rowfacts.files(facts, rows)
        facts.recorded_roots = roots.roots_from_heads(facts.heads, facts.suffixes)
    else:
        facts.recorded_roots = roots.roots_from_top_level(facts.path)
    _unfinished(facts, rows is not None, lists_installer, held)


def _metadata(facts: DistInfo, held: Held | None) -> None:
    path = os.path.join(facts.path, "METADATA")
    try:
        if held is None:
            facts.version_raw = metadata.metadata_version(path)
        elif "METADATA" in held.data:
            facts.version_raw = metadata.version_in(held.data["METADATA"])
        else:
            raise FileNotFoundError(path)
    except FileNotFoundError:
        present = sorted(os.listdir(facts.path)) if os.path.isdir(facts.path) else []
        only = f" (it holds only {', '.join(present)})" if present else " (it is empty)"
        facts.problems.append(f"METADATA missing in {facts.path}{only}: a husk left by an interrupted install")
        return
    except OSError as exc:
        facts.problems.append(f"METADATA unreadable in {facts.path}: {exc.strerror}")
        return
    if not facts.version_raw:
        facts.problems.append(f"METADATA in {facts.path} has no Version")


def _editable(facts: DistInfo, held: Held | None) -> None:
    if facts.listing is not None and "direct_url.json" not in facts.listing:
        return  # the common case, without the cost of a failed open
    import json
    from urllib.parse import unquote, urlparse

    try:
        if held is None:
            with open_text(os.path.join(facts.path, "direct_url.json")) as fh:
                data = json.load(fh)
        else:
            data = json.loads(held.data["direct_url.json"].decode("utf-8"))
    except (OSError, ValueError, KeyError):
        return
    dir_info = data.get("dir_info") if isinstance(data, dict) else None
    if not (isinstance(dir_info, dict) and dir_info.get("editable")):
        return
    url = data.get("url", "")
    if isinstance(url, str) and url.startswith("file:"):
        facts.source = Path(unquote(urlparse(url).path))
    else:
        facts.source_problem = f"editable install with a source that is not a local folder: {url!r}"


def _wheel(facts: DistInfo, held: Held | None) -> None:
    """The tags the WHEEL file lists (``Tag:`` lines, each one tag; a compressed set such as ``py2.py3-none-any``
    is split: packaging's rule), which the probe judges against the target's (none without a WHEEL file)."""
    facts.wheel_tags = ()
    if facts.listing is not None and "WHEEL" not in facts.listing:
        return
    try:
        if held is None:
            with open_bytes(os.path.join(facts.path, "WHEEL")) as fh:
                data = fh.read(65536)
        else:
            data = held.data["WHEEL"]
    except (OSError, KeyError):
        return
    tags: list[str] = []
    for line in data.decode("utf-8", "replace").splitlines():
        name, colon, value = line.partition(":")
        if colon and name.strip().lower() == "tag" and value.count("-") == 2:
            interpreters, abis, platforms = (part.split(".") for part in value.strip().split("-"))
            tags += [f"{i}-{a}-{p}" for i in interpreters for a in abis for p in platforms]
    facts.wheel_tags = tuple(dict.fromkeys(tags))


def _record(facts: DistInfo, held: Held | None) -> tuple[record.Columns | None, bool]:
    path = os.path.join(facts.path, "RECORD")
    try:
        if held is None:
            rows, lists_installer = record.read_rows(path)
        elif "RECORD" in held.data:
            rows, lists_installer = record.rows_in(held.data["RECORD"])
        else:
            raise FileNotFoundError(path)
    except FileNotFoundError:
        facts.record_problem = f"RECORD missing in {facts.path}: the installed files cannot be listed"
    except (OSError, ValueError) as exc:  # UnicodeDecodeError, and csv.Error as record.Unreadable
        facts.record_problem = f"RECORD unreadable in {facts.path}: {exc}"
    else:
        return rows, lists_installer
    return None, False


def _scripts(facts: DistInfo, held: Held | None) -> list[str]:
    if held is None:
        return metadata.console_scripts(os.path.join(facts.path, "entry_points.txt"))
    text = held.data["entry_points.txt"].decode("utf-8", "replace")
    return metadata.scripts_in(text.replace("\r\n", "\n").replace("\r", "\n"))  # a text-mode read's line ends


def _unfinished(facts: DistInfo, has_record: bool, lists_installer: bool, held: Held | None) -> None:
    """An installer writes INSTALLER, the console scripts and its own RECORD last: each missing one is a sign
    that the install was killed before it finished (the files may all be there)."""
    names = facts.listing
    if names is None or "METADATA" not in names:
        return  # a husk, reported already
    if "INSTALLER" not in names:
        facts.unfinished.append(f"INSTALLER missing in {facts.path}: the install never finished (it was interrupted)")
    elif has_record and not lists_installer:
        facts.unfinished.append(
            f"RECORD in {facts.path} is the wheel's own, not the installer's (it does not list INSTALLER): "
            "the install never finished"
        )
    if "entry_points.txt" in names and has_record:
        scripts = _scripts(facts, held)
        listed = {os.path.basename(rel) for rel in facts.outside}
        missing = [script for script in scripts if script not in listed and f"{script}.exe" not in listed]
        missing = _renamed_away(os.path.basename(facts.path), missing, listed)
        if len(missing) == 1:
            facts.unfinished.append(f"console script of its entry points is not installed: {missing[0]}")
        elif missing:
            shown = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
            facts.unfinished.append(f"{len(missing)} console scripts of its entry points are not installed: {shown}")
        named = set(scripts)
        written = [rel for rel in facts.outside if os.path.basename(rel) in named]
        if written:
            from tierlock.probing import scriptheads

            paths = [os.path.normpath(os.path.join(facts.site, rel)) for rel in written]
            facts.unfinished.extend(scriptheads.elsewhere(paths))


#: Console scripts an installer names after the interpreter it installs for, whatever the wheel's entry points say
#: (pip's rule, which uv follows): pip's ``pip``, ``pipX``, ``pipX.Y`` (a pip wheel built on 3.10 lists ``pip3.10``;
#: installed for 3.12 it gets ``pip3.12``; ensurepip's ``altinstall`` writes ``pip3.12`` alone) and old setuptools'
#: ``easy_install``, ``easy_install-X.Y``. distribution -> (the scripts' stem, what stands before the version).
_RENAMED = {"pip": ("pip", ""), "setuptools": ("easy_install", "-")}


def _of_family(script: str, stem: str, sep: str) -> bool:
    """Whether *script* is *stem* alone or *stem*, *sep* and a version (``pip3``, ``pip3.12``, ``easy_install-3.9``)."""
    if not script.startswith(stem):
        return False
    rest = script[len(stem) :]
    if not rest:
        return True
    if not rest.startswith(sep):
        return False
    parts = rest[len(sep) :].split(".")
    return len(parts) <= 2 and all(p.isascii() and p.isdigit() for p in parts)


def _renamed_away(folder: str, missing: list[str], listed: set[str]) -> list[str]:
    """*missing* less the scripts of a family the installer renames, when it wrote one of that family's scripts."""
    family = _RENAMED.get(folder.partition("-")[0].lower())
    if family is None or not missing:
        return missing
    stem, sep = family
    written = any(_of_family(name.removesuffix(".exe"), stem, sep) for name in listed)
    return [s for s in missing if not (written and _of_family(s, stem, sep))]
