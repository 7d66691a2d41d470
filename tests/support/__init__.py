"""Test helpers shared by the suite: real wheels, real venvs, a clean environment."""
