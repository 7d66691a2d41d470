"""``python -m tierlock``: the same as the ``tierlock`` script (no-op fast path included)."""

from tierlock._entry import tierlock

if __name__ == "__main__":
    tierlock()
