"""CI detection: a pure function over an environment mapping."""

from __future__ import annotations

import os
from collections.abc import Mapping

_FALSE = {"0", "false", "no", "off"}
_VENDOR_FLAGS = ("GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "CIRCLECI", "TF_BUILD")


def is_ci(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the environment is a CI run.

    ``CI`` set to anything but a false value (``false``, ``0``, ``no``, ``off``;
    case-insensitive) means CI — ``true``, ``1``, ``yes`` and vendor values
    such as ``woodpecker`` all count. An explicit false ``CI`` wins over vendor
    variables. An empty ``CI`` says nothing, as if it were unset. Otherwise
    ``GITHUB_ACTIONS``, ``GITLAB_CI``, ``BUILDKITE``, ``CIRCLECI``,
    ``TF_BUILD`` (set to a value that is not false), or ``JENKINS_URL``
    together with ``BUILD_ID``.
    """
    env = os.environ if environ is None else environ
    ci = env.get("CI", "").strip().lower()
    if ci:
        return ci not in _FALSE
    if any(env.get(name, "").strip().lower() not in {"", *_FALSE} for name in _VENDOR_FLAGS):
        return True
    return bool(env.get("JENKINS_URL")) and bool(env.get("BUILD_ID"))
