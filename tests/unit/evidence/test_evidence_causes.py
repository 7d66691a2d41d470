"""Reading a failed command's last lines: the machine's part (a blocker kind) and what a tier could cure.

The lines are the ones real tools print: Python tracebacks, dash and bash, curl, git, pip, npm, requests.
"""

from __future__ import annotations

import pytest

from tierlock.evidence import causes


@pytest.mark.parametrize(
    ("lines", "name"),
    [
        (
            [
                "Traceback (most recent call last):",
                '  File "<frozen os>", line 679, in __getitem__',
                "KeyError: 'API_KEY'",
            ],
            "API_KEY",
        ),
        (["    token = os.environ['GH_TOKEN']", "KeyError: 'GH_TOKEN'"], "GH_TOKEN"),
        (['  File "/usr/lib/python3.11/os.py", line 679, in __getitem__', "KeyError: 'HOME_DIR'"], "HOME_DIR"),
        (["sh: 1: API_URL: parameter not set"], "API_URL"),
        (["bash: line 1: DEPLOY_ENV: unbound variable"], "DEPLOY_ENV"),
        (["sh: 1: REGION: parameter null or not set"], "REGION"),
        (["Error: environment variable DATABASE_URL is not set"], "DATABASE_URL"),
        (["error: env var `SENTRY_DSN` must be set"], "SENTRY_DSN"),
        (["Missing required environment variable: STRIPE_KEY"], "STRIPE_KEY"),
    ],
)
def test_an_unset_variable_is_an_env_variable_cause_naming_it(lines: list[str], name: str) -> None:
    cause = causes.blocker_cause(lines, 1)
    assert cause is not None
    assert (cause.kind, cause.name) == ("env-variable", name)
    assert name in causes.required_action(cause, "deploy")


def test_a_key_error_that_is_not_about_the_environment_is_no_cause() -> None:
    assert causes.blocker_cause(["    d = {}['missing']", "KeyError: 'missing'"], 1) is None
    assert causes.blocker_cause(["KeyError: 'API_KEY'"], 1) is None


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("urllib.error.HTTPError: HTTP Error 401: Unauthorized", "credential"),
        ("requests.exceptions.HTTPError: 403 Client Error: Forbidden for url: https://x.invalid", "credential"),
        ("fatal: Authentication failed for 'https://github.com/o/r.git/'", "credential"),
        ("git@github.com: Permission denied (publickey).", "credential"),
        ("fatal: could not read Username for 'https://github.com': terminal prompts disabled", "credential"),
        ("npm ERR! 401 Unauthorized - GET https://registry.invalid/pkg", "credential"),
        ("urllib.error.URLError: <urlopen error [Errno 111] Connection refused>", "network"),
        ("curl: (6) Could not resolve host: pypi.invalid", "network"),
        ("socket.gaierror: [Errno -3] Temporary failure in name resolution", "network"),
        ("socket.gaierror: [Errno -2] Name or service not known", "network"),
        ("npm ERR! code ENOTFOUND", "network"),
        ("ConnectionResetError: [Errno 104] Connection reset by peer", "network"),
        ("Max retries exceeded with url: /simple/ (Caused by NewConnectionError(...))", "network"),
        ("ssl.SSLCertVerificationError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed", "network"),
        ("OSError: [Errno 101] Network is unreachable", "network"),
    ],
)
def test_a_refused_credential_or_a_network_failure_is_named_by_its_kind(line: str, kind: str) -> None:
    cause = causes.blocker_cause(["some output", line, "more output"], 1)
    assert cause is not None
    assert (cause.kind, cause.line) == (kind, line)
    assert kind in causes.required_action(cause, "fetch")


def test_an_ordinary_failure_is_no_cause() -> None:
    lines = ["E   assert 2 == 3", "FAILED tests/test_x.py::test_y - assert 2 == 3", "1 failed, 3 passed in 0.1s"]
    assert causes.blocker_cause(lines, 1) is None
    assert causes.missing(lines, 1) is None
    assert causes.blocker_cause([], None) is None


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("sh: 1: ruff: not found", "ruff"),
        ("bash: line 1: mypy: command not found", "mypy"),
        ("/bin/sh: 1: /opt/tools/bin/black: not found", "black"),
    ],
)
def test_exit_127_is_a_toolchain_cause_and_names_the_missing_command(line: str, name: str) -> None:
    cause = causes.blocker_cause([line], 127)
    assert cause is not None
    assert cause.kind == "toolchain"
    assert cause.name is not None
    assert cause.name.endswith(name)
    assert causes.missing([line], 127) == ("command", name)
    assert causes.blocker_cause([line], 1) is None  # the words without the exit code are no proof


def test_exit_127_without_a_not_found_line_is_still_the_toolchain() -> None:
    cause = causes.blocker_cause(["something else"], 127)
    assert cause is not None
    assert (cause.kind, cause.line, cause.name) == ("toolchain", "exit 127", None)
    assert "install tox" in causes.required_action(cause, "tox")
    assert causes.missing(["something else"], 127) is None


def test_a_missing_module_names_its_top_level_package() -> None:
    lines = ["E   ModuleNotFoundError: No module named 'numpy.linalg'", "1 error in 0.2s"]
    assert causes.missing(lines, 2) == ("module", "numpy")
    assert causes.missing(["ModuleNotFoundError: No module named 'yaml'"], 1) == ("module", "yaml")


def test_the_last_matching_line_is_the_one_quoted() -> None:
    lines = ["curl: (7) Connection refused", "curl: (6) Could not resolve host: b.invalid"]
    cause = causes.blocker_cause(lines, 1)
    assert cause is not None
    assert cause.line == "curl: (6) Could not resolve host: b.invalid"
