"""The census: which test files need which tier, read statically (never importing them).

The parts, each readable on its own:

* :mod:`.filefacts` — one file read with :mod:`ast`: imports (guarded or not),
  availability flags, mark aliases, tests, fixtures and helpers;
* :mod:`.firstparty` — through the project's own modules: what importing one
  needs, and what a name imported from one stands for;
* :mod:`.fixtures` — what a test needs through the fixtures it requests
  (looked up as pytest does) and the helpers it calls;
* :mod:`.attribute` — each file's uses, and each tier's report, attributed
  to the smallest tier that provides the root;
* :mod:`.remedy` — the findings ``tierlock check`` reports, with their fix;
* :mod:`.cache` and :mod:`.tree` — the per-file cache and the disk, both
  injected into :func:`.engine.survey`;
* :mod:`.projectcensus` — a :class:`tierlock.tiers.Project`'s census.

What stays out of static reach (a fixture looked up by a name computed at run
time, ``pytest_generate_tests`` choosing backends, a decoder the library
picks by itself) is left to the pytest plugin, which attributes at run time
any skip or import error naming an absent tier's root.
"""

from __future__ import annotations

from tierlock import _lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tierlock.census.cache import CACHE_KEY, CensusCache, FolderCache, Memo
    from tierlock.census.engine import DEFAULT_PATHS, DEFAULT_PATTERNS, survey
    from tierlock.census.filefacts import FileFacts, read_file
    from tierlock.census.ondisk import census, root_tier
    from tierlock.census.projectcensus import accept_table, census_tiers, import_paths, project_census, pytest_settings
    from tierlock.census.report import Census, CensusTier, Finding, TierReport, Use
    from tierlock.census.tree import SKIP_DIRS, DiskTree, Tree, walk

#: The names are imported on first use: a kept answer that re-reads one edited test file
#: (:mod:`tierlock.census.summary`) loads the file reader alone, not the whole census.
_LAZY = {
    "CACHE_KEY": "tierlock.census.cache",
    "Census": "tierlock.census.report",
    "CensusCache": "tierlock.census.cache",
    "CensusTier": "tierlock.census.report",
    "DEFAULT_PATHS": "tierlock.census.engine",
    "DEFAULT_PATTERNS": "tierlock.census.engine",
    "DiskTree": "tierlock.census.tree",
    "FileFacts": "tierlock.census.filefacts",
    "Finding": "tierlock.census.report",
    "FolderCache": "tierlock.census.cache",
    "Memo": "tierlock.census.cache",
    "SKIP_DIRS": "tierlock.census.tree",
    "TierReport": "tierlock.census.report",
    "Tree": "tierlock.census.tree",
    "Use": "tierlock.census.report",
    "accept_table": "tierlock.census.projectcensus",
    "census": "tierlock.census.ondisk",
    "census_tiers": "tierlock.census.projectcensus",
    "import_paths": "tierlock.census.projectcensus",
    "project_census": "tierlock.census.projectcensus",
    "pytest_settings": "tierlock.census.projectcensus",
    "read_file": "tierlock.census.filefacts",
    "root_tier": "tierlock.census.ondisk",
    "survey": "tierlock.census.engine",
    "walk": "tierlock.census.tree",
}

__getattr__ = _lazy.attributes(__name__, _LAZY)

__all__ = [
    "CACHE_KEY",
    "DEFAULT_PATHS",
    "DEFAULT_PATTERNS",
    "SKIP_DIRS",
    "Census",
    "CensusCache",
    "CensusTier",
    "DiskTree",
    "FileFacts",
    "Finding",
    "FolderCache",
    "Memo",
    "TierReport",
    "Tree",
    "Use",
    "accept_table",
    "census",
    "census_tiers",
    "import_paths",
    "project_census",
    "pytest_settings",
    "read_file",
    "root_tier",
    "survey",
    "walk",
]
