"""Real installs for the probe, plugin and admission tests.

* :func:`uv_install` installs wheels offline with the real uv into a venv or a
  ``--target`` folder;
* :func:`build_c_extension_wheel` compiles a small real C extension with gcc
  and packs it into a platform wheel;
* :func:`editable_project` writes a project with an in-tree PEP 517 backend
  (no build requirements, so an editable install works offline).
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

from tests.support.env import bin_dir, clean_env
from tests.support.wheels import EXT_SUFFIX, build_wheel

C_SOURCE = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *answer(PyObject *self, PyObject *args) { return PyLong_FromLong(42); }

static PyMethodDef methods[] = {{"answer", answer, METH_NOARGS, "The answer."}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_speedups", NULL, -1, methods};

PyMODINIT_FUNC PyInit__speedups(void) { return PyModule_Create(&module); }
"""


def uv_install(
    python: Path | None,
    wheelhouse: Path,
    *requirements: str,
    target: Path | None = None,
    editable: Path | None = None,
) -> None:
    """``uv pip install`` offline from *wheelhouse* into the venv of *python* (or into *target*)."""
    argv = [str(bin_dir() / "uv"), "pip", "install", "--no-index", "--find-links", str(wheelhouse), "--quiet"]
    # Copies, not links into a cache: the tests edit installed files in place.
    argv += ["--no-cache", "--link-mode", "copy"]
    if target is not None:
        argv += ["--target", str(target), "--python", sys.executable]
    else:
        assert python is not None
        argv += ["--python", str(python)]
    if editable is not None:
        argv += ["--editable", str(editable)]
    argv += list(requirements)
    proc = subprocess.run(argv, check=False, env=clean_env(), capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError(f"uv failed ({proc.returncode}): {' '.join(argv)}\n{proc.stdout}{proc.stderr}")


def platform_tag() -> str:
    interpreter = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{interpreter}-{interpreter}-{plat}"


def build_c_extension_wheel(dest: Path, name: str = "cext", version: str = "1.0") -> Path:
    """Compile ``{name}/_speedups{EXT_SUFFIX}`` with gcc and wrap it in a platform wheel."""
    work = dest / f"{name}-build"
    work.mkdir(parents=True, exist_ok=True)
    source = work / "speedups.c"
    source.write_text(C_SOURCE)
    library = work / f"_speedups{EXT_SUFFIX}"
    include = sysconfig.get_paths()["include"]
    subprocess.run(
        ["gcc", "-shared", "-fPIC", "-O0", f"-I{include}", "-o", str(library), str(source)],
        check=True,
        capture_output=True,
        text=True,
    )
    files: dict[str, bytes | str] = {
        f"{name}/__init__.py": "from ._speedups import answer\n",
        f"{name}/_speedups{EXT_SUFFIX}": library.read_bytes(),
    }
    return build_wheel(dest, name, version, files=files, tag=platform_tag(), extension=True)


BACKEND = '''
"""A build backend with no requirements: writes an editable wheel whose .pth points at src/.

The version is read from pyproject.toml when the wheel is built (as a real backend does)."""
import base64, hashlib, os, zipfile

NAME, VERSION = {name!r}, {version!r}


def _version():
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "pyproject.toml")) as fh:
        for line in fh:
            if line.startswith("version = "):
                return line.split('"')[1]
    return VERSION


def _wheel(directory, files):
    VERSION = _version()
    dist = f"{{NAME}}-{{VERSION}}.dist-info"
    files = dict(files)
    files[f"{{dist}}/METADATA"] = f"Metadata-Version: 2.1\\nName: {{NAME}}\\nVersion: {{VERSION}}\\n"
    files[f"{{dist}}/WHEEL"] = "Wheel-Version: 1.0\\nGenerator: tests\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"
    rows = []
    for path, text in files.items():
        data = text.encode()
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        rows.append(f"{{path}},sha256={{digest}},{{len(data)}}")
    rows.append(f"{{dist}}/RECORD,,")
    files[f"{{dist}}/RECORD"] = "\\n".join(rows) + "\\n"
    filename = f"{{NAME}}-{{VERSION}}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(directory, filename), "w") as zf:
        for path, text in files.items():
            zf.writestr(path, text)
    return filename


def get_requires_for_build_editable(config_settings=None):
    return []


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "src")
    return _wheel(wheel_directory, {{f"_{{NAME}}_editable.pth": src + "\\n"}})


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    raise RuntimeError("this test backend only builds editable wheels")
'''


def editable_project(folder: Path, name: str = "edpkg", version: str = "0.3") -> Path:
    """A project at *folder* (``src/{name}/__init__.py``) that installs editable without any download."""
    (folder / "src" / name).mkdir(parents=True)
    (folder / "src" / name / "__init__.py").write_text("VALUE = 1\n")
    (folder / "backend.py").write_text(BACKEND.format(name=name, version=version))
    (folder / "pyproject.toml").write_text(
        textwrap.dedent(
            f"""\
            [build-system]
            requires = []
            build-backend = "backend"
            backend-path = ["."]

            [project]
            name = "{name}"
            version = "{version}"
            """
        )
    )
    return folder
