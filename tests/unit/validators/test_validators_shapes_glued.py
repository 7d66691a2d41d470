"""Every credential shape is found and redacted glued to any characters on both sides (hypothesis).

The cloud shapes (Azure keys, connection strings and SAS signatures, GCP service-account keys and bare
DER keys, Datadog, SendGrid, Twilio, Hugging Face, any ``pypi-`` token) and ``Basic`` credentials glued
to one more character are planted between arbitrary text on the left and on the right: the value never
survives :func:`tierlock.redaction.redact`, and :func:`credential_kind` names a kind. The one documented
exception: 40 characters of an AWS secret access key glued to more base64 characters (or followed by
``=`` padding) cannot be told from a longer identifier, so they are glued to other characters only.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.credentials import shapes
from tierlock.redaction import credential_kind, redact
from tierlock.validators.core import validate_runtime_config

SHAPES = shapes()
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: What a credential may be glued to: letters, digits, the punctuation of command lines, URLs and configs.
GLUE = st.text(alphabet=st.sampled_from("aZx9_-/+=.:;,@%&?#'\" \t|()[]{}<>$!~"), max_size=6)
B64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def _unglued(name: str, left: str, right: str) -> tuple[str, str]:
    """The documented exception: a standalone AWS secret key is not glued to base64 characters."""
    if name.startswith("aws-secret"):  # base64 characters on either side, or padding after them
        glued_right = right and (right[0] in B64 or right[0] == "=")
        return (left + " " if left and left[-1] in B64 else left), (" " + right if glued_right else right)
    return left, right


@SETTINGS
@given(name=st.sampled_from(sorted(SHAPES)), left=GLUE, right=GLUE)
def test_every_shape_glued_on_both_sides_is_found_and_never_survives_redaction(
    name: str, left: str, right: str
) -> None:
    left, right = _unglued(name, left, right)
    value = SHAPES[name]
    text = left + value + right
    assert credential_kind(text) is not None, text
    assert value not in redact(text), text


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from([n for n in sorted(SHAPES) if not n.startswith(("aws-secret", "pem-", "openssh", "ssh2"))]),
    left=GLUE,
    right=GLUE,
    field=st.sampled_from(["args", "env", "label", "repositoryId", "key"]),
)
def test_a_glued_shape_in_any_field_is_refused_and_echoed_in_no_output(
    name: str, left: str, right: str, field: str
) -> None:
    value = left + SHAPES[name] + right
    command: dict[str, object] = {"command": "run"}
    command[field] = {"V": value} if field == "env" else [value] if field == "args" else value
    result = validate_runtime_config({"schemaVersion": 1, "verification": [command]}, checkout=False)
    assert "RC014" in {e.rule for e in result.errors}
    shown = "\n".join(f"{e.message} {e.hint} {e.where} {e.file}" for e in result.errors)
    assert SHAPES[name] not in shown
