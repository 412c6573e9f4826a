"""What phase 1 reads: which files (newest first), and the state of each file
and session while it is written (core/index/batches.py writes them).

`files_to_read` checks every candidate against the manifest by `stat` alone
(and a hash when only the mtime moved) and keeps a path and an mtime of each
file to read: the run then reads them newest first across every source, so
the first batch holds today's sessions whatever the size of the history.
What becomes of each part of each session: reading.py makes its points,
publish.py decides what is written (a `SessionStream` per session).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from convo_tui.core.errors import ParseError
from convo_tui.core.index.manifest import FileEntry, Manifest
from convo_tui.core.index.points import PendingPoint
from convo_tui.core.index.progress import CancelLike, IndexProgress, IndexReport, ProgressFn, is_cancelled
from convo_tui.core.index.reading import ReadJob
from convo_tui.core.index.source_files import FileAccess, FileStat
from convo_tui.core.sources import format_by_name


@dataclass
class SessionStream:
    """One session while its parts are read (a session parsed whole is one last part)."""

    session_id: str
    new: bool  # no file in the manifest holds it: publish each part as it is written
    skip: bool = False  # the user deleted it, another file holds it, or its points failed
    parts: int = 0  # parts written so far
    head: PendingPoint | None = None  # a new session's session point, to write once its part is visible


@dataclass
class FileWork:
    """One file while its sessions are read and published."""

    key: str
    path: str
    entry: FileEntry
    pending: int = 0  # sessions started whose last part is not yet published
    read: bool = False  # every part has been read
    failed: bool = False  # reading stopped with an error: no manifest entry
    current: SessionStream | None = None


@dataclass
class Prepared:
    """A file handed to the reader (reader_process.py) and not yet written:
    `stack` holds it readable (the archive may put a gone file back for it),
    `job` is what the reader reads, `unreadable` why it has no job."""

    path: Path
    size: int
    stack: ExitStack
    file: FileWork | None = None
    job: ReadJob | None = None
    unreadable: ParseError | None = None


Contain = Callable[[Path, IndexReport, Callable[[], Any]], Any]


def files_to_read(
    files: Iterable[Path],
    access: FileAccess,
    manifest: Manifest,
    model: str,
    report: IndexReport,
    notify: ProgressFn,
    cancel: CancelLike,
    contain: Contain,
) -> list[tuple[int, str, int]]:
    """(mtime, path, size) of the new and changed files, newest first.
    Unchanged files are only stat'ed; nothing is kept of them."""
    todo: list[tuple[int, str, int]] = []
    for done, path in enumerate(files):
        if is_cancelled(cancel):
            report.cancelled = True
            return []
        if done % 200 == 0:
            notify(IndexProgress("scan", done, 0, os.fsdecode(path)))
        stat = contain(path, report, partial(_changed, path, access, manifest, model, report))
        if stat is not None:
            todo.append((stat.st_mtime_ns, os.fsdecode(path), stat.st_size))
    todo.sort(key=lambda item: (-item[0], item[1]))
    return todo


def _changed(path: Path, access: FileAccess, manifest: Manifest, model: str, report: IndexReport) -> FileStat | None:
    """The file's stat when it must be parsed again, None when unchanged."""
    key = access.key(path)
    try:
        stat = access.stat(path)
    except OSError as exc:
        report.skipped.append((os.fsdecode(path), f"cannot read: {exc.strerror or exc}"))
        return None
    entry = manifest.get(key)
    if entry is None or not _same_parser(entry, model):
        return stat
    if entry.size == stat.st_size and entry.mtime_ns == stat.st_mtime_ns:
        _unchanged(path, entry, report)
        return None
    if entry.size == stat.st_size:
        try:
            same = access.hash(path) == entry.hash
        except OSError:
            return stat
        if same:
            entry.mtime_ns = stat.st_mtime_ns
            manifest.put(key, entry)
            _unchanged(path, entry, report)
            return None
    return stat


def _unchanged(path: Path, entry: FileEntry, report: IndexReport) -> None:
    if entry.error:
        report.skipped.append((os.fsdecode(path), entry.error))
    report.unchanged += len(entry.sessions)


def _same_parser(entry: FileEntry, model: str) -> bool:
    if entry.model != model:
        return False
    if entry.error:
        return True
    fmt = format_by_name(entry.format)
    return fmt is not None and fmt.version == entry.parser_version
