"""Phase 1's batches: the points of parsed sessions written, then published
session by session (the protocol is in publish.py's docstring).

The indexer hands each part of a session here as a `Unit`, its points made and
their keyword vectors computed (reading.py); once a batch is full (by texts or
by time) its points are written with them, and with the dense vectors the content cache already holds,
then each of its sessions (or parts) is flipped visible and its older
generations deleted. A file's manifest entry is written when every session it
holds is published.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from convo_tui.core.index.intake import FileWork, SessionStream
from convo_tui.core.index.manifest import Manifest
from convo_tui.core.index.points import PendingPoint
from convo_tui.core.index.progress import IndexReport
from convo_tui.core.index.vector_cache import VectorCache
from convo_tui.core.store.base import Cond, Filter, Point, Store, point_id

# Phase 1 publishes what it has parsed when this many texts are pending, or
# PUBLISH_SECONDS after the batch's first session, whichever comes first: a
# kill or Ctrl-C keeps every batch published before it.
BATCH_TEXTS = 2048
PUBLISH_SECONDS = 2.0
# The first batch is this small, and each next one twice the last up to
# BATCH_TEXTS: the newest sessions (read first) are searchable at once.
FIRST_BATCH_TEXTS = 64
UPSERT_POINTS = 512
# The store is flushed at most this often while publishing (and at the end of a
# run): a kill loses nothing either way (Edge's write-ahead log is in the page
# cache); flushing every batch cost 15% of phase 1.
FLUSH_SECONDS = 30.0


@dataclass
class Unit:
    """One parsed part of a session, waiting in a batch."""

    file: FileWork
    points: list[PendingPoint]
    stream: SessionStream
    last: bool


@dataclass
class GenerationPoint(Point):
    """A point whose id also depends on its generation, so a new version never
    overwrites the published one in place (the payload `key` stays plain)."""

    generation: int = 0

    @property
    def id(self) -> str:
        return point_id(f"{self.key}@{self.generation}")


class Batches:
    """The batch being filled, and what writing the batches so far did."""

    def __init__(self, store: Store, manifest: Manifest, cache: VectorCache | None):
        self.store = store
        self.manifest = manifest
        self.cache = cache
        self.published_sessions = 0  # sessions made wholly visible this run
        self.written = 0  # points written this run
        self.wrote = False  # any batch written this run
        self._units: list[Unit] = []
        self._limit = min(FIRST_BATCH_TEXTS, BATCH_TEXTS)
        self._texts = 0
        self._started = time.monotonic()
        self._flushed = time.monotonic()

    def add(self, unit: Unit) -> None:
        self._units.append(unit)
        self._texts += sum(1 for p in unit.points if p.text or p.keyword)

    def full(self) -> bool:
        return self._texts >= self._limit or time.monotonic() - self._started >= PUBLISH_SECONDS

    def __bool__(self) -> bool:
        return bool(self._units)

    def write(self, generation: int, report: IndexReport) -> None:
        """Write the batch's points (keyword vectors, and dense ones the cache
        already has), then publish its sessions (or parts) one by one."""
        batch = self._units
        self._units, self._texts, self._started = [], 0, time.monotonic()
        self._limit = min(self._limit * 2, BATCH_TEXTS)
        pending = [p for unit in batch for p in unit.points]
        self.written += len(pending)
        cached = self.cache.get_many(p.text for p in pending if p.text) if self.cache is not None else {}
        out: list[Point] = []
        for item in pending:
            dense = cached.get(item.text) if item.text else None
            payload = item.payload
            if item.text:
                payload = {**payload, "dense_ready": dense is not None}
            out.append(GenerationPoint(item.key, dense, item.sparse, payload, generation))
            if len(out) >= UPSERT_POINTS:
                self.store.upsert(out)
                out = []
        if out:
            self.store.upsert(out)
        del pending, out
        for unit in batch:
            self._publish(unit, generation, report)
        self.manifest.save()
        self.wrote = True
        if time.monotonic() - self._flushed >= FLUSH_SECONDS:
            self.store.flush()
            self._flushed = time.monotonic()

    def _publish(self, unit: Unit, generation: int, report: IndexReport) -> None:
        stream = unit.stream
        this = Cond("session_id", value=stream.session_id)
        written = Filter(must=(this, Cond("generation", value=generation), Cond("visible", value=False)))
        if stream.new and stream.parts:
            self.store.set_payload({"visible": True}, written)  # this part is searchable now
            if stream.head is not None:  # and the session point says so
                head, stream.head = stream.head, None
                self.store.upsert([GenerationPoint(head.key, None, None, {**head.payload, "visible": True}, generation)])
        if not unit.last:
            return
        self.store.set_payload({"visible": True}, written)
        self.store.delete(Filter(must=(this,), must_not=(Cond("generation", value=generation),)))
        if stream.new:
            report.added += 1
        else:
            report.updated += 1
        self.published_sessions += 1
        file = unit.file
        file.pending -= 1
        if file.pending == 0 and file.read and not file.failed:
            self.finish_file(file, report)

    def finish_file(self, file: FileWork, report: IndexReport) -> None:
        """Every session of the file is published: drop the ones it no longer
        holds and remember the file (the manifest entry is written last)."""
        old = self.manifest.get(file.key)
        kept = set(file.entry.sessions)
        gone = [sid for sid in (old.sessions if old else []) if sid not in kept]
        if gone:
            self.store.delete(Filter(must=(Cond("session_id", any=tuple(gone)),)))
            report.removed += len(gone)
        self.manifest.put(file.key, file.entry)
