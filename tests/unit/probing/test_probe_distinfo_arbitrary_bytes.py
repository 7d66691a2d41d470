"""Any bytes in a ``.dist-info`` folder's files give the probe a verdict with reasons, never an exception.

A damaged environment is what the probe exists for: a RECORD cut short by a full disk, a METADATA overwritten by
another tool, an ``entry_points.txt`` or ``direct_url.json`` of another encoding. Whatever bytes each file holds
(or a folder where a file should be), the probe of the distribution, with and without ``--deep``, answers with a
state and reasons; a folder that is whole again is present again.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tierlock.probing import SiteIndex, probe_distribution

FILES = ["RECORD", "METADATA", "INSTALLER", "entry_points.txt", "direct_url.json", "top_level.txt", "WHEEL"]
STATES = {"present", "partial", "absent", "broken", "damaged", "conflict", "wrong-version", "unreadable"}

_ROWS = st.lists(
    st.one_of(
        st.sampled_from(["alpha/__init__.py,,6", "alpha/__init__.py,sha256=x,6", "../../bin/x,,", "alpha,,", ",,"]),
        st.text(alphabet="alph/_.,=-0123456789 \"'\\\x00\u00e9", max_size=30),
    ),
    max_size=6,
).map(lambda rows: "\n".join(rows).encode("utf-8", "surrogatepass"))


_SHAPED = st.one_of(
    st.text(alphabet="ab =:.[]\x00\u00e9/\\", max_size=30).map(lambda t: ("[console_scripts]\n" + t).encode()),
    st.sampled_from(
        [
            b'{"url": "file:///no/such/folder", "dir_info": {"editable": true}}',
            b'{"url": "file:///tmp/a\\u0000b", "dir_info": {"editable": true}}',
            b'{"url": 7, "dir_info": []}',
            b'{"url": "https://example.invalid/x.whl", "archive_info": {}}',
            b"[]",
            b'"text"',
        ]
    ),
)


def _site(root: Path, contents: dict[str, bytes | None]) -> Path:
    site = root / "site"
    info = site / "alpha-1.0.dist-info"
    (site / "alpha").mkdir(parents=True)
    info.mkdir()
    (site / "alpha" / "__init__.py").write_text("X = 1\n")
    whole = {
        "METADATA": b"Metadata-Version: 2.1\nName: alpha\nVersion: 1.0\n",
        "RECORD": b"alpha/__init__.py,,6\nalpha-1.0.dist-info/METADATA,,\nalpha-1.0.dist-info/INSTALLER,,\n"
        b"alpha-1.0.dist-info/RECORD,,\n",
        "INSTALLER": b"pip\n",
    }
    for name in FILES:
        data = contents.get(name, whole.get(name))
        if name in contents and data is None:
            (info / name).mkdir()  # a folder where the file should be
        elif data is not None:
            (info / name).write_bytes(data)
    return site


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(
        st.sampled_from(FILES),
        st.one_of(
            st.none(), st.binary(max_size=200), _ROWS, _SHAPED, st.just(b"\xef\xbb\xbf"), st.just(b"\xff\xfe\x00")
        ),
        max_size=4,
    ),
    st.booleans(),
)
def test_any_bytes_in_a_dist_info_give_a_verdict_with_reasons_never_an_exception(
    contents: dict[str, bytes | None], deep: bool
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        site = _site(Path(tmp), contents)
        probe = probe_distribution("alpha", paths=[site], deep=deep, locked_version="1.0")
        assert probe.state in STATES, probe.state
        if probe.state != "present":
            assert probe.reasons, probe
        index = SiteIndex.scan([site])  # a whole scan of the folder, as a tier's probe makes it
        assert probe_distribution("alpha", index=index, deep=deep).state in STATES


def test_a_folder_whole_again_after_any_damage_is_present_again(tmp_path: Path) -> None:
    site = _site(tmp_path / "one", {"RECORD": b"\xff\xfe\x00", "METADATA": None})
    assert probe_distribution("alpha", paths=[site]).state != "present"
    shutil.rmtree(tmp_path / "one")
    site = _site(tmp_path / "one", {})
    assert probe_distribution("alpha", paths=[site], deep=True).state == "present"


def test_a_record_holding_a_nul_byte_is_unreadable_and_the_reason_names_its_line(tmp_path: Path) -> None:
    site = _site(tmp_path, {"RECORD": b"alpha/__init__.py,,6\nalpha/x\x00y.py,,3\n"})
    probe = probe_distribution("alpha", paths=[site])
    assert probe.state == "partial"
    assert probe.reasons == [
        f"RECORD unreadable in {site / 'alpha-1.0.dist-info'}: line 2 holds a NUL byte, which no path can"
    ]
