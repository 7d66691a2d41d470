"""The probe's verdicts are plain :class:`~tierlock.frozen.Frozen` values that behave as the frozen dataclasses
they were: a distribution's, a tier's, a tier's needs.

No ``dataclasses`` class is built when the probe loads (each cost probe, status and admit about a millisecond
at every full run): built by position or by keyword with the same defaults (a fresh list of reasons and notes
each time, where the dataclass had a factory), equal by their fields, shown with every field, immutable,
picklable, copied by :func:`tierlock.frozen.replace`.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.env import clean_env
from tierlock.frozen import Frozen, replace
from tierlock.probing.distribution import DistributionProbe
from tierlock.probing.required import Required
from tierlock.probing.tier import TierProbe


def _dist(**more: object) -> DistributionProbe:
    return DistributionProbe("alpha", "present", version_text="1.0", files_checked=3, **more)  # type: ignore[arg-type]


def test_a_distribution_s_verdict_is_built_with_the_dataclass_s_defaults_and_a_list_of_its_own() -> None:
    one, other = DistributionProbe("alpha", "absent"), DistributionProbe("alpha", "absent")
    assert isinstance(one, Frozen)
    assert (one.reasons, one.notes, one.files_checked, one.records, one.record_size) == ([], [], 0, (), None)
    assert one.reasons is not other.reasons
    assert one.notes is not other.notes
    assert one == other
    assert DistributionProbe("alpha", "absent", ["gone"]).reasons == ["gone"]


def test_a_distribution_s_verdict_is_shown_compared_and_kept_as_the_dataclass_was() -> None:
    one = _dist()
    assert repr(one) == (
        "DistributionProbe(name='alpha', state='present', reasons=[], notes=[], version_text='1.0', "
        "locked_text=None, dist_info_dir=None, files_checked=3, records=(), editable_source=None, "
        "import_roots=(), missing_libraries=(), record_size=None)"
    )
    assert one == _dist()
    assert one != _dist(locked_text="1.0")
    assert pickle.loads(pickle.dumps(one)) == one
    assert one.present
    with pytest.raises(AttributeError, match="cannot assign to field"):
        one.state = "absent"  # type: ignore[misc]
    with pytest.raises(TypeError):
        hash(one)  # (a list among its fields: unhashable, as the frozen dataclass was)


def test_a_tier_s_verdict_takes_the_dataclass_s_defaults_and_is_copied_with_a_field_changed() -> None:
    tier = TierProbe("brain", "present", (_dist(),))
    assert isinstance(tier, Frozen)
    assert (tier.closure, tier.lockfile, tier.lock_used, tier.notes, tier.install_command) == ((), None, False, (), "")
    assert (tier.python, tier.project, tier.project_command) == (None, None, None)
    changed = replace(tier, install_command="install-tier brain")
    assert changed.install_command == "install-tier brain"
    assert changed == TierProbe("brain", "present", (_dist(),), install_command="install-tier brain")
    assert tier.files_checked == 3
    assert pickle.loads(pickle.dumps(changed)) == changed
    assert TierProbe.__match_args__[:3] == ("tier", "state", "roots")
    assert repr(tier).startswith("TierProbe(tier='brain', state='present', roots=(DistributionProbe(name='alpha'")
    assert hash(TierProbe("viz", "absent", (), lockfile=Path("l.txt"))) == hash(
        TierProbe("viz", "absent", (), lockfile=Path("l.txt"))
    )


def test_a_tier_s_needs_are_equal_and_hashed_by_their_fields() -> None:
    one = Required((), (), ("marked away",))
    assert isinstance(one, Frozen)
    assert one == Required(roots=(), entries=(), marked_away=("marked away",))
    assert len({one, Required((), (), ("marked away",))}) == 1
    assert repr(one) == "Required(roots=(), entries=(), marked_away=('marked away',))"


def test_loading_the_probe_builds_no_dataclass() -> None:
    code = (
        "import dataclasses; built = []; real = dataclasses._process_class\n"
        "def spy(cls, *a, **k):\n    built.append(cls.__module__ + '.' + cls.__qualname__); return real(cls, *a, **k)\n"
        "dataclasses._process_class = spy\n"
        "import tierlock.probing.tier, tierlock.probing.required, tierlock.probing.distribution\n"
        "print([name for name in built if name.startswith('tierlock.probing.')])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=clean_env(), check=False)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_the_files_checked_and_the_state_names_are_made_when_first_asked_with_the_values_they_had() -> None:
    code = (
        "import sys, typing\n"
        "from tierlock.probing import distprobe, distribution\n"
        "made = 'tierlock.probing.installedfile' in sys.modules, 'DistState' in vars(distprobe)\n"
        "probe = distprobe.DistributionProbe('a', 'present', records=[('/s/a.py', 'a.py', 3, None)])\n"
        "(file,) = probe.files\n"
        "assert (file.path, file.record_path, file.size, file.hash) == ('/s/a.py', 'a.py', 3, None)\n"
        "assert file._fields == ('path', 'record_path', 'size', 'hash') and file._replace(size=4).size == 4\n"
        "assert distribution.InstalledFile is distprobe.InstalledFile is type(file)\n"
        "assert distprobe.DistState == typing.Literal['present', 'present-editable', 'partial', 'absent']\n"
        "assert distribution.TierState == typing.Literal['present', 'partial', 'absent']\n"
        "assert distprobe.DistState is distprobe.DistState\n"
        "print(made)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, env=clean_env())
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "(False, False)"
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        _ = __import__("tierlock.probing.distprobe", fromlist=["x"]).Nothing
