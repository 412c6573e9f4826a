"""Leaving the index in the kernel's page cache when a process ends.

Edge, when a shard is closed or dropped, tells the kernel to drop every file it
mapped from the page cache (fadvise/madvise DONTNEED). So each convo-tui
process that let the index go left the next one to read it from disk again: a
fresh `search` at 100k messages spent 133 ms in its query instead of 17, and at
a million messages an app's first searches of common words 0.4-1.1 s instead of
40-60 ms (BENCHMARKS.md, "Twenty-fifth session").

A process that ends once it has let its index go does not need that clean-up:
the kernel unmaps everything at exit and keeps the pages cached for the next
process (and evicts them as it would any file's, when memory is wanted). So a
process that says so at its start (core/process.py; the `convo-tui` command
does) parks a store it lets go instead of closing it: what it wrote is flushed
(all Edge's drop does besides the eviction), and the shards stay open, never
dropped, until the process exits, and so does the index's lock, since Edge's
own lock on its write-ahead log goes only with the shards. Another process
that wants the index meanwhile waits for the lock as it waits for any holder
that is closing (core/holder/access.py). At exit the kernel lets both locks go
within a moment, in no order to rely on; a load that meets Edge's lock in that
moment is IndexBusy, which those waits retry, not damage (edge_schema.edge_errors).

Only `let_go` parks (Library.close, the end of the process's use of the
index); a store closed after a failed open lets its lock go at once, so the
rebuild its error names is not refused by an app or `mcp` still running.

The same process opening the index again gets the parked shards closed first
(`unpark`): only then is its lock free. At most one store is parked (parking
another closes the first), so a long-lived process holds no more than the
index it last let go.
"""

from __future__ import annotations

import ctypes
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_guard = threading.Lock()


@dataclass
class Parked:
    """A store's open shards and its lock, kept until the process exits."""

    path: Path
    shards: list[Any]
    close: Callable[[], None]  # closes the shards and releases the lock (what close() would have done)


_parked: Parked | None = None


def park(parked: Parked) -> None:
    """Keep `parked` open until the process exits (closing any store parked before).

    The shards get a reference nobody gives back, so neither Python's
    finalization nor the garbage collector drops them (a drop would evict their
    files)."""
    global _parked
    for shard in parked.shards:
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(shard))
    with _guard:
        before, _parked = _parked, parked
    if before is not None:
        _close(before)


def unpark(path: Path) -> None:
    """Close the store parked for `path`, if any: this process opens it again."""
    global _parked
    with _guard:
        if _parked is None or os.path.realpath(_parked.path) != os.path.realpath(path):
            return
        parked, _parked = _parked, None
    _close(parked)


def parked_path() -> Path | None:
    return _parked.path if _parked is not None else None


def _close(parked: Parked) -> None:
    try:
        parked.close()
    finally:
        for shard in parked.shards:
            ctypes.pythonapi.Py_DecRef(ctypes.py_object(shard))
