"""Merging another archive (an exported one) into this one, never duplicating.

A version already here (same file, same bytes) is recognised and kept once;
a chunk already here is not copied again. What the other archive holds is
data from elsewhere: paths must be plain absolute paths, and every chunk
copied is decompressed and checked against its address before it is stored
(a wrong chunk would corrupt every file that shares it). Each file's newest
version is the one whose source changed last.
"""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass

from convo_tui.core.archive.chunks import chunk_id, decompress
from convo_tui.core.archive.keys import path_key
from convo_tui.core.errors import ConvoError

_HEX = re.compile(r"[0-9a-f]{32}")
_ROLES = {"unit", "member"}
_ENCODINGS = {"raw", "sqlite-dump"}
MAX_CHUNK_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class MergeCounts:
    files: int  # files new here
    versions: int  # versions new here
    chunks: int  # chunks copied
    skipped: int  # versions left out (a bad path or a damaged chunk)


def plain_key(key: object) -> bool:
    """An archived path (as the tables hold it: core/archive/store.py stored_key) that is plain and absolute."""
    if not isinstance(key, str):
        return False
    try:
        key = path_key(key)
    except ValueError:
        return False
    if not key.startswith("/") or "\0" in key:
        return False
    return not any(part in (".", "..", "") for part in key.split("/")[1:])


def _check_schema(src: sqlite3.Connection) -> None:
    tables = {str(r[0]) for r in src.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not {"blobs", "chains", "files", "versions", "meta"} <= tables:
        raise ConvoError("not a convo-tui archive (its tables are missing)")


def merge(db: sqlite3.Connection, src: sqlite3.Connection, format_version: int) -> MergeCounts:
    """Copy into `db` (inside its open transaction) what `src` has and `db` lacks."""
    _check_schema(src)
    stored = src.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
    if stored is None or not str(stored[0]).isdigit() or int(stored[0]) > format_version:
        raise ConvoError("the archive was written by a newer convo-tui; upgrade convo-tui to import it")
    files = versions = chunks = skipped = 0
    seq_map: dict[tuple[str, int], int] = {}
    # Members first: the units' member lists name their versions.
    rows = src.execute(
        "SELECT key, role, format, machine, encoding, pruned FROM files ORDER BY CASE role WHEN 'member' THEN 0 ELSE 1 END, key"
    ).fetchall()
    for key, role, fmt, machine, encoding, pruned in rows:
        if not plain_key(key) or role not in _ROLES or encoding not in _ENCODINGS:
            skipped += 1
            continue
        here = db.execute("SELECT latest FROM files WHERE key = ?", (key,)).fetchone()
        added = 0
        for version in src.execute(
            "SELECT seq, chain, size, hash, source_size, source_mtime_ns, source_hash, members, stored_at "
            "FROM versions WHERE key = ? ORDER BY seq",
            (key,),
        ).fetchall():
            seq, chain, size, digest, source_size, source_mtime, source_hash, members, stored_at = version
            same = db.execute("SELECT seq FROM versions WHERE key = ? AND hash = ? AND size = ?", (key, digest, size)).fetchone()
            if same is not None:
                seq_map[(key, seq)] = same[0]
                continue
            copied = _copy_chain(db, src, chain, size)
            if copied is None:
                skipped += 1
                continue
            new_chain, new_chunks = copied
            chunks += new_chunks
            pairs = []
            for member_key, member_seq in json.loads(members):
                local = seq_map.get((member_key, member_seq))
                if local is not None:
                    pairs.append([member_key, local])
            local_seq = db.execute("SELECT coalesce(max(seq), 0) + 1 FROM versions WHERE key = ?", (key,)).fetchone()[0]
            db.execute(
                "INSERT INTO versions (key, seq, chain, size, hash, source_size, source_mtime_ns, source_hash, members, stored_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (key, local_seq, new_chain, size, digest, source_size, source_mtime, source_hash, json.dumps(pairs), stored_at),
            )
            seq_map[(key, seq)] = local_seq
            added += 1
        if not added and here is not None:
            continue
        newest = db.execute(
            "SELECT seq FROM versions WHERE key = ? ORDER BY source_mtime_ns DESC, seq ASC LIMIT 1", (key,)
        ).fetchone()
        if newest is None:
            continue
        if here is None:
            db.execute(
                "INSERT INTO files (key, role, format, machine, encoding, latest, pruned) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (key, role, str(fmt or ""), str(machine or ""), encoding, newest[0], int(bool(pruned))),
            )
            files += 1
        else:
            db.execute("UPDATE files SET latest = ? WHERE key = ?", (newest[0], key))
        versions += added
    return MergeCounts(files, versions, chunks, skipped)


def _copy_chain(db: sqlite3.Connection, src: sqlite3.Connection, chain: int, size: int) -> tuple[int, int] | None:
    """A new chain here holding the first `size` bytes of `src`'s chain; None if it is damaged."""
    rows = src.execute(
        "SELECT c.pos, c.start, c.blob, b.raw_size, b.data FROM chains c LEFT JOIN blobs b ON b.id = c.blob "
        "WHERE c.chain = ? AND c.start < ? ORDER BY c.pos",
        (chain, size),
    )
    new_chain = db.execute("SELECT coalesce(max(chain), 0) + 1 FROM chains").fetchone()[0]
    done = copied = 0
    links: list[tuple[int, int, int, str]] = []
    for pos, start, blob, raw_size, data in rows:
        if start != done or not isinstance(blob, str) or not _HEX.fullmatch(blob) or data is None:
            return None
        if db.execute("SELECT 1 FROM blobs WHERE id = ?", (blob,)).fetchone() is None:
            if not isinstance(raw_size, int) or not 0 < raw_size <= MAX_CHUNK_BYTES:
                return None
            try:
                piece = decompress(bytes(data), raw_size)
            except Exception:  # zstd says the data is not a frame: a damaged chunk
                return None
            if chunk_id(piece) != blob or len(piece) != raw_size:
                return None
            db.execute(
                "INSERT INTO blobs (id, raw_size, stored_size, data) VALUES (?, ?, ?, ?)", (blob, raw_size, len(data), data)
            )
            copied += 1
        else:
            raw_size = db.execute("SELECT raw_size FROM blobs WHERE id = ?", (blob,)).fetchone()[0]
        links.append((new_chain, pos, start, blob))
        done += raw_size
    if done < size:
        return None
    db.executemany("INSERT INTO chains (chain, pos, start, blob) VALUES (?, ?, ?, ?)", links)
    return new_chain, copied
