"""The archive's reads (core/archive/store.py): versions, entries, paths and a
version's bytes. A mixin, so that store.py keeps the archive's lifecycle and writes."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

from convo_tui.core.archive.chunks import decompress
from convo_tui.core.archive.connection import Connections
from convo_tui.core.archive.keys import path_key, stored_key
from convo_tui.core.archive.records import JOINED_COLUMNS, UNIT, VERSION_COLUMNS, Entry, Version, version_from_row
from convo_tui.core.errors import ConvoError

_ENTRIES = (
    f"SELECT f.key, f.role, f.format, f.machine, f.encoding, f.pruned, {JOINED_COLUMNS} "
    "FROM files f JOIN versions v ON v.key = f.key AND v.seq = f.latest"
)
_KEYS_A_QUERY = 500  # under SQLite's oldest limit of 999 parameters


def _entry(row: tuple[Any, ...]) -> Entry:
    key = path_key(row[0])
    return Entry(key, row[1], row[2], row[3], row[4], bool(row[5]), version_from_row(key, row[6:]))


class ArchiveReads:
    """What an `Archive` answers, each read on a short connection of its own."""

    path: Path
    _db: Connections

    def exists(self) -> bool:
        return self.path.exists()

    def latest(self, key: str) -> Version | None:
        if not self.exists():
            return None
        with closing(self._db.open()) as db:
            return self._latest(db, key)

    def _latest(self, db: sqlite3.Connection, key: str) -> Version | None:
        """The version `files.latest` names (after an import it need not be the last one stored)."""
        row = db.execute(
            f"SELECT {JOINED_COLUMNS} FROM files f JOIN versions v ON v.key = f.key AND v.seq = f.latest WHERE f.key = ?",
            (stored_key(key),),
        ).fetchone()
        return version_from_row(key, row) if row else None

    def version(self, key: str, seq: int) -> Version | None:
        with closing(self._db.open()) as db:
            row = db.execute(
                f"SELECT {VERSION_COLUMNS} FROM versions WHERE key = ? AND seq = ?", (stored_key(key), seq)
            ).fetchone()
        return version_from_row(key, row) if row else None

    def entries(self, role: str | None = UNIT) -> list[Entry]:
        """Every archived path (of one role) with its newest version."""
        if not self.exists():
            return []
        query = _ENTRIES
        args: tuple[str, ...] = ()
        if role is not None:
            query += " WHERE f.role = ?"
            args = (role,)
        with closing(self._db.open()) as db:
            rows = db.execute(query, args).fetchall()
        return [_entry(row) for row in rows]

    def entries_of(self, keys: Sequence[str]) -> list[Entry]:
        """These archived paths with their newest versions (those the archive holds),
        read a few hundred a query."""
        if not keys or not self.exists():
            return []
        found: list[Entry] = []
        with closing(self._db.open()) as db:
            for start in range(0, len(keys), _KEYS_A_QUERY):
                part = [stored_key(key) for key in keys[start : start + _KEYS_A_QUERY]]
                query = f"{_ENTRIES} WHERE f.key IN ({', '.join('?' * len(part))})"
                found += [_entry(row) for row in db.execute(query, part).fetchall()]
        return found

    def heads(self, role: str = UNIT) -> list[tuple[str, bool, str]]:
        """(path, pruned, machine) of every archived path of one role: what an index
        run's look for gone sources filters on, without decoding each newest version."""
        if not self.exists():
            return []
        with closing(self._db.open()) as db:
            rows = db.execute("SELECT key, pruned, machine FROM files WHERE role = ?", (role,)).fetchall()
        return [(path_key(key), bool(pruned), machine or "") for key, pruned, machine in rows]

    def keys(self, role: str = UNIT) -> set[str]:
        """Every archived path of one role (no versions read: `entries` decodes
        each newest version, 0.5 s for 42,000 files)."""
        if not self.exists():
            return set()
        with closing(self._db.open()) as db:
            return {path_key(key) for (key,) in db.execute("SELECT key FROM files WHERE role = ?", (role,))}

    def entry(self, key: str) -> Entry | None:
        if not self.exists():
            return None
        with closing(self._db.open()) as db:
            row = db.execute(
                "SELECT role, format, machine, encoding, pruned FROM files WHERE key = ?", (stored_key(key),)
            ).fetchone()
            latest = self._latest(db, key) if row else None
        if row is None or latest is None:
            return None
        return Entry(key, row[0], row[1], row[2], row[3], bool(row[4]), latest)

    def read(self, version: Version) -> Iterator[bytes]:
        """The version's bytes, chunk by chunk."""
        with closing(self._db.open()) as db:
            rows = db.execute(
                "SELECT c.start, b.raw_size, b.data FROM chains c JOIN blobs b ON b.id = c.blob "
                "WHERE c.chain = ? AND c.start < ? ORDER BY c.pos",
                (version.chain, version.size),
            )
            done = 0
            for start, raw_size, data in rows:
                if start != done:
                    raise ConvoError(f"{self.path}: the archived copy of {version.key} is damaged (a gap at byte {done})")
                piece = decompress(data, raw_size)
                piece = piece[: version.size - start]
                done += len(piece)
                yield piece
        if done != version.size:
            raise ConvoError(f"{self.path}: the archived copy of {version.key} is damaged ({done} of {version.size} bytes)")

    def write_to(self, version: Version, target: Path) -> None:
        """The version's bytes into a new private file (its hash checked)."""
        digest = hashlib.blake2b(digest_size=16)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            for piece in self.read(version):
                digest.update(piece)
                handle.write(piece)
        if digest.hexdigest() != version.hash:
            raise ConvoError(f"{self.path}: the archived copy of {version.key} is damaged (its hash differs)")
