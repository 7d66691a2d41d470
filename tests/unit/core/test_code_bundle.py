"""tierlock's own modules, loaded by a full run from one bundle of their code (:mod:`tierlock.codebundle`).

Each test copies tierlock's sources to a folder of its own (the bundle is written in its ``__pycache__``) and
runs a real interpreter on them: the first run notes the code of every tierlock module it loads and writes
the bundle; the next one loads them from it without opening their files, with the same ``__file__``,
``__spec__`` and tracebacks as a plain import. A source edited, a module added beside it, a bundle of another
byte-code format or another package folder, or one cut short: the modules come from their files again.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Any

import pytest

import tierlock
from tests.support.env import clean_env

#: Modules a full run loads from three of tierlock's folders (the package, tiers/, lockfiles/).
MODULES = ("tierlock.tiers.loader", "tierlock.lockfiles.check", "tierlock.output")
#: Run in the copy: install the bundle of ``check``, import *names*, save, and print what was opened to load
#: each tierlock module (its source or compiled file) from then on and which modules were noted to be written.
SCRIPT = """
import json, sys
opened = []
from tierlock import codebundle
codebundle.install("check")
sys.addaudithook(lambda event, args: opened.append(str(args[0])) if event == "open" else None)
for name in NAMES:
    __import__(name)
codebundle.save()
files = sorted({p.split("/src/", 1)[1] for p in opened if "/src/tierlock/" in p and p.endswith((".py", ".pyc"))})
print(json.dumps({"files": files, "noted": sorted(codebundle._noted)}))
"""


@pytest.fixture
def src(tmp_path: Path) -> Path:
    """A copy of tierlock's sources (no compiled files), with the modification times of the originals."""
    copy = tmp_path / "src"
    shutil.copytree(Path(tierlock.__file__).parent, copy / "tierlock", ignore=shutil.ignore_patterns("__pycache__"))
    return copy


#: Put first in each run: the sources and folders of these tests are written just now, within the time a module's
#: source and folders must be older than to be noted (:data:`tierlock.codebundle.SETTLE_NS`): taken as old enough.
SETTLED = "import tierlock.codebundle as _bundle; _bundle.SETTLE_NS = 0\n"


def _run(src: Path, code: str, *flags: str, settle: bool = False) -> subprocess.CompletedProcess[str]:
    """*code* run on the copy *src* (*settle*: with the bundle's own rule for sources and folders modified just now)."""
    code = code if settle else SETTLED + code
    env = clean_env({"PYTHONPATH": str(src)})
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return subprocess.run(
        [sys.executable, *flags, "-c", code], env=env, capture_output=True, text=True, check=False, cwd=src.parent
    )


def _load(src: Path, names: tuple[str, ...] = MODULES, *flags: str) -> dict[str, list[str]]:
    proc = _run(src, SCRIPT.replace("NAMES", repr(names)), *flags)
    assert proc.returncode == 0, proc.stderr
    loaded: dict[str, list[str]] = json.loads(proc.stdout)
    return loaded


def _bundle(src: Path) -> Path:
    """The bundle of ``check`` (one per list of folders on sys.path: the test's runs use one unless they say)."""
    tag = sys.implementation.cache_tag
    found = sorted((src / "tierlock" / "__pycache__").glob(f"tierlock-check.*.{tag}.opt{sys.flags.optimize}.bundle"))
    assert len(found) <= 1, found
    return found[0] if found else src / "tierlock" / "__pycache__" / "tierlock-check.none.bundle"


def _opened(loaded: dict[str, list[str]], folder: str, name: str | None = None) -> list[str]:
    """The files opened in tierlock's *folder* (of the module *name* alone: its source or compiled file)."""
    inside = [path for path in loaded["files"] if path.startswith(f"tierlock/{folder}/")]
    return [path for path in inside if name is None or Path(path).name.split(".")[0] == name]


def test_a_second_run_loads_tierlocks_modules_from_the_bundle_without_opening_their_files(src: Path) -> None:
    first = _load(src)
    assert set(MODULES) <= set(first["noted"])
    assert _opened(first, "tiers")
    assert _bundle(src).is_file()
    written = _bundle(src).stat()
    second = _load(src)
    assert second == {"files": [], "noted": []}  # nothing opened to load, nothing new to write
    again = _bundle(src).stat()
    assert (again.st_ino, again.st_mtime_ns) == (written.st_ino, written.st_mtime_ns)  # (not written again)


#: Run in the copy with *folders* first on :data:`sys.path`: install the bundle of ``check``, import *names*, save,
#: and print what was opened to load them (beyond the bundle) and which modules were noted to be written.
OTHERS = """
import json, sys
sys.path[:0] = FOLDERS
opened = []
from tierlock import codebundle
codebundle.install("check")
sys.addaudithook(lambda event, args: opened.append(str(args[0])) if event == "open" else None)
values = {}
for name in NAMES:
    values[name] = getattr(__import__(name, fromlist=["_"]), "VALUE", None)
codebundle.save()
files = sorted(p for p in opened if p.endswith((".py", ".pyc")))
print(json.dumps({"files": files, "noted": sorted(codebundle._noted), "values": values}))
"""


def _folders(tmp_path: Path, *names: str) -> list[Path]:
    """Folders for sys.path, each with its ``__pycache__`` (a first import that made it would change the folder)."""
    made = [tmp_path / name for name in names]
    for folder in made:
        (folder / "__pycache__").mkdir(parents=True)
    return made


def _others(src: Path, names: tuple[str, ...], folders: list[Path]) -> dict[str, Any]:
    code = OTHERS.replace("FOLDERS", repr([str(f) for f in folders])).replace("NAMES", repr(names))
    proc = _run(src, code)
    assert proc.returncode == 0, proc.stderr
    loaded: dict[str, Any] = json.loads(proc.stdout)
    return loaded


def test_modules_of_other_packages_and_top_level_modules_on_sys_path_are_noted_and_served(
    src: Path, tmp_path: Path
) -> None:
    [found] = _folders(tmp_path, "found")
    (found / "plainmodule.py").write_text("VALUE = 1\n", encoding="utf-8")
    names = ("xml.dom.NodeFilter", "email.quoprimime", "colorsys", "plainmodule")
    first = _others(src, names, [found])
    assert set(names) <= set(first["noted"])
    assert any(Path(path).name.startswith("colorsys.") for path in first["files"])
    second = _others(src, names, [found])
    assert (second["files"], second["noted"]) == ([], [])
    assert second["values"]["plainmodule"] == 1


def test_a_module_put_in_an_earlier_folder_of_sys_path_is_imported_instead_of_the_one_served(
    src: Path, tmp_path: Path
) -> None:
    earlier, found = _folders(tmp_path, "earlier", "found")
    (found / "plainmodule.py").write_text("VALUE = 1\n", encoding="utf-8")
    _others(src, ("plainmodule",), [earlier, found])
    assert _others(src, ("plainmodule",), [earlier, found])["files"] == []
    (earlier / "plainmodule.py").write_text("VALUE = 2\n", encoding="utf-8")
    shadowed = _others(src, ("plainmodule",), [earlier, found])
    assert shadowed["values"]["plainmodule"] == 2
    assert shadowed["noted"] == ["plainmodule"]


def test_a_top_level_module_is_served_only_for_the_same_folders_of_sys_path_in_the_same_order(
    src: Path, tmp_path: Path
) -> None:
    first, second = _folders(tmp_path, "first", "second")
    (second / "plainmodule.py").write_text("VALUE = 1\n", encoding="utf-8")
    _others(src, ("plainmodule",), [first, second])
    assert _others(src, ("plainmodule",), [first, second])["files"] == []
    swapped = _others(src, ("plainmodule",), [second, first])
    assert swapped["files"] != []
    assert swapped["noted"] == ["plainmodule"]
    [other] = _folders(tmp_path, "other")
    assert _others(src, ("plainmodule",), [other, first, second])["noted"] == ["plainmodule"]


def test_runs_with_other_folders_on_sys_path_keep_bundles_of_their_own(src: Path, tmp_path: Path) -> None:
    first, second = _folders(tmp_path, "first", "second")
    names = ("colorsys", "tierlock.tiers.loader")
    for folders in ([first], [second]):
        _others(src, names, folders)
        assert _others(src, names, folders)["files"] == []
    again = _others(src, names, [first])  # (the other list's runs wrote theirs: this one's still holds)
    assert (again["files"], again["noted"]) == ([], [])
    assert len(list((src / "tierlock" / "__pycache__").glob("tierlock-check.*.bundle"))) == 2


def test_a_module_put_in_an_earlier_folder_is_imported_instead_of_a_package_served_and_the_package_stays_served(
    src: Path, tmp_path: Path
) -> None:
    earlier, found = _folders(tmp_path, "earlier", "found")
    (found / "plainpackage").mkdir()
    (found / "plainpackage" / "__init__.py").write_text("VALUE = 1\n", encoding="utf-8")
    _others(src, ("plainpackage",), [earlier, found])
    (found / "unrelated.py").write_text("", encoding="utf-8")  # (its own folder changed: still served)
    assert _others(src, ("plainpackage",), [earlier, found])["files"] == []
    (earlier / "plainpackage.py").write_text("VALUE = 2\n", encoding="utf-8")
    assert _others(src, ("plainpackage",), [earlier, found])["values"]["plainpackage"] == 2


def _core_padded(src: Path, unused_share: float) -> int:
    """Pad the bundle's core with modules no run loads, to *unused_share* of it; its mtime (ns)."""
    import marshal

    _load(src)
    bundle = _bundle(src)
    stamp, entries, core, codes = marshal.loads(bundle.read_bytes()[4:])
    used = len(core)
    extra = round(unused_share * used / (1 - unused_share))
    for number in range(extra):
        entries[f"tierlock.never{number}"] = entries["tierlock.output"]
        core[f"tierlock.never{number}"] = core["tierlock.output"]
    bundle.write_bytes(bundle.read_bytes()[:4] + marshal.dumps((stamp, entries, core, codes)))
    return bundle.stat().st_mtime_ns


@pytest.mark.parametrize(("unused_share", "written"), [(0.23, False), (0.27, True)])
def test_a_core_used_under_three_quarters_is_written_again(src: Path, unused_share: float, written: bool) -> None:
    before = _core_padded(src, unused_share)
    assert _load(src) == {"files": [], "noted": []}
    assert (_bundle(src).stat().st_mtime_ns != before) is written


#: A bundle entry for a built-in or frozen module's name, pointing at a source file of that name on sys.path.
TAKEN = """
import json, sys
sys.path.insert(0, FOLDER)
from tierlock import codebundle
codebundle.install("check")
import xxsubtype, __hello__
print(json.dumps([getattr(xxsubtype, "__file__", None), __hello__.__spec__.origin]))
"""


def test_a_built_in_or_frozen_module_is_imported_as_such_even_with_a_source_of_its_name_in_the_bundle(
    src: Path, tmp_path: Path
) -> None:
    import marshal

    [folder] = _folders(tmp_path, "shadows")
    for name in ("xxsubtype", "__hello__"):
        (folder / f"{name}.py").write_text("VALUE = 1\n", encoding="utf-8")
    _others(src, ("colorsys",), [folder])  # (a bundle with the folders of sys.path as this test's runs see them)
    bundle = _bundle(src)
    stamp, entries, core, codes = marshal.loads(bundle.read_bytes()[4:])
    folders, mtimes = entries["colorsys"][4], entries["colorsys"][5]
    for name in ("xxsubtype", "__hello__"):
        source = folder / f"{name}.py"
        seen = source.stat()
        entries[name] = (str(source), False, seen.st_mtime_ns, seen.st_size, folders[:1], mtimes[:1], None)
        codes[name] = marshal.dumps(compile(source.read_text(encoding="utf-8"), str(source), "exec"))
    bundle.write_bytes(bundle.read_bytes()[:4] + marshal.dumps((stamp, entries, core, codes)))
    proc = _run(src, TAKEN.replace("FOLDER", repr(str(folder))))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [None, "frozen"]


RELOAD = """
import importlib, json, sys
from tierlock import codebundle
codebundle.install("check")
import tierlock.tiers.loader as m
m.ADDED = 1
again = importlib.reload(m)
loader = type(m.__spec__.loader).__name__
print(json.dumps([again is m, hasattr(m, "ADDED"), m.__file__, loader, sorted(codebundle._noted)]))
"""


def test_a_module_reloaded_runs_its_code_again_from_the_bundle(src: Path) -> None:
    _load(src)
    same, kept, file, loader, noted = json.loads(_run(src, RELOAD).stdout)
    assert (same, kept, loader, noted) == (True, True, "_Loader", [])
    assert file == str(src / "tierlock" / "tiers" / "loader.py")


def test_a_module_loaded_later_is_added_and_what_the_bundle_held_is_kept(src: Path) -> None:
    _load(src, MODULES[:1])
    second = _load(src, MODULES)
    assert "tierlock.tiers.loader" not in second["noted"]
    assert "tierlock.lockfiles.check" in second["noted"]
    assert _load(src, MODULES) == {"files": [], "noted": []}


ATTRIBUTES = """
import json, sys
from tierlock import codebundle
if BUNDLED:
    codebundle.install("check")
import tierlock.tiers.loader as m, tierlock.lockfiles as p
out = {}
for module in (m, p):
    spec = module.__spec__
    out[module.__name__] = [
        module.__file__, module.__cached__, module.__package__, getattr(module, "__path__", None), spec.name,
        spec.origin, spec.cached, spec.has_location, spec.parent, spec.submodule_search_locations,
        spec.loader.name, spec.loader.path, type(spec.loader).__mro__[-3].__name__, spec.loader_state,
        module.__loader__ is spec.loader, spec.loader.get_source(module.__name__)[:40],
        module.__loader__.is_package(module.__name__),
        type(spec.loader).__name__ == "_Loader",
    ]
print(json.dumps(out))
"""


def test_a_module_from_the_bundle_has_the_file_spec_and_package_of_a_plain_import(src: Path) -> None:
    _load(src)
    plain = json.loads(_run(src, ATTRIBUTES.replace("BUNDLED", "False")).stdout)
    bundled = json.loads(_run(src, ATTRIBUTES.replace("BUNDLED", "True")).stdout)
    for name in plain:
        assert bundled[name][:-1] == plain[name][:-1], name
        assert bundled[name][-1]  # (the bundle's loader: served from it)
        assert not plain[name][-1]
    assert _load(src) == {"files": [], "noted": []}


TRACEBACK = """
import traceback
from tierlock import codebundle
codebundle.install("check")
from tierlock.tiers import reader
try:
    reader.valid_name(None)
except Exception as exc:
    frame = traceback.extract_tb(exc.__traceback__)[-1]
    print(frame.filename, frame.lineno, frame.line)
"""


def test_a_traceback_through_a_module_from_the_bundle_names_its_source_file_and_line(src: Path) -> None:
    _load(src, ("tierlock.tiers.reader",))
    assert _load(src, ("tierlock.tiers.reader",))["files"] == []
    filename, line, text = _run(src, TRACEBACK).stdout.split(" ", 2)
    source = src / "tierlock" / "tiers" / "reader.py"
    assert filename == str(source)
    assert source.read_text(encoding="utf-8").splitlines()[int(line) - 1].strip() == text.strip()


def test_an_edited_source_is_loaded_from_its_file_and_the_others_still_from_the_bundle(src: Path) -> None:
    _load(src)
    source = src / "tierlock" / "tiers" / "loader.py"
    stamp = source.stat()
    source.write_text(source.read_text(encoding="utf-8") + "\nEDITED = 1\n", encoding="utf-8")
    os.utime(source, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 5_000_000_000))
    after = _load(src)
    assert after["noted"] == ["tierlock.tiers.loader"]
    assert _opened(after, "tiers", "loader")
    assert not _opened(after, "lockfiles")
    code = "from tierlock import codebundle; codebundle.install('check'); import tierlock.tiers.loader as m"
    code += "; print(m.EDITED)"
    assert _run(src, code).stdout == "1\n"
    assert _load(src) == {"files": [], "noted": []}


def test_a_bundle_written_again_leaves_out_a_module_whose_source_changed_since(src: Path) -> None:
    import marshal

    _load(src)
    source = src / "tierlock" / "tiers" / "loader.py"
    stamp = source.stat()
    source.write_text(source.read_text(encoding="utf-8") + "\nEDITED = 1\n", encoding="utf-8")
    os.utime(source, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 5_000_000_000))
    noted = _load(src, ("tierlock.suggest",))["noted"]
    assert [name for name in noted if name.startswith("tierlock")] == ["tierlock.suggest"]
    _stamp, entries, core, codes = marshal.loads(_bundle(src).read_bytes()[4:])
    assert "tierlock.tiers.loader" not in entries
    assert {"tierlock.suggest", "tierlock.output"} <= set(entries) == set(core) | set(codes)


def test_a_module_added_to_a_folder_leaves_the_modules_it_does_not_shadow_served(src: Path) -> None:
    _load(src)
    folder = src / "tierlock" / "lockfiles"
    stamp = folder.stat()
    (folder / "added.py").write_text("", encoding="utf-8")
    os.utime(folder, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 5_000_000_000))
    assert _load(src) == {"files": [], "noted": []}


@pytest.mark.parametrize("shadow", ["plainmodule/__init__.py", f"plainmodule{EXTENSION_SUFFIXES[0]}"])
def test_a_package_or_an_extension_of_a_served_modules_name_added_beside_it_is_taken_instead(
    src: Path, tmp_path: Path, shadow: str
) -> None:
    [found] = _folders(tmp_path, "found")
    (found / "plainmodule.py").write_text("VALUE = 1\n", encoding="utf-8")
    (found / "unrelated.py").write_text("", encoding="utf-8")
    _others(src, ("plainmodule",), [found])
    (found / "other.py").write_text("", encoding="utf-8")  # (the folder changed: nothing of the module's name)
    assert _others(src, ("plainmodule",), [found])["files"] == []
    added = found / shadow
    added.parent.mkdir(exist_ok=True)
    added.write_text("VALUE = 2\n", encoding="utf-8")
    code = OTHERS.replace("FOLDERS", repr([str(found)])).replace("NAMES", repr(("plainmodule",)))
    proc = _run(src, code)
    if shadow.endswith(".py"):
        assert json.loads(proc.stdout)["values"]["plainmodule"] == 2
    else:  # (not a real extension: the path finder takes it, and loading it fails)
        assert "ImportError" in proc.stderr


@pytest.mark.parametrize("spoil", ["magic", "folder", "cut", "version"])
def test_a_bundle_of_another_byte_code_format_or_package_folder_or_cut_short_is_not_used(
    src: Path, tmp_path: Path, spoil: str
) -> None:
    _load(src)
    bundle = _bundle(src)
    data = bundle.read_bytes()
    if spoil == "magic":
        bundle.write_bytes(bytes([data[0] ^ 1]) + data[1:])
    elif spoil == "cut":
        bundle.write_bytes(data[: len(data) // 2])
    elif spoil == "version":  # the same format, written by another version of this interpreter
        import marshal

        stamp, *held = marshal.loads(data[4:])
        bundle.write_bytes(data[:4] + marshal.dumps(((*stamp[:2], stamp[2] + 1, *stamp[3:]), *held)))
    else:  # the sources and their bundle moved elsewhere (the same name: the import path is the current folder)
        moved = tmp_path / "moved" / "src"
        shutil.copytree(src, moved)
        where = _run(moved, "from tierlock import codebundle; print(codebundle.path_of('check'))").stdout.strip()
        _bundle(moved).rename(where)
        src = moved
    after = _load(src)
    assert _opened(after, "tiers", "loader")
    assert _opened(after, "lockfiles", "check")
    assert set(MODULES) <= set(after["noted"])
    assert _load(src) == {"files": [], "noted": []}  # written again, then used


def test_each_module_is_unmarshalled_when_served_and_a_spoilt_one_is_loaded_from_its_file(src: Path) -> None:
    import marshal

    _load(src)
    bundle = _bundle(src)
    stamp, entries, core, codes = marshal.loads(bundle.read_bytes()[4:])
    del core["tierlock.lockfiles.check"]
    codes["tierlock.lockfiles.check"] = b"\xff spoilt"
    entries["tierlock.never.loaded"] = entries["tierlock.output"]
    codes["tierlock.never.loaded"] = b"\xff never unmarshalled"
    bundle.write_bytes(bundle.read_bytes()[:4] + marshal.dumps((stamp, entries, core, codes)))
    after = _load(src)
    assert _opened(after, "lockfiles", "check")
    assert not _opened(after, "tiers")
    assert after["noted"] == ["tierlock.lockfiles.check"]
    assert _load(src) == {"files": [], "noted": []}


def _parts(src: Path) -> tuple[set[str], set[str]]:
    """The modules of the bundle's core and those held on their own."""
    import marshal

    _stamp, _entries, core, codes = marshal.loads(_bundle(src).read_bytes()[4:])
    return set(core), set(codes)


def test_the_core_is_what_the_last_writing_run_loaded_and_the_rest_is_served_on_its_own(src: Path) -> None:
    many = (*MODULES, "unittest", "xml.dom.minidom", "email.mime.multipart", "tierlock.census.projectcensus")
    _load(src, many)
    core, alone = _parts(src)
    assert set(many) <= core
    assert alone == set()
    few = _load(src, MODULES[:1])  # (far less than the core: written again, its own modules the core)
    assert few == {"files": [], "noted": []}
    core, alone = _parts(src)
    assert "tierlock.tiers.loader" in core
    assert {"unittest", "tierlock.output"} <= alone
    written = _bundle(src).stat()
    again = _load(src, MODULES)  # (the output module served from outside the core: into the core again)
    assert again == {"files": [], "noted": []}
    assert _bundle(src).stat().st_mtime_ns != written.st_mtime_ns
    assert set(MODULES) <= _parts(src)[0]


#: An import hook of the program's own first on :data:`sys.meta_path` (one that could rewrite tierlock's modules).
HOOK = """
import sys
class Hook:
    @staticmethod
    def find_spec(name, path=None, target=None):
        return None
sys.meta_path.insert(0, Hook)
"""


def test_an_import_hook_of_another_kind_first_turns_the_bundle_off(src: Path) -> None:
    _load(src)
    proc = _run(src, HOOK + SCRIPT.replace("NAMES", repr(MODULES)))
    hooked = json.loads(proc.stdout)
    assert _opened(hooked, "tiers", "loader")
    assert hooked["noted"] == []


def test_no_bundle_is_written_when_byte_code_is_not_written(src: Path) -> None:
    _load(src, MODULES, "-B")
    assert not _bundle(src).exists()


#: A read-only command's full run through the console script's entry, with the copy's sources.
CLI = "import sys; sys.argv[1:] = ['--project', PROJECT, 'check', '--json']; from tierlock._entry import tierlock"
CLI += "; tierlock()"


def test_a_full_run_writes_the_bundle_and_answers_the_same_from_it(src: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "1"\n', encoding="utf-8")
    code = CLI.replace("PROJECT", repr(str(project)))
    env = {"TIERLOCK_CACHE_DIR": ""}  # (nothing kept: every run is a full run)
    first = _run(src, f"import os; os.environ.update({env!r}); {code}")
    assert first.returncode in (0, 1), first.stderr
    assert first.stdout.startswith("{")
    assert _bundle(src).is_file()
    again = _run(src, f"import os; os.environ.update({env!r}); {code}")
    _bundle(src).unlink()
    plain = _run(src, f"import os; os.environ.update({env!r}); {code}", "-B")  # (no bundle, none written)
    assert not _bundle(src).exists()
    assert (again.returncode, again.stdout, again.stderr) == (first.returncode, first.stdout, first.stderr)
    assert (plain.returncode, plain.stdout) == (first.returncode, first.stdout)
