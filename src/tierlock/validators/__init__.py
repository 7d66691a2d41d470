"""The runtime config validator: setup and verification commands, checked.

    result = validate_runtime_config("tierlock.runtime.json")
    if not result.ok:
        for error in result.errors:
            print(error.rule, error.where, error.line, error.message)

Importing this package is light: jsonschema is imported on the first
validation (see :mod:`tierlock.validators.schema`).
"""

from tierlock.validators.core import validate_runtime_config
from tierlock.validators.results import RULES, ValidationError, ValidationResult
from tierlock.validators.source import DISCOVERY, discover

__all__ = ["DISCOVERY", "RULES", "ValidationError", "ValidationResult", "discover", "validate_runtime_config"]
