"""A conftest, a helper module or a project module edited: the kept census holds from the edited file alone when what
every reader of its facts reads is the same (a helper added, a fixture nothing requests, an import of the standard
library), and never when the census run keeping nothing gives another result.

In-process: the real census runs on a small project of real files while :class:`tierlock.keptrecord.Recorder`
watches; after each edit, :func:`tierlock.census.rerun.readers_hold` (and the whole check,
:func:`~tierlock.census.rerun.surveys_hold`) is compared with the census worked out with nothing kept. The
console-script runs: ``tests/cli/test_kept_after_edits.py``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tierlock import keptrecord, keptrun
from tierlock.census import CensusTier, census
from tierlock.census.rerun import readers_hold, surveys_hold
from tierlock.census.summary import canonical
from tierlock.keptrecord import Recorder

OLD = time.time() - 60
ARGV = ["--project", "p", "check"]
TIERS = [CensusTier("brain", ("brainpkg",), ("tests/brain/**",)), CensusTier("viz", ("vizpkg",), ())]
FILES = {
    "tests/__init__.py": "",
    "tests/conftest.py": (
        "import pytest\n\nfrom tests.helpers import has_viz\n\n\n@pytest.fixture\ndef value():\n    return 1\n\n\n"
        "@pytest.fixture\ndef brain():\n    import brainpkg\n    return brainpkg\n"
    ),
    "tests/helpers.py": (
        "import pytest\n\ntry:\n    import vizpkg\n    has_viz = True\nexcept ImportError:\n    has_viz = False\n\n\n"
        "def make():\n    return 1\n"
    ),
    "tests/test_a.py": (
        "import pytest\n\nfrom tests.helpers import has_viz, make\n\n\n"
        "def test_value(value):\n    assert value == make()\n"
        "\n\n@pytest.mark.skipif(not has_viz, reason='no viz')\ndef test_viz():\n    import vizpkg\n"
    ),
    "tests/brain/test_b.py": "import brainpkg\n\n\ndef test_brain(brain):\n    assert brainpkg\n",
    "tests/sub/conftest.py": "import pytest\n\n\n@pytest.fixture\ndef extra(value):\n    return value\n",
    "tests/sub/test_c.py": "def test_extra(extra):\n    assert extra\n\n\ndef test_plain():\n    assert True\n",
}


class Project:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.cache = root.parent / "kept-cache"
        for rel, text in FILES.items():
            self.write(rel, text)
        self.age()

    def write(self, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    def append(self, rel: str, text: str) -> None:
        self.write(rel, (self.root / rel).read_text() + text)

    def age(self) -> None:
        for folder, dirs, names in os.walk(self.root):
            for name in [*dirs, *names]:
                os.utime(os.path.join(folder, name), (OLD, OLD))

    def fresh(self) -> Any:
        """The census's result worked out with nothing kept."""
        return canonical(census(self.root, TIERS))

    def record(self) -> dict[str, Any]:
        recorder = Recorder(str(self.cache))
        with recorder:
            census(self.root, TIERS)
        entry = recorder.entry(keptrun.who(ARGV), 0)
        assert entry is not None
        return entry


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    monkeypatch.setattr(keptrecord, "module_files", lambda: (set(), set()))
    return Project(tmp_path / "proj")


def _record(entry: dict[str, Any]) -> tuple[str, dict[str, Any], dict[str, Any], dict[str, Any]]:
    (root, (inputs, _was, apart)), *_ = entry["rerun"]["surveys"]
    prefix = os.path.join(root, "")
    calls = {path[len(prefix) :]: found for path, found in entry["rerun"]["calls"].items()}
    return root, inputs, apart, calls


def _readers(project: Project, entry: dict[str, Any], rels: list[str]) -> bool:
    (_root, (_inputs, was, _apart)), *_ = entry["rerun"]["surveys"]
    return readers_hold(*_record(entry), rels, was)


def _holds(project: Project, entry: dict[str, Any], rels: list[str]) -> bool:
    changed = {str(project.root / rel) for rel in rels}
    return surveys_hold(entry["rerun"]["surveys"], entry["rerun"]["calls"], changed)


C, H, S = "tests/conftest.py", "tests/helpers.py", "tests/sub/conftest.py"
FLAG = "try:\n    import brainpkg\n    has_brain = True\nexcept ImportError:\n    has_brain = False\n"
BUILT = "@pytest.fixture\ndef built():\n    return build()\n"
SKIPPER = "\n\ndef skipper():\n    return pytest.importorskip('brainpkg')\n"
#: Edits that change what no reader of the file's facts reads: the result is the same, told from the file alone.
UNREAD = {
    "a helper added to the conftest": (C, "\n\ndef helper():\n    return 1\n"),
    "a helper added to the helper module": (H, "\n\ndef helper():\n    return 1\n"),
    "a helper calling importorskip of a tier added to the helper module": (H, SKIPPER),
    "a helper calling importorskip of a tier added to the conftest (nothing calls it)": (C, SKIPPER),
    "an import of the standard library added to the conftest": (C, "import colorsys\n"),
    "an import of the standard library added to the helper module": (H, "from colorsys import rgb_to_hsv\n"),
    "a fixture nothing requests added to the conftest": (C, "\n\n@pytest.fixture\ndef unused():\n    return 2\n"),
    "a fixture nothing requests added to a child conftest": (
        S,
        "\n\n@pytest.fixture\ndef unused(value):\n    return 2\n",
    ),
    "a fixture and the helper it calls added": (C, "\n\ndef build():\n    return 2\n\n\n" + BUILT),
    "a hook added to the conftest": (C, "\n\ndef pytest_configure(config):\n    import brainpkg\n"),
}
#: Edits whose effect a reader of the file's facts may see: never told from the file alone.
READ = {
    "a fixture needing a tier": (C, "\n\n@pytest.fixture\ndef more():\n    import vizpkg\n"),
    "a fixture requesting one that needs a tier": (C, "\n\n@pytest.fixture\ndef more(brain):\n    return brain\n"),
    "an autouse fixture needing a tier": (C, "\n\n@pytest.fixture(autouse=True)\ndef auto():\n    import vizpkg\n"),
    "an autouse fixture needing nothing": (C, "\n\n@pytest.fixture(autouse=True)\ndef auto():\n    return 1\n"),
    "a fixture under a name a test requests": (S, "\n\n@pytest.fixture\ndef value():\n    return 3\n"),
    "a fixture under a name the file defines": (C, "\n\n@pytest.fixture\ndef value():\n    return 3\n"),
    "a has_x flag added to the helper module": (H, "\n" + FLAG),
    "an importorskip of a tier at the helper module's level": (H, "\npytest.importorskip('brainpkg')\n"),
    "an import of a tier added to the conftest": (C, "import brainpkg\n"),
    "an import of a project module added to the helper module": (H, "from tests import sub_helpers\n"),
    "a star import of a project module": (H, "from tests.sub_helpers import *\n"),
    "a helper a fixture refers to gains a tier's import": (C, "\n\ndef build():\n    import vizpkg\n\n\n" + BUILT),
    "a test added to the conftest": (C, "\n\ndef test_in_conftest():\n    assert True\n"),
}


@pytest.mark.parametrize("edit", sorted(UNREAD))
def test_an_edit_no_reader_of_the_files_facts_reads_holds_from_that_file_alone(project: Project, edit: str) -> None:
    was = project.fresh()
    entry = project.record()
    rel, text = UNREAD[edit]
    project.append(rel, text)
    assert project.fresh() == was
    assert _readers(project, entry, [rel])
    assert _holds(project, entry, [rel])


@pytest.mark.parametrize("edit", sorted(READ))
def test_an_edit_a_reader_of_the_files_facts_may_see_is_not_told_from_that_file_alone(
    project: Project, edit: str
) -> None:
    was = project.fresh()
    entry = project.record()
    (project.root / "tests" / "sub_helpers.py").write_text(FLAG)
    rel, text = READ[edit]
    project.append(rel, text)
    assert not _readers(project, entry, [rel])
    assert _holds(project, entry, [rel]) == (project.fresh() == was)  # (the census worked out whole)


def test_a_line_added_above_holds_only_when_the_result_names_no_line_of_the_file(project: Project) -> None:
    was = project.fresh()
    entry = project.record()
    project.write(C, "\n" + FILES[C])  # the brain fixture's line is in the result
    assert project.fresh() != was
    assert not _readers(project, entry, [C])
    project.write(C, FILES[C])
    project.write(H, FILES[H].replace("import pytest\n", "import pytest\nimport colorsys\n"))
    assert project.fresh() != was  # the flag's line is in the result (test_viz is skipped without vizpkg)
    assert not _readers(project, entry, [H])
    project.write(H, FILES[H])
    project.write(S, "import colorsys\n\n" + FILES[S])  # the child conftest's lines are in no use
    assert project.fresh() == was
    assert _readers(project, entry, [S])
    assert not readers_hold(*_record(entry), [S])  # (told only with the recorded result)
    project.write(S, "import colorsys\n\n" + FILES[S].replace("return value", "return value + 1\n\n\n# x"))
    assert _readers(project, entry, [S])
    project.write(S, "\n" + FILES[S].replace("(value)", "(value, brain)"))  # moved, and a request more
    assert not _readers(project, entry, [S])


def test_a_same_size_edit_with_its_time_put_back_is_read_again(project: Project) -> None:
    was = project.fresh()
    entry = project.record()
    path = project.root / C
    before = path.stat()
    path.write_text(FILES[C].replace("import brainpkg\n", "import vizpkg  \n"))
    assert path.stat().st_size == before.st_size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert project.fresh() != was
    assert not _readers(project, entry, [C])
    assert not _holds(project, entry, [C])


def test_a_deleted_or_unknown_file_never_holds(project: Project) -> None:
    entry = project.record()
    (project.root / H).unlink()
    assert not _readers(project, entry, [H])
    assert not _readers(project, entry, ["tests/unknown.py"])


def test_a_file_now_naming_a_word_it_did_not_name_is_not_told_alone(project: Project) -> None:
    entry = project.record()
    project.append("tests/sub/test_c.py", "\n\ndef helper():\n    return 'brainpkg'\n")  # now parsed
    assert not _readers(project, entry, ["tests/sub/test_c.py"])


def test_a_foreign_import_is_read_as_nothing_only_when_no_other_import_binds_its_name(project: Project) -> None:
    from tierlock.census.filefacts import read_file
    from tierlock.census.firstparty import ModuleIndex
    from tierlock.census.visible import Foreign, module_view

    index = ModuleIndex(["tests/__init__.py", "tests/helpers.py", "nsx/values.py", "local.py"], ("",))
    foreign = Foreign(index)
    assert foreign("colorsys", 0, "tests/helpers.py")
    assert not foreign("nsx.values", 0, "tests/helpers.py")  # a namespace package's folder
    assert not foreign("local", 0, "tests/helpers.py")
    assert not foreign("", 1, "tests/helpers.py")  # relative: the project's
    base = "from nsx.values import flag\n"

    def view(text: str) -> bytes:
        return module_view(read_file(text, "tests/helpers.py"), "tests/helpers.py", foreign, ["brainpkg"])

    assert view(base + "import colorsys\n") == view(base)
    assert view(base + "from colorsys import hls\n") == view(base)
    assert view(base + "from colorsys import flag\n") != view(base)  # binds a name the project's import binds
    assert view("from nsx.values import *\n" + "from colorsys import hls\n") != view("from nsx.values import *\n")
    assert view("from colorsys import *\n") == view("")  # a foreign star import reads as nothing
    assert view("from nsx.values import os\nimport os\n") != view("from nsx.values import os\n")  # shadows it
    assert view(base + "import brainpkg\n") != view(base)  # a tier's root
    assert view(base + "try:\n    from nsx.values import other\nexcept ImportError:\n    pass\n") != view(base)
    assert view(base + "\n\ndef inner():\n    from nsx.values import other\n") == view(base)  # a function's own
    assert view("import nsx.values as other\n" + "from colorsys import other\n") != view("import nsx.values as other\n")


# -- random edit sequences ------------------------------------------------------------------------------------------
STEPS: list[tuple[str, str]] = [
    *UNREAD.values(),
    *READ.values(),
    (C, "\n\n@pytest.fixture\ndef extra():\n    import brainpkg\n"),
    ("tests/sub/test_c.py", "\n\ndef test_more(unused):\n    assert unused\n"),
    ("tests/test_a.py", "\n\ndef helper():\n    return 1\n"),
    (H, "\n\ndef make_more():\n    import vizpkg\n"),
    (S, "\nfrom tests.helpers import *\n"),
]


#: Lines added above everything in a file: every line of it moves.
ABOVE: list[tuple[str, str]] = [
    (H, "import colorsys\n"),
    (C, "\n"),
    (S, "import colorsys\n"),
    ("tests/sub_helpers.py", "\n"),
]


def _step(project: Project, index: int) -> str:
    if index >= len(STEPS) + len(FILES):  # a line added above
        rel, text = ABOVE[index % len(ABOVE)]
        project.write(rel, text + (project.root / rel).read_text())
        return rel
    if index >= len(STEPS):  # put a file back as it was
        rel = sorted(FILES)[index % len(FILES)]
        project.write(rel, FILES[rel])
        return rel
    rel, text = STEPS[index]
    project.append(rel, text)
    return rel


#: Variants of the generated project, each added to a file before the answer is kept.
SHAPES: list[tuple[str, str]] = [
    (H, "\nfrom tests.sub_helpers import *\n"),  # a name re-exported through a star import
    (C, "\n\ndef needy():\n    import vizpkg\n\n\n@pytest.fixture\ndef uses():\n    return needy()\n"),
    (C, "\n\n@pytest.fixture(autouse=True)\ndef auto_all():\n    return 1\n"),
    (S, "\nfrom tests.helpers import make\n"),  # a helper imported by a conftest
    ("tests/sub_helpers.py", "\nfrom tests.helpers import *\n"),  # an import cycle between helpers
]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.sets(st.integers(0, len(SHAPES) - 1)),
    st.lists(st.integers(0, len(STEPS) + len(FILES) + len(ABOVE) - 1), min_size=1, max_size=5),
)
def test_random_edit_sequences_hold_only_when_a_fresh_census_gives_the_same_result(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, shapes: set[int], steps: list[int]
) -> None:
    monkeypatch.setattr(keptrecord, "module_files", lambda: (set(), set()))
    project = Project(tmp_path_factory.mktemp("proj") / "proj")
    project.write("tests/sub_helpers.py", "has_b = 1\n")
    for shape in sorted(shapes):
        project.append(*SHAPES[shape])
    project.age()
    was = project.fresh()
    entry = project.record()
    changed: list[str] = []
    for index in steps:
        changed.append(_step(project, index))
        rels = sorted(set(changed))
        if _readers(project, entry, rels):
            assert project.fresh() == was
        assert _holds(project, entry, rels) == (project.fresh() == was)


NAMED = '@pytest.fixture\ndef picked(request):\n    if "vizpkg" in request.param:\n        import vizpkg\n'


def test_a_fixture_added_that_meets_only_needs_left_to_run_time_before_holds(project: Project) -> None:
    project.append(C, "\n\n" + NAMED)
    project.age()
    was = project.fresh()
    entry = project.record()
    project.append(C, "\n\n@pytest.fixture\ndef spare(picked):\n    return picked\n")  # meets picked's run-time need
    assert project.fresh() == was
    assert _readers(project, entry, [C])
    project.append(
        C, "\n\n@pytest.fixture\ndef other(request):\n    if 'vizpkg' in request.param:\n        import vizpkg\n"
    )
    assert project.fresh() != was  # a need left to run time of its own: the result names it
    assert not _readers(project, entry, [C])


def test_a_fixture_added_under_an_autouse_fixtures_name_is_not_told_alone(project: Project) -> None:
    project.append(C, "\n\n@pytest.fixture(autouse=True)\ndef setup_all():\n    import vizpkg\n")
    project.age()
    was = project.fresh()
    entry = project.record()
    project.append(S, "\n\n@pytest.fixture\ndef setup_all():\n    return 1\n")  # shadows it below tests/sub
    assert project.fresh() != was
    assert not _readers(project, entry, [S])
    assert not _holds(project, entry, [S])


def test_a_helper_added_that_a_fixture_already_named_is_not_told_alone(project: Project) -> None:
    needy = "\n\ndef needy():\n    import vizpkg\n\n\n@pytest.fixture\ndef uses():\n    return build()\n"
    project.append(C, needy)  # references are kept (a helper of the file needs a root): uses refers to build
    project.age()
    was = project.fresh()
    entry = project.record()
    project.append(C, "\n\ndef build():\n    import brainpkg\n")  # what uses refers to is now a helper
    assert not _readers(project, entry, [C])
    assert _holds(project, entry, [C]) == (project.fresh() == was)


def test_a_test_file_another_imports_holds_when_only_what_nobody_reads_changed(project: Project) -> None:
    project.write("tests/test_d.py", "from tests.test_a import has_viz\n\n\ndef test_d():\n    assert has_viz\n")
    project.age()
    was = project.fresh()
    entry = project.record()
    project.append("tests/test_a.py", "\n\ndef pytest_hook_like():\n    return 1\n")  # an unreferenced helper
    assert project.fresh() == was
    assert _readers(project, entry, ["tests/test_a.py"])
    project.append("tests/test_a.py", "\n\ndef test_more(value):\n    assert value\n")  # a test: the result shows it
    assert not _readers(project, entry, ["tests/test_a.py"])


def test_whether_an_import_is_foreign_is_asked_for_the_folder_it_is_looked_for_in() -> None:
    from tierlock.census.firstparty import ModuleIndex
    from tierlock.census.visible import Foreign

    # tests/ has no __init__.py: a test file there imports from tests/ itself (pytest's rootdir insertion)
    foreign = Foreign(
        ModuleIndex(["tests/test_x.py", "tests/helpers.py", "pkg/__init__.py", "src/lib.py"], ("", "src"))
    )
    assert not foreign("helpers", 0, "tests/test_x.py")  # beside it
    assert foreign("helpers", 0, "other.py")  # not from the root
    assert not foreign("helpers", 0, "tests/test_x.py")  # (asked again: the same)
    assert not foreign("lib.sub", 0, "other.py")  # on the import path
    assert not foreign("pkg", 0, "other.py")
    assert not foreign("tests.helpers", 0, "other.py")  # a folder of files
    assert foreign("colorsys.x", 0, "tests/test_x.py")
    assert not foreign("colorsys", 2, "tests/test_x.py")


def test_a_fixture_added_under_a_name_its_file_defines_is_not_told_alone(project: Project) -> None:
    project.append(C, "\n\n@pytest.fixture\ndef spare():\n    return 1\n")
    project.age()
    entry = project.record()
    project.append(C, "\n\n@pytest.fixture(name='spare')\ndef spare_again():\n    return 2\n")  # nothing requests it
    assert not _readers(project, entry, [C])


def test_an_entry_kept_without_the_fixture_names_or_run_time_needs_is_worked_out_whole(project: Project) -> None:
    entry = project.record()
    project.append(C, "\n\n@pytest.fixture\ndef unused():\n    return 2\n")
    assert _readers(project, entry, [C])
    for key in ("requests", "run_time"):
        (_root, (_inputs, _was, apart)), *_ = entry["rerun"]["surveys"]
        older = {k: v for k, v in apart.items() if k != key}
        entry["rerun"]["surveys"][0][1][2] = older
        assert not _readers(project, entry, [C])
        assert _holds(project, entry, [C])  # (the census worked out whole: the same result)
        entry["rerun"]["surveys"][0][1][2] = apart


def test_a_result_names_a_file_by_any_use_or_test_but_not_as_a_conftest_without_tests() -> None:
    import marshal

    from tierlock.census.visible import names_file

    def result(tests: list[Any], how: str) -> list[Any]:
        return ["Census", [["tiers", [["TierReport", [["outside", [["Use", [["how", how]]]]]]]]], ["tests", tests]]]

    empty = result([["tests/conftest.py", []], ["tests/test_a.py", [["test_it", 3]]]], "import brainpkg")
    assert not names_file(empty, "tests/conftest.py")
    assert not names_file(marshal.dumps(empty), "tests/conftest.py")
    assert not names_file(empty, "tests/helpers.py")
    assert names_file(empty, "tests/test_a.py")
    assert names_file(result([["tests/conftest.py", [["test_in_conftest", 9]]]], "x"), "tests/conftest.py")
    assert names_file(result([], "fixture brain (tests/conftest.py:12 needs brainpkg)"), "tests/conftest.py")
    assert names_file(marshal.dumps(result([], "reaches brainpkg at tests/helpers.py:5")), "tests/helpers.py")


def test_whether_an_import_is_foreign_sees_a_namespace_package_at_any_depth() -> None:
    from tierlock.census.firstparty import ModuleIndex
    from tierlock.census.visible import Foreign

    foreign = Foreign(ModuleIndex(["src/nsx/deep/values.py", "top.py"], ("", "src")))
    assert not foreign("nsx.deep", 0, "other.py")  # src/nsx holds files, below the import path folder src
    assert foreign("deep", 0, "other.py")  # (not a folder on the import path itself)


def test_a_class_helper_a_test_method_refers_to_is_read(project: Project) -> None:
    klass = (
        "class TestK:\n    def helper(self):\n        import vizpkg\n\n    def test_it(self):\n        self.helper()\n"
    )
    project.write("tests/test_k.py", klass)
    project.age()
    was = project.fresh()
    entry = project.record()
    project.write("tests/test_k.py", klass.replace("import vizpkg", "import brainpkg"))
    assert project.fresh() != was
    assert not _readers(project, entry, ["tests/test_k.py"])


def test_a_fixture_added_under_a_name_another_conftest_defines_but_nothing_requests_holds(project: Project) -> None:
    project.append(S, "\n\n@pytest.fixture\ndef spare():\n    return 1\n")
    project.age()
    was = project.fresh()
    entry = project.record()
    project.append(C, "\n\n@pytest.fixture\ndef spare():\n    return 2\n")
    assert project.fresh() == was
    assert _readers(project, entry, [C])


def test_a_fixture_added_to_a_conftest_whose_functions_nothing_read_before_is_worked_out(project: Project) -> None:
    hooks = "tests/hooks/conftest.py"
    project.write(hooks, "def pytest_configure(config):\n    pass\n")
    project.write("tests/hooks/test_h.py", "def test_h():\n    assert True\n")
    project.age()
    was = project.fresh()
    entry = project.record()
    project.append(hooks, "\n\nimport pytest\n\n\n@pytest.fixture\ndef needs_viz():\n    import vizpkg\n")
    assert project.fresh() != was  # a fixture that needs a root is in every report's list
    assert not _readers(project, entry, [hooks])
