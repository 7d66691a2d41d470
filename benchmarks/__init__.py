"""Benchmarks: each runs tierlock and its peer side by side and prints the ratio."""
