"""Why a command failed, read from the last lines of its log: the machine, or the code.

Pure functions over the (cleaned, redacted) tail lines. A failure on the machine is a
blocker, not a verdict about the code (:func:`blocker_cause`):

* ``env-variable``: Python's ``KeyError: 'NAME'`` after reading ``os.environ``, a strict
  shell's ``NAME: unbound variable`` / ``parameter not set``, "environment variable NAME is
  not set" and its usual spellings;
* ``credential``: HTTP 401 / 403, "authentication failed", ``Permission denied (publickey)``,
  "could not read Username", "bad credentials", an expired token;
* ``network``: a connection refused, reset or timed out, a name that does not resolve, an
  unreachable network, TLS verification failing;
* ``toolchain``: a shell's exit 127 (``NAME: command not found``).

A failure on the environment that a tier can cure (:func:`missing`) is what verify's one
repair looks for: a command not found, and ``ModuleNotFoundError: No module named 'X'``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_ENV_PATTERNS = (
    re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*): (?:unbound variable|parameter (?:null or )?not set)"),
    re.compile(
        r"(?i:environment variable|env(?:ironment)? var)s?[\s:]+['\"`$]?([A-Za-z_][A-Za-z0-9_]*)['\"`]?"
        r"(?i:\s+(?:is\s+)?(?:not set|unset|missing|required|must be set|is empty))"
    ),
    re.compile(r"(?i:missing|required|undefined) (?i:environment variable)s?[\s:]+['\"`$]?([A-Za-z_][A-Za-z0-9_]*)"),
)
_KEY_ERROR = re.compile(r"\bKeyError: '([A-Za-z_][A-Za-z0-9_]*)'")
#: A KeyError raised by reading the environment: the source line, or the frame of ``os`` (``python -c`` has no source).
_ENVIRON = re.compile(r"\benviron\b|\bgetenv\b|<frozen os>|[/\\]os\.py\", line \d+, in __getitem__")
_CREDENTIAL = re.compile(
    r"HTTP Error 40[13]|\b40[13] (?:Client Error|Unauthori[sz]ed|Forbidden)|\bstatus(?: code)?:? 40[13]\b"
    r"|(?i:authentication (?:failed|required))|Permission denied \(publickey|(?i:could not read (?:Username|Password))"
    r"|(?i:bad credentials|invalid credentials|invalid token|token (?:has )?expired|unauthorized: authentication)"
)
_NETWORK = re.compile(
    r"(?i:connection refused|connection reset by peer|connection timed out|network is unreachable|no route to host)"
    r"|(?i:could not resolve host|name or service not known|temporary failure in name resolution|getaddrinfo failed)"
    r"|nodename nor servname|(?i:failed to establish a new connection)|Max retries exceeded|CERTIFICATE_VERIFY_FAILED"
    r"|\bE(?:CONNREFUSED|CONNRESET|NOTFOUND|AI_AGAIN|TIMEDOUT|HOSTUNREACH|NETUNREACH)\b"
    r"|\[Errno (?:101|104|110|111|113|-2|-3)\]"
)
_NOT_FOUND = re.compile(r"(?:^|[\s:])([^\s:'\"]+): (?:command )?not found\s*$")
_NO_MODULE = re.compile(r"\bModuleNotFoundError: No module named '([A-Za-z_][A-Za-z0-9_.]*)'")


#: How a reason says where a failure came from.
ON = {
    "env-variable": "on an environment variable that is not set",
    "credential": "on a credential",
    "network": "on the network",
    "toolchain": "on a command that was not found",
}


@dataclass(frozen=True)
class Cause:
    """A blocker's kind, what the log says, the one thing to do, and the name involved (a variable, a command)."""

    kind: str
    line: str
    name: str | None = None


def _last(lines: Sequence[str], pattern: re.Pattern[str]) -> tuple[str, re.Match[str]] | None:
    for line in reversed(lines):
        match = pattern.search(line)
        if match is not None:
            return line, match
    return None


def env_variable(lines: Sequence[str]) -> Cause | None:
    """An environment variable the command needed and did not have."""
    for pattern in _ENV_PATTERNS:
        found = _last(lines, pattern)
        if found is not None:
            return Cause("env-variable", found[0].strip(), found[1].group(1))
    found = _last(lines, _KEY_ERROR)
    if found is not None and any(_ENVIRON.search(line) for line in lines):
        return Cause("env-variable", found[0].strip(), found[1].group(1))
    return None


def blocker_cause(lines: Sequence[str], exit_code: int | None) -> Cause | None:
    """The machine's part in a failure, when the tail shows one (see the module docstring), else None."""
    cause = env_variable(lines)
    if cause is not None:
        return cause
    for kind, pattern in (("credential", _CREDENTIAL), ("network", _NETWORK)):
        found = _last(lines, pattern)
        if found is not None:
            return Cause(kind, found[0].strip())
    if exit_code == 127:
        found = _last(lines, _NOT_FOUND)
        return Cause("toolchain", found[0].strip() if found else "exit 127", found[1].group(1) if found else None)
    return None


def missing(lines: Sequence[str], exit_code: int | None) -> tuple[str, str] | None:
    """(``command`` or ``module``, its name) a failure says is missing, else None."""
    found = _last(lines, _NO_MODULE)
    if found is not None:
        return "module", found[1].group(1).split(".")[0]
    if exit_code == 127:
        hit = _last(lines, _NOT_FOUND)
        if hit is not None:
            return "command", hit[1].group(1).rsplit("/", 1)[-1]
    return None


def required_action(cause: Cause, command: str) -> str:
    """The one thing to do about *cause*, as a sentence ending in the command to run again."""
    again = "then run again: tierlock verify"
    if cause.kind == "env-variable":
        return (
            f"set the environment variable {cause.name} where tierlock verify runs "
            f"(export {cause.name}=...; credentials are inherited, never configured), {again}"
        )
    if cause.kind == "credential":
        return f"provide the credential {command} needs (log in, or export its token), {again}"
    if cause.kind == "network":
        return f"restore network access for {command} (the host, a proxy, the DNS), {again}"
    name = cause.name or command
    return f"install {name} or put it on PATH (the setup list is the place to install it), {again}"
