"""Free-space checks that keep a full disk from killing the process.

Qdrant Edge maps its files (WAL segments, vector and payload pages) into
memory and writes many of them through the mapping; the files are sparse.
When the disk is full, the first write to an unallocated page (and on tmpfs
even the first read of one) is answered by SIGBUS: the process dies with "Bus
error" (exit 135) and no message, read-only commands included, and Python
cannot catch it. So every open and every write first checks the free space of
the index's file system and stops with one line (DiskFull) while there is
still room. The reserves are generous on purpose: running out mid-write costs
the whole process, refusing early costs nothing (the index is left as it was).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from convo_tui.core.errors import DiskFull

MB = 1 << 20
# Opening and reading: Edge touches a few pages of each mapped file (its
# status flags, the first pages of the payload and vector stores).
READ_RESERVE = 16 * MB
# Creating a shard allocates about 30 MB (payload index pages, WAL); one update
# (at most a few thousand points) writes a few MB into the WAL and the stores.
WRITE_RESERVE = 64 * MB
_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
# How Edge (Rust std::io) words the same errors inside its bare Exception.
_FULL_WORDS = ("no space left on device", "os error 28", "disk quota exceeded", "os error 122")


def free_bytes(folder: Path) -> int:
    """Bytes an unprivileged writer may still use on `folder`'s file system
    (of its nearest existing parent when it does not exist yet)."""
    probe = Path(folder)
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    try:
        stat = os.statvfs(probe)
    except OSError:
        return 1 << 62  # unknown: do not block (the write itself will say)
    return stat.f_bavail * stat.f_frsize


def require(folder: Path, need: int, doing: str) -> None:
    """DiskFull unless `folder` has at least `need` bytes free."""
    free = free_bytes(folder)
    if free < need:
        raise DiskFull(folder, free, doing)


def allocated_bytes(folder: Path, skip: str = "") -> int:
    """Disk space the files under `folder` really take (sparse holes excluded),
    leaving out folders named `skip`."""
    total = 0
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if d != skip]
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                continue
    return total


# File systems in memory: there even reading an unallocated page of a shared
# mapping allocates it, and Edge reads whole payload-index pages when it loads.
_MEMORY_FS = frozenset({"tmpfs", "ramfs", "shmem"})


def _fs_type(folder: Path) -> str:
    """The type of the file system holding `folder` ("" when unknown: not Linux)."""
    try:
        lines = Path("/proc/self/mountinfo").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    target = os.path.realpath(folder)
    best, kind = -1, ""
    for line in lines:
        left, sep, right = line.partition(" - ")
        fields = left.split()
        if not sep or len(fields) < 5 or not right:
            continue
        point = fields[4].encode().decode("unicode_escape")  # "\040" for a space
        inside = target == point or target.startswith(point.rstrip("/") + "/")
        if inside and len(point) > best:
            best, kind = len(point), right.split()[0]
    return kind


def sparse_bytes(folder: Path, within: str = "payload_index") -> int:
    """Bytes of holes in the sparse files under `folder`, in folders named `within`."""
    total = 0
    for root, _dirs, files in os.walk(folder):
        if within not in Path(root).parts:
            continue
        for name in files:
            try:
                stat = os.lstat(os.path.join(root, name))
            except OSError:
                continue
            total += max(0, stat.st_size - stat.st_blocks * 512)
    return total


def optimize_reserve(segments: Path) -> int:
    """Free space an optimize may take: it copies the points (vectors, payloads)
    into a new segment, whose payload indexes start afresh (within the reserve)."""
    return allocated_bytes(segments, skip="payload_index") + WRITE_RESERVE


def open_reserve(folder: Path) -> int:
    """Free space that opening the index folder's shards may take: a little on
    disk, and on a file system in memory the holes of the payload indexes, which Edge reads
    whole when it loads (measured: a fresh 29 MB index grew to 101 MB on tmpfs
    at its first open, all of it in payload_index/; on ext4 it did not grow)."""
    if _fs_type(folder) in _MEMORY_FS:
        return READ_RESERVE + sparse_bytes(folder)
    return READ_RESERVE


def is_disk_full(exc: BaseException) -> bool:
    """An OSError or an engine error that means the disk (or quota) is full."""
    if isinstance(exc, OSError) and exc.errno in _FULL_ERRNOS:
        return True
    text = str(exc).lower()
    return any(words in text for words in _FULL_WORDS)


def disk_full(folder: Path, doing: str = "") -> DiskFull:
    return DiskFull(folder, free_bytes(folder), doing)
