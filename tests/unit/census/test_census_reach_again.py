"""The project's modules followed once and asked again as files are read give a fresh look's answers.

:meth:`tierlock.census.firstparty.Reach.again` keeps every remembered answer across the census's rounds and forgets
only those resting on a file that had no facts, once such a file is read. Checked here against a :class:`Reach`
made afresh over the same facts, for any small project hypothesis makes of star imports, module imports, flags
set by ``try: import`` (imported by name, tested by ``if``), guarded imports and a tier's root, read in any order
and asked any questions in between.
"""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from tierlock.census.filefacts import read_file
from tierlock.census.firstparty import ModuleIndex, Reach

NAMES = [f"m{i}" for i in range(5)]
FLAG = "try:\n    import uproot\n    has_x = True\nexcept ImportError:\n    has_x = False\n"
#: Statement shapes; ``{j}`` is another module of the project.
STATEMENTS = [
    "from {j} import *\n",
    "import {j}\n",
    "from {j} import has_x\n",
    "import uproot\n",
    FLAG,
    "if has_x:\n    import {j}\n",
    "try:\n    from {j} import *\nexcept ImportError:\n    pass\n",
    "def helper():\n    import {j}\n",
]
statement = st.tuples(st.integers(0, len(STATEMENTS) - 1), st.sampled_from(NAMES))


def _text(parts: list[tuple[int, str]]) -> str:
    return "".join(STATEMENTS[i].replace("{j}", j) for i, j in parts)


module_text = st.lists(statement, max_size=4).map(_text)
QUESTIONS = ["symbol", "module_needs", "interesting", "exported"]
question = st.tuples(st.sampled_from(QUESTIONS), st.sampled_from(NAMES))


def _ask(reach: Reach, what: str, name: str) -> object:
    rel = f"{name}.py"
    if what == "symbol":
        return reach.symbol(rel, "has_x")
    if what == "module_needs":
        return reach.module_needs(rel)
    if what == "interesting":
        return reach.interesting(rel)
    return reach.exported(rel, "has_x")


@settings(max_examples=300, deadline=None)
@given(
    texts=st.fixed_dictionaries(dict.fromkeys(NAMES, module_text)),
    order=st.permutations(NAMES),
    cuts=st.lists(st.integers(0, 5), min_size=2, max_size=4),
    questions=st.lists(question, max_size=12),
)
def test_answers_kept_across_rounds_are_those_of_a_fresh_reach_over_the_same_facts(
    texts: dict[str, str], order: list[str], cuts: list[int], questions: list[tuple[str, str]]
) -> None:
    index = ModuleIndex([f"{name}.py" for name in NAMES])
    facts: dict[str, object] = {}
    reach = Reach(index, facts, ["uproot"])  # type: ignore[arg-type]
    read = 0
    for cut in sorted(cuts):
        added = [f"{name}.py" for name in order[read:cut]]
        for rel in added:
            facts[rel] = read_file(texts[rel[:-3]], rel)
        read = max(read, cut)
        if not reach.again(added):
            reach = Reach(index, facts, ["uproot"])  # type: ignore[arg-type]
        fresh = Reach(index, facts, ["uproot"])  # type: ignore[arg-type]
        kept = copy.deepcopy(reach)  # (asked everything apart: the round's own questions leave other answers open)
        kept.facts = facts  # type: ignore[assignment]
        for what in QUESTIONS:
            for name in NAMES:
                assert _ask(kept, what, name) == _ask(fresh, what, name), (what, name, sorted(facts))
        for what, name in questions:  # asked in the round, as the census does
            _ask(reach, what, name)
