"""Mutation testing of the modules that decide "present", "valid" and "safe" (cosmic-ray, one module at a time).

Usage (``make mutate MODULE=...`` calls this with the ``mutate`` tier armed)::

    python tools/mutate.py installer/plan.py      # one module: mutate, test, print the score
    python tools/mutate.py validators plugin      # several, one after the other
    python tools/mutate.py --all                  # every module listed in MODULES
    python tools/mutate.py --report [MODULE...]   # print the scores of the sessions already run
    python tools/mutate.py --list                 # the modules, their sources and their test files

cosmic-ray edits the module's file in place for each mutant and runs the module's fast test files
(``pytest -x``, no xdist); every process a test starts (``tierlock`` subprocesses through the editable
install, pytester runs) sees the mutant. So the run refuses a module with uncommitted changes, and
puts the committed text back if it is stopped half-way. Sessions live in ``.mutate/`` (not committed);
a rerun on the same commit resumes where the last one stopped.

What is mutated: cosmic-ray's core operators, less the mutants that cannot change behaviour or only
repeat another one (marked skipped before the run and not counted):

* anything inside a type annotation (every module has ``from __future__ import annotations``: an
  annotation is never evaluated), on a ``@dataclass(...)`` line (``frozen=True`` to ``False``: no
  code assigns to these objects, mypy refuses it) or an ``if TYPE_CHECKING:`` line (the imports
  under it then also run at run time: slower, the same behaviour);
* binary operators replaced by the arithmetic ones no code here uses (``* / // % ** << >> ^``: each
  site is still mutated to ``+ - | &``), ``==``/``!=`` replaced by an ordering or identity test
  (the negation is kept), and ``is``/``is not`` replaced by ``==``/``!=`` (equal for ``None``).
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import os
import random
import re
import shlex
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / ".mutate"
TIMEOUT = 120.0
"""Seconds one mutant's test run may take (a mutant that loops forever counts as killed)."""


@dataclass(frozen=True)
class Module:
    sources: tuple[str, ...]
    """Files or folders, relative to the repository (those missing on this commit are left out)."""
    tests: tuple[str, ...]
    """Globs of the fast test files that exercise the sources."""


MODULES: dict[str, Module] = {
    # The whole folder: the distribution and tier probes, and the shared-library lookup (elf, ldcache,
    # libcache, libraries, foreign, provider).
    "probing": Module(
        ("src/tierlock/probing",),
        (
            # The library lookup's quick unit tests first (no install): most of its mutants die there.
            "tests/unit/probing/test_probe_binaries.py",
            "tests/unit/probing/test_probe_library_lookup.py",
            "tests/unit/probing/test_probe*.py",
            "tests/unit/probing/test_markers_required.py",
            "tests/unit/tiers/test_tier_model_edges.py",
        ),
    ),
    "installer/plan.py": Module(("src/tierlock/installer/plan.py",), ("tests/unit/installer/test_installer_plan*.py",)),
    # Whether the target's loader takes an extension at all: its ELF header against the target interpreter's.
    "probing/elfmatch.py": Module(
        ("src/tierlock/probing/elfmatch.py", "src/tierlock/probing/libproblems.py"),
        (
            "tests/unit/probing/test_probe_extension_platform.py",
            "tests/unit/probing/test_probe_library_lookup.py",
            "tests/cli/test_install_foreign_extension.py",
        ),
    ),
    # A missing library the system provides, or one a wheel vendors (auditwheel's hashed name): whose fix it is.
    "probing/libremedy.py": Module(
        ("src/tierlock/probing/libremedy.py", "src/tierlock/probing/libproblems.py"),
        (
            "tests/unit/probing/test_vendored_library_names.py",
            "tests/unit/installer/test_inventory_verdicts.py",
            "tests/unit/probing/test_probe_libraries.py",
        ),
    ),
    # RECORD's rows read (quoted or not, a NUL byte refused) and the import roots from RECORD and top_level.txt.
    "probing/record.py": Module(
        ("src/tierlock/probing/record.py", "src/tierlock/probing/roots.py"),
        (
            "tests/unit/probing/test_probe_record_rows.py",
            "tests/unit/probing/test_probe_distinfo_arbitrary_bytes.py",
            "tests/unit/probing/test_probe_edges.py",
            "tests/unit/probing/test_probe_facts_ahead.py",
            "tests/unit/probing/test_probe_roots_and_records.py",
        ),
    ),
    # The backend step and the backends (the version asked beside the backend, once the kept plan's recording ended).
    "installer/backendrun.py": Module(
        ("src/tierlock/installer/backendrun.py",),
        (
            "tests/unit/installer/test_backend_version*.py",
            "tests/cli/test_install_backend_step.py",
            "tests/cli/test_no_build_install.py",
        ),
    ),
    "installer/backends.py": Module(
        ("src/tierlock/installer/backends.py",),
        (
            "tests/unit/installer/test_backends_parts.py",
            "tests/unit/installer/test_backend_temporary_folders.py",
            "tests/unit/installer/test_early_start_edges.py",
            "tests/cli/test_pip_beside_tierlock_and_the_targets_python.py",
            "tests/cli/test_install_backend_step.py",
            "tests/cli/test_no_build_install.py",
        ),
    ),
    # Dependencies declared where tierlock does not read them (Poetry's tables, setup.cfg, setup.py, requirements).
    "tiers/elsewhere.py": Module(
        ("src/tierlock/tiers/elsewhere.py",),
        (
            "tests/unit/tiers/test_elsewhere_requirements.py",
            "tests/cli/test_dependencies_declared_where_tierlock_does_not_read.py",
        ),
    ),
    # The project environment made when missing (python -m venv keeps its own pip where tierlock's cannot run).
    "installer/creation.py": Module(
        ("src/tierlock/installer/creation.py",),
        (
            "tests/unit/installer/test_project_environment_interpreter.py",
            "tests/cli/test_pip_beside_tierlock_and_the_targets_python.py",
            "tests/cli/test_remade_with_a_python_that_runs.py",
            "tests/cli/test_project_environment_without_a_python_on_path.py",
        ),
    ),
    # What is settled about the target before planning; a failing install into a Python requires-python excludes.
    "installer/preflight.py": Module(
        ("src/tierlock/installer/preflight.py",),
        (
            "tests/unit/installer/test_preflight_reinstall_names.py",
            "tests/unit/installer/test_outside_requires_python.py",
            "tests/unit/installer/test_installer_receipts.py",
            "tests/cli/test_target_below_requires_python.py",
            "tests/cli/test_install_target.py",
            "tests/cli/test_install_cli.py",
        ),
    ),
    # The pytest gate switched off (-p no:tierlock, autoload disabled), said by check and admit.
    "gateoff.py": Module(("src/tierlock/gateoff.py",), ("tests/cli/test_gate_switched_off.py",)),
    # The fix a venv whose Python requires-python excludes gets from probe, status, admit (and install-tier).
    "outsidepython.py": Module(
        ("src/tierlock/outsidepython.py", "src/tierlock/probing/tierremedy.py"),
        (
            "tests/unit/installer/test_outside_requires_python.py",
            "tests/unit/probing/test_tier_remedy_outside.py",
            "tests/unit/probing/test_probe_tier.py",
        ),
    ),
    "installer/request.py": Module(("src/tierlock/installer/request.py",), ("tests/unit/installer/test_request.py",)),
    # A uv.lock resolved for some environments only: a target outside them, and the environment that takes it in.
    "lockfiles/lockplatform.py": Module(
        ("src/tierlock/lockfiles/lockplatform.py",),
        ("tests/unit/lockfiles/test_lock_environments.py", "tests/unit/lockfiles/test_lockfiles_reader.py"),
    ),
    # [tool.uv] environments and required-environments against the lock's supported and required markers.
    "lockfiles/uvenvironments.py": Module(
        ("src/tierlock/lockfiles/uvenvironments.py",), ("tests/unit/lockfiles/test_uvenvironments.py",)
    ),
    # uv.lock's drift as findings of the tiers it concerns (an extra named through `project[extra]` too).
    "lockfiles/committed.py": Module(
        ("src/tierlock/lockfiles/committed.py",),
        ("tests/unit/lockfiles/test_uvlock_committed.py", "tests/cli/test_uv_lock_extras_of_the_project.py"),
    ),
    "volume.py": Module(("src/tierlock/volume.py",), ("tests/unit/core/test_volume.py",)),
    # The command line parsed without argparse (its answers compared with argparse's for every command).
    "quickargs.py": Module(("src/tierlock/quickargs.py",), ("tests/unit/core/test_quickargs.py",)),
    "fsutil.py": Module(
        ("src/tierlock/fsutil.py",), ("tests/unit/core/test_interrupts.py", "tests/unit/core/test_safe_reading.py")
    ),
    # What admit decides: each part's verdict and its one remedy (the probe part's --replace-armed among them).
    "admission.py": Module(
        ("src/tierlock/admission.py",),
        (
            "tests/unit/core/test_remedies.py",
            "tests/cli/test_plugin_remedy_replace_armed.py",
            "tests/cli/test_admit.py",
            "tests/cli/test_gate_switched_off.py",
        ),
    ),
    # The census's flags and marks made by a helper call (xarray's ``_importorskip``, ``@needs("x")`` of another
    # file), with their tests.
    "census/makers.py": Module(
        ("src/tierlock/census/makers.py",),
        (
            "tests/unit/census/test_census_made_marks_and_xfail.py",
            "tests/unit/census/test_census_makers_called_elsewhere.py",
            "tests/unit/census/test_census_maker_arguments.py",
            "tests/unit/census/test_census_computed_flags.py",
            "tests/unit/census/test_census_any_of_several_roots.py",
        ),
    ),
    # The availability flags a module defines (try/except flags, flag functions, flag tables), with their tests.
    "census/flagfacts.py": Module(
        ("src/tierlock/census/flagfacts.py",),
        (
            "tests/unit/census/test_census_flag_tables.py",
            "tests/unit/census/test_census_flag_functions.py",
            "tests/unit/census/test_census_flag_in_try_else.py",
            "tests/unit/census/test_census_metadata_version_flags.py",
            "tests/unit/census/test_census_computed_flags.py",
            "tests/unit/census/test_census_helper_module_imports.py",
            "tests/unit/census/test_census_any_of_several_roots.py",
        ),
    ),
    # What a stretch of a source can name, and the walk in ast.walk's order: the file reader's shortcuts.
    "census/mentions.py": Module(
        ("src/tierlock/census/mentions.py", "src/tierlock/census/walking.py"),
        ("tests/unit/census/test_census_reading_shortcuts.py",),
    ),
    # The reader of one file (its facts), with the census's unit tests.
    "census/filefacts.py": Module(("src/tierlock/census/filefacts.py",), ("tests/unit/census/test_census*.py",)),
    # A conftest hook's skip of a project's own mark on a flag, with its tests.
    "census/hookmarks.py": Module(
        ("src/tierlock/census/hookmarks.py",),
        ("tests/unit/plugin/test_plugin_hook_skipped_marks.py",),
    ),
    # Test files a project's conftest keeps out at run time, counted for the missing tier, with their tests.
    "pytest_plugin/hidden.py": Module(
        ("src/tierlock/pytest_plugin/hidden.py",),
        (
            "tests/unit/plugin/test_plugin_hidden_by_the_project.py",
            "tests/unit/plugin/test_plugin_doctest_modules_left_out_by_a_flag.py",
        ),
    ),
    # Where the plugin finds its project and which --project its remedies name (the module's test set is every
    # plugin test: too big to run per mutant): the tests of the project's place, the remedy it prints, the
    # declared conflicts, the damage, the selection's counts and a matrix job's tiers it decides.
    "pytest_plugin/startup.py": Module(
        ("src/tierlock/pytest_plugin/startup.py",),
        (
            "tests/unit/plugin/test_plugin_remedy_from_outside_the_project.py",
            "tests/unit/plugin/test_plugin_project_beside_the_rootdir.py",
            "tests/unit/plugin/test_plugin_remedy.py",
            "tests/unit/plugin/test_plugin_required_in_conflict.py",
            "tests/unit/plugin/test_plugin_remedy_loops.py",
            "tests/unit/plugin/test_plugin_damage.py",
            "tests/unit/plugin/test_pytest_plugin_selection.py",
            "tests/unit/plugin/test_plugin_hidden_by_the_project.py",
            "tests/unit/plugin/test_plugin_fail_closed_edges.py",
            "tests/cli/test_matrix_jobs.py",
        ),
    ),
    # The decision the plugin makes once and wires to xdist workers, and the remedies it words (with the tests of
    # the folders it gates, the damage it names and the tiers it counts).
    "pytest_plugin/decision.py": Module(
        ("src/tierlock/pytest_plugin/decision.py",),
        (
            "tests/unit/plugin/test_plugin_gate_wire.py",
            "tests/unit/plugin/test_plugin_remedy_from_outside_the_project.py",
            "tests/unit/plugin/test_plugin_remedy.py",
            "tests/unit/plugin/test_plugin_remedy_loops.py",
            "tests/unit/plugin/test_plugin_required_in_conflict.py",
            "tests/unit/plugin/test_plugin_named_inside_a_gated_folder.py",
            "tests/unit/plugin/test_plugin_damage.py",
            "tests/unit/plugin/test_pytest_plugin.py",
            "tests/unit/plugin/test_pytest_plugin_selection.py",
        ),
    ),
    # The run-time backstop alone (its module's test set is every plugin test: too big to run per mutant): the
    # attribution's unit tests first, then the pytester runs that read skips, errors and failures back to a tier.
    "pytest_plugin/backstop.py": Module(
        ("src/tierlock/pytest_plugin/backstop.py",),
        (
            "tests/unit/plugin/test_plugin_backstop_reports.py",
            "tests/unit/plugin/test_plugin_backstop.py",
            "tests/unit/plugin/test_plugin_marked_skips.py",
            "tests/unit/plugin/test_plugin_rerun_shapes.py",
            "tests/unit/plugin/test_plugin_xfail_and_made_marks.py",
            "tests/unit/plugin/test_plugin_real_project_shapes.py",
            "tests/unit/plugin/test_plugin_test_needing_two_missing_tiers.py",
            "tests/unit/plugin/test_plugin_parametrized_backend_skips.py",
            "tests/unit/plugin/test_plugin_made_marks.py",
            "tests/unit/plugin/test_plugin_any_of_several_tiers.py",
        ),
    ),
    # The failed imports (and distribution lookups) the backstop notes: the tests of the skips it ties to them.
    "pytest_plugin/failedimports.py": Module(
        ("src/tierlock/pytest_plugin/failedimports.py",),
        (
            "tests/unit/plugin/test_plugin_failed_import_skips.py",
            "tests/unit/plugin/test_plugin_failed_lookup_skips.py",
            "tests/unit/plugin/test_plugin_error_naming_a_failed_root.py",
            "tests/unit/plugin/test_plugin_hidden_by_the_project.py",
            "tests/unit/plugin/test_plugin_parametrized_backend_skips.py",
            "tests/unit/plugin/test_plugin_failed_names.py",
            "tests/unit/plugin/test_plugin_made_marks.py",
            "tests/unit/plugin/test_plugin_doctested_module_skips.py",
        ),
    ),
    # What the plugin reads of files without importing them: a test file's tests and marks, a conftest's ignores.
    "pytest_plugin/static_items.py": Module(
        ("src/tierlock/pytest_plugin/static_items.py", "src/tierlock/pytest_plugin/selection.py"),
        (
            "tests/unit/plugin/test_plugin_static_reading.py",
            "tests/unit/plugin/test_plugin_attribution.py",
            "tests/unit/plugin/test_plugin_file_too_deep_to_parse.py",
            "tests/unit/plugin/test_pytest_plugin_selection.py",
            "tests/unit/plugin/test_plugin_named_inside_a_gated_folder.py",
            "tests/unit/plugin/test_plugin_gating_edges.py",
            "tests/unit/plugin/test_plugin_hidden_by_the_project.py",
        ),
    ),
    # Which missing tier (or tiers) a skip reason or an error points to: its unit tests, then the backstop's.
    "pytest_plugin/attribution.py": Module(
        ("src/tierlock/pytest_plugin/attribution.py",),
        (
            "tests/unit/plugin/test_plugin_attribution.py",
            "tests/unit/plugin/test_plugin_backstop_reports.py",
            "tests/unit/plugin/test_plugin_test_needing_two_missing_tiers.py",
            "tests/unit/plugin/test_plugin_backstop.py",
            "tests/unit/plugin/test_plugin_helper_module_skips.py",
        ),
    ),
    # The plugin's header, summary and fail-closed lines: the counts and the command on each.
    "pytest_plugin/messages.py": Module(
        ("src/tierlock/pytest_plugin/messages.py",),
        (
            "tests/unit/plugin/test_plugin_messages.py",
            "tests/unit/plugin/test_plugin_test_needing_two_missing_tiers.py",
            "tests/unit/plugin/test_pytest_plugin_selection.py",
            "tests/unit/plugin/test_plugin_backstop.py",
            "tests/unit/plugin/test_plugin_rerun_shapes.py",
            "tests/unit/plugin/test_plugin_hidden_by_the_project.py",
            "tests/unit/plugin/test_plugin_error_naming_a_failed_root.py",
            "tests/unit/plugin/test_pytest_plugin.py",
        ),
    ),
    # SIGINT and SIGTERM as one interrupt per command; one wrapped by another error on its way up still is.
    "interrupts.py": Module(
        ("src/tierlock/interrupts.py",),
        ("tests/unit/core/test_interrupts.py", "tests/unit/core/test_interrupt_during_cleanup.py"),
    ),
    "keptrun": Module(
        (
            "src/tierlock/keptrun.py",
            "src/tierlock/keptrecord.py",
            "src/tierlock/keptsig.py",
            "src/tierlock/keptloose.py",
            "src/tierlock/collector.py",
        ),
        (
            "tests/unit/core/test_kept_answers.py",
            "tests/unit/core/test_kept_answers_order.py",
            "tests/unit/core/test_kept_entry_in_two_parts.py",
            "tests/unit/core/test_kept_census_facts.py",
            "tests/unit/core/test_project_parts.py",
            "tests/unit/core/test_kept_record_lookups.py",
            "tests/unit/core/test_kept_census_packed.py",
            "tests/unit/core/test_kept_shadows.py",
        ),
    ),
    # A kept answer's entry on disk in two parts: the head compared first, the look-ups read only when it holds.
    "keptseal.py": Module(
        ("src/tierlock/keptseal.py",),
        (
            "tests/unit/core/test_kept_entry_in_two_parts.py",
            "tests/unit/core/test_kept_entry_corrupted.py",
            "tests/unit/core/test_kept_answers_order.py",
            "tests/unit/core/test_kept_answers.py",
        ),
    ),
    # A census's result kept by its inputs and files, and the digest of what a recorded run keeps of each file.
    "census/keptresult.py": Module(
        ("src/tierlock/census/keptresult.py", "src/tierlock/census/factdigest.py"),
        (
            "tests/unit/census/test_census_kept_result.py",
            "tests/unit/census/test_census_kept_result_read.py",
            "tests/unit/core/test_kept_census_facts.py",
            "tests/unit/core/test_kept_census_packed.py",
        ),
    ),
    # The import names guessed for a distribution nothing installed speaks for: what a missing tier's tests import.
    "importnames.py": Module(
        ("src/tierlock/importnames.py",),
        ("tests/unit/core/test_import_names.py", "tests/unit/plugin/test_plugin_real_project_shapes.py"),
    ),
    # pyproject.toml read by its parts: what the read-only commands see of it, what a kept answer compares.
    "projectparts": Module(("src/tierlock/projectparts.py",), ("tests/unit/core/test_project_parts.py",)),
    # A kept answer after a test file changed: the facts read again, the census worked out again.
    "keptcensus": Module(
        (
            "src/tierlock/keptnote.py",
            "src/tierlock/keptedit.py",
            "src/tierlock/census/summary.py",
            "src/tierlock/census/rerun.py",
        ),
        (
            "tests/unit/core/test_kept_census_facts.py",
            "tests/unit/core/test_kept_census_readers.py",
            "tests/unit/core/test_project_parts.py",
            "tests/unit/core/test_kept_census_packed.py",
        ),
    ),
    # A conftest or a helper edited: what every reader of its facts reads compared (the census not worked out).
    "census/visible.py": Module(
        ("src/tierlock/census/visible.py", "src/tierlock/census/rerun.py"),
        ("tests/unit/core/test_kept_census_readers.py", "tests/unit/core/test_kept_census_facts.py"),
    ),
    "armplan": Module(
        (
            "src/tierlock/armplan.py",
            "src/tierlock/earlyarm.py",
            "src/tierlock/earlyyield.py",
            "src/tierlock/armrecord.py",
        ),
        (
            "tests/unit/installer/test_early_plan.py",
            "tests/unit/installer/test_early_start_edges.py",
            "tests/unit/installer/test_hostile2_early_files.py",
        ),
    ),
    # Running a backend: its output read, its process group stopped (grace, then kill; reaped), its errors masked.
    "subproc.py": Module(
        ("src/tierlock/subproc.py",),
        (
            "tests/unit/core/test_subproc_stopping.py",
            "tests/unit/core/test_interrupt_during_cleanup.py",
            "tests/unit/core/test_spawning.py",
            "tests/unit/validators/test_masking.py",
            "tests/unit/core/test_exit_interrupted.py",
            "tests/cli/test_lock_interrupt.py",
            "tests/unit/core/test_interrupt_at_thread_start.py",
        ),
    ),
    # A lock's tiers compiled in threads (a wave at a time) and one tier's compile in a thread of its own: an
    # interrupt at any point, their starts included, ends every backend and leaves no scratch folder.
    "lockfiles/lock.py": Module(
        ("src/tierlock/lockfiles/lock.py", "src/tierlock/lockfiles/compiling.py"),
        (
            "tests/cli/test_interrupt_as_threads_start.py",
            "tests/cli/test_lock_interrupt.py",
            "tests/cli/test_lock_cli.py",
            "tests/cli/test_lock_many.py",
            "tests/cli/test_lock_no_change.py",
            "tests/cli/test_lock_kept.py",
        ),
    ),
    # What a kept lock reads before its compiles start (and the kept answers with it): the cache folder, the entry's
    # file, a file's digest, a private folder, whether the output is a terminal.
    "keptfirst.py": Module(
        ("src/tierlock/keptfirst.py",),
        (
            "tests/unit/probing/test_cache_folder_of_the_user.py",
            "tests/unit/core/test_lock_kept_rules.py",
            "tests/unit/core/test_kept_answers.py",
            "tests/unit/probing/test_probe_fifo_in_place.py",
        ),
    ),
    "lockkept": Module(
        ("src/tierlock/lockkept.py", "src/tierlock/lockrecord.py"),
        (
            "tests/unit/core/test_lock_kept_ending.py",
            "tests/unit/core/test_lock_kept_rules.py",
            "tests/cli/test_lock_kept.py",
            "tests/cli/test_hostile2_shadows.py",
        ),
    ),
    "installer/selfguard.py": Module(
        ("src/tierlock/installer/selfguard.py",), ("tests/unit/installer/test_selfguard.py",)
    ),
    "installer/ahead.py": Module(
        ("src/tierlock/installer/ahead.py",),
        ("tests/unit/installer/test_ahead*.py", "tests/unit/core/test_interrupt_at_thread_start.py"),
    ),
    "installer/builds.py": Module(
        ("src/tierlock/installer/builds.py",),
        (
            "tests/unit/installer/test_build_planning.py",
            "tests/unit/installer/test_build_planning_against_packaging.py",
            "tests/unit/installer/test_buildfailure.py",
            "tests/unit/lockfiles/test_no_build_proof.py",
            # The refusal before the backend, the builds said and explained: real armings.
            "tests/cli/test_no_build_install.py",
        ),
    ),
    # A receipt's rows: the files and the libraries outside the site folders its packages' extensions rely on.
    "receiptrows": Module(
        ("src/tierlock/probing/relied.py", "src/tierlock/installer/inventory.py"),
        (
            "tests/unit/probing/test_probe_relied.py",
            "tests/unit/installer/test_receipt_rows.py",
            "tests/unit/installer/test_inventory_verdicts.py",
            "tests/unit/probing/test_probe_library_lookup.py",
            "tests/unit/installer/test_installer_receipts*.py",
        ),
    ),
    "installer/receiptrecord.py": Module(
        ("src/tierlock/installer/receiptrecord.py",),
        (
            "tests/unit/installer/test_fastpath_other_machine.py",
            "tests/unit/installer/test_fastpath_changed_in_place.py",
            "tests/unit/installer/test_receipts_prepared.py",
            "tests/unit/installer/test_receipts_rewritten_*.py",
        ),
    ),
    "installer/fastpath.py": Module(
        (
            "src/tierlock/installer/fastpath.py",
            "src/tierlock/installer/pinscan.py",
            "src/tierlock/installer/receiptfiles.py",
        ),
        (
            "tests/unit/installer/test_fastpath_changed_in_place.py",
            "tests/unit/installer/test_fastpath_other_machine.py",
            "tests/unit/installer/test_installer_receipts*.py",
            "tests/unit/installer/test_fastpath_*.py",
        ),
    ),
    "installer/location.py": Module(
        ("src/tierlock/installer/location.py",),
        (
            "tests/unit/installer/test_fastpath_other_machine.py",
            "tests/unit/installer/test_installer_target.py",
            "tests/unit/installer/test_fastpath_every_spelling.py",
            "tests/unit/installer/test_location_*.py",
        ),
    ),
    "installer/receipts.py": Module(
        ("src/tierlock/installer/receipts.py",),
        (
            "tests/unit/installer/test_fastpath_shared_objects_dated.py",
            "tests/unit/installer/test_installer_receipts*.py",
            "tests/unit/installer/test_receipts_*.py",
            "tests/unit/installer/test_receipt_rows.py",
        ),
    ),
    # The metadata folders of another version removed before the backend writes a package again.
    "installer/strays.py": Module(
        ("src/tierlock/installer/strays.py",),
        ("tests/unit/installer/test_strays_removed.py", "tests/cli/test_second_dist_info_beside.py"),
    ),
    # The target interpreter described: asked once, its answer kept; a kept answer read at once, else asked aside.
    "environment.py": Module(
        ("src/tierlock/environment.py", "src/tierlock/targetanswer.py"),
        (
            "tests/unit/core/test_target_cache.py",
            "tests/unit/installer/test_environment.py",
            "tests/unit/installer/test_location_incomplete.py",
            "tests/unit/installer/test_hostile2_environment_replaced.py",
            "tests/unit/installer/test_venv_made_by_another_python.py",
        ),
    ),
    # A process started on os alone before subprocess loads, and taken over later as a Popen.
    "spawning.py": Module(("src/tierlock/spawning.py",), ("tests/unit/core/test_spawning.py",)),
    # What a killed arming or lock left in the temporary folder, removed by a later early start or full lock.
    "earlysweep.py": Module(
        ("src/tierlock/earlysweep.py",),
        (
            "tests/unit/installer/test_hostile2_early_files.py",
            "tests/cli/test_hostile2_leftovers.py",
            "tests/cli/test_lock_scratch_swept.py",
        ),
    ),
    # What every recorder keeps of what its run looked at (a read-only command's, a lock's, an arming's).
    "keptsig.py": Module(
        ("src/tierlock/keptsig.py",),
        (
            "tests/unit/core/test_kept_recorders_share.py",
            "tests/unit/core/test_kept_answers.py",
            "tests/unit/core/test_kept_record_lookups.py",
            "tests/unit/core/test_kept_shadows.py",
            "tests/unit/core/test_lock_kept_rules.py",
            "tests/unit/installer/test_early_plan.py",
        ),
    ),
    # A venv's pyvenv.cfg read as CPython reads it, and the interpreter it was made from.
    "venvbase.py": Module(
        ("src/tierlock/venvbase.py",),
        (
            "tests/unit/probing/test_pyvenv_cfg_read_as_cpython_reads_it.py",
            "tests/unit/installer/test_venv_made_by_another_python.py",
            "tests/cli/test_target_whose_base_python_is_gone.py",
            "tests/unit/core/test_target_cache.py",
            "tests/unit/installer/test_environment.py",
            "tests/unit/installer/test_location_incomplete.py",
            "tests/unit/probing/test_probe_system_site_venv.py",
            "tests/cli/test_remade_with_a_python_that_runs.py",
        ),
    ),
    # A read-only command's full run's code from one bundle (the import system's checks kept).
    "codebundle.py": Module(
        ("src/tierlock/codebundle.py",),
        (
            "tests/unit/core/test_code_bundle.py",
            "tests/unit/core/test_code_bundle_hostile.py",
            "tests/unit/core/test_code_bundle_loading.py",
        ),
    ),
    # The regular expressions a full run compiles, kept beside its code bundle.
    "keptpatterns.py": Module(("src/tierlock/keptpatterns.py",), ("tests/unit/core/test_kept_patterns.py",)),
    # Whether a bundle's entry still holds: its source, and the folders searched for it as the path finder sees them.
    "bundleholds.py": Module(
        ("src/tierlock/bundleholds.py",),
        (
            "tests/unit/core/test_bundle_holds.py",
            "tests/unit/core/test_code_bundle.py",
            "tests/unit/core/test_code_bundle_hostile.py",
        ),
    ),
    # pathlib loaded without urllib.parse, and without ntpath's searches for Windows' own modules.
    "lightpathlib.py": Module(("src/tierlock/lightpathlib.py",), ("tests/unit/core/test_full_run_light_stand_ins.py",)),
    # The shell quoting that stands in for shlex on the read-only commands' path, and the remedies built with it.
    "remedies.py": Module(
        ("src/tierlock/remedies.py",),
        (
            "tests/unit/core/test_remedies.py",
            "tests/unit/core/test_remedies_carried.py",
            "tests/unit/core/test_full_run_light_stand_ins.py",
            "tests/unit/plugin/test_plugin_remedy.py",
            "tests/unit/installer/test_rearm.py",
            "tests/unit/installer/test_sibling_refusal.py",
        ),
    ),
    # Terminal output: plain lines, tables, the one JSON document, errors; every line redacted and, after
    # --project, every remedy naming the project.
    "output.py": Module(
        ("src/tierlock/output.py",),
        (
            "tests/unit/core/test_output.py",
            "tests/unit/core/test_output_redaction.py",
            "tests/unit/core/test_remedies_carried.py",
        ),
    ),
    "installer/treerefusal.py": Module(
        ("src/tierlock/installer/treerefusal.py",),
        ("tests/unit/installer/test_treerefusal.py", "tests/unit/installer/test_projecttree_failures.py"),
    ),
    # The project's own install judged with its tiers (a script of a moved venv), and the project a closure requires.
    "probing/project.py": Module(
        ("src/tierlock/probing/project.py",),
        (
            "tests/unit/probing/test_probe_project_itself.py",
            "tests/unit/probing/test_probe_tier_project.py",
            "tests/cli/test_project_itself_moved_or_copied.py",
        ),
    ),
    # The project's tree step: what it installs, its failure's remedy, the record of that failure, what status says
    # of it (unit tests first, then the real installs with uv and pip).
    "installer/projecttree.py": Module(
        ("src/tierlock/installer/projecttree.py",),
        (
            "tests/unit/installer/test_projecttree_*.py",
            "tests/cli/test_install_itself.py",
            "tests/cli/test_remedies_project_tree.py",
        ),
    ),
    # install-tier's command: its fast path asked with the request's --no-install-project, and the line it prints.
    "commands/install.py": Module(
        ("src/tierlock/commands/install.py",),
        (
            "tests/unit/core/test_install_report_line.py",
            "tests/cli/test_install_cli.py",
            "tests/cli/test_install_itself.py",
        ),
    ),
    "installer/failures.py": Module(
        ("src/tierlock/installer/failures.py",),
        (
            "tests/unit/installer/test_failures_record.py",
            "tests/unit/installer/test_status_project_tree.py",
            "tests/unit/installer/test_fastpath_without_project.py",
        ),
    ),
    "installer/status.py": Module(
        ("src/tierlock/installer/status.py",),
        (
            "tests/unit/installer/test_status_project_tree.py",
            "tests/cli/test_remedies_project_tree.py",
        ),
    ),
    "installer/treestep.py": Module(
        ("src/tierlock/installer/treestep.py",),
        ("tests/unit/installer/test_treestep.py", "tests/cli/test_remedies_project_tree.py"),
    ),
    # The backend step of an arming, and its repair made again without uv's cache (real uv and pip armings).
    "installer/applying.py": Module(
        ("src/tierlock/installer/applying.py",),
        (
            "tests/unit/installer/test_applying_cache_signature.py",
            "tests/cli/test_uv_repair_without_cache.py",
            "tests/cli/test_rewritten_in_place_remedy.py",
            "tests/cli/test_install_target.py",
            "tests/cli/test_no_build_install.py",
        ),
    ),
    # An installed file opened to be read, never waited on (a FIFO in its place).
    "probing/regular.py": Module(
        ("src/tierlock/probing/regular.py",),
        ("tests/unit/probing/test_probe_fifo_in_place.py", "tests/unit/probing/test_probe_facts_ahead.py"),
    ),
    # Console scripts that run another path's interpreter: a venv moved or copied (its scripts' first lines).
    "probing/scriptheads.py": Module(
        ("src/tierlock/probing/scriptheads.py",),
        ("tests/unit/probing/test_script_heads.py", "tests/cli/test_venv_moved_or_copied.py"),
    ),
    # Library verdicts carried to hard links of the same files in another environment, forgotten once found wanting.
    "probing/libmoved.py": Module(
        ("src/tierlock/probing/libmoved.py",),
        (
            "tests/unit/probing/test_probe_rewritten_in_place.py",
            "tests/unit/probing/test_probe_library_lookup.py",
            "tests/unit/probing/test_probe_libraries_preload.py",
        ),
    ),
    "installer/run.py": Module(
        ("src/tierlock/installer/run.py",),
        (
            "tests/cli/test_remedies_project_tree.py",
            "tests/cli/test_install_itself.py",
            "tests/cli/test_install_cli.py",
        ),
    ),
    # The locks of an install: the drift check, a lock for another platform or other environments, the entries.
    "installer/lockload.py": Module(
        ("src/tierlock/installer/lockload.py",),
        (
            "tests/unit/installer/test_lockload_ways_out.py",
            "tests/unit/installer/test_installer_plan.py",
            "tests/unit/installer/test_universal_relock.py",
            "tests/cli/test_single_platform_lock_for_another_python.py",
            "tests/cli/test_uv_lock_environments.py",
            "tests/cli/test_uv_lock_shapes_of_real_projects.py",
        ),
    ),
    "installer/rearm.py": Module(
        ("src/tierlock/installer/rearm.py", "src/tierlock/remedies.py"),
        ("tests/unit/installer/test_rearm.py", "tests/unit/plugin/test_plugin_remedy.py"),
    ),
    "lockfiles/check.py": Module(
        ("src/tierlock/lockfiles/check.py", "src/tierlock/lockfiles/findings.py", "src/tierlock/lockfiles/origins.py"),
        (
            "tests/unit/lockfiles/test_lockfiles_check.py",
            "tests/unit/lockfiles/test_sibling_conflicts.py",
            "tests/unit/lockfiles/test_lockfile_origins.py",
        ),
    ),
    # Environment markers: whether one holds (kept per process), whether two overlap (kept across commands).
    "lockfiles/markers.py": Module(
        (
            "src/tierlock/lockfiles/markers.py",
            "src/tierlock/lockfiles/overlapkept.py",
            "src/tierlock/lockfiles/readercode.py",
        ),
        (
            "tests/unit/lockfiles/test_marker_applies_kept.py",
            "tests/unit/lockfiles/test_marker_overlap_kept*.py",
            "tests/unit/lockfiles/test_sibling_conflicts.py",
            "tests/unit/lockfiles/test_lockfile_parse_kept.py",
            "tests/unit/probing/test_markers_required.py",
        ),
    ),
    "validators/configfile.py": Module(
        ("src/tierlock/validators/configfile.py", "src/tierlock/frozen.py"),
        (
            "tests/unit/validators/test_config_discovery.py",
            "tests/unit/core/test_model_value_classes.py",
            "tests/unit/core/test_value_classes.py",
        ),
    ),
    "lockfiles/fileread.py": Module(
        ("src/tierlock/lockfiles/fileread.py", "src/tierlock/lockfiles/keptparse.py"),
        (
            "tests/unit/lockfiles/test_lockfile_parsed_once.py",
            "tests/unit/lockfiles/test_lockfiles_reader.py",
            "tests/unit/lockfiles/test_lockfile_parse_kept.py",
            "tests/unit/lockfiles/test_artifact_record_kept.py",
        ),
    ),
    "lockfiles/requirements.py": Module(
        ("src/tierlock/lockfiles/requirements.py",),
        (
            "tests/unit/lockfiles/test_lockfiles_reader.py",
            "tests/unit/lockfiles/test_lockfiles_requirements*.py",
            "tests/unit/installer/test_installer_plan.py",
            "tests/unit/core/test_patterns_told_by_hand.py",
        ),
    ),
    "lockfiles/pylock.py": Module(
        ("src/tierlock/lockfiles/pylock.py",),
        (
            "tests/unit/lockfiles/test_lockfiles_reader.py",
            "tests/unit/installer/test_installer_plan.py",
            "tests/unit/lockfiles/test_pylock_*.py",
        ),
    ),
    # A tier's closure and drift read from the lock the project commits (uv.lock, a PEP 751 pylock).
    "lockfiles/uvlock": Module(
        tuple(
            f"src/tierlock/lockfiles/{name}.py"
            for name in (
                "uvlock",
                "uvselect",
                "uvdrift",
                "uvconflicts",
                "uvread",
                "committed",
                "uvenvironments",
                "foreignpylock",
                "markers",
            )
        ),
        (
            "tests/unit/lockfiles/test_uvlock_committed.py",
            "tests/unit/lockfiles/test_uvlock_reading.py",
            "tests/unit/lockfiles/test_uvconflicts.py",
            "tests/unit/lockfiles/test_uvenvironments.py",
            "tests/unit/lockfiles/test_uvlock_arbitrary_input.py",
            "tests/unit/lockfiles/test_foreignpylock.py",
            "tests/unit/probing/test_markers_required.py",
            "tests/unit/lockfiles/test_marker_overlap_kept.py",
            "tests/unit/lockfiles/test_marker_texts_arbitrary.py",
        ),
    ),
    # A credential given as an option's own argument, and the value given to a credential's name.
    "secretargs": Module(
        ("src/tierlock/secretargs.py", "src/tierlock/secretnames.py", "src/tierlock/validators/secrets.py"),
        (
            "tests/unit/validators/test_validators_credential_options.py",
            "tests/unit/validators/test_validators_credential_assignments.py",
            "tests/unit/validators/test_validators_s*.py",
        ),
    ),
    "validators": Module(
        (
            *(f"src/tierlock/validators/{name}.py" for name in ("credentials", "scope", "rules", "renderers")),
            # The credential shapes and the one redaction every output passes (moved out of credentials.py).
            "src/tierlock/secretshapes.py",
            "src/tierlock/secretkeys.py",
            "src/tierlock/secretnames.py",
            "src/tierlock/redaction.py",
        ),
        # The quick example tests first: with ``pytest -x`` most mutants die there, before the property tests.
        (
            "tests/unit/validators/test_validators.py",
            "tests/unit/validators/test_validators_s*.py",
            "tests/unit/validators/test_validators_positions.py",
            "tests/cli/test_validators_cli.py",
            "tests/unit/validators/test_validators*.py",
            "tests/unit/validators/test_masking.py",
            "tests/unit/core/test_redaction_cues.py",
        ),
    ),
    # The wheel tags a target accepts, and whether an installed wheel's WHEEL file names one (target10).
    "wheeltags.py": Module(
        ("src/tierlock/wheeltags.py",),
        (
            "tests/unit/probing/test_probe_wheel_tags.py",
            "tests/unit/installer/test_build_planning_against_packaging.py",
            "tests/cli/test_probe_wheel_of_another_platform.py",
        ),
    ),
    # What tierlock init infers: tiers, layers from the closure the project's venv knows, import names, tests.
    "tiers/inference.py": Module(
        ("src/tierlock/tiers/inference.py",),
        (
            "tests/unit/tiers/test_inference_extra_markers.py",
            "tests/unit/tiers/test_init_real.py",
            "tests/cli/test_init_closure_of_another_python.py",
        ),
    ),
    # The loader and the readers it is made of (one per settings key, the lock key's among them).
    "tiers/loader.py": Module(
        tuple(
            f"src/tierlock/tiers/{name}.py"
            for name in ("loader", "reader", "metadata", "settings", "tierkeys", "lockkey", "workspace")
        ),
        (
            "tests/unit/tiers/test_tiers.py",
            "tests/unit/tiers/test_tier_model_*.py",
            "tests/unit/tiers/test_lockkey.py",
            "tests/unit/tiers/test_workspace.py",
        ),
    ),
    # The gating part of the plugin: the plugin module, or its gating modules once it is a package.
    "plugin": Module(
        (
            "src/tierlock/pytest_plugin.py",
            *(
                f"src/tierlock/pytest_plugin/{name}.py"
                for name in (
                    "strictness",
                    "project_state",
                    "selection",
                    "startup",
                    "decision",
                    "collection",
                    "attribution",
                    "backstop",
                )
            ),
        ),
        # The one unit test file first (no pytest run inside it), then the pytester ones.
        (
            "tests/unit/plugin/test_plugin_attribution.py",
            "tests/unit/plugin/test_plugin_gate_wire.py",
            "tests/unit/plugin/test_pytest_plugin*.py",
            "tests/unit/plugin/test_plugin_*.py",
            "tests/cli/test_matrix_jobs.py",
        ),
    ),
    # The census package: every part decides what a finding is (the unit tests first, then its CLI ones).
    "census": Module(
        ("src/tierlock/census",),
        (
            "tests/unit/census/test_census*.py",
            "tests/unit/tiers/test_init_settles.py",
            "tests/cli/test_census_remedies.py",
        ),
    ),
    "verify": Module(("src/tierlock/evidence",), ("tests/unit/evidence/test_evidence*.py", "tests/cli/test_verif*.py")),
    "nobuild": Module(
        (
            "src/tierlock/lockfiles/artifacts.py",
            "src/tierlock/lockfiles/coverage.py",
            "src/tierlock/lockfiles/nobuild.py",
            "src/tierlock/tiers/platforms.py",
            "src/tierlock/installer/buildfailure.py",
        ),
        (
            "tests/unit/lockfiles/test_artifact_record.py",
            "tests/unit/lockfiles/test_artifact_record_kept.py",
            "tests/unit/lockfiles/test_artifact_record_quick_read_fuzzed.py",
            "tests/unit/lockfiles/test_wheel_coverage.py",
            "tests/unit/lockfiles/test_no_build_proof.py",
            "tests/unit/lockfiles/test_no_build_outside_environments.py",
            "tests/unit/tiers/test_platforms.py",
            "tests/unit/installer/test_buildfailure.py",
        ),
    ),
    # The coverage table's command (its verdict and exit code): its CLI tests, which lock from a local index.
    "platforms": Module(
        ("src/tierlock/commands/platforms.py",),
        ("tests/cli/test_no_build_check.py", "tests/cli/test_no_build_uv_environments.py"),
    ),
}

ALIASES = {
    "plan": "installer/plan.py",
    "fastpath": "installer/fastpath.py",
    "receipts": "installer/receipts.py",
    "location": "installer/location.py",
    "check": "lockfiles/check.py",
    "requirements": "lockfiles/requirements.py",
    "pylock": "lockfiles/pylock.py",
    "uvlock": "lockfiles/uvlock",
    "loader": "tiers/loader.py",
    "pytest_plugin.py": "plugin",
    "evidence": "verify",
}

EXCLUDED_OPERATORS = (
    r"core/ReplaceBinaryOperator_\w+_(Mul|Div|FloorDiv|Mod|Pow|LShift|RShift|BitXor)$",
    r"core/ReplaceComparisonOperator_(Eq|NotEq)_(Lt|LtE|Gt|GtE|Is|IsNot)$",
    r"core/ReplaceComparisonOperator_(Is|IsNot)_(Eq|NotEq)$",
)


class Refused(Exception):
    """The run cannot start (message says why and what to do)."""


def resolve(name: str) -> str:
    """The module key *name* stands for: a listed module, a short name, or one ``.py`` file of a listed module."""
    key = ALIASES.get(name.strip("/"), name.strip("/"))
    if key.startswith("src/tierlock/"):
        key = key[len("src/tierlock/") :]
    if key in MODULES:
        return key
    if key.endswith(".py") and parent_of(key) is not None:
        return key
    raise Refused(f"unknown module {name!r}; one of: {', '.join(MODULES)} (or one .py file of theirs)")


def parent_of(key: str) -> str | None:
    """The listed module whose sources hold the file *key* (``evidence/process.py`` is part of ``verify``)."""
    path = (ROOT / "src" / "tierlock" / key).resolve()
    for parent, module in MODULES.items():
        for rel in module.sources:
            source = (ROOT / rel).resolve()
            if path == source or source in path.parents:
                return parent
    return None


def module(key: str) -> Module:
    """The sources and tests of *key*: a listed module, or one of its files with the module's tests."""
    if key in MODULES:
        return MODULES[key]
    parent = parent_of(key)
    assert parent is not None, key
    return Module((f"src/tierlock/{key}",), MODULES[parent].tests)


def session_stem(key: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", key).strip("-")


def sources_of(key: str) -> list[Path]:
    """The existing ``.py`` files of module *key*."""
    out: list[Path] = []
    for rel in module(key).sources:
        path = ROOT / rel
        if path.is_dir():
            out += sorted(p for p in path.rglob("*.py") if "__pycache__" not in p.parts)
        elif path.is_file():
            out.append(path)
    return out


def tests_of(key: str) -> list[str]:
    found: list[str] = []
    for pattern in module(key).tests:
        for path in sorted(ROOT.glob(pattern)):
            rel = path.relative_to(ROOT).as_posix()
            if rel not in found:
                found.append(rel)
    return found


def commit() -> str:
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False)
    return out.stdout.strip() or "unknown"


def uncommitted(paths: Sequence[Path]) -> list[str]:
    rels = [p.relative_to(ROOT).as_posix() for p in paths]
    proc = subprocess.run(
        ["git", "status", "--porcelain", "--", *rels], cwd=ROOT, capture_output=True, text=True, check=False
    )
    return [line[3:] for line in proc.stdout.splitlines() if line.strip()]


def annotation_spans(path: Path) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(start, end) positions (line, column) of every type annotation in *path*."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            nodes.append(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns is not None:
            nodes.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            nodes.append(node.annotation)
    spans = []
    for n in nodes:
        assert n.end_lineno is not None
        assert n.end_col_offset is not None
        spans.append(((n.lineno, n.col_offset), (n.end_lineno, n.end_col_offset)))
    return spans


def test_command(tests: Sequence[str], sources: Sequence[Path]) -> str:
    """The command run once per mutant: the fast tests, stopping at the first failure, in one process; the
    mutated *sources* dated back first (``tools/aged.py``: a just-written file is never part of a kept answer,
    which would kill every mutant of a module whose tests expect one)."""
    pytest = ["-m", "pytest", "-x", "-q", "-n", "0", "-p", "no:cacheprovider", *tests]
    return shlex.join([sys.executable, *aged(sources), *pytest])


def aged(sources: Sequence[Path]) -> list[str]:
    """The interpreter arguments that date *sources* back before the rest of the command line runs."""
    return [str(ROOT / "tools" / "aged.py"), *(str(p) for p in sources), "--"]


def write_config(key: str, sources: Sequence[Path], tests: Sequence[str]) -> Path:
    WORK.mkdir(exist_ok=True)
    (WORK / ".gitignore").write_text("*\n", encoding="utf-8")
    config: dict[str, object] = {
        "cosmic-ray": {
            "module-path": [p.relative_to(ROOT).as_posix() for p in sources],
            "timeout": TIMEOUT,
            "excluded-modules": [],
            "test-command": test_command(tests, sources),
            "distributor": {"name": "local"},
            "filters": {"operators-filter": {"exclude-operators": list(EXCLUDED_OPERATORS)}},
        }
    }
    path = WORK / f"{session_stem(key)}.toml"
    path.write_text(_toml(config), encoding="utf-8")
    return path


def _toml(data: dict[str, object], prefix: str = "") -> str:
    """The small TOML this config needs (tables of strings, numbers and lists of strings)."""
    lines: list[str] = []
    tables: list[tuple[str, dict[str, object]]] = []
    for k, v in data.items():
        if isinstance(v, dict):
            tables.append((f"{prefix}{k}", v))
        else:
            lines.append(f"{k} = {json.dumps(v)}")
    out = ""
    if prefix and lines:
        out += f"[{prefix.rstrip('.')}]\n" + "\n".join(lines) + "\n\n"
    for name, table in tables:
        out += _toml(table, f"{name}.")
    return out


EQUIVALENT_LINES = (
    (re.compile(r"\s*@dataclass\("), "a dataclass option (frozen=, slots=): no code assigns to these objects"),
    (re.compile(r"\s*if TYPE_CHECKING:"), "imports for the type checker only: at run time they only cost time"),
)


def equivalent(path: Path, start: tuple[int, int], spans: Sequence[tuple[tuple[int, int], tuple[int, int]]]) -> str:
    """Why a mutant at *start* of *path* cannot change behaviour ("" when it can)."""
    if any(a <= start < b for a, b in spans):
        return "type annotation (never evaluated)"
    lines = path.read_text(encoding="utf-8").splitlines()
    text = lines[start[0] - 1] if 0 < start[0] <= len(lines) else ""
    return next((why for pattern, why in EQUIVALENT_LINES if pattern.match(text)), "")


def skip_equivalent(session: Path, sources: Sequence[Path]) -> int:
    """Mark the pending mutants that cannot change behaviour as skipped; return how many."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    spans = {p.relative_to(ROOT).as_posix(): annotation_spans(p) for p in sources}
    skipped = 0
    with use_db(str(session), WorkDB.Mode.open) as db:
        for item in list(db.pending_work_items):
            for mutation in item.mutations:
                rel = Path(mutation.module_path).as_posix()
                why = equivalent(ROOT / rel, tuple(mutation.start_pos), spans.get(rel, ()))
                if why:
                    db.set_result(item.job_id, WorkResult(output=why, worker_outcome=WorkerOutcome.SKIPPED))
                    skipped += 1
                    break
    return skipped


def unchanged_since(old: str, sources: Sequence[Path]) -> bool:
    """Whether no file of *sources* changed between commit *old* and the work tree's HEAD."""
    rels = [p.relative_to(ROOT).as_posix() for p in sources]
    proc = subprocess.run(
        ["git", "diff", "--quiet", old, "HEAD", "--", *rels], cwd=ROOT, capture_output=True, check=False
    )
    return proc.returncode == 0


def retest_survivors(session: Path, command: str) -> tuple[int, int]:
    """Run the session's survivors again with the tests as they are now; return (how many, how many now killed)."""
    from cosmic_ray.mutating import mutate_and_test
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome

    with use_db(str(session), WorkDB.Mode.open) as db:
        survivors = [item for item, result in db.completed_work_items if result.test_outcome == TestOutcome.SURVIVED]
        killed = 0
        for n, item in enumerate(survivors, 1):
            result = mutate_and_test(item.mutations, command, TIMEOUT)
            db.set_result(item.job_id, result)
            killed += result.test_outcome == TestOutcome.KILLED
            print(f"mutate: survivor {n}/{len(survivors)}: {result.test_outcome.value if result.test_outcome else '-'}")
    return len(survivors), killed


NOT_SAMPLED = "not in the sample"


def keep_sample(session: Path, key: str, size: int) -> int:
    """Leave *size* pending mutants, drawn at random but the same for every run of *key*; return how many were left out.

    The others are marked skipped with the output :data:`NOT_SAMPLED`, which the report counts apart: a sampled
    score is an estimate of the module's (with its 95% interval), for a first look at a module too large to run
    in one sitting.
    """
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    with use_db(str(session), WorkDB.Mode.open) as db:
        # Drawn over what each mutant is (file, operator, occurrence), not over cosmic-ray's random job ids.
        pending = sorted(
            (str(m.module_path), m.operator_name, m.occurrence, item.job_id)
            for item in db.pending_work_items
            for m in item.mutations[:1]
        )
        chosen = {row[3] for row in random.Random(key).sample(pending, min(size, len(pending)))}
        left = [row[3] for row in pending if row[3] not in chosen]
        for job in left:
            db.set_result(job, WorkResult(output=NOT_SAMPLED, worker_outcome=WorkerOutcome.SKIPPED))
    return len(left)


def interval(killed: int, total: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion killed/total (as fractions)."""
    if total == 0:
        return (0.0, 1.0)
    z = 1.959964
    p = killed / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return (max(0.0, centre - half), min(1.0, centre + half))


def cosmic(*args: str) -> None:
    tool = Path(sys.executable).parent / args[0]
    proc = subprocess.run([str(tool), *args[1:]], cwd=ROOT, check=False)
    if proc.returncode != 0:
        raise Refused(f"{' '.join(args)} exited {proc.returncode}")


class Restore:
    """Put the committed text of *sources* back however the run ends (cosmic-ray edits them in place)."""

    def __init__(self, sources: Sequence[Path]) -> None:
        self.saved = {p: p.read_bytes() for p in sources}

    def __enter__(self) -> Restore:
        self.previous = signal.signal(signal.SIGTERM, self._terminate)
        return self

    def _terminate(self, signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    def __exit__(self, *exc: object) -> None:
        signal.signal(signal.SIGTERM, self.previous)
        for path, data in self.saved.items():
            if path.read_bytes() != data:
                path.write_bytes(data)
                print(f"mutate: restored {path.relative_to(ROOT)}", file=sys.stderr)


def run(key: str, *, fresh: bool, sample: int | None = None, retest_only: bool = False) -> None:
    sources = sources_of(key)
    if not sources:
        raise Refused(f"{key}: none of {', '.join(module(key).sources)} exists on this commit")
    tests = tests_of(key)
    if not tests:
        raise Refused(f"{key}: no test file matches {', '.join(module(key).tests)}")
    dirty = uncommitted(sources)
    if dirty:
        raise Refused(f"{key}: commit or stash {', '.join(dirty)} first (mutants are written into the file in place)")
    config = write_config(key, sources, tests)
    session = WORK / f"{session_stem(key)}.sqlite"
    meta = WORK / f"{session_stem(key)}.json"
    here = commit()
    if session.exists() and not fresh:
        try:
            kept = json.loads(meta.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            kept = {}
        if kept.get("sample") != sample or not kept.get("commit"):
            session.unlink()
        elif kept["commit"] != here and unchanged_since(str(kept["commit"]), sources):
            # Only tests moved on: what was killed stays killed (tests are only added); the survivors run again,
            # first, so that the mutants run so far stay a random sample of the module wherever the run stops.
            print(f"mutate: {key} unchanged since {kept['commit']}: its survivors run again with the tests of {here}")
            with Restore(sources):
                again, killed = retest_survivors(session, test_command(tests, sources))
            kept["tests_at"] = here
            meta.write_text(json.dumps(kept) + "\n", encoding="utf-8")
            print(f"mutate: {killed} of the {again} survivor(s) killed by the tests of {here}")
            if retest_only:
                return
        elif kept["commit"] != here:
            session.unlink()
    elif session.exists():
        session.unlink()
    print(f"mutate: {key} at {here}: {len(sources)} file(s), tests: {' '.join(tests)}", flush=True)
    if not session.exists():
        cosmic("cosmic-ray", "init", str(config), str(session))
        cosmic("cr-filter-operators", str(session), str(config))
        skipped = skip_equivalent(session, sources)
        print(f"mutate: {skipped} equivalent mutant(s) skipped (annotations, dataclass options, TYPE_CHECKING)")
        if sample is not None:
            left = keep_sample(session, key, sample)
            print(f"mutate: a sample of {sample} mutant(s) is run; {left} left out")
        record = {"commit": here, "module": key, "tests": tests, "sample": sample}
        meta.write_text(json.dumps(record) + "\n", encoding="utf-8")
    with Restore(sources):
        cosmic("cosmic-ray", "baseline", str(config))
        cosmic("cosmic-ray", "exec", str(config), str(session))


@dataclass
class Score:
    killed: int = 0
    survived: int = 0
    skipped: int = 0
    pending: int = 0
    unsampled: int = 0

    @property
    def total(self) -> int:
        return self.killed + self.survived

    def line(self, name: str) -> str:
        pct = f"{100 * self.killed / self.total:.1f}%" if self.total else "-"
        if self.unsampled:
            low, high = interval(self.killed, self.total)
            drawn = self.total + self.pending
            pct += f"; a sample of {drawn} of {drawn + self.unsampled}, 95% interval {100 * low:.0f}-{100 * high:.0f}%"
        if self.pending and not self.unsampled:
            # cosmic-ray runs the pending mutants in random order: a run stopped half-way is a random sample.
            low, high = interval(self.killed, self.total)
            pct += f"; so far a random sample, 95% interval {100 * low:.0f}-{100 * high:.0f}%"
        extra = f", {self.pending} not run yet" if self.pending else ""
        return f"{name}: {self.killed}/{self.total} killed ({pct}), {self.skipped} skipped{extra}"


def dump(session: Path) -> Iterator[tuple[dict[str, object], dict[str, object] | None]]:
    tool = Path(sys.executable).parent / "cosmic-ray"
    out = subprocess.run([str(tool), "dump", str(session)], cwd=ROOT, capture_output=True, text=True, check=True)
    for line in out.stdout.splitlines():
        item, result = json.loads(line)
        yield item, result


def report(key: str, *, survivors: bool = True) -> Score | None:
    session = WORK / f"{session_stem(key)}.sqlite"
    if not session.exists():
        return None
    meta = json.loads((WORK / f"{session_stem(key)}.json").read_text(encoding="utf-8"))
    per_file: dict[str, Score] = {}
    total = Score()
    lived: list[str] = []
    for item, result in dump(session):
        mutations = item["mutations"]
        assert isinstance(mutations, list)
        mutation = mutations[0]
        path = str(mutation["module_path"])
        score = per_file.setdefault(path, Score())
        for s in (score, total):
            if result is None:
                s.pending += 1
            elif result["worker_outcome"] == "skipped" and result.get("output") == NOT_SAMPLED:
                s.unsampled += 1
            elif result["worker_outcome"] == "skipped":
                s.skipped += 1
            elif result.get("test_outcome") == "survived":
                s.survived += 1
            elif result["worker_outcome"] != "no-test":
                s.killed += 1
        if result is not None and result.get("test_outcome") == "survived":
            line = int(mutation["start_pos"][0])
            lived.append(f"  survived {path}:{line} {mutation['operator_name']} #{mutation['occurrence']}")
            diff = str(result.get("diff") or "")
            lived += [f"      {d}" for d in diff.splitlines() if d.startswith(("-", "+")) and d[1:2] not in "-+"]
    tests_at = f", tests at {meta['tests_at']}" if meta.get("tests_at") else ""
    print(total.line(f"{key} (commit {meta.get('commit')}{tests_at})"))
    if len(per_file) > 1:
        for path, score in sorted(per_file.items()):
            print("  " + score.line(path))
    if survivors:
        print("\n".join(lived))
    return total


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tools/mutate.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", help="modules to mutate (see --list)")
    parser.add_argument("--all", action="store_true", help="every module, one after the other")
    parser.add_argument("--report", action="store_true", help="only print the scores of sessions already run")
    parser.add_argument("--fresh", action="store_true", help="start the module's session anew")
    parser.add_argument(
        "--retest",
        action="store_true",
        help="on a later commit with the same sources, only run the survivors again (with its tests), then stop",
    )
    parser.add_argument(
        "--sample",
        type=int,
        metavar="N",
        help="run only N of the module's mutants, drawn at random (the same N for the same module): an estimate",
    )
    parser.add_argument("--list", action="store_true", help="list the modules")
    args = parser.parse_args(argv)
    try:
        keys = list(MODULES) if args.all or (args.report and not args.modules) else [resolve(m) for m in args.modules]
        if args.list:
            for key in MODULES:
                sources = [p.relative_to(ROOT).as_posix() for p in sources_of(key)] or ["(not on this commit)"]
                print(f"{key}: {' '.join(sources)}\n    tests: {' '.join(tests_of(key))}")
            return 0
        if not keys:
            parser.error("name a module (see --list), or --all")
        if not args.report:
            for key in keys:
                if args.all and not sources_of(key):
                    print(f"mutate: {key}: not on this commit, left out", flush=True)
                    continue
                run(key, fresh=args.fresh, sample=args.sample, retest_only=args.retest)
        print("\nmutation score (killed/total):")
        for key in keys:
            if report(key, survivors=not args.all) is None and not args.report:
                print(f"{key}: no session")
    except Refused as exc:
        print(f"mutate: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("mutate: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    os.chdir(ROOT)
    sys.exit(main())
