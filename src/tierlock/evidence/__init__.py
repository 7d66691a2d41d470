"""Evidence: run the setup and verification commands and bind the result to the tree.

``tierlock verify`` reads its runtime config (:mod:`~tierlock.evidence.config`, and the base's
at a ref: :mod:`~tierlock.evidence.refconfig`), plans the commands (:mod:`~tierlock.evidence.steps`,
:mod:`~tierlock.evidence.prepare`), runs them in the target environment
(:mod:`~tierlock.evidence.activation`, :mod:`~tierlock.evidence.process`,
:mod:`~tierlock.evidence.execution`, :mod:`~tierlock.evidence.verify`) and writes a receipt
(:mod:`~tierlock.evidence.runreceipt`) into the evidence folder (:mod:`~tierlock.evidence.store`), bound
to the commit and tree (:mod:`~tierlock.evidence.gitbind`). ``tierlock verified``
(:mod:`~tierlock.evidence.fastgate`, :mod:`~tierlock.evidence.judge`) reads the receipts and says
whether the tree as it stands was verified; it imports only the standard library.
"""

#: The receipt's file name in a run folder, and the version of its document.
RECEIPT = "receipt.json"
RECEIPT_VERSION = 1
#: The evidence folder inside a git dir.
IN_GIT_DIR = ("tierlock", "evidence")
#: At most this many changed paths are listed in a message or a receipt.
MAX_LISTED = 20
#: Every command of a run carries this variable (the run id): processes that escape their group are found by it.
RUN_MARK = "TIERLOCK_VERIFY_RUN"
