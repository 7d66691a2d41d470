"""tierlock test suite."""
