"""The exit codes of every command, named once.

This module imports nothing, so the fast paths (the console script's no-op install, the
``verified`` gate of a pre-push hook) read the codes without loading the error classes;
every other module imports them from :mod:`tierlock.errors`, beside the errors that carry them.
The user-facing table: ``docs/reference/cli.md``.
"""

#: Ok.
EXIT_OK = 0
#: The check ran and failed (invalid config, drift, a tier absent or partial where required).
EXIT_FAILED = 1
#: Usage or configuration error (bad flags, no pyproject, unknown tier).
EXIT_USAGE = 2
#: An installer backend (uv, pip) or another tool tierlock runs failed.
EXIT_BACKEND = 3
#: A pytest run that failed closed: a tier it needs is missing (pytest's own codes are 0 to 5).
EXIT_TIER_MISSING = 6
#: SIGINT or SIGTERM stopped the command.
EXIT_INTERRUPTED = 130
