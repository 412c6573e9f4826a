"""Incremental indexing in two phases: keyword-searchable first, semantic after.

Phase 1 (this module): discover, diff against the manifest, parse, and publish
each new or changed session with its payload and BM25 vectors (and the dense
vectors the content cache already holds), in batches bounded by count and
time. Phase 2 (dense_phase.py) then adds the missing dense vectors in place,
newest sessions first, resumably.

Publishing protocol (crash safety): a run writes its points with a new
`generation` and `visible=false`; once every point of a session is written, one
set_payload flips that session's generation visible, then the session's other
generations are deleted; the manifest entry is written last. Search filters on
`visible=true`, so a reader sees a session wholly old, wholly new, or (only
between a flip and the delete) both, never half. Invisible leftovers of an
interrupted run are deleted when the next run starts.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from convo_tui.core.errors import ConvoError, IndexUnavailable, ParseError
from convo_tui.core.index.dense_phase import DensePhase
from convo_tui.core.index.manifest import FileEntry, Manifest, file_hash
from convo_tui.core.index.points import PendingPoint, clean_text, session_points
from convo_tui.core.index.throughput import Throughput
from convo_tui.core.index.vector_cache import VectorCache
from convo_tui.core.model import Session
from convo_tui.core.sources import detect, format_by_name, parse_path
from convo_tui.core.store.base import Cond, Filter, Point, Store, point_id

# Phase 1 publishes what it has parsed when this many texts are pending, or
# PUBLISH_SECONDS after the batch's first session, whichever comes first: a
# kill or Ctrl-C keeps every batch published before it.
BATCH_TEXTS = 2048
PUBLISH_SECONDS = 2.0
UPSERT_POINTS = 512
# Rebuild the search graphs only after this many points were written or given
# vectors: a few appended sessions are searched by brute force in Edge's
# appendable segment (fast at that size), and an append costs no rebuild.
OPTIMIZE_MIN_POINTS = 2000


@dataclass
class IndexProgress:
    """One progress event. Phases: "wait" (another index run of this process
    goes first: this one starts when it ends), "takeover" (the process that
    ran it stopped: the run goes on where the index is held now), "model"
    (the dense model named in `path` is loading), "switch" (the index's
    vectors move to another model: points copied), "scan" (files checked), "index"
    (phase 1: `done` of `total` files parsed, `sessions` published and
    searchable by keyword so far), "semantic" (phase 2: `done` of `total` texts
    of the whole index have a dense vector, counting what earlier runs did),
    "optimize", "done". `eta` (seconds left) and `rate` (files or texts per
    second) come from the pace of the last minute (throughput.py); None
    while it is not known yet."""

    phase: str
    done: int
    total: int
    path: str | None = None
    sessions: int = 0
    eta: float | None = None
    rate: float | None = None


@dataclass
class IndexReport:
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    sessions: int = 0
    points: int = 0
    seconds: float = 0.0
    cancelled: bool = False
    # Phase 2: texts embedded by the model in this run, points given a dense
    # vector, and the state of the whole index afterwards.
    embedded: int = 0
    vectors_added: int = 0
    semantic_ready: int = 0
    semantic_total: int = 0
    keyword_seconds: float = 0.0
    # One line each about the run itself (a damaged vector cache started afresh).
    notes: list[str] = field(default_factory=list)


ProgressFn = Callable[[IndexProgress], None]
CancelLike = threading.Event | Callable[[], bool] | None


@dataclass
class _File:
    """One parsed file while its sessions are being published."""

    key: str
    path: str
    entry: FileEntry
    left: int  # sessions not yet published


@dataclass
class _Unit:
    file: _File
    session: Session
    points: list[PendingPoint]


@dataclass
class _GenerationPoint(Point):
    """A point whose id also depends on its generation, so a new version never
    overwrites the published one in place (the payload `key` stays plain)."""

    generation: int = 0

    @property
    def id(self) -> str:
        return point_id(f"{self.key}@{self.generation}")


def visible_filter(*conds: Cond) -> Filter:
    return Filter(must=(Cond("visible", value=True), *conds))


def source_key(path: Path) -> str:
    return os.path.abspath(path)


def is_cancelled(cancel: CancelLike) -> bool:
    """Whether a cancel signal (an Event, a callable or None) says stop."""
    if cancel is None:
        return False
    if isinstance(cancel, threading.Event):
        return cancel.is_set()
    return bool(cancel())


class _CancelView:
    """An Event-like view of a cancel callable, for code that calls is_set()."""

    def __init__(self, cancel: CancelLike):
        self._cancel = cancel

    def is_set(self) -> bool:
        return is_cancelled(self._cancel)


def _clean_session(session: Session) -> None:
    """Strings made from file names that are not valid UTF-8 -> storable text."""
    session.id = clean_text(session.id)
    session.title = clean_text(session.title)
    session.project = clean_text(session.project)
    session.path = clean_text(session.path)
    if session.cwd is not None:
        session.cwd = clean_text(session.cwd)


class Indexer:
    """One indexing run over a store; embedders are passed in already loaded.

    `cache` (optional) holds dense vectors by content; `semantic=False` stops
    after phase 1 (the points stay marked for a later run's phase 2).
    """

    def __init__(
        self,
        store: Store,
        manifest: Manifest,
        dense: Any,
        sparse: Any,
        suppressed: Callable[[str, str], bool] | None = None,
        cache: VectorCache | None = None,
    ):
        self.store = store
        self.manifest = manifest
        # (session id, source path) -> True for a session the user deleted (core/annotations.py).
        self.suppressed = suppressed or (lambda _sid, _path: False)
        self.dense = dense
        self.sparse = sparse
        self.cache = cache
        self.model = dense.name
        # session id -> (source key, path) of the file that produced it in this run
        self._claimed: dict[str, tuple[str, str]] = {}
        self._published_sessions = 0
        self._written = 0
        self.embedded = 0

    def run(
        self,
        files: Iterable[Path],
        *,
        progress: ProgressFn | None = None,
        cancel: CancelLike = None,
        semantic: bool = True,
    ) -> IndexReport:
        started = time.perf_counter()
        report = IndexReport()
        notify = progress or (lambda _p: None)
        self.store.ensure(self.dense.dim)
        self._clean_leftovers()
        self._written = 0
        self._keyword_phase(files, report, notify, cancel)
        report.keyword_seconds = time.perf_counter() - started
        if semantic and not report.cancelled:
            phase = DensePhase(self.store, self.dense, self.cache)

            def semantic_progress(done: int, total: int, eta: float | None, rate: float | None) -> None:
                notify(IndexProgress("semantic", done, total, None, self._published_sessions, eta, rate))

            report.vectors_added, report.cancelled = phase.run(semantic_progress, _CancelView(cancel))
            report.embedded = self.embedded = phase.embedded
        if self._written + report.vectors_added >= OPTIMIZE_MIN_POINTS and not report.cancelled:
            notify(IndexProgress("optimize", 0, 0, None, self._published_sessions))
            self.store.optimize()
        self.manifest.save()
        self.store.flush()
        report.sessions = self.store.count(visible_filter(Cond("level", value="session")))
        report.points = self.store.count(visible_filter())
        report.semantic_ready = self.store.count(visible_filter(Cond("dense_ready", value=True)))
        report.semantic_total = report.semantic_ready + self.store.count(visible_filter(Cond("dense_ready", value=False)))
        report.seconds = time.perf_counter() - started
        notify(IndexProgress("done", report.semantic_ready, report.semantic_total, None, self._published_sessions))
        return report

    # -- phase 1: parse and publish with keyword vectors ------------------------

    def _keyword_phase(self, files: Iterable[Path], report: IndexReport, notify: ProgressFn, cancel: CancelLike) -> bool:
        """Parse new and changed files and publish their sessions in batches. True if anything was written."""
        self._claimed = {}
        self._published_sessions = 0
        todo: list[tuple[Path, os.stat_result]] = []
        files = list(files)
        for done, path in enumerate(files):
            if is_cancelled(cancel):
                report.cancelled = True
                return False
            if done % 200 == 0:
                notify(IndexProgress("scan", done, len(files), os.fsdecode(path)))
            state = self._contained(path, report, partial(self._check, path, report))
            if state is not None:
                todo.append((path, state))
        owners = self.manifest.session_owner()
        generation = time.time_ns()
        batch: list[_Unit] = []
        pending_texts = 0
        batch_started = time.monotonic()
        wrote = False
        # The time left follows the bytes read (files differ in size by thousands of times).
        pace, left, read = Throughput(), sum(stat.st_size for _, stat in todo), 0

        def tell(done: int, path: Path | None) -> None:
            pace.add(read)
            where = os.fsdecode(path) if path is not None else None
            notify(IndexProgress("index", done, len(todo), where, self._published_sessions, pace.eta(left - read)))

        for done, (path, stat) in enumerate(todo):
            if is_cancelled(cancel):
                report.cancelled = True
                break
            tell(done, path)
            read += stat.st_size
            units = self._contained(path, report, partial(self._parse, path, stat, generation, report))
            if units is None:
                continue
            file, sessions = units
            if not sessions:
                self._finish_file(file, report)
                continue
            for session in sessions:
                points = self._contained(path, report, partial(self._session_points, session, generation))
                if points is None:
                    file.left -= 1
                    file.entry.sessions.remove(session.id)
                    if file.left == 0:
                        self._finish_file(file, report)
                    continue
                batch.append(_Unit(file, session, points))
                pending_texts += sum(1 for p in points if p.text or p.keyword)
                if pending_texts < BATCH_TEXTS and time.monotonic() - batch_started < PUBLISH_SECONDS:
                    continue
                self._write(batch, generation, owners, report)
                wrote = True
                tell(done, path)
                batch, pending_texts, batch_started = [], 0, time.monotonic()
                if is_cancelled(cancel):
                    report.cancelled = True
                    break
            if report.cancelled:
                break
        if batch:
            self._write(batch, generation, owners, report)
            wrote = True
        if not report.cancelled:
            tell(len(todo), None)
        return wrote

    def _contained(self, path: Path, report: IndexReport, work: Callable[[], Any]) -> Any:
        """Run one file's work; any failure becomes one skipped line, the run goes on.

        Store failures (IndexUnavailable: disk full, a lost lock) stop the run:
        they are not this file's fault and the next file would fail the same way.
        """
        try:
            return work()
        except (IndexUnavailable, KeyboardInterrupt, MemoryError):
            raise
        except ConvoError as exc:
            report.skipped.append((os.fsdecode(path), str(exc)))
        except OSError as exc:
            report.skipped.append((os.fsdecode(path), f"cannot read: {exc.strerror or exc}"))
        except Exception as exc:  # a parser or keying bug must not cost the other files
            report.skipped.append((os.fsdecode(path), f"could not be indexed ({type(exc).__name__}: {exc})"))
        return None

    def _session_points(self, session: Session, generation: int) -> list[PendingPoint]:
        dense = self.dense
        return session_points(
            session, generation, dense.tokenizer, getattr(dense, "window", None), getattr(dense, "embed_questions", False)
        )

    # -- diffing ------------------------------------------------------------

    def _check(self, path: Path, report: IndexReport) -> os.stat_result | None:
        """The file's stat when it must be parsed again, None when unchanged."""
        key = source_key(path)
        try:
            stat = path.stat()
        except OSError as exc:
            report.skipped.append((os.fsdecode(path), f"cannot read: {exc.strerror or exc}"))
            return None
        entry = self.manifest.get(key)
        if entry is None or not self._same_parser(entry):
            return stat
        if entry.size == stat.st_size and entry.mtime_ns == stat.st_mtime_ns:
            self._unchanged(path, entry, report)
            return None
        if entry.size == stat.st_size:
            try:
                same = file_hash(path) == entry.hash
            except OSError:
                return stat
            if same:
                entry.mtime_ns = stat.st_mtime_ns
                self.manifest.put(key, entry)
                self._unchanged(path, entry, report)
                return None
        return stat

    def _unchanged(self, path: Path, entry: FileEntry, report: IndexReport) -> None:
        if entry.error:
            report.skipped.append((os.fsdecode(path), entry.error))
        report.unchanged += len(entry.sessions)

    def _same_parser(self, entry: FileEntry) -> bool:
        if entry.model != self.model:
            return False
        if entry.error:
            return True
        fmt = format_by_name(entry.format)
        return fmt is not None and fmt.version == entry.parser_version

    # -- parsing ------------------------------------------------------------

    def _parse(
        self, path: Path, stat: os.stat_result, generation: int, report: IndexReport
    ) -> tuple[_File, list[Session]] | None:
        key = source_key(path)
        digest = file_hash(path)
        fmt = detect(path)
        entry = FileEntry(
            size=stat.st_size,
            mtime_ns=stat.st_mtime_ns,
            hash=digest,
            format=fmt.name if fmt else "",
            parser_version=fmt.version if fmt else 0,
            model=self.model,
            generation=generation,
        )
        try:
            sessions = parse_path(path)
        except ParseError as exc:
            entry.error = exc.reason if exc.line is None else f"line {exc.line}: {exc.reason}"
            report.skipped.append((os.fsdecode(path), entry.error))
            old = self.manifest.get(key)
            if old is None or not old.sessions:
                self.manifest.put(key, entry)
            # A file that used to parse keeps its indexed sessions (archive).
            return None
        for session in sessions:
            _clean_session(session)
        sessions = [s for s in sessions if not self.suppressed(s.id, s.path)]
        sessions = self._first_claim(key, path, sessions, report)
        entry.sessions = [s.id for s in sessions]
        return _File(key, os.fsdecode(path), entry, len(sessions)), sessions

    def _first_claim(self, key: str, path: Path, sessions: list[Session], report: IndexReport) -> list[Session]:
        """Within one run a session id belongs to the first file that has it.

        Two files holding the same session (a backup copy, an export saved
        twice) would write the same point ids in the same generation, and the
        longer copy's extra turns would be published beside the shorter copy's
        record. The later copy is skipped and reported instead.
        """
        kept = []
        for session in sessions:
            first = self._claimed.setdefault(session.id, (key, os.fsdecode(path)))
            if first[0] == key:
                kept.append(session)
            else:
                report.skipped.append((os.fsdecode(path), f"session {session.id} is also in {first[1]}; indexed from there"))
        return kept

    # -- writing and publishing -----------------------------------------------

    def _write(self, batch: list[_Unit], generation: int, owners: dict[str, str], report: IndexReport) -> None:
        """Write a batch's points (keyword vectors, and dense ones the cache
        already has), then publish its sessions one by one."""
        pending = [p for unit in batch for p in unit.points]
        self._written += len(pending)
        cached = self.cache.get_many(p.text for p in pending if p.text) if self.cache is not None else {}
        out: list[Point] = []
        for item in pending:
            keyword = item.keyword_text
            sparse = self.sparse.embed_document(keyword) if keyword else None
            dense = cached.get(item.text) if item.text else None
            payload = item.payload
            if item.text:
                payload = {**payload, "dense_ready": dense is not None}
            out.append(_GenerationPoint(item.key, dense, sparse, payload, generation))
            if len(out) >= UPSERT_POINTS:
                self.store.upsert(out)
                out = []
        if out:
            self.store.upsert(out)
        self.store.flush()
        for unit in batch:
            self._publish(unit, generation, owners, report)
        self.manifest.save()

    def _publish(self, unit: _Unit, generation: int, owners: dict[str, str], report: IndexReport) -> None:
        session = unit.session
        this = Cond("session_id", value=session.id)
        self.store.set_payload({"visible": True}, Filter(must=(this, Cond("generation", value=generation))))
        self.store.delete(Filter(must=(this,), must_not=(Cond("generation", value=generation),)))
        if session.id in owners:
            report.updated += 1
        else:
            report.added += 1
        owners[session.id] = unit.file.key
        self._published_sessions += 1
        unit.file.left -= 1
        if unit.file.left == 0:
            self._finish_file(unit.file, report)

    def _finish_file(self, file: _File, report: IndexReport) -> None:
        """Every session of the file is published: drop the ones it no longer
        holds and remember the file (the manifest entry is written last)."""
        old = self.manifest.get(file.key)
        kept = set(file.entry.sessions)
        gone = [sid for sid in (old.sessions if old else []) if sid not in kept]
        if gone:
            self.store.delete(Filter(must=(Cond("session_id", any=tuple(gone)),)))
            report.removed += len(gone)
        self.manifest.put(file.key, file.entry)

    def _clean_leftovers(self) -> None:
        hidden = Filter(must=(Cond("visible", value=False),))
        if self.store.count(hidden):
            self.store.delete(hidden)


def prune(store: Store, manifest: Manifest) -> int:
    """Forget sessions whose source file is gone. Returns how many were removed."""
    removed = 0
    gone = [path for path in manifest.files if not os.path.exists(path)]
    for path in gone:
        entry = manifest.files[path]
        manifest.remove(path)
        # A session another (existing) file now holds is not the vanished file's to drop.
        still_owned = manifest.session_owner()
        ids = tuple(sid for sid in entry.sessions if sid not in still_owned)
        if ids:
            store.delete(Filter(must=(Cond("session_id", any=ids),)))
            removed += len(ids)
    store.flush()
    manifest.save()
    return removed
