"""The installer: arm tiers exactly from their lockfiles, repair husks, keep receipts.

``plan`` is pure; ``backends``, ``receipts``, ``locking`` and ``inventory``
are the edges; ``run`` orchestrates them. Nothing here is imported on the
fast paths of other commands.
"""
