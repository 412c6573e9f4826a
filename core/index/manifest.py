"""What was indexed from which source file: the memory that makes indexing incremental.

An SQLite file in the index folder (owner-only), one row per source file and
one per session it holds. Nothing is loaded whole: a run asks for the files it
meets, one at a time, so its memory does not grow with the history, and
recording a file costs one row, not a rewrite of every entry (a JSON manifest
rewritten after every batch cost O(files) per batch: quadratic over a large
first run). `put` and `remove` take effect at the next `save()` (a commit), so
a crash leaves the manifest as of the last save; an entry is put only after
its sessions are published.

A `manifest.json` left by an earlier version is imported once and removed.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from convo_tui.core.engine import SourceReading

MANIFEST_NAME = "manifest.sqlite3"
LEGACY_NAME = "manifest.json"
LEGACY_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS files (
    path BLOB PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    hash TEXT NOT NULL,
    format TEXT NOT NULL,
    parser_version INTEGER NOT NULL,
    model TEXT NOT NULL,
    generation INTEGER NOT NULL,
    error TEXT,
    unknown TEXT
);
CREATE TABLE IF NOT EXISTS sessions (
    session_id TEXT NOT NULL,
    path BLOB NOT NULL,
    position INTEGER NOT NULL,
    PRIMARY KEY (path, position)
);
CREATE INDEX IF NOT EXISTS sessions_by_id ON sessions (session_id);
"""
# A reader opens the manifest while the first index run may be creating it:
# the tables appear in one transaction, and a reader takes a manifest without
# all of them for an empty one. (The app's archive status read it between the
# two CREATE TABLEs once and its worker died on "no such table: sessions".)
_SCHEMA_AT_ONCE = f"BEGIN;\n{_SCHEMA}COMMIT;\n"
_TABLES = ("files", "sessions")
_COLUMNS = "size, mtime_ns, hash, format, parser_version, model, generation, error, unknown"


@dataclass
class FileEntry:
    size: int
    mtime_ns: int
    hash: str
    format: str  # SourceFormat.name ("" for a file that failed to parse)
    parser_version: int
    model: str
    sessions: list[str] = field(default_factory=list)
    generation: int = 0
    error: str | None = None  # the ParseError line, for a file skipped as bad
    unknown: dict[str, int] = field(default_factory=dict)  # parts its reader did not know: "event:x" -> count


def file_hash(path: Path) -> str:
    digest = hashlib.blake2b(digest_size=16)
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _full(exc: sqlite3.Error, path: Path) -> OSError | None:
    """SQLite's 'database or disk is full' as the OSError the faces turn into one line."""
    text = str(exc).lower()
    if "disk is full" in text or "disk i/o error" in text:
        return OSError(errno.ENOSPC, "No space left on device", str(path))
    return None


class Manifest:
    """The file table of one index folder. Not thread-safe: one index run uses it at a time."""

    def __init__(self, folder: Path, *, read_only: bool = False):
        self.folder = Path(folder)
        self.path = self.folder / MANIFEST_NAME
        self.read_only = read_only
        self._db = self._connect()

    def _connect(self) -> sqlite3.Connection:
        legacy = self.folder / LEGACY_NAME
        if self.read_only:
            db = self._read_only() if self.path.exists() else None
            if db is None:  # none yet, or one an index run has only just created: nothing recorded
                db = sqlite3.connect(":memory:", check_same_thread=False)
                db.executescript(_SCHEMA)
                if legacy.exists():
                    self._import(db, legacy)
            return db
        self.folder.mkdir(parents=True, exist_ok=True)
        if not self.path.exists():
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600))
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level="DEFERRED")
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(_SCHEMA_AT_ONCE)
            if legacy.exists():
                self._import(db, legacy)
                db.commit()
                legacy.unlink(missing_ok=True)
        except sqlite3.DatabaseError as exc:
            full = _full(exc, self.path)
            db.close()
            if full is not None:
                raise full from None
            # Unreadable: start afresh; indexing re-checks every file by hash.
            self.path.unlink(missing_ok=True)
            for suffix in ("-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600))
            db = sqlite3.connect(self.path, check_same_thread=False)
            db.executescript(_SCHEMA_AT_ONCE)
        return db

    def _read_only(self) -> sqlite3.Connection | None:
        """The manifest opened for reading, or None until it has every table."""
        uri = self.path.absolute().as_uri()
        # mode=ro first; `immutable` in a folder we may not write (no -shm file possible).
        for mode in ("mode=ro", "immutable=1"):
            db = sqlite3.connect(f"{uri}?{mode}", uri=True, check_same_thread=False)
            try:
                for table in _TABLES:
                    db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()
                return db
            except sqlite3.OperationalError as exc:
                db.close()
                if "no such table" in str(exc):
                    return None
            except sqlite3.Error:
                db.close()
        return None

    @staticmethod
    def _import(db: sqlite3.Connection, legacy: Path) -> None:
        try:
            data = json.loads(legacy.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if not isinstance(data, dict) or data.get("version") != LEGACY_VERSION:
            return
        for path, raw in (data.get("files") or {}).items():
            try:
                _write(db, path, FileEntry(**raw))
            except (TypeError, sqlite3.Error):
                continue

    @classmethod
    def load(cls, folder: Path, *, read_only: bool = False) -> Manifest:
        return cls(folder, read_only=read_only)

    def close(self) -> None:
        self._db.close()

    # -- reads -------------------------------------------------------------------

    def get(self, path: str) -> FileEntry | None:
        row = self._db.execute(f"SELECT {_COLUMNS} FROM files WHERE path = ?", (_key(path),)).fetchone()
        if row is None:
            return None
        return _entry(row, self.sessions_of(path))

    def sessions_of(self, path: str) -> list[str]:
        rows = self._db.execute("SELECT session_id FROM sessions WHERE path = ? ORDER BY position", (_key(path),))
        return [sid for (sid,) in rows]

    def owner_of(self, session_id: str) -> str | None:
        """The path of a file that holds this session, if any."""
        row = self._db.execute("SELECT path FROM sessions WHERE session_id = ? LIMIT 1", (session_id,)).fetchone()
        return _path(row[0]) if row else None

    def files_holding(self, session_id: str) -> list[str]:
        rows = self._db.execute("SELECT DISTINCT path FROM sessions WHERE session_id = ?", (session_id,))
        return [_path(key) for (key,) in rows]

    def sessions_newest_first(self) -> list[str]:
        """Every recorded session, in the order of its file's mtime, newest first (the
        order phase 1 read them in); a session two files hold comes once, at the newer."""
        rows = self._db.execute(
            "SELECT s.session_id FROM sessions s JOIN files f ON f.path = s.path ORDER BY f.mtime_ns DESC, s.path, s.position"
        )
        return list(dict.fromkeys(sid for (sid,) in rows))

    def paths(self) -> list[str]:
        """Every recorded path (strings only: 100 bytes a file, for prune)."""
        return [_path(key) for (key,) in self._db.execute("SELECT path FROM files ORDER BY path")]

    def session_counts(self) -> Iterator[tuple[str, str, int]]:
        """(path, format, sessions it holds) of every file, in one query: what
        the archive's status counts (`entries` asks for each file's sessions
        apart: 42,110 queries at a million messages, half a second)."""
        rows = self._db.execute(
            "SELECT f.path, f.format, COUNT(s.session_id) FROM files f LEFT JOIN sessions s ON s.path = f.path GROUP BY f.path"
        )
        for key, fmt, count in rows:
            yield _path(key), fmt, int(count)

    def entries(self) -> Iterator[tuple[str, FileEntry]]:
        """Every (path, entry), read page by page."""
        last = b""
        while True:
            rows = self._db.execute(
                f"SELECT path, {_COLUMNS} FROM files WHERE path > ? ORDER BY path LIMIT 512", (last,)
            ).fetchall()
            if not rows:
                return
            for row in rows:
                path = _path(row[0])
                yield path, _entry(row[1:], self.sessions_of(path))
            last = rows[-1][0]

    def session_count(self) -> int:
        """Distinct sessions the recorded files hold."""
        return int(self._db.execute("SELECT COUNT(DISTINCT session_id) FROM sessions").fetchone()[0])

    def held(self, session_ids: set[str]) -> int:
        """How many of these sessions some recorded file holds."""
        return sum(1 for sid in session_ids if self.owner_of(sid) is not None)

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM files").fetchone()[0])

    # -- writes (committed by save) ----------------------------------------------------

    def put(self, path: str, entry: FileEntry) -> None:
        self._guard(lambda: _write(self._db, path, entry))

    def remove(self, path: str) -> None:
        def drop() -> None:
            self._db.execute("DELETE FROM files WHERE path = ?", (_key(path),))
            self._db.execute("DELETE FROM sessions WHERE path = ?", (_key(path),))

        self._guard(drop)

    def clear(self) -> None:
        def drop() -> None:
            self._db.execute("DELETE FROM files")
            self._db.execute("DELETE FROM sessions")

        self._guard(drop)

    def claim(self, session_id: str, path: str) -> str:
        """Within one run, the first file to offer a session keeps it: the path
        that claimed `session_id` (this one if it is the first). Claims live in a
        temporary table (on disk, not in memory) until `forget_claims`."""
        self._db.execute("CREATE TEMP TABLE IF NOT EXISTS claims (session_id TEXT PRIMARY KEY, path BLOB NOT NULL)")
        self._db.execute("INSERT OR IGNORE INTO claims (session_id, path) VALUES (?, ?)", (session_id, _key(path)))
        row = self._db.execute("SELECT path FROM claims WHERE session_id = ?", (session_id,)).fetchone()
        return _path(row[0])

    def forget_claims(self) -> None:
        self._db.execute("DROP TABLE IF EXISTS temp.claims")

    def set_model(self, model: str) -> int:
        """Record every file as indexed with `model`; how many entries changed."""
        changed = [0]

        def update() -> None:
            changed[0] = self._db.execute("UPDATE files SET model = ? WHERE model != ?", (model, model)).rowcount

        self._guard(update)
        return changed[0]

    def save(self, force: bool = False) -> None:
        """Commit what was put and removed since the last save (atomic)."""
        if self.read_only:
            return
        self._guard(self._db.commit)

    def _guard(self, work: Callable[[], object]) -> None:
        try:
            work()
        except sqlite3.Error as exc:
            full = _full(exc, self.path)
            if full is not None:
                raise full from None
            raise


def _key(path: str) -> bytes:
    """A path as stored: its own bytes (a file name need not be valid UTF-8)."""
    return path.encode("utf-8", "surrogateescape")


def _path(key: bytes | str) -> str:
    return key.decode("utf-8", "surrogateescape") if isinstance(key, bytes) else key


def _entry(row: tuple[Any, ...], sessions: list[str]) -> FileEntry:
    size, mtime_ns, digest, fmt, version, model, generation, error, unknown = row
    return FileEntry(size, mtime_ns, digest, fmt, version, model, sessions, generation, error, _counts(unknown))


def _counts(stored: str | None) -> dict[str, int]:
    """The unknown parts' counts as stored (JSON), {} when there are none or they do not read."""
    try:
        value = json.loads(stored) if stored else {}
    except ValueError:
        return {}
    return {str(k): int(v) for k, v in value.items() if isinstance(v, int)} if isinstance(value, dict) else {}


def _write(db: sqlite3.Connection, path: str, entry: FileEntry) -> None:
    db.execute(
        f"INSERT OR REPLACE INTO files (path, {_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            _key(path),
            entry.size,
            entry.mtime_ns,
            entry.hash,
            entry.format,
            entry.parser_version,
            entry.model,
            entry.generation,
            entry.error,
            json.dumps(entry.unknown, sort_keys=True) if entry.unknown else None,
        ),
    )
    key = _key(path)
    db.execute("DELETE FROM sessions WHERE path = ?", (key,))
    db.executemany(
        "INSERT INTO sessions (session_id, path, position) VALUES (?, ?, ?)",
        [(sid, key, i) for i, sid in enumerate(entry.sessions)],
    )


def source_readings(manifest: Manifest, most: int = 3) -> list[SourceReading]:
    """Per format, the manifest's files: read, skipped, and read with unknown parts."""
    from convo_tui.core.sources import format_by_name

    groups: dict[str, list[FileEntry]] = {}
    for _, entry in manifest.entries():
        groups.setdefault(entry.format, []).append(entry)
    readings = []
    for name, entries in sorted(groups.items(), key=lambda item: (item[0] == "", item[0])):
        fmt = format_by_name(name) if name else None
        counts: dict[str, int] = {}
        for entry in entries:
            for key, count in (entry.unknown or {}).items():
                counts[key] = counts.get(key, 0) + count
        top = tuple(sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:most])
        readings.append(
            SourceReading(
                name=name,
                tool=(fmt.tool or fmt.label) if fmt else (name or "unknown format"),
                files=sum(1 for e in entries if not e.error),
                skipped=sum(1 for e in entries if e.error),
                drifted=sum(1 for e in entries if e.unknown and not e.error),
                unknown=sum(counts.values()),
                top=top,
            )
        )
    return readings
