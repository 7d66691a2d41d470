"""CI detection."""

from __future__ import annotations

import pytest

from tierlock.ci import is_ci


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, False),
        ({"CI": "true"}, True),
        ({"CI": "TRUE"}, True),
        ({"CI": "1"}, True),
        ({"CI": "yes"}, True),
        ({"CI": "woodpecker"}, True),
        ({"CI": "false"}, False),
        ({"CI": "0"}, False),
        ({"CI": "false", "GITHUB_ACTIONS": "true"}, False),
        ({"GITHUB_ACTIONS": "true"}, True),
        ({"GITLAB_CI": "true"}, True),
        ({"BUILDKITE": "true"}, True),
        ({"CIRCLECI": "true"}, True),
        ({"TF_BUILD": "True"}, True),
        ({"JENKINS_URL": "https://ci.example"}, False),
        ({"JENKINS_URL": "https://ci.example", "BUILD_ID": "42"}, True),
    ],
)
def test_ci_detection(env: dict[str, str], expected: bool) -> None:
    assert is_ci(env) is expected
