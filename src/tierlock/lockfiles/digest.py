"""Digests: of files, of lockfile bodies, and of a tier's canonical inputs (pure).

A digest is written ``sha256:<hex>``. The inputs digest covers everything in
pyproject.toml that changes what a lock resolves to: the tier's requirements
(its roots and those of the tiers below it), the dependency groups pulled in by
``include-group``, ``requires-python``, the tier it is layered on and the
lockfile format.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

if TYPE_CHECKING:
    from tierlock.tiers import Project, Tier

from tierlock.fasthash import sha256 as _hasher  # (no OpenSSL start-up: hashlib loads it)

PREFIX = "sha256:"


def sha256(data: bytes) -> str:
    return PREFIX + str(_hasher(data).hexdigest())


def sha256_hex(data: bytes) -> str:
    """The sha256 hex digest of *data* (C's own sha256: no ``hashlib`` start-up on the read-only commands)."""
    return str(_hasher(data).hexdigest())


def digest_file(path: str | Path) -> str:
    """sha256 hex digest of the file's bytes (what :attr:`Lock.file_digest` holds)."""
    return sha256_hex(Path(path).read_bytes())


def is_digest(value: str) -> bool:
    hexpart = value[len(PREFIX) :]
    return value.startswith(PREFIX) and len(hexpart) == 64 and all(c in "0123456789abcdef" for c in hexpart)


def body_lines(lines: Iterable[str]) -> list[str]:
    """The lines of a requirements body that carry meaning: no blank or comment-only lines."""
    out = []
    for line in lines:
        text = line.rstrip()
        if text and not text.lstrip().startswith("#"):
            out.append(text)
    return out


def body_digest(lines: Iterable[str]) -> str:
    """Digest of a requirements body, blind to comments, blank lines, trailing space and CRLF."""
    return sha256("".join(f"{line}\n" for line in body_lines(lines)).encode())


def canonical_requirement(req: Requirement) -> str:
    """One spelling per requirement: canonical name, sorted extras, sorted specifiers, normalised marker."""
    text: str = canonicalize_name(req.name)
    if req.extras:
        text += "[" + ",".join(sorted(canonicalize_name(e) for e in req.extras)) + "]"
    if req.url:
        text += f" @ {req.url}"
        if req.marker is not None:
            text += " "
    else:
        text += str(req.specifier)
    if req.marker is not None:
        text += f"; {req.marker}"
    return text


def canonical_inputs(requirements: Iterable[Requirement]) -> tuple[str, ...]:
    """The canonical, sorted, de-duplicated input list recorded in a lockfile header."""
    return tuple(sorted({canonical_requirement(r) for r in requirements}))


def inputs_digest(
    inputs: Sequence[str],
    *,
    include_groups: Sequence[str],
    requires_python: str | None,
    layered_on: str | None,
    format: str,
) -> str:
    """Digest of the canonical inputs and the settings that change the result."""
    document = {
        "inputs": sorted(inputs),
        "include-groups": sorted(canonicalize_name(g) for g in include_groups),
        "requires-python": _canonical_specifiers(requires_python),
        "layered-on": layered_on,
        "format": format,
    }
    return sha256(json.dumps(document, sort_keys=True, separators=(",", ":")).encode())


def expected_inputs(project: Project, tier: Tier) -> tuple[tuple[str, ...], str]:
    """The canonical inputs of *tier* and their digest, as a lock made now would record them."""
    inputs = canonical_inputs(project.closure_requirements(tier.name))
    digest = inputs_digest(
        inputs,
        include_groups=tier.include_groups,
        requires_python=project.requires_python,
        layered_on=tier.layered_on,
        format=project.format,
    )
    return inputs, digest


def _canonical_specifiers(text: str | None) -> str | None:
    if text is None:
        return None
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        return str(SpecifierSet(text))
    except InvalidSpecifier:
        return text.strip()
