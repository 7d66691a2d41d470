"""The import names a distribution most likely provides, when nothing installed says (no import, no metadata).

An installed distribution says its import names itself (its RECORD, ``top_level.txt``); a tier that is not
armed has nothing installed to ask, yet the census and the pytest plugin must know which imports need it.
The guess, in order: the names a well-known distribution is published under (``pyyaml`` -> ``yaml``); a
``python-`` distribution's own name without the prefix (``python-dotenv`` -> ``dotenv``, ``python-jose`` ->
``jose``, the convention of the ``python-`` family); else the name with ``-`` and ``.`` as ``_``.
``import-roots`` in the tier table overrides the guess.
"""

from __future__ import annotations

from collections.abc import Mapping

from tierlock.probing.site import normalize

#: Distributions whose import name is not their project name with '-' as '_'.
KNOWN_IMPORT_NAMES: Mapping[str, tuple[str, ...]] = {
    "pyyaml": ("yaml",),
    "pillow": ("PIL",),
    "scikit-learn": ("sklearn",),
    "scikit-image": ("skimage",),
    "beautifulsoup4": ("bs4",),
    "python-dateutil": ("dateutil",),
    "opencv-python": ("cv2",),
    "opencv-python-headless": ("cv2",),
    "pyjwt": ("jwt",),
    "ibis-framework": ("ibis",),
    "cudf-cu12": ("cudf",),
    "cudf-cu11": ("cudf",),
    "attrs": ("attr", "attrs"),
    "protobuf": ("google",),
    "pymongo": ("pymongo", "bson", "gridfs"),
    "msgpack-python": ("msgpack",),
    "python-multipart": ("multipart",),
    "pycryptodome": ("Crypto",),
    "pytorch": ("torch",),
    "tensorflow-cpu": ("tensorflow",),
    "faiss-cpu": ("faiss",),
    "fusepy": ("fuse",),
    "libarchive-c": ("libarchive",),
    "smbprotocol": ("smbclient", "smbprotocol"),
    "python-snappy": ("snappy",),
    "backports-zstd": ("backports",),
    "pygit2": ("pygit2",),
    "brotlicffi": ("brotlicffi",),
    "typing-extensions": ("typing_extensions",),
    "python-json-logger": ("pythonjsonlogger",),
    "python-telegram-bot": ("telegram",),
    "python-memcached": ("memcache",),
    "python-lsp-server": ("pylsp",),
    "python-utils": ("python_utils",),
    "python-http-client": ("python_http_client",),
    "python-on-whales": ("python_on_whales",),
}

_PREFIX = "python-"


def import_names(dist: str) -> tuple[str, ...]:
    """The top-level import names *dist* (any spelling of a distribution name) most likely provides."""
    name = normalize(dist)
    known = KNOWN_IMPORT_NAMES.get(name)
    if known is not None:
        return known
    if name.startswith(_PREFIX) and name != _PREFIX:
        name = name[len(_PREFIX) :]
    return (name.replace("-", "_"),)
