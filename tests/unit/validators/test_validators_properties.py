"""Properties over generated input (hypothesis).

* any document, any text and any bytes give a result: never an exception, never the internal-error
  exit 3 (the last-resort guard is never reached by this corpus);
* every rejection read from a file has a line and a column;
* the four formats agree on the verdict: the same errors, the same exit;
* every planted credential, of each shape, glued or not, in any string field, is refused and
  appears in no output format and no library result;
* ordinary values in any field stay accepted.
"""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.credentials import BENIGN, GLUES, every_output, shapes
from tierlock.validators import ValidationResult, validate_runtime_config
from tierlock.validators.renderers import github_lines, json_document, sarif_document, text_lines

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def assert_formats_agree(result: ValidationResult) -> None:
    """text, json, github and sarif report the same errors and the same verdict."""
    text = text_lines(result)
    document = json_document(result)
    github = github_lines(result)
    sarif = sarif_document(result)["runs"][0]["results"]
    count = document["error_count"]
    assert len(document["errors"]) == count
    assert len(text) == count + len(result.accepted) + 1  # one line per error and accepted value, a summary
    assert sum(1 for line in github if line.startswith("::error ")) == count
    assert sum(1 for r in sarif if r["level"] == "error") == count
    assert [e["rule"] for e in document["errors"]] == [r["ruleId"] for r in sarif if r["level"] == "error"]
    verdict = "valid (" in text[-1]
    assert verdict == document["ok"] == (count == 0 and document["parsed"])
    assert github[-1].endswith(text[-1].rsplit(": ", 1)[-1].replace("%", "%25"))


json_scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
FIELDS = ["repositoryId", "command", "args", "cwd", "env", "timeoutMs", "key", "label", "policy", "other"]
commands = st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=6) | json_values
documents = st.fixed_dictionaries(
    {},
    optional={
        "schemaVersion": st.sampled_from([1, 2, "1", None]) | json_values,
        "verification": st.lists(commands, max_size=4) | json_values,
        "setup": st.lists(commands, max_size=3),
        "repositories": st.lists(
            st.fixed_dictionaries(
                {"id": st.text(max_size=5), "path": st.sampled_from([".", "a", "/x", "..", "", "a/../..", "\x00"])},
                optional={"scope": st.lists(st.sampled_from(["s", "", ".", "a//b", "..", "\\x", "s\x00"]), max_size=3)},
            ),
            max_size=3,
        ),
        "acceptedCredentials": st.lists(
            st.fixed_dictionaries({}, optional={"path": st.text(max_size=20), "reason": json_values}), max_size=2
        ),
        "x-extra": json_values,
    },
)


@SETTINGS
@given(document=documents | json_values.filter(lambda v: not isinstance(v, str)))  # a str is a path
def test_any_document_gives_a_result_every_format_agrees_on(document: Any) -> None:
    result = validate_runtime_config(document, checkout=False)
    assert result.exit_code in (0, 1)
    assert_formats_agree(result)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("texts")


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("checkout")
    (root / "a" / "s").mkdir(parents=True)
    (root / "link").symlink_to(root.parent, target_is_directory=True)
    return root


def _check_file(path: Path, checkout: Path | bool) -> None:
    result = validate_runtime_config(path, checkout=checkout if isinstance(checkout, Path) else False)
    assert result.exit_code in (0, 1, 2)
    if not result.parsed:
        assert len(result.errors) == 1
    for error in result.errors:
        assert error.line is not None, error
        assert error.column is not None, error
    assert_formats_agree(result)


valid_texts = documents.map(json.dumps)
mutated_texts = st.tuples(valid_texts, st.integers(0, 200), st.text(max_size=8)).map(
    lambda t: t[0][: t[1]] + t[2] + t[0][t[1] :]
)


@SETTINGS
@given(text=st.text(max_size=200) | valid_texts.map(lambda t: t.replace("1", "1e999", 1)) | mutated_texts)
def test_any_text_as_json_or_toml_gives_a_positioned_result(text: str, scratch: Path, checkout: Path) -> None:
    for name in ("c.json", "c.toml"):
        path = scratch / name
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        _check_file(path, False)
    path = checkout / "tierlock.runtime.json"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    _check_file(path, checkout)


@SETTINGS
@given(data=st.binary(max_size=300) | valid_texts.map(str.encode).map(lambda b: b.replace(b"1", b"\xff\r", 1)))
def test_any_bytes_as_json_toml_or_pyproject_give_a_positioned_result(data: bytes, scratch: Path) -> None:
    for name in ("b.json", "b.toml", "pyproject.toml"):
        path = scratch / name
        path.write_bytes(data)
        _check_file(path, False)


TOML_PIECES = [
    "schemaVersion = 1\n",
    "verification = []\n",
    "[[verification]]\n",
    'command = "x"\n',
    "cwd = '../a'\n",
    "x-n = " + "9" * 4400 + "\n",
    "x-d = " + "[" * 80 + "]" * 80 + "\n",
    "[tool.tierlock.runtime]\n",
    'env = { A = "1", B = "\\u0000" }\n',
    "timeoutMs = inf\n",
    "[[repositories]]\nid = 'a'\npath = '.'\nscope = []\n",
]


@SETTINGS
@given(pieces=st.lists(st.sampled_from(TOML_PIECES), max_size=8))
def test_toml_documents_built_from_edge_pieces_give_a_positioned_result(pieces: list[str], scratch: Path) -> None:
    text = "".join(pieces)
    for name in ("p.toml", "pyproject.toml"):
        path = scratch / name
        path.write_text(text, encoding="utf-8")
        _check_file(path, False)


SHAPES = shapes()
PLANT_FIELDS = [
    ("key",),
    ("label",),
    ("cwd",),
    ("command",),
    ("args", 0),
    ("env", "V"),
    ("repositoryId",),
    ("policy", "inputs", 0),
    ("policy", "toolchainInputs", 0),
    ("policy", "resources", 0),
    ("policy", "independentGroup"),
]
TOP_FIELDS = [("$schema",), ("x-owner", "team"), ("repositories", 0, "path"), ("repositories", 0, "scope", 0)]


def _plant(document: dict[str, Any], where: tuple[Any, ...], value: str) -> None:
    node: Any = document
    for part, nxt in itertools.pairwise(where):
        if isinstance(part, int):
            while len(node) <= part:
                node.append([] if isinstance(nxt, int) else {})
            node = node[part]
        else:
            node = node.setdefault(part, [] if isinstance(nxt, int) else {})
    last = where[-1]
    if isinstance(last, int):
        node.append(value)
    else:
        node[last] = value


@pytest.mark.tier("cli")
@SETTINGS
@given(
    shape=st.sampled_from(sorted(SHAPES)),
    glue=st.sampled_from(GLUES),
    seed=st.integers(0, 2**32),
    where=st.sampled_from([("verification", 0, *f) for f in PLANT_FIELDS] + [("setup", 0, *f) for f in PLANT_FIELDS])
    | st.sampled_from(TOP_FIELDS),
    as_key=st.booleans(),
    fmt=st.sampled_from(["json", "toml", "data"]),
)
def test_a_planted_credential_is_refused_and_appears_nowhere(  # noqa: PLR0917 - hypothesis gives each
    shape: str, glue: str, seed: int, where: tuple[Any, ...], as_key: bool, fmt: str, scratch: Path
) -> None:
    secret = shapes(random.Random(seed))[shape]
    if shape.startswith("aws-secret") and glue and (glue[-1].isalnum() or glue[-1] in "/+"):
        glue += "-"  # glued to base64 characters, 40 of them are not a shape of their own (documented)
    planted = glue + secret + ("-_" if shape.startswith("aws-secret") else "Zz9")
    document: dict[str, Any] = {"schemaVersion": 1, "verification": [{"command": "run"}], "repositories": []}
    if as_key and secret.isprintable() and isinstance(where[-1], str):
        _plant(document, (*where[:-1], planted), "1")  # the credential as a key
    else:
        _plant(document, where, planted)
    if fmt == "data":
        result = validate_runtime_config(document, checkout=False)
    else:
        path = scratch / f"planted.{fmt}"
        if fmt == "json":
            path.write_text(json.dumps(document), encoding="utf-8")
        else:
            import tomlkit

            path.write_text(tomlkit.dumps(document), encoding="utf-8")
        result = validate_runtime_config(path, checkout=False)
    assert result.parsed
    assert "RC014" in {e.rule for e in result.errors}
    shown = every_output(result)
    shown += "\n".join(f"{e.message}\n{e.hint}\n{e.where}\n{e.pointer}\n{e.file}" for e in result.errors)
    assert secret not in shown
    assert_formats_agree(result)


@SETTINGS
@given(value=st.sampled_from(BENIGN), where=st.sampled_from([("args", 0), ("env", "V"), ("label",)]))
def test_ordinary_values_stay_accepted_in_any_field(value: str, where: tuple[Any, ...]) -> None:
    document: dict[str, Any] = {"schemaVersion": 1, "verification": [{"command": "run"}]}
    _plant(document, ("verification", 0, *where), value)
    result = validate_runtime_config(document, checkout=False)
    assert result.ok, result.errors
    assert text_lines(result)[-1].endswith("valid (1 command(s) checked)")
