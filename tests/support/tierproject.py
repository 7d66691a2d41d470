"""A small tiered project for installer tests: real wheels, real lockfiles with real hashes.

The lockfiles are written the way ``tierlock lock`` writes them (the header
records the tier's canonical inputs and digests), so the offline drift check
passes until a test changes something on purpose.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

from tests.support.wheels import build_wheel

PYPROJECT = """\
[project]
name = "app"
version = "0.1.0"
requires-python = ">=3.11"
dependencies = [{base}]

[project.optional-dependencies]
brain = [{brain}]

[tool.tierlock]
lock-dir = "lockfiles"

[tool.tierlock.tiers.brain]
source = "extra:brain"
tests = ["tests/brain/**"]
"""

BASE_ROOTS = ("basepkg>=1",)
BRAIN_ROOTS = ("corelib>=1", "helper>=1")


def build_wheelhouse(dest: Path) -> dict[str, Path]:
    """The wheels the project locks: key ``name-version`` -> wheel path."""
    wheels = {
        "basepkg-1.0": build_wheel(dest, "basepkg", "1.0"),
        "corelib-1.0": build_wheel(dest, "corelib", "1.0", extension=True),
        "corelib-2.0": build_wheel(dest, "corelib", "2.0", extension=True),
        "helper-1.0": build_wheel(
            dest, "helper", "1.0", files={"helper/__init__.py": "X = 1\n", "helper/data.txt": "d"}
        ),
    }
    return wheels


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_pyproject(root: Path, *, base: Sequence[str] = BASE_ROOTS, brain: Sequence[str] = BRAIN_ROOTS) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    path = root / "pyproject.toml"
    path.write_text(PYPROJECT.format(base=_quoted(base), brain=_quoted(brain)), encoding="utf-8")
    return path


def _quoted(items: Sequence[str]) -> str:
    return ", ".join(f'"{i}"' for i in items)


def body_lines(pins: Sequence[tuple[str, str, Path]], *, urls: Collection[str] = ()) -> list[str]:
    """Pins with their wheel's hash; the names in *urls* as direct references to their wheel file."""
    lines: list[str] = []
    for name, version, wheel in sorted(pins):
        lines.append(f"{name} @ {wheel.as_uri()} \\" if name in urls else f"{name}=={version} \\")
        lines.append(f"    --hash=sha256:{sha256(wheel)}")
    return lines


def write_lock(
    root: Path,
    tier: str,
    pins: Sequence[tuple[str, str, Path]],
    *,
    platform: str | None = None,
    urls: Collection[str] = (),
    itself: str | None = None,
) -> Path:
    """Write ``lockfiles/<tier>.txt`` with a tierlock header for the project at *root*; *itself*: the project's
    name, whose pin tierlock leaves out of a closure that reaches it (one comment line says so)."""
    from tierlock.lockfiles import digest, requirements
    from tierlock.lockfiles.locks import LockHeader
    from tierlock.tiers import load_project

    project = load_project(root)
    spec = project.tier(tier)
    inputs = digest.canonical_inputs(project.closure_requirements(tier))
    layered_digest = None
    if spec.layered_on is not None:
        below = project.tiers[spec.layered_on].lockfile
        layered_digest = requirements.parse(below.read_text(encoding="utf-8")).body_digest
    body = body_lines(pins, urls=urls)
    if itself is not None:
        from tierlock.lockfiles.projectpin import comment

        body.append(comment(itself))
    header = LockHeader(
        tier=spec.name,
        inputs=inputs,
        inputs_digest=digest.inputs_digest(
            inputs,
            include_groups=spec.include_groups,
            requires_python=project.requires_python,
            layered_on=spec.layered_on,
            format="requirements",
        ),
        layered_on=spec.layered_on,
        layered_on_digest=layered_digest,
        body_digest=digest.body_digest(body),
        backend="uv",
        backend_version="test",
        platform=platform,
        command=f"tierlock lock {spec.name}",
        requires_python=project.requires_python,
        include_groups=spec.include_groups,
    )
    spec.lockfile.parent.mkdir(parents=True, exist_ok=True)
    spec.lockfile.write_text(requirements.render(header, body), encoding="utf-8")
    return spec.lockfile


def make_project(root: Path, wheels: Mapping[str, Path], *, corelib: str = "1.0", platform: str | None = None) -> Path:
    """The project with base (basepkg) and brain (corelib with an extension, helper) locked."""
    write_pyproject(root)
    base = [("basepkg", "1.0", wheels["basepkg-1.0"])]
    write_lock(root, "base", base, platform=platform)
    brain = [*base, ("corelib", corelib, wheels[f"corelib-{corelib}"]), ("helper", "1.0", wheels["helper-1.0"])]
    write_lock(root, "brain", brain, platform=platform)
    return root


def tree_snapshot(root: Path) -> dict[str, tuple[int, int, str]]:
    """Every file under *root*: (size, mtime_ns, sha256) - to prove nothing was written."""
    out: dict[str, tuple[int, int, str]] = {}
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = Path(folder, name)
            st = path.lstat()
            digest = sha256(path) if path.is_file() and not path.is_symlink() else ""
            out[str(path.relative_to(root))] = (st.st_size, st.st_mtime_ns, digest)
    return out


def env_snapshot(prefix: Path) -> dict[str, tuple[int, int]]:
    """Every file and folder of an environment: (size, mtime_ns) - the mutation recorder."""
    out: dict[str, tuple[int, int]] = {}
    for folder, dirs, files in os.walk(prefix):
        for name in [*dirs, *files]:
            path = os.path.join(folder, name)
            st = os.lstat(path)
            out[os.path.relpath(path, prefix)] = (st.st_size, st.st_mtime_ns)
    return out


def changes(before: Mapping[str, object], after: Mapping[str, object]) -> list[str]:
    """Paths added, removed or changed between two snapshots."""
    keys = set(before) | set(after)
    return sorted(k for k in keys if before.get(k) != after.get(k))


#: A ``[build-system]`` whose backend is the project's own ``backend.py`` (:data:`tests.support.probe_env.BACKEND`).
IN_TREE_BUILD_SYSTEM = '\n[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n'


def package_project(
    root: Path, wheels: Mapping[str, Path], *, backend_extra: str = "", init: str = "VALUE = 1\n"
) -> Path:
    """:func:`make_project` as a package ``app`` built by an in-tree backend (editable installs offline, no download);
    *backend_extra* is appended to the backend (a redefined ``build_editable``), *init* is ``app/__init__.py``."""
    from tests.support.probe_env import BACKEND

    make_project(root, wheels)
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + IN_TREE_BUILD_SYSTEM, encoding="utf-8")
    (root / "backend.py").write_text(BACKEND.format(name="app", version="0.1.0") + backend_extra, encoding="utf-8")
    (root / "src" / "app").mkdir(parents=True)
    (root / "src" / "app" / "__init__.py").write_text(init, encoding="utf-8")
    return root


def offline_env(wheels: Mapping[str, Path], cache: Path) -> dict[str, str]:
    """uv and pip reading only the wheels' folder (uv's cache at *cache*), this checkout's console scripts first."""
    from tests.support.env import bin_dir, clean_env

    folder = str(next(iter(wheels.values())).parent)
    extra = {"UV_NO_INDEX": "1", "UV_FIND_LINKS": folder, "UV_CACHE_DIR": str(cache), "PIP_NO_INDEX": "1"}
    return clean_env({**extra, "PIP_FIND_LINKS": folder, "PATH": f"{bin_dir()}:/usr/bin:/bin"})


def tool_project(tmp_path: Path, links: Path, **extra: str) -> tuple[Path, dict[str, str]]:
    """``tmp_path/proj``: ``brain`` (``tool>=1``) layered on ``base`` (``basepkg``), both locked to the wheels
    ``basepkg-1.0`` and ``tool-1.0`` in *links*; and the environment its commands run in: uv and pip read *links*
    only, uv's cache and tierlock's are under *tmp_path*, *extra* set, this checkout's console scripts first on
    PATH."""
    from tests.support.env import bin_dir, clean_env

    root = tmp_path / "proj"
    write_pyproject(root, brain=("tool>=1",))
    base = [("basepkg", "1.0", links / "basepkg-1.0-py3-none-any.whl")]
    write_lock(root, "base", base)
    write_lock(root, "brain", [*base, ("tool", "1.0", links / "tool-1.0-py3-none-any.whl")])
    env = clean_env(
        {
            "UV_FIND_LINKS": str(links),
            "UV_CACHE_DIR": str(tmp_path / "uv-cache"),
            "PIP_NO_INDEX": "1",
            "PIP_FIND_LINKS": str(links),
            "TIERLOCK_CACHE_DIR": str(tmp_path / "tl-cache"),
            **extra,
        }
    )
    env["PATH"] = f"{bin_dir()}:{env['PATH']}"
    return root, env
