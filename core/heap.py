"""Keeping the C heap from holding memory the process no longer uses (glibc).

Two habits of glibc's malloc show up in our figures. Memory freed in the middle
of the heap stays mapped until `malloc_trim`: after building the ONNX session
(~90 MB) and after every embedding round of phase 2. And its mmap threshold
grows: a freed block above it raises it (up to 32 MB), so later large buffers
come from the heap, where they fragment it and stay: phase 2's onnxruntime
buffers (up to ~19 MB of attention scores per batch) grew an indexing process
to 780-830 MB at 60-100 sessions. Fixing the threshold at 16 MB keeps the
largest buffers in their own mappings, returned when freed (peak 670 MB, the
same texts per second: 27.6 against 25.3-27.4); at 1-4 MB phase 2 ran a third
slower (every mid-sized buffer faulted in afresh). And every thread that
allocates gets an arena of its own (up to 8 per core): phase 2's model runners,
the tokenizer's and Edge's threads each fragment theirs, and what one frees the
others cannot reuse. Two arenas (M_ARENA_MAX) took phase 2 of a 100k-message
history from a 1,307-1,373 MB peak (1,057 MB anonymous) to 923 MB (588 MB) at
the same texts per second (BENCHMARKS.md, "Eighth session: phase 2's heap").
Elsewhere than glibc these calls do nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from typing import Any

# mallopt parameters (malloc.h), the threshold set (bytes) and the arenas allowed.
_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8
MMAP_THRESHOLD = 16 * 1024 * 1024
ARENA_MAX = 2


@functools.cache
def libc() -> Any | None:
    """The C library, looked up once (None where it cannot be loaded): the
    process' own symbols, which hold it wherever Python links it dynamically;
    else by name (ctypes.util.find_library runs ldconfig: milliseconds)."""
    try:
        return ctypes.CDLL(None, use_errno=True)
    except (OSError, TypeError):  # no process symbols to look in (Windows)
        pass
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name, use_errno=True) if name else None
    except OSError:
        return None


def return_freed_memory() -> None:
    """Hand the heap's free pages back to the OS (malloc_trim)."""
    trim = getattr(libc(), "malloc_trim", None)
    if trim is not None:
        trim(0)


def keep_large_buffers_mapped() -> bool:
    """Fix malloc's mmap threshold (this also stops it growing); True if set."""
    mallopt = getattr(libc(), "mallopt", None)
    return bool(mallopt is not None and mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1)


def share_heap_arenas() -> bool:
    """At most ARENA_MAX malloc arenas for the process' threads; True if set.

    Only a call before a second thread allocates counts: glibc fixes its limit
    when it first needs a new arena (a call at model load changed nothing). So
    the long-running commands make it first thing (cli/main.py)."""
    mallopt = getattr(libc(), "mallopt", None)
    return bool(mallopt is not None and mallopt(_M_ARENA_MAX, ARENA_MAX) == 1)
