"""The archive's tables and the records read from them (core/archive/store.py
writes and reads them): a version of a file, the file it came from, an
archived path with its newest version, and the archive's totals."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

RAW = "raw"
SQLITE_DUMP = "sqlite-dump"
UNIT = "unit"
MEMBER = "member"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS blobs (
    id TEXT PRIMARY KEY,
    raw_size INTEGER NOT NULL,
    stored_size INTEGER NOT NULL,
    data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS chains (
    chain INTEGER NOT NULL,
    pos INTEGER NOT NULL,
    start INTEGER NOT NULL,
    blob TEXT NOT NULL,
    PRIMARY KEY (chain, pos)
);
CREATE TABLE IF NOT EXISTS files (
    key TEXT PRIMARY KEY,
    role TEXT NOT NULL,
    format TEXT NOT NULL DEFAULT '',
    machine TEXT NOT NULL DEFAULT '',
    encoding TEXT NOT NULL DEFAULT 'raw',
    latest INTEGER NOT NULL,
    pruned INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS versions (
    key TEXT NOT NULL,
    seq INTEGER NOT NULL,
    chain INTEGER NOT NULL,
    size INTEGER NOT NULL,
    hash TEXT NOT NULL,
    source_size INTEGER NOT NULL,
    source_mtime_ns INTEGER NOT NULL,
    source_hash TEXT NOT NULL,
    members TEXT NOT NULL DEFAULT '[]',
    stored_at REAL NOT NULL,
    PRIMARY KEY (key, seq)
);
"""


class ArchiveFull(Exception):
    """The archive reached its size cap: this version was not stored (nothing was deleted)."""


@dataclass(frozen=True)
class SourceState:
    """The source file a version was read from, as the index manifest records it."""

    size: int
    mtime_ns: int
    hash: str


@dataclass(frozen=True)
class Version:
    key: str
    seq: int
    chain: int
    size: int  # bytes stored (for a SQLite source: its dump)
    hash: str  # blake2b-128 of the stored bytes
    source: SourceState
    members: tuple[tuple[str, int], ...]
    stored_at: float


@dataclass(frozen=True)
class Entry:
    """One archived path with its newest version."""

    key: str
    role: str
    format: str
    machine: str
    encoding: str
    pruned: bool
    latest: Version


@dataclass(frozen=True)
class Counts:
    units: int
    members: int
    versions: int
    raw_bytes: int  # the sum of every stored chunk, uncompressed
    stored_bytes: int  # the same, compressed
    disk_bytes: int  # the archive's files on disk


def version_from_row(key: str, row: tuple[Any, ...]) -> Version:
    seq, chain, size, digest, source_size, source_mtime, source_hash, members, stored_at = row
    pairs = tuple((str(k), int(s)) for k, s in json.loads(members))
    return Version(key, seq, chain, size, digest, SourceState(source_size, source_mtime, source_hash), pairs, stored_at)


VERSION_COLUMNS = "seq, chain, size, hash, source_size, source_mtime_ns, source_hash, members, stored_at"
JOINED_COLUMNS = ", ".join("v." + column.strip() for column in VERSION_COLUMNS.split(","))
