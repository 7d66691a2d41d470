"""The runtime config validator: setup and verification commands, checked.

    result = validate_runtime_config("tierlock.runtime.json")
    if not result.ok:
        for error in result.errors:
            print(error.rule, error.where, error.line, error.message)

Importing this package is light: its names load on first use (finding a config loads
:mod:`tierlock.validators.configfile` alone), and jsonschema on the first validation (see
:mod:`tierlock.validators.schema`).
"""

from __future__ import annotations

from tierlock import _lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tierlock.validators.configfile import DISCOVERY, discover
    from tierlock.validators.core import validate_runtime_config
    from tierlock.validators.results import RULES, ValidationError, ValidationResult

_LAZY = {
    "DISCOVERY": "tierlock.validators.configfile",
    "discover": "tierlock.validators.configfile",
    "validate_runtime_config": "tierlock.validators.core",
    "RULES": "tierlock.validators.results",
    "ValidationError": "tierlock.validators.results",
    "ValidationResult": "tierlock.validators.results",
}

__getattr__ = _lazy.attributes(__name__, _LAZY)

__all__ = ["DISCOVERY", "RULES", "ValidationError", "ValidationResult", "discover", "validate_runtime_config"]
