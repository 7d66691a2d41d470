"""The regular expressions a full run compiles, kept beside its code bundle (:mod:`tierlock.keptpatterns`).

Each test runs a real interpreter (this one, and the other Pythons of this machine where they are) on tierlock's
sources: the first run compiles its patterns through ``re`` and keeps what ``re`` handed to ``_sre.compile``; the
next one hands that over itself, without parsing a pattern, and every pattern behaves as ``re`` compiles it (its
flags, groups, group names and matches). A kept file of another interpreter, cut short, or with a program
``_sre`` refuses: the patterns are compiled as without it.
"""

from __future__ import annotations

import json
import marshal
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import tierlock
from tests.support.env import clean_env

SRC = str(Path(tierlock.__file__).parent.parent)
#: Patterns of every kind: text and bytes, flags given and inline, named groups, case folding beyond ASCII,
#: look-behind, a verbose one, and each matched against a few texts (bytes patterns: the texts encoded).
CASES = [
    (r"(?P<major>\d+)\.(?P<minor>\d+)(?:\.(?P<micro>\d+))?", 0, ["3.11.7", "x3.12", "10.0"]),
    (r"straße|ǅ[a-z]+", "I", ["STRASSE", "ǆabc", "Straße", "ǲxy"]),
    (r"(?x) ^ \s* (?P<name> [a-z0-9._-]+ ) \s* (?: \[ (?P<extras> [^\]]* ) \] )?", 0, ["  pkg[a,b]", "Pkg"]),
    (r"(?<=-)\w+(?=\.so$)", 0, ["lib-abc.so", "lib-abc.so.1"]),
    (r"^\s*#.*$", "M", ["a\n  # b\nc"]),
    (b"[\x80-\xff]+", 0, ["abc\u00e9"]),
    (rb"(?i)glibc_(\d+)\.(\d+)", 0, ["GLIBC_2.17"]),
    (r"a.b", "S", ["a\nb", "acb"]),
    (r"[^\W\d_]+", "A", ["héllo wörld"]),
]
#: Run on tierlock's sources: install the patterns kept beside BUNDLE, count the patterns ``re`` parses, compile
#: CASES, save, print what each pattern is and matches.
SCRIPT = """
import json, sys
from tierlock import keptpatterns
keptpatterns.install(BUNDLE)
import re
parser = sys.modules.get("re._parser") or sys.modules["sre_parse"]
parses = []
original = parser.parse
parser.parse = lambda *args, **kwargs: (parses.append(args[0]), original(*args, **kwargs))[1]
seen = []
for text, flags, samples in CASES:
    pattern = re.compile(text, getattr(re, flags) if flags else 0)
    found = []
    for sample in samples:
        sample = sample.encode("utf-8") if isinstance(text, bytes) else sample
        found.append([repr(m.group(0)) + repr(m.span()) + repr(m.groupdict()) for m in pattern.finditer(sample)])
    seen.append([repr(pattern.pattern), int(pattern.flags), pattern.groups, dict(pattern.groupindex), found])
keptpatterns.save()
print(json.dumps({"parsed": len([p for p in parses if isinstance(p, (str, bytes))]), "seen": seen}))
"""
PYTHONS = [sys.executable] + [
    str(found) for found in sorted(Path.home().glob(".pyenv/versions/3.1[023].*/bin/python")) if found.is_file()
]


def _run(python: str, bundle: Path | None, script: str = SCRIPT, cases: list[Any] = CASES) -> dict[str, Any]:
    """SCRIPT (or *script*) run by *python* with the patterns kept beside *bundle*, in its folder (or a folder of
    its own): a file written anywhere else there is seen by the tests that look."""
    code = f"BUNDLE = {None if bundle is None else str(bundle)!r}\nCASES = {cases!r}\n{script}"
    env = clean_env({"PYTHONPATH": SRC})
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cwd = bundle.parent if bundle is not None and bundle.parent.is_dir() else None
    done = subprocess.run([python, "-c", code], env=env, capture_output=True, text=True, check=False, cwd=cwd)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _plain(python: str, tmp_path: Path) -> dict[str, Any]:
    """What ``re`` alone makes of CASES (no bundle: nothing served nor kept)."""
    return _run(python, None)


@pytest.mark.parametrize("python", PYTHONS, ids=lambda p: p.split("/versions/")[-1].split("/")[0])
def test_a_second_run_hands_the_kept_patterns_over_without_parsing_them_and_each_behaves_as_re_compiles_it(
    python: str, tmp_path: Path
) -> None:
    bundle = tmp_path / "tierlock-check.x.bundle"
    first = _run(python, bundle)
    kept = tmp_path / "tierlock-check.x.patterns"
    assert first["parsed"] == len(CASES)
    assert kept.is_file()
    written = kept.stat()
    second = _run(python, bundle)
    assert second["parsed"] == 0
    assert second["seen"] == first["seen"] == _plain(python, tmp_path)["seen"]
    again = kept.stat()
    assert (again.st_ino, again.st_mtime_ns) == (written.st_ino, written.st_mtime_ns)  # (nothing new: not written)


def _spoil(kept: Path, how: str) -> None:
    if how == "cut short":
        kept.write_bytes(kept.read_bytes()[:100])
    elif how == "another interpreter":
        stamp, table = marshal.loads(kept.read_bytes())
        kept.write_bytes(marshal.dumps(((*stamp[:1], "another build", *stamp[2:]), table)))
    else:  # every program made one that _sre refuses, or one argument of the wrong kind
        stamp, table = marshal.loads(kept.read_bytes())
        if how == "programs refused":
            table = {key: (args[0], [255, *args[1][1:]], *args[2:]) for key, args in table.items()}
        else:
            table = {key: (args[0], args[1], "groups", *args[3:]) for key, args in table.items()}
        kept.write_bytes(marshal.dumps((stamp, table)))


@pytest.mark.parametrize("how", ["cut short", "another interpreter", "programs refused", "arguments of another kind"])
def test_a_kept_file_that_does_not_hold_leaves_every_pattern_to_re(how: str, tmp_path: Path) -> None:
    bundle = tmp_path / "tierlock-check.x.bundle"
    first = _run(sys.executable, bundle)
    _spoil(tmp_path / "tierlock-check.x.patterns", how)
    second = _run(sys.executable, bundle)
    assert second["parsed"] == len(CASES)
    assert second["seen"] == first["seen"]
    assert _run(sys.executable, bundle)["parsed"] == 0  # (written again by the run that compiled them)


#: Run on tierlock's sources: a pattern ``re`` refuses, and one compiled with ``re.DEBUG`` (which prints).
REFUSED = """
import re, sys
from tierlock import keptpatterns
keptpatterns.install(BUNDLE)
try:
    re.compile("(unclosed")
except re.error as error:
    print("refused:", error)
re.compile("ab+", re.DEBUG)
keptpatterns.save()
"""


def test_a_pattern_re_refuses_still_raises_and_re_debug_still_prints(tmp_path: Path) -> None:
    bundle = tmp_path / "tierlock-check.x.bundle"
    runs = []
    for _ in range(2):
        code = f"BUNDLE = {str(bundle)!r}\n{REFUSED}"
        env = clean_env({"PYTHONPATH": SRC})
        runs.append(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True))
    plain = subprocess.run(
        [sys.executable, "-c", REFUSED.replace("keptpatterns.install(BUNDLE)", "").replace("keptpatterns.save()", "")],
        env=clean_env({"PYTHONPATH": SRC}),
        capture_output=True,
        text=True,
        check=True,
    )
    assert "refused: missing ), unterminated subpattern" in plain.stdout
    assert "MAX_REPEAT 1 MAXREPEAT" in plain.stdout
    assert runs[0].stdout == runs[1].stdout == plain.stdout
    assert not (tmp_path / "tierlock-check.x.patterns").exists()  # (neither kept: nothing to write)


def test_a_run_that_compiles_more_patterns_than_the_limit_keeps_none(tmp_path: Path) -> None:
    bundle = tmp_path / "tierlock-check.x.bundle"
    many = [(f"x{n}y+", 0, ["x1yy"]) for n in range(401)]
    assert _run(sys.executable, bundle, cases=many)["parsed"] == 401
    assert not (tmp_path / "tierlock-check.x.patterns").exists()
    _run(sys.executable, bundle)
    fewer = many[:100]
    assert _run(sys.executable, bundle, cases=fewer)["parsed"] == 100
    assert _run(sys.executable, bundle, cases=fewer + CASES)["parsed"] == 0  # (both runs' patterns kept: 109)


#: Run on a copy of tierlock's sources: what a full run does first (the command's bundle and patterns), then the
#: parsers it loads; print how many patterns ``re`` parsed, and which of ``re``'s modules the bundle served.
FULL_RUN = """
import sys
import tierlock.codebundle as bundle
bundle.SETTLE_NS = 0  # (the copy's sources were written just now)
from tierlock._entry import _bundled
_bundled(COMMAND)
parser = sys.modules.get("re._parser") or sys.modules["sre_parse"]
parses = []
original = parser.parse
parser.parse = lambda *args, **kwargs: (parses.append(args[0]), original(*args, **kwargs))[1]
import tomllib, json, packaging.requirements  # (json's patterns too)
bundle.save()
from tierlock import keptpatterns
keptpatterns.save()
served = sorted(name for name in ("re", "re._parser", "enum", "functools") if name in bundle._served)
import json
print(json.dumps([len([p for p in parses if isinstance(p, (str, bytes))]), served]))
"""


@pytest.mark.parametrize("command", ["check", "lock", "install"])
def test_a_full_run_serves_the_patterns_its_parsers_compile_from_the_file_beside_its_bundle(
    command: str, tmp_path: Path
) -> None:
    copy = tmp_path / "src"
    shutil.copytree(Path(tierlock.__file__).parent, copy / "tierlock", ignore=shutil.ignore_patterns("__pycache__"))
    env = clean_env({"PYTHONPATH": str(copy)})
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    code = f"COMMAND = {command!r}\n{FULL_RUN}"
    runs = [
        subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, cwd=tmp_path)
        for _ in range(2)
    ]
    first, second = (json.loads(run.stdout) for run in runs)
    assert first[0] > 20  # (tomllib's, json's and packaging's)
    assert second == [0, ["enum", "functools", "re", "re._parser"]]  # (re itself, too, from the bundle)
    cache = copy / "tierlock" / "__pycache__"
    assert [path.suffix for path in sorted(cache.glob(f"tierlock-{command}.*"))] == [".bundle", ".patterns"]


def test_at_the_limit_a_run_keeps_its_patterns_and_beyond_it_only_its_own(tmp_path: Path) -> None:
    bundle = tmp_path / "tierlock-check.x.bundle"
    first = [(f"a{n}b+", 0, ["a1bb"]) for n in range(300)]
    second = [(f"c{n}d+", 0, ["c1dd"]) for n in range(150)]
    assert _run(sys.executable, bundle, cases=first)["parsed"] == 300
    assert _run(sys.executable, bundle, cases=second)["parsed"] == 150  # (450 with the first's: only its own kept)
    assert _run(sys.executable, bundle, cases=second)["parsed"] == 0
    assert _run(sys.executable, bundle, cases=first)["parsed"] == 300
    (tmp_path / "tierlock-check.x.patterns").unlink()
    exactly = [(f"e{n}f+", 0, ["e1ff"]) for n in range(400)]
    assert _run(sys.executable, bundle, cases=exactly[:300])["parsed"] == 300
    assert _run(sys.executable, bundle, cases=exactly[300:])["parsed"] == 100
    assert _run(sys.executable, bundle, cases=exactly)["parsed"] == 0  # (400 with the first's: all kept)


def test_without_byte_code_written_no_patterns_are_written(tmp_path: Path) -> None:
    bundle = tmp_path / "tierlock-check.x.bundle"
    code = f"BUNDLE = {str(bundle)!r}\nCASES = {CASES!r}\n{SCRIPT}"
    env = clean_env({"PYTHONPATH": SRC, "PYTHONDONTWRITEBYTECODE": "1"})
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert json.loads(done.stdout)["parsed"] == len(CASES)
    assert not (tmp_path / "tierlock-check.x.patterns").exists()


def test_a_compile_that_hands_nothing_over_compiles_the_pattern_and_keeps_nothing(tmp_path: Path) -> None:
    """``re``'s engine reached another way than the one :func:`tierlock.keptpatterns.install` notes (a program that
    put the real ``_sre`` back): the pattern is ``re``'s, and nothing is kept for it."""
    bundle = tmp_path / "tierlock-check.x.bundle"
    put_back = "(sys.modules.get('re._compiler') or sys.modules['sre_compile'])._sre = _sre\n"
    script = SCRIPT.replace("import re\n", f"import re, _sre\n{put_back}", 1)
    for _ in range(2):
        got = _run(sys.executable, bundle, script=script)
        assert got["parsed"] == len(CASES)
        assert got["seen"] == _plain(sys.executable, tmp_path)["seen"]
    assert not (tmp_path / "tierlock-check.x.patterns").exists()


#: Run on tierlock's sources: patterns through ``re`` after INSTALL, twice the same, and re.Scanner (whose compile
#: is called with one argument, a parsed pattern; it parses its phrases itself): print how many patterns were parsed
#: and what they matched.
AROUND = """
import json, sys, types
import re, _sre
from tierlock import keptpatterns
PREPARE
keptpatterns.install(BUNDLE)
parser = sys.modules.get("re._parser") or sys.modules["sre_parse"]
parses = []
original = parser.parse
parser.parse = lambda *args, **kwargs: (parses.append(args[0]), original(*args, **kwargs))[1]
found = [re.compile(r"(?P<n>[0-9]+)-([a-z]+)").findall("12-ab 3-c"), re.compile(b"x+", re.I).findall(b"xXy")]
upper = lambda scanner, token: token.upper()
scanner = re.Scanner([(r"[0-9]+", lambda scanner, token: int(token)), (r"\\s+", None), (r"[a-z]+", upper)])
found.append(repr(scanner.scan("12 ab 345 c")))
keptpatterns.save()
print(json.dumps([len([p for p in parses if isinstance(p, (str, bytes))]), repr(found)]))
"""


def _around(bundle: Path | None, prepare: str = "") -> list[Any]:
    code = AROUND.replace("PREPARE", prepare).replace("BUNDLE", repr(None if bundle is None else str(bundle)))
    env = clean_env({"PYTHONPATH": SRC})
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cwd = bundle.parent if bundle is not None and bundle.parent.is_dir() else None
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False, cwd=cwd)
    assert done.returncode == 0, done.stderr
    result: list[Any] = json.loads(done.stdout)
    return result


#: What AROUND finds with nothing installed (re's own compile).
FOUND = "[[('12', 'ab'), ('3', 'c')], [b'xX'], \"([12, 'AB', 345, 'C'], '')\"]"


def test_a_scanners_patterns_compiled_with_one_argument_are_res_own_and_the_kept_ones_served(tmp_path: Path) -> None:
    bundle = tmp_path / "tierlock-check.x.bundle"
    assert _around(bundle)[1] == FOUND
    assert _around(bundle) == [3, FOUND]  # (the scanner parses its 3 phrases itself; its whole is re's: never kept)


@pytest.mark.parametrize(
    "prepare",
    [
        "",  # (no bundle: nothing to serve from)
        "(sys.modules.get('re._compiler') or sys.modules['sre_compile'])._sre = types.SimpleNamespace(**vars(_sre))",
    ],
    ids=["no bundle", "re's engine not a module"],
)
def test_without_a_bundle_or_with_an_re_it_does_not_know_nothing_is_served_nor_kept(
    prepare: str, tmp_path: Path
) -> None:
    bundle = None if not prepare else tmp_path / "tierlock-check.x.bundle"
    for _ in range(2):
        assert _around(bundle, prepare) == [5, FOUND]
    assert list(tmp_path.iterdir()) == []


def test_a_bundle_whose_folder_cannot_be_written_keeps_nothing_and_the_run_goes_on(tmp_path: Path) -> None:
    bundle = tmp_path / "missing" / "tierlock-check.x.bundle"
    for _ in range(2):
        assert _around(bundle) == [5, FOUND]
    assert list(tmp_path.iterdir()) == []


def test_the_patterns_are_kept_beside_the_bundle_whatever_its_name_and_nowhere_else(tmp_path: Path) -> None:
    for name in ("tierlock-check.x.bundle", "bundle", "a.b"):
        folder = tmp_path / name.replace(".", "-")
        folder.mkdir()
        _run(sys.executable, folder / name)
        assert sorted(path.name for path in folder.iterdir()) == [f"{name.removesuffix('.bundle')}.patterns"]
