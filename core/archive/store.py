"""The archive's storage: every version of every transcript file read, compressed
and deduplicated, in one SQLite file (`archive.sqlite3`, 0600, in a 0700 folder).

Tables:
- `blobs`: zstd-compressed chunks (core/archive/chunks.py) by content address;
  a chunk shared by two files or two versions is stored once.
- `chains`: a file's bytes as an ordered list of chunks, with the offset each
  starts at. A version is the first `size` bytes of its chain, so when a new
  version begins with the previous one (an append-only JSONL grew) the chain
  is extended by the tail's chunks only: the growth is stored, not a new copy.
- `versions`: each version of a file (its chain and size, the state of the
  source file it came from: size, mtime, blake2b hash as the manifest records
  it, and the companion files read with it).
- `files`: one row per archived path: unit (a transcript the indexer reads) or
  member (a file read with one: Cline's ui_messages.json, Gemini's
  .project_root...), its format and machine, and whether `prune` dropped it.

Crash safety: a version is written in one SQLite transaction (WAL,
synchronous=FULL): its chunks, chain rows and version row are all there or
none is. A killed writer leaves the previous versions intact and nothing half
written; the next open rolls the log back. Members are committed before the
unit version that names them. Nothing is ever deleted: when the archive
reaches its size cap, new versions are refused (`ArchiveFull`) and the caller
says so.

The reads (versions, entries, a version's bytes) are in archive_reads.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Iterable
from contextlib import AbstractContextManager, closing, suppress
from pathlib import Path
from typing import BinaryIO

from convo_tui.core.archive.archive_reads import ArchiveReads
from convo_tui.core.archive.chunks import READ_BLOCK, Chunker, chunk_id, compress
from convo_tui.core.archive.connection import FORMAT_VERSION, Connections
from convo_tui.core.archive.keys import path_key, stored_key
from convo_tui.core.archive.merging import MergeCounts, merge
from convo_tui.core.archive.records import (
    MEMBER,
    RAW,
    UNIT,
    VERSION_COLUMNS,
    ArchiveFull,
    Counts,
    SourceState,
    Version,
    version_from_row,
)
from convo_tui.core.errors import ConvoError

ARCHIVE_DB = "archive.sqlite3"


class Archive(ArchiveReads):
    """The archive in one folder. Every method opens its own short connection,
    so a holder may answer status requests while an index run writes; an index
    run's own writes share one (`held`: core/archive/connection.py)."""

    def __init__(self, folder: Path, max_bytes: int | None = None):
        self.folder = Path(folder)
        self.path = self.folder / ARCHIVE_DB
        self.max_bytes = max_bytes or None
        self._db = Connections(self.folder, self.path)

    def held(self) -> AbstractContextManager[None]:
        """This thread's writes share one connection until the block ends (Connections.held)."""
        return self._db.held()

    # -- writing ---------------------------------------------------------------

    def unchanged(self, key: str, size: int, mtime_ns: int) -> Version | None:
        """The newest version when the source is as it was then (same size and mtime)."""
        latest = self.latest(key)
        if latest is not None and (latest.source.size, latest.source.mtime_ns) == (size, mtime_ns):
            return latest
        return None

    def full(self) -> bool:
        return self.max_bytes is not None and self.disk_bytes() >= self.max_bytes

    def disk_bytes(self) -> int:
        total = 0
        for suffix in ("", "-wal"):
            with suppress(OSError):
                total += os.stat(f"{self.path}{suffix}").st_size
        return total

    def put_file(
        self,
        key: str,
        path: Path,
        *,
        role: str = UNIT,
        fmt: str = "",
        machine: str = "",
        encoding: str = RAW,
        source: SourceState | None = None,
        members: Iterable[tuple[str, int]] = (),
    ) -> Version:
        """Store `path`'s bytes as the newest version of `key` (unless they are the newest
        already) and return it. `source` describes the file the bytes stand for when they
        are not that file itself (a SQLite database's dump). Raises ArchiveFull."""
        pairs = tuple(members)
        with open(path, "rb") as handle:
            stat = os.fstat(handle.fileno())
            try:
                with self._db.writing() as db:
                    prev = self._latest(db, key)
                    same_state = prev is not None and (prev.source.size, prev.source.mtime_ns) == (stat.st_size, stat.st_mtime_ns)
                    if prev is not None and same_state and source is None and prev.members == pairs:
                        return prev
                    if self.full():
                        raise ArchiveFull(
                            f"the archive at {self.folder} is full ({self.disk_bytes() / 2**20:.1f} MB of "
                            f"{(self.max_bytes or 0) / 2**20:.1f} MB)"
                        )
                    version = self._store(db, key, handle, prev, stat.st_mtime_ns, source, pairs)
                    db.execute(
                        "INSERT INTO files (key, role, format, machine, encoding, latest) VALUES (?, ?, ?, ?, ?, ?) "
                        "ON CONFLICT(key) DO UPDATE SET role = excluded.role, format = excluded.format, "
                        "machine = excluded.machine, encoding = excluded.encoding, latest = excluded.latest, pruned = 0",
                        (stored_key(key), role, fmt, machine, encoding, version.seq),
                    )
                    return version
            except _Same as same:  # the same bytes (rolled back): only the source's state moved
                state = source or SourceState(same.version.size, stat.st_mtime_ns, same.version.hash)
                return self._restate(same.version, state)

    def _store(
        self,
        db: sqlite3.Connection,
        key: str,
        handle: BinaryIO,
        prev: Version | None,
        mtime_ns: int,
        source: SourceState | None,
        members: tuple[tuple[str, int], ...],
    ) -> Version:
        digest = hashlib.blake2b(digest_size=16)
        chain, pos, start = None, 0, 0
        if prev is not None and _starts_with(handle, prev, digest):
            chain, start = prev.chain, prev.size  # an append: the old bytes are in the chain already
            pos = db.execute("SELECT coalesce(max(pos), -1) + 1 FROM chains WHERE chain = ?", (chain,)).fetchone()[0]
        else:
            handle.seek(0)
            digest = hashlib.blake2b(digest_size=16)
        new_rows: list[tuple[int, int, str]] = []
        chunker = Chunker()
        offset = start
        while True:
            block = handle.read(READ_BLOCK)
            pieces = chunker.feed(block) if block else chunker.finish()
            for piece in pieces:
                digest.update(piece)
                new_rows.append((pos, offset, self._put_blob(db, piece)))
                pos += 1
                offset += len(piece)
            if not block:
                break
        size = offset
        if prev is not None and size == prev.size and digest.hexdigest() == prev.hash and prev.members == members:
            raise _Same(prev)
        if chain is None:
            chain = db.execute("SELECT coalesce(max(chain), 0) + 1 FROM chains").fetchone()[0]
        db.executemany(
            "INSERT INTO chains (chain, pos, start, blob) VALUES (?, ?, ?, ?)", [(chain, p, o, b) for p, o, b in new_rows]
        )
        stored = digest.hexdigest()
        state = source or SourceState(size, mtime_ns, stored)
        seq = db.execute("SELECT coalesce(max(seq), 0) + 1 FROM versions WHERE key = ?", (stored_key(key),)).fetchone()[0]
        now = time.time()
        db.execute(
            f"INSERT INTO versions (key, {VERSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                stored_key(key),
                seq,
                chain,
                size,
                stored,
                state.size,
                state.mtime_ns,
                state.hash,
                json.dumps([list(m) for m in members]),
                now,
            ),
        )
        return Version(key, seq, chain, size, stored, state, members, now)

    def _put_blob(self, db: sqlite3.Connection, piece: bytes) -> str:
        ident = chunk_id(piece)
        if db.execute("SELECT 1 FROM blobs WHERE id = ?", (ident,)).fetchone() is None:
            data = compress(piece)
            db.execute(
                "INSERT INTO blobs (id, raw_size, stored_size, data) VALUES (?, ?, ?, ?)", (ident, len(piece), len(data), data)
            )
        return ident

    def _restate(self, version: Version, state: SourceState) -> Version:
        """The source changed state (a touched mtime) but not its bytes: note it on the newest version."""
        if state == version.source:
            return version
        with self._db.writing() as db:
            db.execute(
                "UPDATE versions SET source_size = ?, source_mtime_ns = ?, source_hash = ? WHERE key = ? AND seq = ?",
                (state.size, state.mtime_ns, state.hash, stored_key(version.key), version.seq),
            )
        return Version(
            version.key, version.seq, version.chain, version.size, version.hash, state, version.members, version.stored_at
        )

    def set_pruned(self, keys: Iterable[str], pruned: bool = True) -> None:
        """`prune` dropped these files' sessions: the archive keeps them, re-indexing leaves them out."""
        with self._db.writing() as db:
            db.executemany("UPDATE files SET pruned = ? WHERE key = ?", [(int(pruned), stored_key(key)) for key in keys])

    # -- the whole archive ---------------------------------------------------------

    def counts(self) -> Counts:
        if not self.exists():
            return Counts(0, 0, 0, 0, 0, 0)
        with closing(self._db.open()) as db:
            roles = dict(db.execute("SELECT role, count(*) FROM files GROUP BY role").fetchall())
            versions = db.execute("SELECT count(*) FROM versions").fetchone()[0]
            raw, stored = db.execute("SELECT coalesce(sum(raw_size), 0), coalesce(sum(stored_size), 0) FROM blobs").fetchone()
        return Counts(roles.get(UNIT, 0), roles.get(MEMBER, 0), versions, raw, stored, self.disk_bytes())

    def verify(self) -> list[str]:
        """Every version read back and checked against its hash: the problems found, one line each."""
        problems: list[str] = []
        with closing(self._db.open()) as db:
            rows = db.execute(f"SELECT key, {VERSION_COLUMNS} FROM versions ORDER BY key, seq").fetchall()
        for row in rows:
            version = version_from_row(path_key(row[0]), row[1:])
            digest = hashlib.blake2b(digest_size=16)
            try:
                for piece in self.read(version):
                    digest.update(piece)
            except ConvoError as exc:
                problems.append(str(exc))
                continue
            if digest.hexdigest() != version.hash:
                problems.append(f"{version.key} version {version.seq}: its bytes do not match its hash")
        return problems

    def snapshot(self, target: Path) -> None:
        """A consistent copy of the whole archive in a new file (SQLite's online backup)."""
        with closing(self._db.open()) as db, closing(sqlite3.connect(target)) as out:
            db.backup(out)
            out.execute("PRAGMA journal_mode=DELETE")  # one self-contained file

    def merge_from(self, other: Path) -> MergeCounts:
        """What another archive file holds and this one lacks, copied in one transaction."""
        try:
            source = sqlite3.connect(other)  # a private copy (read only: nothing is written to it)
        except sqlite3.Error as exc:
            raise ConvoError(f"{other}: cannot open the archive to import ({exc})") from None
        try:
            with closing(source), self._db.writing() as db:
                return merge(db, source, FORMAT_VERSION)
        except sqlite3.DatabaseError as exc:
            raise ConvoError(f"{other}: not a readable archive ({exc})") from None

    def checkpoint(self) -> None:
        """Fold the log into the database file (the end of an index run)."""
        if self.exists():
            with closing(self._db.open()) as db:
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


class _Same(Exception):
    """The bytes are the newest version's: nothing to store."""

    def __init__(self, version: Version):
        self.version = version


def _starts_with(handle: BinaryIO, prev: Version, digest: hashlib.blake2b) -> bool:
    """Whether the file begins with `prev`'s bytes (read and hashed into `digest`)."""
    left = prev.size
    while left > 0:
        block = handle.read(min(READ_BLOCK, left))
        if not block:
            return False
        digest.update(block)
        left -= len(block)
    return digest.copy().hexdigest() == prev.hash
