"""Dense vectors keyed by content: a text embedded once with a model is never embedded again.

A SQLite file in the index folder (owner-only): key = blake2b(model id, text),
value = the float32 vector. It makes appends cheap (a session that grew keeps
the vectors of the turns that did not change), lets a killed phase 2 resume
without redoing what it finished (vectors are committed here before they are
written to the store), and makes `index --rebuild` with the same model cheap.

The cache is an optimisation only: if its file is unreadable it is started
afresh, and if it cannot be written the run goes on without it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
from array import array
from collections.abc import Iterable, Sequence
from pathlib import Path

CACHE_NAME = "vectors.sqlite"
_QUERY_CHUNK = 500  # keys per SELECT ... IN (...), under SQLite's variable limit


def text_key(model: str, text: str) -> bytes:
    digest = hashlib.blake2b(digest_size=16)
    digest.update(model.encode("utf-8", "surrogatepass"))
    digest.update(b"\0")
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.digest()


class VectorCache:
    """Vectors of one model, by text. Not thread-safe: the indexer's thread only."""

    def __init__(self, folder: Path, model: str, dim: int):
        self.path = Path(folder) / CACHE_NAME
        self.model = model
        self.dim = dim
        self._db: sqlite3.Connection | None = None
        # One line for the run's report when the cache could not be used as it was.
        self.notice: str | None = None
        try:
            self._db = self._open()
        except sqlite3.DatabaseError as exc:
            # Damaged: it only ever saves time, so start afresh, and say so.
            for suffix in ("", "-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
            with contextlib.suppress(sqlite3.Error, OSError):
                self._db = self._open()
            self.notice = (
                f"{self.path} was damaged ({exc}): started afresh; texts it held are embedded again"
                if self._db is not None
                else f"{self.path} was damaged ({exc}) and cannot be made again: every text is embedded"
            )
        except (sqlite3.Error, OSError) as exc:
            self._db = None
            self.notice = f"{self.path} cannot be used ({exc}): every text is embedded, none is kept"

    def _open(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.exists():
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600))  # SQLite keeps the mode
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vector BLOB NOT NULL) WITHOUT ROWID")
            db.execute("SELECT count(*) FROM vectors WHERE key = x'00'").fetchone()
        except sqlite3.Error:
            db.close()
            raise
        return db

    @property
    def available(self) -> bool:
        return self._db is not None

    def get_many(self, texts: Iterable[str]) -> dict[str, list[float]]:
        """The cached vectors of these texts (missing ones are left out)."""
        if self._db is None:
            return {}
        by_key = {text_key(self.model, t): t for t in dict.fromkeys(texts)}
        found: dict[str, list[float]] = {}
        keys = list(by_key)
        try:
            for start in range(0, len(keys), _QUERY_CHUNK):
                chunk = keys[start : start + _QUERY_CHUNK]
                marks = ",".join("?" * len(chunk))
                for key, blob in self._db.execute(f"SELECT key, vector FROM vectors WHERE key IN ({marks})", chunk):
                    vector = array("f")
                    vector.frombytes(blob)
                    if len(vector) == self.dim:
                        found[by_key[bytes(key)]] = vector.tolist()
        except sqlite3.Error:
            return found
        return found

    def put_many(self, items: Sequence[tuple[str, Sequence[float]]]) -> None:
        """Store vectors in one committed transaction (durable before the store sees them)."""
        if self._db is None or not items:
            return
        rows = [(text_key(self.model, text), array("f", vector).tobytes()) for text, vector in items]
        try:
            self._db.execute("BEGIN")
            self._db.executemany("INSERT OR REPLACE INTO vectors (key, vector) VALUES (?, ?)", rows)
            self._db.execute("COMMIT")
        except sqlite3.Error:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")

    def __len__(self) -> int:
        if self._db is None:
            return 0
        try:
            return int(self._db.execute("SELECT count(*) FROM vectors").fetchone()[0])
        except sqlite3.Error:
            return 0

    def close(self) -> None:
        db, self._db = self._db, None
        if db is not None:
            with contextlib.suppress(sqlite3.Error):
                db.close()
