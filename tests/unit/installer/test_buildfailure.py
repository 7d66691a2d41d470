"""Reading a failed build from uv's and pip's output: which package, what it lacked, and the remedy built from that.

The outputs have the shapes uv 0.13 and pip 26 print (uv wraps long lines of the build's output); the ones for
mysqlclient, psycopg2, a Rust build and MSVC are the messages those builds print.
"""

from __future__ import annotations

import pytest

from tierlock.installer.buildfailure import BuildFailure, Missing, apt_package, diagnose, system_fix
from tierlock.installer.builds import Policy, Watcher, build_remedy

UV_HEADER = """\
Resolved 2 packages in 15ms
   Building needsheader==1.0
error: Failed to build `needsheader==1.0`
  cause: The build backend returned an error
  cause: Call to `backend.build_wheel` failed (exit status: 1)

         [stderr]
         ext.c:1:10: fatal error: tierlock_test_missing.h: No such file or
         directory
             1 | #include <tierlock_test_missing.h>
"""

PIP_HEADER = """\
Collecting needsheader==1.0 (from -r /tmp/x/requirements.txt (line 3))
  Preparing metadata (pyproject.toml): started
  Preparing metadata (pyproject.toml): finished with status 'error'
  error: subprocess-exited-with-error

  × Preparing metadata (pyproject.toml) did not run successfully.
  ╰─> [13 lines of output]
      ext.c:1:10: fatal error: tierlock_test_missing.h: No such file or directory
"""

MYSQLCLIENT = """\
error: Failed to build `mysqlclient==2.2.4`
  cause: The build backend returned an error
  cause: Call to `setuptools.build_meta.build_wheel` failed (exit status: 1)
         [stderr]
         /bin/sh: 1: pkg-config: not found
         Trying pkg-config --exists mysqlclient
         Command 'pkg-config --exists mysqlclient' returned non-zero exit status 127.
         Trying pkg-config --exists mariadb
         Command 'pkg-config --exists mariadb' returned non-zero exit status 127.
         Exception: Can not find valid pkg-config name.
"""

PSYCOPG = """\
  × Getting requirements to build wheel did not run successfully.
  │ exit code: 1
      Collecting psycopg2==2.9.10
      Package libpq was not found in the pkg-config search path.
      Package 'libpq', required by 'virtual:world', not found
      error: command 'x86_64-linux-gnu-gcc' failed: No such file or directory
      Failed to build psycopg2
"""

CX_ORACLE = """\
error: Failed to build `cx-oracle==8.3.0`
  cause: The build backend returned an error
         ModuleNotFoundError: No module named 'pkg_resources'
"""

RUST = """\
error: Failed to download and build `rustpkg==0.1 @ registry+https://pypi.org/simple`
  Cargo, the Rust package manager, is not installed or is not on PATH.
"""

MSVC = """\
      Building wheel for winpkg (pyproject.toml): finished with status 'error'
      error: Microsoft Visual C++ 14.0 or greater is required. Get it with "Microsoft C++ Build Tools"
  ERROR: Failed building wheel for winpkg
"""


def test_uv_names_the_package_and_a_header_wrapped_over_two_lines() -> None:
    assert diagnose(UV_HEADER) == BuildFailure("needsheader", "1.0", (Missing("header", "tierlock_test_missing.h"),))


def test_pip_names_the_package_it_collected_and_the_header() -> None:
    found = diagnose(PIP_HEADER)
    assert found is not None
    assert (found.package, found.version, found.lacks()) == (
        "needsheader",
        "1.0",
        "the C header tierlock_test_missing.h",
    )


def test_a_probe_for_one_pkg_config_name_after_another_is_one_missing_package_and_pkg_config_itself() -> None:
    found = diagnose(MYSQLCLIENT)
    assert found is not None
    assert found.pin == "mysqlclient 2.2.4"
    assert found.missing == (
        Missing("pkg-config", "mysqlclient", ("mariadb",)),
        Missing("pkg-config-tool", "pkg-config"),
    )
    assert found.lacks() == "the pkg-config package mysqlclient (or mariadb) and pkg-config itself"
    assert found.to_dict()["missing"] == [
        {"kind": "pkg-config", "name": "mysqlclient", "alternatives": ["mariadb"]},
        {"kind": "pkg-config-tool", "name": "pkg-config"},
    ]


def test_pip_names_a_missing_pkg_config_package_and_a_missing_compiler() -> None:
    found = diagnose(PSYCOPG)
    assert found is not None
    assert found.package == "psycopg2"
    assert found.missing == (Missing("pkg-config", "libpq"), Missing("compiler", "x86_64-linux-gnu-gcc"))


@pytest.mark.parametrize(
    ("output", "missing"),
    [
        (CX_ORACLE, Missing("build-dependency", "pkg_resources")),
        (RUST, Missing("compiler", "Rust (cargo, rustc)")),
        (MSVC, Missing("compiler", "Microsoft Visual C++ Build Tools")),
        (
            "error: Failed to build `a==1`\n  unable to execute 'clang': No such file or directory\n",
            Missing("compiler", "clang"),
        ),
        ("error: Failed to build `a==1`\n  /bin/sh: gcc: command not found\n", Missing("compiler", "gcc")),
        (
            "error: Failed to build `a==1`\n  t.c:1: fatal error: 'mysql.h' file not found\n",
            Missing("header", "mysql.h"),
        ),
        ("Failed to build a\nfatal error C1083: Cannot open include file: 'sql.h'\n", Missing("header", "sql.h")),
    ],
)
def test_what_a_build_lacked_is_named_from_the_lines_its_tools_print(output: str, missing: Missing) -> None:
    found = diagnose(output)
    assert found is not None
    assert found.missing == (missing,)


def test_a_failure_that_is_no_build_is_not_diagnosed_and_a_build_that_does_not_say_lacks_nothing_named() -> None:
    assert diagnose("error: No solution found when resolving dependencies\n") is None
    found = diagnose("error: Failed to build `odd==2.0`\n  cause: something else\n")
    assert found == BuildFailure("odd", "2.0", ())
    assert found.lacks() == ""
    assert BuildFailure(None, None, ()).pin == "a package"


def test_debian_package_names_for_what_is_well_known_else_words() -> None:
    assert apt_package(Missing("pkg-config", "nosuch", ("mariadb",))) == "libmariadb-dev"
    assert apt_package(Missing("header", "Python.h")) == "python3-dev"
    assert apt_package(Missing("compiler", "x86_64-linux-gnu-gcc")) == "build-essential"
    assert apt_package(Missing("compiler", "clang")) is None
    assert apt_package(Missing("pkg-config-tool", "pkg-config")) == "pkg-config"
    assert apt_package(Missing("build-dependency", "numpy")) is None
    assert (
        system_fix(Missing("header", "x.h"))
        == "install the development package that provides x.h (apt-file search x.h names it)"
    )
    assert system_fix(Missing("pkg-config", "foo")) == (
        "install the development package that ships foo.pc (apt-file search /foo.pc names it)"
    )
    assert system_fix(Missing("compiler", "Rust (cargo, rustc)")) == "install a Rust toolchain (https://rustup.rs)"


def test_the_remedy_installs_what_is_missing_then_runs_the_same_install() -> None:
    mysql = diagnose(MYSQLCLIENT)
    assert mysql is not None
    assert build_remedy(mysql, "install-tier db", debian=True).split("; or ")[0] == (
        "apt-get install default-libmysqlclient-dev pkg-config && install-tier db"
    )
    assert build_remedy(mysql, "install-tier db", debian=False).split("; or ")[0] == (
        "install the development package that ships mysqlclient.pc (apt-file search /mysqlclient.pc names it); "
        "install pkg-config; then run: install-tier db"
    )
    oracle = diagnose(CX_ORACLE)
    assert oracle is not None
    assert build_remedy(oracle, "install-tier db", debian=True, backend="pip").split("; or ")[0] == (
        "printf '%s\\n' 'setuptools<82' > build-constraints.txt && "
        "PIP_BUILD_CONSTRAINT=build-constraints.txt install-tier db"
    )
    vague = build_remedy(BuildFailure("odd", "2.0", ()), "install-tier db", debian=True)
    assert vague == (
        "fix what the build output above says is missing, then run: install-tier db; or require a version of odd "
        "that publishes a wheel for this platform (then tierlock lock), or move odd to a tier you arm only where "
        "it can be built"
    )


def test_the_watcher_says_when_a_build_starts_and_ends_for_uv_and_pip_once_per_package() -> None:
    said: list[str] = []
    watch = Watcher(said.append, said={"known"})
    for line in (
        "   Building cymysql==1.0.1",
        "      Built cymysql==1.0.1",
        "   Building known==1.0",
        "  Building wheel for mysqlclient (pyproject.toml): started",
        "  Building wheel for mysqlclient (pyproject.toml): finished with status 'done'",
        "Resolved 2 packages in 3ms",
    ):
        watch(line)
    assert said[0] == "building cymysql from source; this can take minutes"
    assert said[1].startswith("built cymysql from source (")
    assert said[1].endswith(" s)")
    assert said[2] == "building mysqlclient from source; this can take minutes"
    assert said[3].startswith("built mysqlclient from source (")
    assert len(said) == 4  # known was announced before the backend started


def test_only_binary_names_the_no_build_packages_or_all_of_them() -> None:
    from packaging.utils import canonicalize_name
    from packaging.version import Version

    from tierlock.installer.plan import Step
    from tierlock.lockfiles.locks import LockEntry

    def step(name: str) -> Step:
        return Step(LockEntry(canonicalize_name(name), Version("1"), None, ()), "install", "not installed")

    rules = Policy({"a": "base", "b": "base"})
    assert rules.flags([step("a"), step("c")]) == ("a",)
    assert rules.flags([step("a"), step("b")]) == (":all:",)
    assert rules.flags([step("c")]) == ()
    assert rules.flags([]) == ()


def test_pip_keeps_the_version_it_collected_for_the_wheel_it_builds_and_no_other() -> None:
    building = "  Building wheel for {0} (pyproject.toml): started\nFailed building wheel for {0}\n"
    same = "Collecting needsheader==1.0\n" + building.format("needsheader")
    assert diagnose(same) == BuildFailure("needsheader", "1.0", ())
    other = "Collecting first==1.0\n" + building.format("second")
    assert diagnose(other) == BuildFailure("second", None, ())


def test_a_missing_submodule_names_its_top_level_module() -> None:
    found = diagnose("error: Failed to build `a==1`\n  ModuleNotFoundError: No module named 'pkg_resources.extern'\n")
    assert found is not None
    assert found.missing == (Missing("build-dependency", "pkg_resources"),)


@pytest.mark.parametrize(
    "line",
    ["error: can't find Rust compiler", "/bin/sh: 1: cargo: not found"],
)
def test_any_of_rusts_messages_names_the_rust_toolchain(line: str) -> None:
    found = diagnose(f"error: Failed to build `r==1`\n  {line}\n")
    assert found is not None
    assert found.missing == (Missing("compiler", "Rust (cargo, rustc)"),)


def test_each_compiler_gets_its_own_words() -> None:
    assert (
        system_fix(Missing("compiler", "Microsoft Visual C++ Build Tools")) == "install the Microsoft C++ Build Tools"
    )
    assert system_fix(Missing("compiler", "clang")) == "install a C compiler (clang)"
    assert system_fix(Missing("pkg-config-tool", "pkg-config")) == "install pkg-config"
