"""Paths as the archive's tables hold them."""

from __future__ import annotations

import base64

# A path that is not valid UTF-8 (a file name in another encoding, read with
# surrogate escapes) cannot be SQLite text: it is stored as this prefix and the
# base64 of its bytes. No real path starts with a NUL.
_BYTES_KEY = "\0b64:"


def stored_key(key: str) -> str:
    """A path as the archive's tables hold it (reversible: `path_key`)."""
    try:
        key.encode("utf-8")
    except UnicodeEncodeError:
        return _BYTES_KEY + base64.b64encode(key.encode("utf-8", "surrogateescape")).decode("ascii")
    return key


def path_key(stored: str) -> str:
    if stored.startswith(_BYTES_KEY):
        return base64.b64decode(stored[len(_BYTES_KEY) :]).decode("utf-8", "surrogateescape")
    return stored
