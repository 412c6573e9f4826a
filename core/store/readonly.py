"""Reading an index folder this process may not write (a read-only mount, a
backup, another user's folder shared for reading).

Qdrant Edge opens its files for writing even to read them, so such a shard is
read from a private copy: its files copied hole for hole (Edge's pages are
sparse: only the bytes written are copied) into a 0700 temporary folder,
opened there and removed when the store closes. The folder's own lock is
taken shared where the lock file can be opened, so a writer on a writable
mount of the same folder still keeps readers out while it writes.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import shutil
import tempfile
from pathlib import Path

from convo_tui.core.errors import IndexBusy, IndexUnavailable

_CHUNK = 1 << 20


def writable(folder: Path) -> bool:
    """False for a folder this process cannot write (permissions, or a read-only file system)."""
    return os.access(folder, os.W_OK)


def copy_shard(shard: Path) -> Path:
    """A private copy of `shard` (a `shard/` folder inside a new temporary folder)."""
    root = Path(tempfile.mkdtemp(prefix="convo-tui-read-"))  # 0700
    target = root / shard.name
    try:
        for folder, _dirs, names in os.walk(shard):
            out = target / Path(folder).relative_to(shard)
            out.mkdir(parents=True, exist_ok=True, mode=0o700)
            for name in names:
                copy_sparse(Path(folder) / name, out / name)
    except OSError as exc:
        shutil.rmtree(root, ignore_errors=True)
        raise IndexUnavailable(
            f"the index at {shard.parent} is read-only and could not be copied to read it ({exc.strerror or exc})"
        ) from None
    return target


def copy_sparse(source: Path, target: Path) -> None:
    """Copy a file's data ranges only; its holes stay holes."""
    with open(source, "rb") as src, open(target, "wb") as dst:
        size = os.fstat(src.fileno()).st_size
        position = 0
        while position < size:
            try:
                start = os.lseek(src.fileno(), position, os.SEEK_DATA)
            except OSError as exc:
                if exc.errno == errno.ENXIO:
                    break  # nothing but a hole up to the end
                start = position  # no SEEK_DATA here: copy it all
            try:
                end = os.lseek(src.fileno(), start, os.SEEK_HOLE)
            except OSError:
                end = size
            src.seek(start)
            dst.seek(start)
            left = end - start
            while left > 0:
                block = src.read(min(_CHUNK, left))
                if not block:
                    break
                dst.write(block)
                left -= len(block)
            position = end
        dst.truncate(size)


class SharedLock:
    """A shared lock on `<index>/lock` where it can be opened for reading."""

    def __init__(self, path: Path):
        self.path = path
        self._fd: int | None = None

    def acquire(self) -> None:
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except OSError:
            return  # no lock file to share (a copied folder): nobody writes here either
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise IndexBusy(
                f"index {self.path.parent} is being written by another process; try again when it is done", None
            ) from None
        except OSError:
            os.close(fd)
            return
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None
