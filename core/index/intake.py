"""What phase 1 reads and makes of it: which files (newest first), and the
points of each part of each session (core/index/batches.py writes them).

`files_to_read` checks every candidate against the manifest by `stat` alone
(and a hash when only the mtime moved) and keeps a path and an mtime of each
file to read: the run then reads them newest first across every source, so
the first batch holds today's sessions whatever the size of the history.
`part_points` turns one part of a session (core/sources `stream_path`) into
its points, keeping the session's counts across parts in a `SessionStream`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from convo_tui.core.index.chunks import TokenizerLike
from convo_tui.core.index.manifest import FileEntry, Manifest
from convo_tui.core.index.points import (
    PendingPoint,
    content_points,
    message_count,
    record_point,
    session_point,
)
from convo_tui.core.index.progress import CancelLike, IndexProgress, IndexReport, ProgressFn, is_cancelled
from convo_tui.core.index.source_files import FileAccess, FileStat
from convo_tui.core.model import Session, pair_messages
from convo_tui.core.serialize import session_to_record
from convo_tui.core.sources import SessionPart, format_by_name


@dataclass
class SessionStream:
    """One session while its parts are read (a session parsed whole is one last part)."""

    session_id: str
    new: bool  # no file in the manifest holds it: publish each part as it is written
    skip: bool = False  # the user deleted it, another file holds it, or its points failed
    turns: int = 0
    messages: int = 0
    parts: int = 0
    started_at: Any = None
    updated_at: Any = None
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


def part_points(
    session: Session,
    part: SessionPart,
    stream: SessionStream,
    generation: int,
    tokenizer: TokenizerLike | None,
    *,
    window: int | None = None,
    questions: bool = False,
) -> list[PendingPoint]:
    """The points of one part: its turns and messages, its record (in the session
    point for a session read whole, else a record point), and the session point
    when the session ends here or is new (for a new session's later parts it
    waits in `stream.head`: written with the part, it would hide the session's
    visible point until the part is flipped)."""
    turns = pair_messages(session.messages)
    points = content_points(
        session,
        generation,
        tokenizer,
        first_message=part.first_message,
        first_turn=stream.turns,
        turns=turns,
        window=window,
        questions=questions,
    )
    stream.turns += len(turns)
    stream.messages += message_count(session.messages)
    stream.started_at = stream.started_at or session.started_at
    stream.updated_at = max((t for t in (stream.updated_at, session.updated_at) if t is not None), default=None)
    if part.last and stream.parts == 0:  # a session read whole: its record in its session point
        head = session_point(session, generation, stream.turns, stream.messages, session_to_record(session))
        return [head, *points]
    points.append(record_point(session, generation, stream.parts))
    stream.parts += 1
    if part.last or stream.new:  # the session point, final or as read so far
        session.started_at, session.updated_at = stream.started_at, stream.updated_at
        record = session_to_record(session, with_messages=False)
        head = session_point(session, generation, stream.turns, stream.messages, record, record_parts=stream.parts)
        if stream.new and stream.parts > 1:
            stream.head = head
        else:
            points.insert(0, head)
    return points
