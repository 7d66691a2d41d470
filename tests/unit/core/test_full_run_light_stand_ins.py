"""What a full run of a read-only command does without a pattern compiled or a module loaded gives the same
answer as the pattern or the module did.

A name's validity (the packaging name format) is decided without compiling the name pattern; whether a printed
text holds a credential's cue is tested by substrings (the cue pattern compiled only for a text that is not ASCII,
or past the first texts of a long output); an install command is quoted as :func:`shlex.join` quotes it without
:mod:`shlex`; :mod:`pathlib` is loaded without :mod:`urllib.parse` (and :mod:`ipaddress`), whose one name it takes
is imported when ``Path.as_uri()`` first asks for it. Each stand-in is compared with what it stands in for over
generated inputs, including the letters whose case folds onto ASCII ones.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tierlock
from tests.support.env import clean_env
from tests.support.interpreters import interpreter
from tierlock import secretshapes
from tierlock.remedies import shell_join, shell_quote
from tierlock.secretshapes import SHAPES, has_cue
from tierlock.tiers.reader import valid_name

#: The name format as the pattern said it (``$`` also matches before a newline at the very end).
NAME = re.compile(r"^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$", re.IGNORECASE)
#: Letters that fold onto ASCII ones under IGNORECASE (U+0130, U+0131, U+017F, U+212A) and other near misses.
FOLDING = "\u0130\u0131\u017f\u212a\u00e9\u00df"
NAME_CHARS = st.sampled_from([*"aZ09._-", "\n", " ", "/", *FOLDING])


@settings(max_examples=600, deadline=None)
@given(st.lists(NAME_CHARS, max_size=6).map("".join))
def test_a_name_is_valid_exactly_when_the_name_pattern_matches_it(name: str) -> None:
    assert valid_name(name) is bool(NAME.match(name))


def test_the_names_at_the_edges_of_the_format_are_judged_as_the_pattern_judged_them() -> None:
    for name in ("a", "a\n", "a\n\n", "\n", "", "a-", "-a", "a.b_c-d", "\u212a", "a\u017fb", "\u00e9", "a b"):
        assert valid_name(name) is bool(NAME.match(name)), repr(name)


#: Pieces of every cue (cased and not), their near misses and letters whose case folds onto ASCII ones.
CUE_PIECES = [
    *(cue for shape in SHAPES for cue in shape.cues),
    *(cue.upper() for shape in SHAPES if shape.nocase for cue in shape.cues),
    *("eyJ", "//", "/", "BEGIN", "PuTTY", "private_key", "IBAAK", "MC4CAQAwBQYDK2V", "AgEAMBMGByqGSM49AgEG"),
    *("bearer", "BeArEr", "basic", "BASIC", "Authorization", "datadog", "DataDog", "dd", "DD-AP", "dd_ap", "ddap"),
    *("twilio", "TWILIO", "ap", "x", "k_", "live_", " ", "\n", *FOLDING),
    *("\u2014", "\u01c5", "\u1e9e", "\u03a3", "\u0345", "\ufb05"),  # beyond ASCII, folding onto none of it
]


@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(CUE_PIECES), max_size=8).map("".join))
def test_a_text_holds_a_cue_by_the_substring_tests_exactly_when_the_cue_pattern_finds_one(text: str) -> None:
    assert has_cue(text) is (secretshapes._CUES.search(text) is not None)


def test_a_long_output_is_tested_by_substrings_and_a_text_with_a_folding_letter_by_the_cue_pattern() -> None:
    code = (
        "from tierlock import secretshapes\n"
        "lines = ['an ordinary line of a long output'] * 500\n"
        "print(any(secretshapes.has_cue(line) for line in lines), secretshapes._CUES._compiled is not None)\n"
        "print(secretshapes.has_cue('base: present \\u2014 3 packages, caf\\xe9'), secretshapes._CUES._compiled)\n"
        "print(secretshapes.has_cue('pushed \\u2014 ghp_token'), secretshapes._CUES._compiled is not None)\n"
        "print(secretshapes.has_cue('sharedacce\\u017fskey='), secretshapes._CUES._compiled is not None)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=clean_env())
    # (a letter that folds onto ASCII: the pattern, whose case folding takes the long s for an s)
    assert proc.stdout.splitlines() == ["False False", "False None", "True False", "True True"]


def test_the_folding_letters_are_every_letter_beyond_ascii_a_cue_could_meet_as_an_ascii_one() -> None:
    beyond = "".join(chr(c) for c in range(128, sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    folding = {found for ascii in map(chr, range(128)) for found in re.findall(f"(?i){re.escape(ascii)}", beyond)}
    lowering = {c for c in beyond if any(part.isascii() for part in c.lower())}
    assert folding | lowering == set(secretshapes._FOLDING)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from([*"aZ09_@%+=:,./-'\" $\\*!", *FOLDING]), max_size=6), max_size=4))
def test_an_install_command_is_quoted_as_shlex_quotes_it(words: list[str]) -> None:
    assert shell_join(words) == shlex.join(words)
    for word in words:
        assert shell_quote(word) == shlex.quote(word)


_NO_PATTERN = """
NAME = %r
import re
compiled = []
real = re._compile
re._compile = lambda pattern, flags: (compiled.append(str(pattern)), real(pattern, flags))[1]
from tierlock.tiers.reader import valid_name
from tierlock.redaction import redact
from tierlock.remedies import shell_join
print(valid_name("brain"), redact("brain: present - 13 packages, 121 files checked"))
print(shell_join(["install-tier", "brain", "--python", "/tmp/env/bin/python"]))
import sys
from tierlock import secretshapes
print("shlex" in sys.modules, NAME in compiled, secretshapes._CUES.source in compiled)
"""


def test_judging_a_name_redacting_a_line_and_quoting_a_command_compile_no_pattern_and_load_no_shlex() -> None:
    code = _NO_PATTERN % NAME.pattern
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=clean_env())
    judged, quoted, loaded = proc.stdout.splitlines()
    assert judged == "True brain: present - 13 packages, 121 files checked"
    assert quoted == "install-tier brain --python /tmp/env/bin/python"
    assert loaded == "False False False"  # no shlex, neither the name pattern nor the cue pattern compiled


_PATHLIB = """
import sys
from tierlock.lightpathlib import light_pathlib
light_pathlib()
loaded = sorted(name for name in ("pathlib", "urllib.parse", "ipaddress") if name in sys.modules)
import pathlib, urllib
print(loaded, hasattr(urllib, "parse"))
print(pathlib.Path("/tmp/a b/\u00e9").as_uri(), "urllib.parse" in sys.modules)
import urllib.parse
print(urllib.parse.quote_from_bytes(b"/a b") == "/a%20b", sys.modules["urllib"].parse is urllib.parse)
"""


def test_pathlib_is_loaded_without_urllib_parse_and_still_writes_a_file_uri() -> None:
    proc = subprocess.run([sys.executable, "-c", _PATHLIB], capture_output=True, text=True, check=True, env=clean_env())
    assert proc.stdout.splitlines() == [
        "['pathlib'] False",
        "file:///tmp/a%20b/%C3%A9 True",
        "True True",
    ]


_PATHLIB_ANY = """
import sys
before = "urllib.parse" in sys.modules
from tierlock.lightpathlib import light_pathlib
light_pathlib()
print(before, "urllib.parse" in sys.modules, "pathlib" in sys.modules)
import pathlib, urllib.parse
print(pathlib.Path("/tmp/a b/\\u00e9").as_uri(), sys.modules["urllib"].parse is urllib.parse)
print(type(urllib.parse.quote_from_bytes).__name__, urllib.parse.urlsplit("https://h/p").netloc)
"""


@pytest.mark.parametrize("version", ["3.12.1", "3.13.0"])
def test_pathlib_is_loaded_light_on_another_python_and_urllib_parse_stays_the_real_one(version: str) -> None:
    # (3.13's pathlib no longer takes urllib.parse at its start: the stand-in is put and taken away unused)
    python = interpreter(version).python
    env = {**clean_env(), "PYTHONPATH": str(Path(tierlock.__file__).parent.parent)}
    proc = subprocess.run([str(python), "-s", "-c", _PATHLIB_ANY], capture_output=True, text=True, check=True, env=env)
    loaded, uri, real = proc.stdout.splitlines()
    before = loaded.split()[0]
    assert loaded == f"{before} {before} True", "light_pathlib loads urllib.parse no more than it was before"
    assert uri == "file:///tmp/a%20b/%C3%A9 True"
    assert real == "function h"


_NTPATH = """
import json, sys
asked = []
class Asked:
    @staticmethod
    def find_spec(name, path=None, target=None):
        asked.append(name)
        return None
sys.meta_path.insert(0, Asked)
if LIGHT:
    from tierlock.lightpathlib import light_pathlib
    light_pathlib()
else:
    import pathlib
import ntpath
left = [name for name in ("nt", "_winapi") if name in sys.modules]
names = sorted((name, getattr(value, "__module__", None)) for name, value in vars(ntpath).items() if callable(value))
print(json.dumps([sorted({"nt", "_winapi"} & set(asked)), left, names]))
"""


@pytest.mark.skipif(sys.platform == "win32", reason="Windows' own modules are there")
def test_the_windows_modules_ntpath_tries_fail_without_a_search_and_are_not_left_marked_absent() -> None:
    runs = {}
    for light in (True, False):
        code = _NTPATH.replace("LIGHT", str(light))
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=clean_env())
        runs[light] = json.loads(proc.stdout)
    (asked, left, names), (plain_asked, plain_left, plain_names) = runs[True], runs[False]
    assert plain_asked == ["_winapi", "nt"]  # (what a plain import searches sys.path for)
    assert asked == []
    assert left == plain_left == []
    assert names == plain_names  # ntpath has what a plain import gives it


_PATHLIB_OTHER_SHAPE = """
import sys
sys.path.insert(0, FOLDER)
import urllib.parse as first
BEFORE
from tierlock.lightpathlib import light_pathlib
light_pathlib()
import pathlib, urllib.parse
print(pathlib.VALUE, urllib.parse.urlsplit("https://h/p").netloc, sys.modules.get("nt", "absent"))
"""


@pytest.mark.parametrize("before", ["del sys.modules['urllib.parse']", "pass"])
def test_a_pathlib_that_wants_more_of_urllib_parse_is_imported_as_it_is_and_a_loaded_urllib_parse_stays(
    tmp_path: Path, before: str
) -> None:
    (tmp_path / "pathlib.py").write_text("from urllib.parse import urlsplit\nVALUE = 'own'\n", encoding="utf-8")
    code = _PATHLIB_OTHER_SHAPE.replace("FOLDER", repr(str(tmp_path))).replace("BEFORE", before)
    code += "print(sys.modules['urllib.parse'] is first)\n"
    env = {**clean_env(), "PYTHONPATH": str(Path(tierlock.__file__).parent.parent)}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, env=env)
    assert proc.returncode == 0, proc.stderr
    own, netloc, nt, same = proc.stdout.split()
    assert (own, netloc, nt) == ("own", "h", "absent")
    assert same == str(before == "pass")  # (urllib.parse loaded before: the same module after)
