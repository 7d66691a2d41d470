r"""tierlock: a fast base install and opt-in dependency tiers from exact lockfiles.

The library API: four functions and the types they return. Every error is a
:class:`TierlockError` (``tierlock.errors``) that carries what is wrong, where, the
command that fixes it (``remedy``) and the CLI's exit code (``exit_code``).

:func:`load_project` reads the tiers of the project at a folder or a pyproject.toml
(a folder is searched upward, as pip and uv do):

>>> import tempfile, pathlib, tierlock
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "pyproject.toml").write_text(
...     '[project]\nname = "demo"\nversion = "1.0"\ndependencies = ["packaging"]\n'
...     '[project.optional-dependencies]\nbrain = ["tierlock-example-absent>=2"]\n'
...     "[tool.tierlock.tiers.brain]\n"
... )
>>> project = tierlock.load_project(folder)
>>> sorted(project.tiers), [str(r) for r in project.tier("brain").requirements]
(['base', 'brain'], ['tierlock-example-absent>=2'])

It raises ``NoPyproject`` (a ``ConfigError``) when no pyproject.toml is found, ``ConfigError``
when the file cannot be read or its declarations are wrong (every problem at once), and
``Project.tier`` raises ``UnknownTierError`` for a name the project does not declare, all exit code 2:

>>> project.tier("brian")
Traceback (most recent call last):
tierlock.errors.UnknownTierError: unknown tier 'brian'; declared tiers: base, brain (did you mean 'brain'?)
>>> tierlock.load_project(pathlib.Path(tempfile.mkdtemp())).tiers
Traceback (most recent call last):
tierlock.fsutil.NoPyproject: no pyproject.toml in ... or any folder above it

:func:`probe` says whether a tier is consumable in an environment (this interpreter by
default, or ``python=``), from files, without importing anything:

>>> tierlock.probe("base", project).state, tierlock.probe("brain", project).state
('present', 'absent')

It raises ``UnknownTierError`` for an undeclared tier, ``UsageError`` for a ``python`` that is
not an interpreter, ``LockfileError`` for a tier lockfile it cannot read, and ``ConfigError``
for a project it cannot load (exit code 2 each):

>>> tierlock.probe("brain", project, python=folder / "no-python")
Traceback (most recent call last):
tierlock.errors.UsageError: no interpreter at .../no-python

:func:`probe_distribution` judges one distribution in given site folders; it reports, it
does not raise (a missing distribution is ``absent``):

>>> tierlock.probe_distribution("tierlock-example-absent", paths=[folder]).state
'absent'

:func:`validate_runtime_config` checks a runtime config (a mapping, a file or a project
folder) and returns every error at once, with the exit code the CLI would give:

>>> result = tierlock.validate_runtime_config({"schemaVersion": 1, "setup": [], "verification": []})
>>> result.ok, result.exit_code
(True, 0)
>>> [(e.rule, e.where) for e in tierlock.validate_runtime_config({"schemaVersion": 2}).errors]
[('RC002', '(document)'), ('RC001', 'schemaVersion')]

A file it cannot read or parse is a result too (``parsed`` False, exit code 2); it raises
``ConfigError`` only for a folder that holds no runtime config:

>>> tierlock.validate_runtime_config(folder)
Traceback (most recent call last):
tierlock.errors.ConfigError: ... is a folder with no runtime config: looked for ...
"""

from __future__ import annotations

from tierlock import _lazy
from tierlock._version import __version__

# Not ``typing.TYPE_CHECKING``: ``typing`` imports ``re``, and ``import tierlock`` is on every start-up path.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from tierlock.errors import TierlockError
    from tierlock.probing import DistributionProbe, TierProbe, probe, probe_distribution
    from tierlock.tiers import Project, Tier, load_project
    from tierlock.validators import ValidationResult, validate_runtime_config

#: Names imported on first use (``tierlock.probe(...)``), so ``import tierlock`` stays light.
_LAZY = {
    "TierlockError": "tierlock.errors",
    "Project": "tierlock.tiers",
    "Tier": "tierlock.tiers",
    "load_project": "tierlock.tiers",
    "probe": "tierlock.probing",
    "probe_distribution": "tierlock.probing",
    "TierProbe": "tierlock.probing",
    "DistributionProbe": "tierlock.probing",
    "validate_runtime_config": "tierlock.validators",
    "ValidationResult": "tierlock.validators",
}


__getattr__ = _lazy.attributes(__name__, _LAZY)


__all__ = [
    "DistributionProbe",
    "Project",
    "Tier",
    "TierProbe",
    "TierlockError",
    "ValidationResult",
    "__version__",
    "load_project",
    "probe",
    "probe_distribution",
    "validate_runtime_config",
]
