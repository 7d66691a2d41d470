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
        ({"CI": "False"}, False),
        ({"CI": "no"}, False),
        ({"CI": ""}, False),
        ({"CI": "false", "GITHUB_ACTIONS": "true"}, False),
        ({"GITHUB_ACTIONS": "true"}, True),
        ({"GITLAB_CI": "true"}, True),
        ({"BUILDKITE": "true"}, True),
        ({"CIRCLECI": "true"}, True),
        ({"TF_BUILD": "True"}, True),
        ({"GITHUB_ACTIONS": "false"}, False),
        ({"JENKINS_URL": "https://ci.example"}, False),
        ({"JENKINS_URL": "https://ci.example", "BUILD_ID": "42"}, True),
    ],
)
def test_ci_detection(env: dict[str, str], expected: bool) -> None:
    assert is_ci(env) is expected


@pytest.mark.parametrize("vendor", ["GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "CIRCLECI", "TF_BUILD"])
def test_an_empty_ci_variable_does_not_hide_a_vendor_variable(vendor: str) -> None:
    assert is_ci({"CI": "", vendor: "true"}) is True
    assert is_ci({"CI": " ", "JENKINS_URL": "https://ci.example", "BUILD_ID": "42"}) is True
