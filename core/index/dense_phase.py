"""Phase 2 of indexing: dense vectors for points already published with BM25 only.

Phase 1 (index.py) publishes every new or changed session with its keyword
vectors and whatever dense vectors the cache already holds; each text point
carries `dense_ready`. This phase finds the points still without a dense
vector, newest sessions first, embeds their texts in length-sorted batches and
sets the vectors in place (Store.update_vectors), then marks them ready.

It is resumable: vectors are committed to the content cache before they reach
the store, so a kill at any moment costs no embedding the next run repeats,
and the `dense_ready=false` flags say what is left. A session is never broken
by it: its points, payloads and keyword vectors are all already published;
only some of them are not yet found by meaning.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from itertools import islice
from typing import Any, Protocol

from convo_tui.core.heap import return_freed_memory
from convo_tui.core.index.points import LEVEL_TURN, turn_text
from convo_tui.core.index.throughput import Throughput
from convo_tui.core.index.vector_cache import VectorCache
from convo_tui.core.store.base import Cond, Filter, Store

# Texts fetched, embedded and written per round (bounds memory and the work a kill loses).
ROUND_TEXTS = 256
# Sessions read by phase 2's first query, and at most by one (the walk doubles the
# count while queries find few waiting texts: a finished index's sessions cost
# one query per MAX_SESSIONS, about 30 ms each at a million messages).
FIRST_SESSIONS = 8
MAX_SESSIONS = 1024
# The scroll that lists the waiting points lets go of the index pages it read
# after this many points (about 75 MB of them; BENCHMARKS.md, "Tenth session").
SCAN_RELEASE_POINTS = 16_384
# Word pieces per model call (length-sorted texts, padded to the longest).
# onnxruntime plans every intermediate tensor of a call at once, so a call's
# transient memory grows with batch x length^2: measured +435 MB for 17 texts
# of about 240 word pieces (peak 1.1 GB), 200-400 MB at 1,536 pieces (6 such
# texts). At 512 (2 long texts, or up to 32 short ones) the peak of a
# 300-session run fell from 811-853 to 593 MB at the same texts per second
# (20.8 vs 19.6-21.2; long texts gain nothing from batching on a CPU).
# Small batches also let a cancel land sooner. A model may ask for its own
# budget (`batch_tokens`: embed_e5.py).
BATCH_TOKENS = 512
MAX_BATCH = 32


def _visible(*conds: Cond) -> Filter:
    return Filter(must=(Cond("visible", value=True), *conds))


def point_text(payload: dict[str, Any]) -> str:
    """The text a point embeds, as phase 1 built it (turns: from their two sides)."""
    if payload.get("level") == LEVEL_TURN:
        return turn_text(payload.get("user_text", "") or "", payload.get("ai_text", "") or "")
    return payload.get("text", "") or ""


def token_batches(texts: Sequence[str], budget: int = BATCH_TOKENS, max_batch: int = MAX_BATCH) -> list[list[str]]:
    """Length-sorted texts cut into batches of about `budget` padded word pieces.

    A text's cost is estimated from its characters (about 4 per word piece,
    at most the model's 256), so short texts go in large batches and long
    ones in small ones, and padding stays low.
    """
    ordered = sorted(dict.fromkeys(texts), key=len)
    batches: list[list[str]] = []
    current: list[str] = []
    for text in ordered:
        cost = min(256, 2 + len(text) // 4)
        if (current and (len(current) + 1) * cost > budget) or len(current) >= max_batch:
            batches.append(current)
            current = []
        current.append(text)
    if current:
        batches.append(current)
    return batches


# Called with (texts with a vector in the whole index, all texts of the index,
# seconds left or None while unknown, texts per second or None).
ProgressCallback = Callable[[int, int, float | None, float | None], None]
# While a round embeds, its vectors are written to the store (and so found by
# meaning) after this many points or seconds, whichever comes first: one long
# session is not one silent write minutes later.
WRITE_POINTS = ROUND_TEXTS
WRITE_SECONDS = 5.0
# Progress is told at most this often (the holder streams each one to its client).
PROGRESS_SECONDS = 0.5


class CancelFlag(Protocol):
    """What a run reads of its cancel signal: a `threading.Event` or the indexer's view of a callable."""

    def is_set(self) -> bool: ...


class _Told:
    """Progress of the whole index: `done` of `total` texts have a vector; the
    ETA and rate come from the pace of the last minute (throughput.py)."""

    def __init__(self, notify: ProgressCallback, done: int, total: int):
        self.notify = notify
        self.done = done
        self.total = total
        self.pace = Throughput()
        self._last = float("-inf")

    def advance(self, points: int, *, force: bool = False) -> None:
        self.done += points
        self.pace.add(self.done)
        now = time.monotonic()
        if force or now - self._last >= PROGRESS_SECONDS:
            self._last = now
            self.notify(self.done, self.total, self.pace.eta(self.total - self.done), self.pace.rate())


class DensePhase:
    def __init__(
        self, store: Store, dense: Any, cache: VectorCache | None, newest_first: Callable[[], Sequence[str]] | None = None
    ):
        self.store = store
        self.dense = dense
        self.cache = cache
        # The index's sessions, newest first (Manifest.sessions_newest_first); None: list them by a scan.
        self.newest_first = newest_first
        self.embedded = 0  # texts this run sent to the model (the tests count them)

    def run(self, progress: ProgressCallback | None = None, cancel: CancelFlag | None = None) -> tuple[int, bool]:
        """(points given a vector in this run, cancelled). Progress counts the whole
        index: what earlier runs (or the vector cache) already gave a vector is done."""
        pending = self.store.count(_visible(Cond("dense_ready", value=False)))
        ready = self.store.count(_visible(Cond("dense_ready", value=True)))
        told = _Told(progress or (lambda _d, _t, _e, _r: None), ready, ready + pending)
        told.advance(0, force=True)
        waiting = self._waiting(pending)
        while points := list(islice(waiting, ROUND_TEXTS)):
            cancelled = self._embed(points, told, cancel)
            # onnxruntime's threads allocate each batch's buffers from their own malloc
            # arenas; without a trim the freed memory stays mapped and the process
            # grows round after round (measured: 840 MB -> 1.3 GB over a long phase 2).
            return_freed_memory()
            # The pages of the index this round read and wrote stay mapped, and so
            # counted in the process' RSS, until let go: 450 MB of a 100k index by
            # the end of a round (the page cache keeps them for the next reader).
            self.store.release_pages()
            if cancelled:
                return told.done - ready, True
        told.advance(0, force=True)
        return told.done - ready, False

    def _waiting(self, pending: int) -> Iterator[tuple[str, str, str]]:
        """The (id, key, text) of every point waiting for a vector, newest sessions first.

        With the sessions' order at hand it is walked a few sessions at a time, and the
        walk ends once `pending` points came: a finished index given one new session
        reads that session's points, not a list of every waiting point first (at a
        million messages that list took 28 s whenever phase 2 had work, each run).
        Sessions the order does not name (none, unless the manifest lost a file) come
        after, from a scan of what still waits."""
        listed = 0
        order = self.newest_first() if self.newest_first is not None and pending else []
        size, at = FIRST_SESSIONS, 0
        while at < len(order) and listed < pending:
            found = 0
            for point in self._points(order[at : at + size]):
                found += 1
                yield point
            listed += found
            at += size
            # About a round's texts a query: sessions hold from none (done) to thousands.
            if found < ROUND_TEXTS // 2:
                size = min(size * 2, MAX_SESSIONS)
            elif found > ROUND_TEXTS * 2:
                size = max(size // 2, 1)
        if listed < pending:
            named = set(order)
            group: list[str] = []
            group_size = 0
            for session_id, count in self._pending_sessions():
                if session_id in named:  # listed above; its points only wait for this round's write
                    continue
                group.append(session_id)
                group_size += count
                if group_size >= ROUND_TEXTS:
                    yield from self._points(group)
                    group, group_size = [], 0
            yield from self._points(group)

    def _points(self, sessions: Sequence[str]) -> Iterator[tuple[str, str, str]]:
        """The waiting points of these sessions, read a page at a time: one session can
        be a 200 MB transcript of 20,000 texts (issue 24.5)."""
        if not sessions:
            return
        flt = _visible(Cond("dense_ready", value=False), Cond("session_id", any=tuple(sessions)))
        fields = ["key", "level", "text", "user_text", "ai_text"]
        # Paged by point id: marking a slice ready does not move the pages still to come.
        for p in self.store.scroll(flt, fields=fields, batch=ROUND_TEXTS):
            yield p.id, p.payload.get("key", ""), point_text(p.payload)

    def _pending_sessions(self) -> list[tuple[str, int]]:
        """Sessions with points waiting for a vector, newest first, and their counts:
        read from every waiting point's payload."""
        newest: dict[str, float] = {}
        counts: dict[str, int] = {}
        waiting = self.store.scroll(_visible(Cond("dense_ready", value=False)), fields=["session_id", "timestamp"])
        for seen, point in enumerate(waiting, 1):
            if seen % SCAN_RELEASE_POINTS == 0:
                # Each point read maps its payload's pages (about 4.6 KB a point): at a
                # million messages the scroll of 445k waiting points reached 2 GB of RSS.
                self.store.release_pages()
            sid = point.payload.get("session_id", "")
            stamp = point.payload.get("timestamp") or 0.0
            newest[sid] = max(newest.get(sid, 0.0), float(stamp))
            counts[sid] = counts.get(sid, 0) + 1
        self.store.release_pages()
        order = sorted(counts, key=lambda sid: (-newest[sid], sid))
        return [(sid, counts[sid]) for sid in order]

    def _embed(self, points: list[tuple[str, str, str]], told: _Told, cancel: CancelFlag | None) -> bool:
        """Vectors for these (id, key, text) points, written as they come; True if cancelled."""
        # Points whose text is empty (nothing to embed) are done at once.
        empty = tuple(key for _, key, text in points if not text)
        if empty:
            self.store.set_payload({"dense_ready": True}, _visible(Cond("key", any=empty)))
            told.advance(len(empty))
        waiting: dict[str, list[tuple[str, str]]] = {}  # text -> its points (id, key)
        for pid, key, text in points:
            if text:
                waiting.setdefault(text, []).append((pid, key))
        vectors = self.cache.get_many(list(waiting)) if self.cache is not None else {}
        ready = [(text, vector) for text, vector in vectors.items() if text in waiting]
        written = time.monotonic()
        cancelled = False
        for batch in token_batches(
            [t for t in waiting if t not in vectors], budget=getattr(self.dense, "batch_tokens", BATCH_TOKENS)
        ):
            if cancel is not None and cancel.is_set():
                cancelled = True
                break
            if sum(len(waiting[t]) for t, _ in ready) >= WRITE_POINTS or time.monotonic() - written >= WRITE_SECONDS:
                self._write(ready, waiting, told)
                ready, written = [], time.monotonic()
            fresh = self.dense.embed_documents(batch)
            self.embedded += len(batch)
            pairs = list(zip(batch, fresh, strict=True))
            if self.cache is not None:
                self.cache.put_many(pairs)  # committed before the store sees them: a kill costs no embedding
            ready += pairs
        self._write(ready, waiting, told)
        return cancelled

    def _write(self, ready: list[tuple[str, Any]], waiting: dict[str, list[tuple[str, str]]], told: _Told) -> None:
        """Set the vectors of the points of `ready` texts and mark them ready."""
        if not ready:
            return
        updates = [(pid, vector) for text, vector in ready for pid, _ in waiting[text]]
        self.store.update_vectors(updates)
        keys = tuple(dict.fromkeys(key for text, _ in ready for _, key in waiting[text]))
        self.store.set_payload({"dense_ready": True}, _visible(Cond("key", any=keys)))
        told.advance(len(updates))
