"""How the indexer sees a source file: its key, its state, its bytes, its sessions.

Phase 1 (publish.py) asks these six questions of every file it indexes.
`LocalFiles` answers them from the disk, as the indexer always did. The
archive (core/archive/files.py) answers them too: it keeps a copy of each
file's bytes as they are read, and it answers for files whose source is gone
from the copy it kept, so they are indexed again like any other file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from convo_tui.core.index.manifest import file_hash
from convo_tui.core.index.reading import Relabel, unchanged

if TYPE_CHECKING:
    from convo_tui.core.sources import SourceFormat


class FileStat(Protocol):
    """What the indexer reads of a file's state (an os.stat_result has it)."""

    @property
    def st_size(self) -> int: ...

    @property
    def st_mtime_ns(self) -> int: ...


def source_key(path: Path) -> str:
    """The manifest's key of a file: its absolute path."""
    return os.path.abspath(path)


class FileAccess(Protocol):
    def key(self, path: Path) -> str:
        """The file's key in the manifest."""
        ...

    def stat(self, path: Path) -> FileStat: ...

    def hash(self, path: Path) -> str:
        """The manifest's content hash of the file (core/index/manifest.py file_hash)."""
        ...

    def opened(self, path: Path) -> AbstractContextManager[Path]:
        """A path the readers can read for `path`, while the context lasts."""
        ...

    def keep(self, path: Path, readable: Path, fmt: SourceFormat | None) -> str:
        """Called once the file's format is known, before it is parsed; returns its hash."""
        ...

    def relabel(self, path: Path, readable: Path) -> Relabel:
        """What makes a session read from `readable` belong to `path` (a
        picklable function: phase 1 may read the file in another process)."""
        ...


class LocalFiles:
    """Files as they are on this disk (no archive)."""

    def key(self, path: Path) -> str:
        return source_key(path)

    def stat(self, path: Path) -> FileStat:
        return path.stat()

    def hash(self, path: Path) -> str:
        return file_hash(path)

    @contextmanager
    def opened(self, path: Path) -> Iterator[Path]:
        yield path

    def keep(self, path: Path, readable: Path, fmt: SourceFormat | None) -> str:
        return file_hash(readable)

    def relabel(self, path: Path, readable: Path) -> Relabel:
        return unchanged
