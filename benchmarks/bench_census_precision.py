"""Precision and recall of the census on real projects, each finding checked by running its tests without the tier.

For each project (a checkout fetched at its pinned commit, copied to a
temporary folder; nothing of it is kept or committed here):

1. ``tierlock init --no-groups``, then ``tierlock census``: the findings;
2. **precision**: each finding's tests (the file, or the tests its remedy
   marks) run in an environment where the tier's import roots cannot be
   imported (a meta-path blocker; ``find_spec`` answers None for them too);
   the finding is true when a test then fails to import one of those roots
   (an import error, an `importorskip`), or passes with the tier and not
   without it (a skip on an availability flag or on the absent version);
3. **recall**: every test file (``python_files``) that a grep finds
   importing (or ``importorskip``-ing) a tier's root must be gated by a tier
   that provides it, or be a finding; the others are run with that root
   blocked (and not), and one that then shows the root as above is *missed*. A ``conftest.py``
   the grep finds is counted apart: what its fixtures need is attributed to
   their users, and what its helpers need reaches tests only through names
   looked up at run time (``pytest_generate_tests`` parametrizing backends):
   out of static reach, left to the plugin's run-time backstop; so is a file
   whose use the census lists as picked by name at run time
   (``left_to_run_time``: ``if "dask" in str(constructor): import dask``);
4. **the census's own remedies** are applied as printed (a glob added to the
   tier's ``tests``, or ``@pytest.mark.tier(...)`` above each test named),
   the census runs again, and what remains is checked as in 2.

Arguments: ``NAME=CHECKOUT=PYTHON`` per project, where PYTHON is an
interpreter whose environment has the project (editable), its test tools and
every tier that installs there (the benchmark blocks one at a time). Example::

    python benchmarks/bench_census_precision.py \\
        pyjwt=/tmp/pyjwt=/tmp/envs/pyjwt/bin/python httpx=/tmp/httpx=/tmp/envs/httpx/bin/python

The environments are made with ``uv venv`` and ``uv pip install -e CHECKOUT
...`` (the packages are listed in docs/benchmarks.md). Every subprocess runs
with ``PIP_CONFIG_FILE=/dev/null`` and without ``PIP_*`` / ``UV_*`` variables.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

#: The commits measured (docs/benchmarks.md records the figures for these).
PINNED = {
    "filesystem_spec": "669de5e157cd3ce3f9bf71c7bceb7bb31c8c7a55",
    "narwhals": "7880b36c45051dd6dea3c1b878bdc2f913d8efec",
    "pyjwt": "dcc27a9d3182a2349c30b160758785c6ce7a6508",
    "httpx": "ae1b9f66238f75ced3ced5e4485408435de10768",
}

BLOCKER = """
import importlib.abc, importlib.util, os, sys
_BLOCK = set(filter(None, os.environ.get("CENSUS_BENCH_BLOCK", "").split(",")))
if _BLOCK:
    class _Blocker(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in _BLOCK:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None
    sys.meta_path.insert(0, _Blocker())
    _find_spec = importlib.util.find_spec
    def _blocked_find_spec(name, package=None):
        if name.split(".")[0] in _BLOCK:
            return None
        return _find_spec(name, package)
    importlib.util.find_spec = _blocked_find_spec
"""


def clean_env(block: Iterable[str], blocker: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_", "PYTEST_", "TIERLOCK_"))}
    env.update(PIP_CONFIG_FILE=os.devnull, CENSUS_BENCH_BLOCK=",".join(sorted(block)), PYTHONPATH=str(blocker))
    env.pop("CI", None)
    return env


#: One test's result: ("classname::name", outcome, message); outcome: passed, skipped, error or failure.
Case = tuple[str, str, str]


def run_cases(  # noqa: PLR0917
    python: str, root: Path, targets: Sequence[str], block: Iterable[str], blocker: Path, extra: Sequence[str] = ()
) -> list[Case]:
    """Run *targets* (node ids, files or folders) with *block* unimportable; each test's outcome and message.

    A node id pytest cannot find (its module skips itself whole) is run as its file instead.
    """
    cases = _run(python, root, targets, block, blocker, extra)
    lost = {c[2].split("found no collectors for ", 1)[1].strip() for c in cases if "found no collectors for" in c[2]}
    if not lost:
        return cases
    again = sorted({t for t in targets if str(root / t) not in lost} | {t.split("::")[0] for t in targets})
    return _run(python, root, again, block, blocker, extra)


def _run(  # noqa: PLR0917
    python: str, root: Path, targets: Sequence[str], block: Iterable[str], blocker: Path, extra: Sequence[str]
) -> list[Case]:
    if not targets:
        return []
    report = root / ".census-bench.xml"
    command = [
        python, "-m", "pytest", "-p", "no:tierlock", "-p", "no:cacheprovider", "-p", "no:randomly",
        "-p", "no:xdist", "-q", "--no-header", f"--junitxml={report}", "-o", "addopts=", *extra, *targets,
    ]  # fmt: skip
    out = subprocess.run(
        command, cwd=root, env=clean_env(block, blocker), capture_output=True, text=True, timeout=3600, check=False
    )
    cases: list[Case] = [
        ("<output>", "error", line) for line in (out.stdout + out.stderr).splitlines() if "ERROR" in line
    ]
    try:
        tree = ET.parse(report)
    except (OSError, ET.ParseError):
        return cases
    report.unlink()
    for case in tree.iter("testcase"):
        head = f"{case.get('classname', '')}::{case.get('name', '')}"
        outcome, message = "passed", ""
        for child in case:
            if child.tag in ("skipped", "error", "failure"):
                outcome, message = child.tag, f"{child.get('message', '')} {child.text or ''}"
        cases.append((head, outcome, message))
    return cases


def shows(message: str, roots: Iterable[str]) -> bool:
    """Whether *message* says one of *roots* cannot be imported (an import error, an importorskip)."""
    return any(re.search(rf"(No module named '{r}\b|could not import '{r}\b)", message) for r in roots)


def differs(blocked: Iterable[Case], control: Iterable[Case]) -> list[str]:
    """The tests that run with the tier (pass, or fail on their own) and not without it: skipped or
    erroring (a skip condition on a flag, a version check of the absent package)."""
    ran = {c[0]: c[1] for c in control if c[1] in ("passed", "failure")}
    return [c[0] for c in blocked if c[0] in ran and c[1] in ("skipped", "error")]


def belongs(head: str, module: str, test: str) -> bool:
    """Whether a test id (``classname::name``) is *test* of *module* (or the module failing whole)."""
    if head == f"::{module}" or head.startswith(f"::{module}."):
        return True  # pytest's own lines, or a collection error of the module
    if not head.startswith((module + "::", module + ".")):
        return False
    if not test:
        return True
    klass, _, name = test.rpartition(".")
    want = f"{klass}::{name}" if klass else f"{module}::{name}"
    at = head.find(want)
    return at >= 0 and head[at + len(want) :][:1] in ("", "[")


def targets(finding: dict[str, Any]) -> list[str]:
    """The tests a finding names (node ids), else the files (or folders) it gates."""
    fix = finding.get("fix", {})
    if "mark" in fix:
        return [f"{finding['file']}::{m['test'].replace('.', '::')}" for m in fix["mark"]]
    return [g[:-3] if g.endswith("/**") else g for g in fix.get("tests", [finding["file"]])]


def verdict(finding: dict[str, Any], blocked: list[Case], control: list[Case], roots: Iterable[str]) -> str:
    """``true`` when a test of the finding, run without the root, says so (an import error, an importorskip, a
    skip naming it) or passes with it and not without it; ``unverifiable`` when its tests do not run with the
    tier either (skipped for another reason, not collected); else ``false``."""
    file = finding["file"]
    module = (file.rsplit("/", 1)[0] if file.endswith("conftest.py") else file.removesuffix(".py")).replace("/", ".")
    tests = [m["test"] for m in finding.get("fix", {}).get("mark", [])] or [""]
    mine = [c for c in blocked if any(belongs(c[0], module, t) for t in tests)]
    if any(shows(c[2], roots) for c in mine) or differs(mine, control):
        return "true"
    ran = [c for c in control if any(belongs(c[0], module, t) for t in tests) and c[1] in ("passed", "failure")]
    return "false" if ran else "unverifiable"


def tierlock_json(root: Path, *argv: str) -> dict[str, Any]:
    import contextlib
    import io

    from tierlock.cli import main

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        main(["--project", str(root), "--json", *argv])
    document: dict[str, Any] = json.loads(buffer.getvalue())
    return document


def roots_by_tier(root: Path) -> dict[str, tuple[str, ...]]:
    from tierlock.census import census_tiers
    from tierlock.tiers import load_project

    return {t.name: t.roots for t in census_tiers(load_project(root))}


def check(python: str, root: Path, findings: list[dict[str, Any]], blocker: Path) -> dict[str, list[str]]:
    """Each finding's tests run without its tier (and with it, as a control): the findings by verdict."""
    roots = roots_by_tier(root)
    by_tier: dict[str, list[dict[str, Any]]] = {}
    for finding in findings:
        if finding["kind"] == "census-importer":
            by_tier.setdefault(finding["tier"], []).append(finding)
    out: dict[str, list[str]] = {"true": [], "false": [], "unverifiable": []}
    for tier, items in by_tier.items():
        files = sorted({t for f in items for t in targets(f)})
        needed = sorted({r for f in items for r in f.get("roots", roots[tier])})  # not a tooling root it also has
        blocked = run_cases(python, root, files, needed, blocker)
        control = run_cases(python, root, files, (), blocker)
        for finding in items:
            found = verdict(finding, blocked, control, finding.get("roots", needed))
            out[found].append(f"{finding['file']}: {tier}: {finding['detail']}")
    return out


GREP = r"^\s*(?:import|from)\s+{root}\b|importorskip\(\s*['\"]{root}\b"


def recall(python: str, root: Path, census: dict[str, Any], blocker: Path) -> dict[str, Any]:
    """Grep the test files for each tier's roots; what the census neither gates nor reports is run."""
    from tierlock.census import pytest_settings
    from tierlock.census.tree import DiskTree
    from tierlock.tiers import load_project
    from tierlock.tiers.globs import matches

    findings = census["findings"]
    run_time = {(u["file"], u["root"]) for t in census["tiers"] for u in t["left_to_run_time"]}
    project = load_project(root)
    folders, patterns = pytest_settings(root)
    listing = DiskTree(root).walk(folders, patterns)
    reported = {(f["file"], f["tier"]) for f in findings}
    providers: dict[str, list[str]] = {}
    for tier, names in roots_by_tier(root).items():
        for name in names:
            providers.setdefault(name, []).append(tier)
    everything = grep(root, listing.tests, [n for n, tiers in providers.items() if tiers != ["base"]])
    hits = [(rel, name) for rel, name in everything if not rel.endswith("conftest.py")]
    conftests = sorted({f"{rel} ({name})" for rel, name in everything if rel.endswith("conftest.py")})
    gated = reported_n = 0
    by_name: list[str] = []
    unexplained: list[tuple[str, str]] = []
    for rel, name in hits:
        tiers = providers[name]
        if any(matches(rel, project.tier(t).tests) for t in tiers):
            gated += 1
        elif any((rel, t) in reported for t in tiers):
            reported_n += 1
        elif (rel, name) in run_time:
            by_name.append(f"{rel} ({name})")
        else:
            unexplained.append((rel, name))
    missed, not_needed = [], []
    for rel, name in unexplained:
        cases = run_cases(python, root, [rel], [name], blocker)
        showing = [c[0] for c in cases if shows(c[2], [name])]
        showing += differs(cases, run_cases(python, root, [rel], (), blocker))
        if showing:
            missed.append(f"{rel} ({name}): {', '.join(showing[:5])}")
        else:
            not_needed.append(f"{rel} ({name})")
    return {
        "hits": len(hits),
        "gated": gated,
        "reported": reported_n,
        "not_needed": not_needed,
        "missed": missed,
        "conftests": conftests,
        "picked_by_name": by_name,
    }


def grep(root: Path, files: Iterable[str], names: Iterable[str]) -> list[tuple[str, str]]:
    """(file, root) of each test file a grep finds importing (or importorskip-ing) one of *names*."""
    patterns = {name: re.compile(GREP.format(root=re.escape(name)), re.MULTILINE) for name in names}
    out: list[tuple[str, str]] = []
    for rel in files:
        text = (root / rel).read_text(encoding="utf-8", errors="replace")
        out.extend((rel, name) for name, pattern in patterns.items() if pattern.search(text))
    return out


def apply_remedies(root: Path, findings: list[dict[str, Any]]) -> int:
    """Apply each finding's remedy as printed: globs into the tier's ``tests``, markers above the tests."""
    import tomlkit

    pyproject = root / "pyproject.toml"
    document = tomlkit.parse(pyproject.read_text(encoding="utf-8"))
    marks: dict[str, list[tuple[int, str]]] = {}
    applied = 0
    for finding in findings:
        fix = finding.get("fix", {})
        if "tests" in fix:
            table: Any = document["tool"]["tierlock"]["tiers"][finding["tier"]]
            if "tests" not in table:
                table["tests"] = tomlkit.array()
            for glob in fix["tests"]:
                if glob not in table["tests"]:
                    table["tests"].append(glob)
            applied += 1
        for mark in fix.get("mark", []):
            marks.setdefault(finding["file"], []).append((mark["line"], finding["tier"]))
            applied += 1
    pyproject.write_text(tomlkit.dumps(document), encoding="utf-8")
    for rel, items in marks.items():
        lines = (root / rel).read_text(encoding="utf-8").splitlines(keepends=True)
        for line, tier in sorted(set(items), reverse=True):
            indent = re.match(r"\s*", lines[line - 1]).group(0)  # type: ignore[union-attr]
            lines.insert(line - 1, f'{indent}@__import__("pytest").mark.tier({tier!r})\n')
        (root / rel).write_text("".join(lines), encoding="utf-8")
    return applied


def measure(name: str, checkout: Path, python: str, blocker: Path) -> dict[str, Any]:
    git = ["git", "-C", str(checkout), "rev-parse", "HEAD"]
    commit = subprocess.run(git, capture_output=True, text=True, check=False).stdout
    with tempfile.TemporaryDirectory(prefix=f"census-bench-{name}-") as tmp:
        root = Path(tmp) / name
        shutil.copytree(checkout, root, ignore=shutil.ignore_patterns(".git", ".venv", ".pytest_cache"))
        start = time.perf_counter()
        init = tierlock_json(root, "init", "--no-groups")
        elapsed = time.perf_counter() - start
        census = tierlock_json(root, "census")
        findings = census["findings"]
        checked = check(python, root, findings, blocker)
        print(f"{name}: precision: " + json.dumps({k: len(v) for k, v in checked.items()}), flush=True)
        for verdict_name in ("false", "unverifiable"):
            for line in checked[verdict_name]:
                print(f"  {verdict_name}: {line}", flush=True)
        grep = recall(python, root, census, blocker)
        print(
            f"{name}: recall: " + json.dumps({k: v if isinstance(v, int) else len(v) for k, v in grep.items()}),
            flush=True,
        )
        applied = apply_remedies(root, findings)
        after = tierlock_json(root, "census")["findings"]
        checked_after = check(python, root, after, blocker)
        return {
            "project": name,
            "commit": commit.strip(),
            "pinned": PINNED.get(name) == commit.strip(),
            "init_seconds": round(elapsed, 2),
            "tiers": len(init["tiers"]),
            "ci_require": init["ci_require"],
            "findings": len(findings),
            "checked": checked,
            "recall": grep,
            "remedies_applied": applied,
            "after_remedies": len(after),
            "after": checked_after,
        }


def main(argv: Sequence[str]) -> None:
    results = []
    with tempfile.TemporaryDirectory(prefix="census-bench-blocker-") as blocker:
        Path(blocker, "sitecustomize.py").write_text(BLOCKER, encoding="utf-8")
        for spec in argv:
            name, checkout, python = spec.split("=", 2)
            result = measure(name, Path(checkout), python, Path(blocker))
            results.append(result)
            grep = result["recall"]
            print(
                f"{name} ({result['commit'][:12]}{'' if result['pinned'] else ', NOT the pinned commit'}): "
                f"{result['tiers']} tiers, {result['findings']} findings after init: "
                f"{len(result['checked']['true'])} true, {len(result['checked']['false'])} false, "
                f"{len(result['checked']['unverifiable'])} unverifiable; grep: {grep['hits']} file/root pairs, "
                f"{grep['gated']} gated, {grep['reported']} reported, {len(grep['not_needed'])} not needed, "
                f"{len(grep['missed'])} missed ({len(grep['conftests'])} conftest hits and "
                f"{len(grep['picked_by_name'])} picked by name at run time apart); "
                f"after {result['remedies_applied']} remedies: "
                f"{result['after_remedies']} findings ({len(result['after']['false'])} false)"
            )
            checked = result["checked"]
            lines = [
                *(f"false: {x}" for x in checked["false"]),
                *(f"unverifiable: {x}" for x in checked["unverifiable"]),
            ]
            lines += [f"missed: {m}" for m in grep["missed"]] + [f"false after: {x}" for x in result["after"]["false"]]
            for line in lines:
                print(f"  {line}")
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
