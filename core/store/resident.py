"""Dropping the index's mapped pages from this process once it no longer needs them.

Edge maps its files and reads some of them whole when a shard is loaded: the
write-ahead log (two 32 MB segments) and every payload index of the appendable
segment (a 1 MB tracker and a 4 MB page each, ~80 MB for our 15 indexed
fields). A process that then only searches never reads them again, yet they
stay counted in its resident memory for its whole life (measured at 98k
points: 140 MB of a 456 MB peak).

`release_index_pages` asks the kernel to unmap the resident pages of every
shared mapping of a file under the index folder (madvise MADV_DONTNEED). For
shared file mappings that only drops this process' page table entries: the
pages stay in the page cache (dirty ones are still written back), and a later
access faults them in again from there. Private mappings are never touched
(dropping their pages would discard data). Linux only; a no-op elsewhere.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import cast

from convo_tui.core.heap import libc

_MADV_DONTNEED = 4
_MAPS = Path("/proc/self/maps")


def _madvise() -> Callable[[int, int, int], int] | None:
    madvise = getattr(libc(), "madvise", None) if sys.platform.startswith("linux") else None
    if madvise is None:
        return None
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    madvise.restype = ctypes.c_int
    return cast("Callable[[int, int, int], int]", madvise)


def index_mappings(folder: Path) -> list[tuple[int, int]]:
    """(start, end) of this process' shared mappings of files under `folder`."""
    prefix = os.path.realpath(folder) + os.sep
    found = []
    try:
        with _MAPS.open(encoding="utf-8", errors="surrogateescape") as maps:
            for line in maps:
                fields = line.rstrip("\n").split(maxsplit=5)
                # address perms offset dev inode path; perms[3] is 's' (shared) or 'p' (private)
                if len(fields) == 6 and fields[1][3:4] == "s" and fields[5].startswith(prefix):
                    start, end = (int(part, 16) for part in fields[0].split("-"))
                    found.append((start, end))
    except OSError:
        return []
    return found


def release_index_pages(folder: Path) -> int:
    """Unmap the resident pages of the index files this process maps; how many mappings."""
    madvise = _madvise()
    if madvise is None:
        return 0
    released = 0
    for start, end in index_mappings(folder):
        if madvise(start, end - start, _MADV_DONTNEED) == 0:
            released += 1
    return released
