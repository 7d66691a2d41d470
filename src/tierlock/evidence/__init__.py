"""Evidence: run the setup and verification commands and bind the result to the tree.

``tierlock verify`` (:mod:`tierlock.evidence.verify`) validates the runtime
config, runs its commands (:mod:`~tierlock.evidence.run`), and writes a
receipt (:mod:`~tierlock.evidence.receipt`) bound to the commit and tree
(:mod:`~tierlock.evidence.gitbind`). ``tierlock verified``
(:mod:`~tierlock.evidence.gate`) reads the receipts and says whether the
current tree was verified; it imports only the standard library.
"""

#: The receipt's file name in a run folder, and the version of its document.
RECEIPT = "receipt.json"
RECEIPT_VERSION = 1
#: The evidence folder inside a git dir.
IN_GIT_DIR = ("tierlock", "evidence")
#: At most this many changed paths are listed in a message or a receipt.
MAX_LISTED = 20
