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
slower (every mid-sized buffer faulted in afresh). Elsewhere than glibc these
calls do nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from typing import Any

# mallopt parameter (malloc.h) and the threshold set (bytes).
_M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 16 * 1024 * 1024


@functools.cache
def libc() -> Any | None:
    """The C library, looked up once (None where it cannot be loaded)."""
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
