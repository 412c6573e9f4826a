"""The sessions browser's rows: one small row per session, read from its session
point, and kept in a file beside the manifest between runs.

At a million messages (42,000 sessions in a 20 GB index) reading every session
point cold took 15-20 s: each sits on its own page among the message points, so
the read is 42,000 random page reads. The file holds the same rows in a few MB,
read in a fraction of a second; the catalogue checks it against the index
before trusting it (core/library/catalogue.py). It is a cache: a missing,
damaged or foreign file is read as no file, and a failed write loses nothing.
"""

from __future__ import annotations

import json
import os
import zlib
from contextlib import suppress
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import msgspec
from convo_tui.core.index.points import TALLY
from convo_tui.core.library.reading import SUMMARY_FIELDS

FILE_NAME = "catalogue.json.z"
# 2: rows keep the machine a remote session came from and the session's tally.
VERSION = 2

# What a row keeps: what a summary needs, less what the user's edits hold
# (annotations, laid over at page time), and the tally the stats count (core/tally.py).
ROW_FIELDS = [*(name for name in SUMMARY_FIELDS if name not in ("description", "starred", "tags")), TALLY]


@dataclass(frozen=True)
class Row:
    id: str
    title: str
    project: str
    source: str
    path: str
    messages: int
    turns: int
    started: float | None
    updated: float | None
    generation: int = 0
    machine: str = ""  # set on sessions read from another machine (core/remote/)
    # The session's messages counted for the stats (core/tally.py); None when its
    # session point has none (indexed before tallies): the stats read it whole once.
    tally: str | None = None

    @property
    def newest(self) -> float:
        return self.updated or self.started or 0.0


def row_of(payload: dict[str, Any]) -> Row:
    """A session point's payload (ROW_FIELDS) as a row."""
    return Row(
        id=payload.get("session_id", "") or "",
        title=payload.get("session_title", "") or "",
        project=payload.get("project", "") or "",
        source=payload.get("source", "") or "",
        path=payload.get("path", "") or "",
        messages=int(payload.get("message_count", 0) or 0),
        turns=int(payload.get("turn_count", 0) or 0),
        started=_epoch(payload.get("started_at")),
        updated=_epoch(payload.get("updated_at")),
        generation=int(payload.get("generation", 0) or 0),
        machine=str(payload.get("machine", "") or ""),
        tally=tally if isinstance(tally := payload.get(TALLY), str) and tally else None,
    )


def keep_newest(rows: dict[str, Row], row: Row) -> None:
    """Add `row` unless a newer generation of its session is there (a session
    being published has two for a moment)."""
    held = rows.get(row.id)
    if held is None or row.generation > held.generation:
        rows[row.id] = row


class _Saved(msgspec.Struct):
    """The file as `save` writes it, for msgspec to read and check in one pass."""

    version: int
    rows: list[tuple[str, str, str, str, str, int, int, float | None, float | None, int, str, str | None]]


_decode_saved = msgspec.json.Decoder(_Saved).decode


def load(folder: Path) -> dict[str, Row] | None:
    """The rows last saved in `folder`, or None when there are none to trust.

    Read by msgspec into typed tuples: at 42,110 sessions 0.28 s against 0.45 s
    through `json` and a check of each row (BENCHMARKS.md, "Twenty-second
    session"). A file msgspec refuses (an older version, a name that is not
    UTF-8 written back as its own bytes) is read the slower way."""
    try:
        data = zlib.decompress((folder / FILE_NAME).read_bytes())
    except (OSError, zlib.error):
        return None
    try:
        saved = _decode_saved(data)
    except (msgspec.MsgspecError, ValueError):  # ValueError: bytes that are not UTF-8
        return _load_json(data)
    if saved.version != VERSION:
        return None
    rows: dict[str, Row] = {}
    for sid, title, project, source, path, messages, turns, started, updated, generation, machine, tally in saved.rows:
        keep_newest(
            rows,
            Row(sid, title, project, source, path, messages, turns, started or None, updated or None, generation, machine, tally),
        )
    return rows


def _load_json(data: bytes) -> dict[str, Row] | None:
    try:
        loaded = json.loads(data)
    except ValueError:
        return None
    if not isinstance(loaded, dict) or loaded.get("version") != VERSION or not isinstance(loaded.get("rows"), list):
        return None
    rows: dict[str, Row] = {}
    try:
        for item in loaded["rows"]:
            keep_newest(rows, _from_list(item))
    except (TypeError, ValueError):
        return None
    return rows


def save(folder: Path, rows: dict[str, Row]) -> bool:
    """Write the rows atomically, owner only (they list every transcript's path).
    False when they could not be written (a read-only or full disk): the next
    start reads the index instead."""
    # A row's fields are plain values: read them as they are (dataclasses.astuple
    # deep-copies each one: 0.5 s of a save of 42k rows; the whole save takes 0.13 s now).
    names = [field.name for field in fields(Row)]
    body = json.dumps(
        {"version": VERSION, "rows": [[getattr(row, name) for name in names] for row in rows.values()]}, ensure_ascii=False
    )
    temp = folder / f"{FILE_NAME}.{os.getpid()}.tmp"  # processes that save at once each write their own
    try:
        with open(temp, "wb", opener=lambda path, flags: os.open(path, flags, 0o600)) as out:
            out.write(zlib.compress(body.encode("utf-8", "surrogatepass"), 3))
        os.replace(temp, folder / FILE_NAME)
    except OSError:
        with suppress(OSError):
            temp.unlink(missing_ok=True)
        return False
    return True


def _from_list(item: object) -> Row:
    if not isinstance(item, list) or len(item) != 12:
        raise ValueError("not a row")
    sid, title, project, source, path, messages, turns, started, updated, generation, machine, tally = item
    if not all(isinstance(text, str) for text in (sid, title, project, source, path, machine)):
        raise ValueError("not a row")
    if tally is not None and not isinstance(tally, str):
        raise ValueError("not a row")
    return Row(
        sid,
        title,
        project,
        source,
        path,
        int(messages),
        int(turns),
        _epoch(started),
        _epoch(updated),
        int(generation),
        machine,
        tally,
    )


def _epoch(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) and value else None
