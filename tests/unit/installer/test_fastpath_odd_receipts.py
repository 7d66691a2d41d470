"""A receipt the fast path cannot vouch for sends it the full way, with the reason; it never raises.

Receipts are files anyone can edit, copy between environments or leave half-written: another
schema, missing or mistyped fields, a receipt marked stale. Files only.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support.venvshape import armed, project
from tierlock.installer import fastpath, receipts
from tierlock.installer.location import environment_key


@pytest.fixture
def venv(tmp_path: Path) -> Path:
    armed(tmp_path / "venv", project(tmp_path / "proj"))
    return tmp_path / "venv"


def check(venv: Path, tiers: tuple[str, ...] = ("brain",)) -> tuple[fastpath.NoOp | None, str]:
    return fastpath.check(list(tiers), venv, environment_key(venv), venv.parent / "proj" / "pyproject.toml")


def edit(venv: Path, change: Callable[[dict[str, Any]], object]) -> None:
    path = receipts.receipt_path(venv, "brain")
    doc = json.loads(path.read_text(encoding="utf-8"))
    change(doc)
    path.write_text(json.dumps(doc), encoding="utf-8")


def test_an_untouched_receipt_holds(venv: Path) -> None:
    noop, why = check(venv)
    assert noop is not None, why


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda d: d.update(schema=2), "no receipt for brain in {venv}"),
        (lambda d: d.pop("schema"), "no receipt for brain in {venv}"),
        (lambda d: d.pop("pyproject"), "{pyproject} changed since brain was installed"),
        (lambda d: d.update(pyproject="x"), "{pyproject} changed since brain was installed"),
        (
            lambda d: d["pyproject"].update(path="/elsewhere/pyproject.toml"),
            "{pyproject} changed since brain was installed",
        ),
        (lambda d: d["pyproject"].update(digest="sha256:0"), "{pyproject} changed since brain was installed"),
        (lambda d: d.pop("interpreter"), "the receipt was written for None"),
        (lambda d: d.update(interpreter="x"), "the receipt was written for None"),
        (
            lambda d: d.update(stale={"replaced_by": ["gpu"]}),
            "brain was marked stale: another tier replaced its packages",
        ),
        (lambda d: d.pop("lockfiles"), "the receipt of brain names no lockfile of brain"),
        (lambda d: d.update(lockfiles={}), "the receipt of brain names no lockfile of brain"),
        (lambda d: d.update(lockfiles=["x"]), "the receipt of brain names no lockfile of brain"),
        (lambda d: d["lockfiles"].update(base="x"), "the lockfile of base changed since brain was installed"),
        (
            lambda d: d["lockfiles"]["brain"].update(digest="sha256:0"),
            "the lockfile of brain changed since brain was installed",
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_a_receipt_that_does_not_match_says_why(
    venv: Path, change: Callable[[dict[str, Any]], object], reason: str
) -> None:
    edit(venv, change)
    pyproject = venv.parent / "proj" / "pyproject.toml"
    assert check(venv) == (None, reason.format(venv=venv, pyproject=pyproject))


@pytest.mark.parametrize("text", ["[1, 2]", "null", '"brain"', ""])
def test_a_receipt_that_is_no_json_object_counts_as_none(venv: Path, text: str) -> None:
    receipts.receipt_path(venv, "brain").write_text(text, encoding="utf-8")
    assert check(venv) == (None, f"no receipt for brain in {venv}")


def test_package_rows_that_are_no_objects_are_left_out(venv: Path) -> None:
    edit(venv, lambda d: d["packages"].append("pkg"))
    noop, why = check(venv)
    assert noop is not None, why
    assert (noop.packages, noop.files) == (1, 3)


def test_no_tier_named_is_never_a_noop(venv: Path) -> None:
    assert check(venv, ()) == (None, "no tier named")


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d["packages"][0].update(files=[["pkg/__init__.py"]]),  # ValueError
        lambda d: d["packages"][0].update(files=[[]]),  # ValueError
        lambda d: d["packages"][0].update(files=[5]),  # TypeError
        lambda d: d.update(packages=5),  # TypeError
    ],
)
def test_a_receipt_of_an_unexpected_shape_sends_try_noop_the_full_way(
    venv: Path, change: Callable[[dict[str, Any]], object]
) -> None:
    edit(venv, change)
    noop, why = fastpath.try_noop(["brain"], project_arg=str(venv.parent / "proj"), python=str(venv), system=False)
    assert noop is None
    assert why.startswith("a receipt could not be read: ")


def test_the_json_reader_refuses_what_the_standard_library_refuses() -> None:
    for bad in ("", "   ", "no json", '"a\tb"', '{"a": 1}{"b": 2}', "[1,]"):
        with pytest.raises(ValueError):  # noqa: PT011 - any ValueError: the fast path then steps aside
            json.loads(bad)
        with pytest.raises(ValueError):  # noqa: PT011
            fastpath.loads(bad)
    assert fastpath.loads('\n\t {"a": -1e3} \r\n') == {"a": -1000.0}


def test_a_receipt_vouches_only_for_exactly_the_lockfiles_pins_and_says_which_differ(venv: Path) -> None:
    lock = venv.parent / "proj" / "lockfiles" / "brain.txt"
    edit(venv, lambda d: d["packages"].append({"name": "other", "version": "2.0", "site": "", "files": []}))
    assert check(venv) == (None, f"the receipt of brain vouches for other 2.0, which {lock} does not pin")
    edit(venv, lambda d: d["packages"].pop())
    edit(venv, lambda d: d["packages"][0].update(version="9.9"))
    assert check(venv) == (None, f"the receipt of brain vouches for pkg 9.9, which {lock} does not pin")
    edit(venv, lambda d: d["packages"][0].update(version="1.0"))
    text = lock.read_text(encoding="utf-8")
    lock.write_text(text + f"zeta==1.0 --hash=sha256:{'b' * 64}\nalpha==2.0 --hash=sha256:{'c' * 64}\n")
    edit(venv, lambda d: d["lockfiles"]["brain"].update(digest=receipts.file_digest(lock)))
    assert check(venv) == (None, f"{lock} pins alpha, zeta, which the receipt of brain does not vouch for")
    edit(venv, lambda d: d.update(left_out=["zeta", "Alpha"]))  # left out here: markers, tags
    noop, why = check(venv)
    assert noop is not None, why
    edit(venv, lambda d: d.pop("left_out"))
    assert check(venv) == (None, f"the receipt of brain cannot be compared with {lock} here")
