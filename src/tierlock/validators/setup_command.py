"""The setup derivation of ``tierlock setup-command``: see :mod:`tierlock.setup_derivation`."""

from tierlock.setup_derivation import (
    LOCKFILE_COMMANDS,
    NEEDS_EXPLICIT,
    TIERLOCK_COMMAND,
    Proposal,
    from_lockfiles,
    propose,
    tierlock_command,
    tierlock_lockfile,
)

__all__ = [
    "LOCKFILE_COMMANDS",
    "NEEDS_EXPLICIT",
    "TIERLOCK_COMMAND",
    "Proposal",
    "from_lockfiles",
    "propose",
    "tierlock_command",
    "tierlock_lockfile",
]
