"""One module per CLI command; see tierlock.cli for the protocol."""
