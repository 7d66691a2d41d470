"""A read-only command run in full (nothing kept, or right after an edit) loads only what its answer needs.

Real console-script runs (``tierlock check/probe/status/admit``) under ``python -X importtime`` on the
generated 3-tier project with its tiers armed into a real virtual environment, with an empty cache folder
(so nothing is answered from a kept entry and the target interpreter is asked). None of them loads the
CLI extra's heavy modules (rich, jsonschema) nor pip or uv; none loads ``hashlib`` (the lock digests use
C's own sha256 without OpenSSL's start-up) nor ``shutil`` and its compression modules (argparse measures
the terminal only when it writes help) nor argparse (:mod:`tierlock.quickargs` parses an everyday command
line); ``admit`` on a project without a runtime config finds that out
without loading the validator. The answer is the one the same command gives with kept answers turned off.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from tests.support.env import clean_env
from tests.support.kept import World, backdate

#: Never on a read-only command's path (the CLI extra's heavy modules, the installers).
HEAVY = {"rich", "jsonschema", "pip", "uv"}
#: Not needed by a full run of a read-only command on a valid project without a runtime config: argparse and
#: gettext neither (an everyday command line is parsed by tierlock.quickargs), nor packaging's dependency groups
#: (a project without groups), nor binascii (no printed line holds a candidate key); nor urllib.parse and the
#: ipaddress it loads (pathlib takes one name from it, for ``as_uri``; no lock here names a URL), zlib (cache
#: files are named by the sha256 already loaded), shlex (commands are quoted by tierlock.remedies; none is parsed
#: on a pass), CI detection (output to a terminal only), the re-arm remedy and the stale-tier check (every tier
#: is present).
UNNEEDED = {
    "hashlib",
    "_hashlib",
    "shutil",
    "bz2",
    "lzma",
    "tempfile",
    "difflib",
    "argparse",
    "gettext",
    "packaging.dependency_groups",
    "binascii",
    "urllib.parse",
    "ipaddress",
    "zlib",
    "shlex",
    "tierlock.ci",
    "tierlock.installer.rearm",
    "tierlock.installer.target",
    # the utf-8-sig codec's module (a BOM is dropped by tierlock.fsutil.utf8_text); a lock's platform (an install
    # asks it); the no-build proof with its records and coverage (no platform declared); the loader's cache and
    # search folders (no library looked for); this interpreter's wheel tags (the target's are asked)
    "encodings.utf_8_sig",
    "tierlock.lockfiles.lockplatform",
    "tierlock.lockfiles.nobuild",
    "tierlock.lockfiles.artifacts",
    "tierlock.lockfiles.coverage",
    "tierlock.probing.ldcache",
    "tierlock.probing.ldpaths",
    "tierlock.wheeltags",
}
#: The validator proper: rules, schema, credentials, positions (only for a project that has a runtime config).
VALIDATOR = {
    "tierlock.validators.core",
    "tierlock.validators.rules",
    "tierlock.validators.schema",
    "tierlock.validators.source",
    "tierlock.validators.results",
    "tierlock.validators.secrets",
}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return World(tmp_path_factory.mktemp("first-run"))


@pytest.mark.parametrize("command", ["check", "probe", "status", "admit"])
def test_a_full_run_loads_no_digest_library_no_terminal_measure_and_nothing_heavy(world: World, command: str) -> None:
    shutil.rmtree(world.cache, ignore_errors=True)
    first, modules = world.run(world.argv(command))
    assert first.returncode == 0, first.stdout + first.stderr
    assert "tierlock.tiers.loader" in modules  # a full run, not a kept answer
    assert modules.isdisjoint(HEAVY), sorted(modules & HEAVY)
    assert modules.isdisjoint(UNNEEDED), sorted(modules & UNNEEDED)
    unkept, _ = world.run(world.argv(command), TIERLOCK_CACHE_DIR="")
    assert (first.returncode, first.stdout, first.stderr) == (unkept.returncode, unkept.stdout, unkept.stderr)


def test_admit_without_a_runtime_config_does_not_load_the_validator(world: World) -> None:
    shutil.rmtree(world.cache, ignore_errors=True)
    first, modules = world.run(world.argv("admit", "--json"))
    assert first.returncode == 0, first.stdout + first.stderr
    assert '"runtime":{"verdict":"skipped"' in first.stdout
    assert "tierlock.validators.configfile" in modules
    assert modules.isdisjoint(VALIDATOR), sorted(modules & VALIDATOR)


def test_admit_after_a_dependency_edit_gives_its_remedys_argv_without_loading_shlex(world: World) -> None:
    pyproject = world.project / "pyproject.toml"
    before = pyproject.read_bytes()
    pyproject.write_bytes(before.replace(b'"brainpkg00>=1"', b'"brainpkg00>=0.5"', 1))
    try:
        shutil.rmtree(world.cache, ignore_errors=True)
        first, modules = world.run(world.argv("admit", "--json"))
    finally:
        pyproject.write_bytes(before)
    assert first.returncode == 1, first.stdout + first.stderr
    argv = ["tierlock", "--project", str(world.project), "lock", "brain"]  # (run from outside: it names the project)
    assert f'"remedy_argv":[{json.dumps(argv)}]'.replace(" ", "") in first.stdout.replace(" ", "").replace("\n", "")
    assert "shlex" not in modules


def test_admit_with_a_runtime_config_still_validates_it(world: World) -> None:
    config = world.project / "tierlock.runtime.json"
    config.write_text('{"setup": [{"run": 42}]}\n')
    try:
        shutil.rmtree(world.cache, ignore_errors=True)
        first, modules = world.run(world.argv("admit"))
    finally:
        config.unlink()
    assert first.returncode == 1, first.stdout + first.stderr
    assert "tierlock.validators.core" in modules
    assert "tierlock.runtime.json" in first.stdout + first.stderr
    assert f"then run: tierlock --project {world.project} validate" in first.stdout + first.stderr


def _help(columns: int) -> list[str]:
    env = {**clean_env(), "COLUMNS": str(columns)}
    argv = [sys.executable, "-m", "tierlock", "check", "--help"]
    return subprocess.run(argv, capture_output=True, text=True, check=True, env=env).stdout.splitlines()


def test_help_is_still_written_at_the_width_of_the_terminal() -> None:
    narrow, wide = _help(40), _help(200)
    assert narrow[0].startswith("usage: tierlock check")
    assert narrow[1].startswith(" ")  # the usage wrapped under the command's name
    assert wide[1] == ""  # room for the whole usage on its one line
    assert len(narrow) > len(wide)


#: What a full run whose distributions' facts are kept never asks: RECORD's rows read into facts, the import roots
#: looked for on disk (each RECORD provides its roots), and the files checked as named tuples.
FACTS_KEPT_UNNEEDED = {"tierlock.probing.rowfacts", "tierlock.probing.roots", "tierlock.probing.installedfile"}


@pytest.mark.parametrize("command", ["probe", "status", "admit"])
def test_a_full_run_with_the_distributions_facts_kept_loads_no_record_reader(world: World, command: str) -> None:
    backdate(world.project, world.venv)  # (installed a while ago: the facts may be kept)
    shutil.rmtree(world.cache, ignore_errors=True)
    world.run(world.argv(command))  # (the facts of every distribution kept)
    pyproject = world.project / "pyproject.toml"
    before = pyproject.read_bytes()
    pyproject.write_bytes(before.replace(b'"brainpkg00>=1"', b'"brainpkg00>=0.5"', 1))
    try:
        again, modules = world.run(world.argv(command))
        unkept, _ = world.run(world.argv(command), TIERLOCK_CACHE_DIR="")
    finally:
        pyproject.write_bytes(before)
    assert "tierlock.probing.distribution" in modules  # a full run, the probe run
    assert modules.isdisjoint(FACTS_KEPT_UNNEEDED), sorted(modules & FACTS_KEPT_UNNEEDED)
    assert (again.returncode, again.stdout, again.stderr) == (unkept.returncode, unkept.stdout, unkept.stderr)
