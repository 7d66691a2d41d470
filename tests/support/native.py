"""Real shared libraries, and real C extensions that need them, built with the C compiler at test time.

:func:`build_library` compiles ``libNAME.so.N`` (with its ``DT_SONAME``, optionally needing other
libraries); :func:`build_extension` compiles a Python extension module that calls into the libraries
it links, with a ``DT_RPATH`` or ``DT_RUNPATH`` as asked. Tests that use them carry
:data:`needs_compiler`: skipped, with the reason, where no C compiler exists.
"""

from __future__ import annotations

import shutil
import subprocess
import sysconfig
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import pytest

COMPILER = shutil.which("gcc") or shutil.which("cc")
needs_compiler = pytest.mark.skipif(
    COMPILER is None, reason="no C compiler (gcc or cc) on this machine: real ELF files cannot be built"
)


def _compile(argv: Sequence[str]) -> None:
    assert COMPILER is not None
    proc = subprocess.run([COMPILER, *argv], check=False, capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError(f"{COMPILER} failed: {' '.join(argv)}\n{proc.stderr}")


class Library(NamedTuple):
    """A library built by :func:`build_library`: where it is and the name it is asked for by."""

    path: Path
    soname: str


def _link_options(needs: Sequence[Library], rpath: str | None, runpath: str | None) -> list[str]:
    options = [str(lib.path) for lib in needs]
    if rpath is not None:
        options.append(f"-Wl,--disable-new-dtags,-rpath,{rpath}")
    if runpath is not None:
        options.append(f"-Wl,--enable-new-dtags,-rpath,{runpath}")
    return options


def symbol(soname: str) -> str:
    """The C function a library built by :func:`build_library` exports (from its soname)."""
    return "value_of_" + "".join(c if c.isalnum() else "_" for c in soname.split(".so", maxsplit=1)[0])


def _calls(needs: Sequence[Library]) -> tuple[str, str]:
    """The declarations of the functions of *needs*, and the C expression that sums their values."""
    externs = "".join(f"int {symbol(lib.soname)}(void);\n" for lib in needs)
    return externs, " + ".join(f"{symbol(lib.soname)}()" for lib in needs) or "0"


def build_library(
    dest: Path,
    soname: str,
    *,
    filename: str | None = None,
    needs: Sequence[Library] = (),
    rpath: str | None = None,
    runpath: str | None = None,
) -> Library:
    """``dest/filename`` (default: the soname): a shared library exporting :func:`symbol`, needing *needs*."""
    dest.mkdir(parents=True, exist_ok=True)
    source = dest / f"{soname}.c"
    externs, calls = _calls(needs)
    source.write_text(f"{externs}int {symbol(soname)}(void) {{ return 7 + {calls}; }}\n")
    out = dest / (filename or soname)
    argv = ["-shared", "-fPIC", "-O0", f"-Wl,-soname,{soname}", "-o", str(out), str(source)]
    _compile([*argv, *_link_options(needs, rpath, runpath)])
    source.unlink()
    return Library(out, soname)


EXTENSION = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>
{externs}
static PyObject *value(PyObject *self, PyObject *args) {{ return PyLong_FromLong({calls}); }}
static PyMethodDef methods[] = {{{{"value", value, METH_NOARGS, "A value from the linked libraries."}},
                                 {{NULL, NULL, 0, NULL}}}};
static struct PyModuleDef module = {{PyModuleDef_HEAD_INIT, "{module}", NULL, -1, methods}};
PyMODINIT_FUNC PyInit_{module}(void) {{ return PyModule_Create(&module); }}
"""


def build_extension(
    dest: Path,
    module: str,
    suffix: str,
    *,
    needs: Sequence[Library],
    rpath: str | None = None,
    runpath: str | None = None,
) -> Path:
    """``dest/{module}{suffix}``: an extension module whose ``value()`` calls every library in *needs*."""
    dest.mkdir(parents=True, exist_ok=True)
    source = dest / f"{module}.c"
    externs, calls = _calls(needs)
    source.write_text(EXTENSION.format(module=module, externs=externs, calls=calls))
    out = dest / f"{module}{suffix}"
    include = sysconfig.get_paths()["include"]
    argv = ["-shared", "-fPIC", "-O0", f"-I{include}", "-o", str(out), str(source)]
    _compile([*argv, *_link_options(needs, rpath, runpath)])
    source.unlink()
    return out


def readelf_dynamic(path: Path) -> str:
    """``readelf -d`` of *path* (the test's independent witness), or "" where readelf is not installed."""
    readelf = shutil.which("readelf")
    if readelf is None:
        return ""
    return subprocess.run([readelf, "-d", str(path)], check=True, capture_output=True, text=True).stdout
