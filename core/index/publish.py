"""Incremental indexing in two phases: keyword-searchable first, semantic after.

Phase 1 (this module reads; batches.py writes and publishes): discover, diff
against the manifest, parse, and publish each new or changed session with its
payload and BM25 vectors (and the dense vectors the content cache already
holds), in batches bounded by count and time. Phase 2 (dense_phase.py) then adds the missing dense vectors in place,
newest sessions first, resumably.

Order: the files to read are sorted newest first (by mtime) across every
source, so today's sessions are searchable in seconds whatever the size of the
history; a huge old file never blocks them.

Memory does not grow with the history: the manifest is an SQLite table read a
file at a time, the list of files to read keeps a path and two numbers per
file, a batch holds at most BATCH_TEXTS texts, and a session read as a stream
(core/sources `stream_path`) holds one part of PART_CHARS characters at a
time. The store rolls its appendable segment into an on-disk one every so many
points (core/store/edge_rolls.py ROLL_POINTS), so Edge's memory stays bounded too.

Publishing protocol (crash safety): a run writes its points with a new
`generation` and `visible=false`; once every point of a session is written, one
set_payload flips that session's generation visible, then the session's other
generations are deleted; the manifest entry is written last. Search filters on
`visible=true`, so a reader sees a session wholly old, wholly new, or (only
between a flip and the delete) both, never half. Invisible leftovers of an
interrupted run are deleted when the next run starts.

A session read in parts (longer than PART_CHARS) is published part by part
when it is new (not in the manifest): each part's points are flipped visible
once written, so it is keyword-searchable as it is read, a growing prefix of
turns, with a session point whose record holds the parts so far. A session the
index already holds is written in parts but flipped only after its last part,
as above (the old version stays whole until then). A kill in the middle of a
new session leaves the prefix published so far; the next run replaces it.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from functools import partial
from pathlib import Path
from typing import Any

from convo_tui.core.errors import ConvoError, IndexUnavailable, ParseError
from convo_tui.core.heap import return_freed_memory
from convo_tui.core.index.batches import Batches, Unit
from convo_tui.core.index.claims import SessionClaims
from convo_tui.core.index.dense_phase import DensePhase
from convo_tui.core.index.intake import FileWork, Prepared, files_to_read
from convo_tui.core.index.manifest import FileEntry, Manifest
from convo_tui.core.index.progress import (  # re-exported: the library, the faces and the tests import them from here
    CancelLike,
    CancelView,
    IndexProgress,
    IndexReport,
    ProgressFn,
    is_cancelled,
)
from convo_tui.core.index.reader_process import AHEAD_FILES, HAND_OVER, Source, opened_reader
from convo_tui.core.index.reading import FileEnd, FileFailed, PartRead, PartReader, ReadFailed, ReadJob
from convo_tui.core.index.source_files import FileAccess, LocalFiles, source_key  # source_key re-exported
from convo_tui.core.index.throughput import Throughput
from convo_tui.core.index.vector_cache import VectorCache
from convo_tui.core.index.visible import count_visible, visible_filter  # visible_filter re-exported
from convo_tui.core.sources import detect_format
from convo_tui.core.store.base import Cond, Filter, Store

# Rebuild the search graphs only after this many points were written or given
# vectors: a few appended sessions are searched by brute force in Edge's
# appendable segment (fast at that size), and an append costs no rebuild.
OPTIMIZE_MIN_POINTS = 2000
# A session read as a stream is cut into parts of about this many characters
# (at turn boundaries): the most of one transcript held in memory at once.
PART_CHARS = 2_000_000

__all__ = [
    "CancelLike",
    "IndexProgress",
    "IndexReport",
    "Indexer",
    "ProgressFn",
    "is_cancelled",
    "source_key",
    "visible_filter",
]


class Indexer:
    """One indexing run over a store; embedders are passed in already loaded.

    `cache` (optional) holds dense vectors by content; `semantic=False` stops
    after phase 1 (the points stay marked for a later run's phase 2). `files`
    says how a source file is seen (core/index/source_files.py: the disk, or
    the archive that keeps a copy of each file read and stands in for the gone).
    """

    def __init__(
        self,
        store: Store,
        manifest: Manifest,
        dense: Any,
        sparse: Any,
        suppressed: Callable[[str, str], bool] | None = None,
        cache: VectorCache | None = None,
        files: FileAccess | None = None,
    ):
        self.files: FileAccess = files or LocalFiles()
        self.store = store
        self.manifest = manifest
        # (session id, source path) -> True for a session the user deleted (core/annotations.py).
        self._claims = SessionClaims(manifest, suppressed or (lambda _sid, _path: False))
        self.dense = dense
        self.sparse = sparse
        self.cache = cache
        self.model = dense.name
        self._batches = Batches(store, manifest, cache)
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
        self._batches = Batches(self.store, self.manifest, self.cache)
        self._keyword_phase(files, report, notify, cancel)
        report.keyword_seconds = time.perf_counter() - started
        built = self._batches.written >= OPTIMIZE_MIN_POINTS and not report.cancelled
        if built:
            # Phase 2 writes only the dense shard (core/store/edge_ready.py): the main shard's
            # last segment is built now, beside phase 1's memory rather than the model's.
            self._optimize(notify)
        if semantic and not report.cancelled:
            # Phase 1's freed heap and the index pages it wrote are not phase 2's: let go of them
            # before it adds the model's runners (RSS at the switch, 100k messages: 748 MB).
            return_freed_memory()
            self.store.release_pages()
            phase = DensePhase(self.store, self.dense, self.cache, self.manifest.sessions_newest_first)

            def semantic_progress(done: int, total: int, eta: float | None, rate: float | None) -> None:
                notify(IndexProgress("semantic", done, total, None, self._batches.published_sessions, eta, rate))

            report.vectors_added, report.cancelled = phase.run(semantic_progress, CancelView(cancel))
            report.embedded = self.embedded = phase.embedded
            # Nothing more to embed in this run: the model's documents' path (e5's tokenizer
            # and runners, 115 MB) need not wait out its idle timer beside the run's end.
            release = getattr(self.dense, "release_documents", None)
            if release is not None:
                release()
        # What phase 2 added, or the two phases together when phase 1 alone built nothing.
        added = report.vectors_added + (0 if built else self._batches.written)
        if added >= OPTIMIZE_MIN_POINTS and not report.cancelled:
            self._optimize(notify)
        self.manifest.save()
        self.store.flush()
        report.sessions = count_visible(self.store, "level", "session")
        report.points = self.store.count(visible_filter())
        report.semantic_ready = count_visible(self.store, "dense_ready", True)
        report.semantic_total = report.semantic_ready + count_visible(self.store, "dense_ready", False)
        report.seconds = time.perf_counter() - started
        notify(IndexProgress("done", report.semantic_ready, report.semantic_total, None, self._batches.published_sessions))
        return report

    def _optimize(self, notify: ProgressFn) -> None:
        notify(IndexProgress("optimize", 0, 0, None, self._batches.published_sessions))
        self.store.optimize()

    # -- phase 1: parse and publish with keyword vectors ------------------------

    def _keyword_phase(self, files: Iterable[Path], report: IndexReport, notify: ProgressFn, cancel: CancelLike) -> bool:
        """Parse new and changed files, newest first, and publish their sessions
        in batches. True if anything was written."""
        self.manifest.forget_claims()
        todo = files_to_read(files, self.files, self.manifest, self.model, report, notify, cancel, self._contained)
        if report.cancelled:
            return False
        generation = time.time_ns()
        # The time left follows the bytes read (files differ in size by thousands of times).
        self._pace, self._bytes_left, self._bytes_read = Throughput(), sum(size for _, _, size in todo), 0
        reader = PartReader(
            self.dense.tokenizer,
            self.sparse,
            generation,
            PART_CHARS,
            window=getattr(self.dense, "window", None),
            questions=getattr(self.dense, "embed_questions", False),
        )
        waiting: deque[Prepared] = deque()  # handed to the reader, not yet written
        with opened_reader(reader, self._bytes_left) as source:
            try:
                self._read_all(todo, waiting, source, generation, report, notify, cancel)
            finally:
                for prepared in waiting:  # a run cancelled or stopped: the files it had not reached
                    prepared.stack.close()
        if self._batches:
            self._batches.write(generation, report)
        if not report.cancelled:
            self._tell(notify, len(todo), len(todo), None)
        return self._batches.wrote

    def _read_all(
        self,
        todo: list[tuple[int, str, int]],
        waiting: deque[Prepared],
        source: Source,
        generation: int,
        report: IndexReport,
        notify: ProgressFn,
        cancel: CancelLike,
    ) -> None:
        """Each file in turn, the reader handed files ahead of the one written
        (as far as `source.ahead_bytes` lets it: this process reads them one by one)."""
        ahead = 0  # the next file to prepare
        for done, (_mtime, name, size) in enumerate(todo):
            if is_cancelled(cancel):
                report.cancelled = True
                break
            handing = source.ready  # until the reader process has started, files are read here
            # A few files handed over per file written: preparing one (its hash, its
            # archive copy) is this process's work, and the newest must not wait for it.
            step = ahead + HAND_OVER
            while ahead < len(todo) and (
                not waiting
                or (handing and ahead < step and sum(p.size for p in waiting) < source.ahead_bytes and len(waiting) < AHEAD_FILES)
            ):
                path = Path(todo[ahead][1])
                prepared = Prepared(path, todo[ahead][2], ExitStack())
                self._contained(path, report, partial(self._prepare, prepared, generation))
                if prepared.job is not None and handing:
                    source.submit(prepared.job)
                waiting.append(prepared)
                ahead += 1
            prepared = waiting.popleft()
            self._tell(notify, done, len(todo), name)
            self._bytes_read += size
            with prepared.stack:
                self._contained(
                    prepared.path,
                    report,
                    partial(self._read_file, prepared, source, generation, report, notify, cancel, done, len(todo)),
                )
            if report.cancelled:
                break

    def _tell(self, notify: ProgressFn, done: int, total: int, path: str | None) -> None:
        """Phase 1's progress, with the time left from the pace of the bytes read."""
        self._pace.add(self._bytes_read)
        eta = self._pace.eta(self._bytes_left - self._bytes_read)
        notify(IndexProgress("index", done, total, path, self._batches.published_sessions, eta))

    def _prepare(self, prepared: Prepared, generation: int) -> None:
        """What a file needs before its reading (through `self.files`: the disk, or
        the archive's copy of a gone file): its manifest entry as it stands, its
        format, and its copy in the archive, made as it is handed to the reader."""
        path = prepared.path
        readable = prepared.stack.enter_context(self.files.opened(path))
        stat = self.files.stat(path)
        entry = FileEntry(
            size=stat.st_size,
            mtime_ns=stat.st_mtime_ns,
            hash="",
            format="",
            parser_version=0,
            model=self.model,
            generation=generation,
        )
        file = FileWork(self.files.key(path), os.fsdecode(path), entry)
        try:
            fmt = detect_format(readable)  # the one sniff of this file (the reader takes it by name)
        except ParseError as exc:
            prepared.file, prepared.unreadable = file, exc
            return
        entry.format, entry.parser_version = fmt.name, fmt.version
        entry.hash = self.files.keep(path, readable, fmt)  # archived as it is read
        prepared.job = ReadJob(file.path, os.fsdecode(readable), fmt.name, self.files.relabel(path, readable))
        prepared.file = file  # last: a file whose preparation failed (and was reported) is not read

    def _read_file(
        self,
        prepared: Prepared,
        source: Source,
        generation: int,
        report: IndexReport,
        notify: ProgressFn,
        cancel: CancelLike,
        done: int,
        total: int,
    ) -> None:
        """Take one file's parts from the reader as they come, queueing its
        sessions for publishing."""
        file = prepared.file
        if file is None:  # its preparation failed, and was reported then
            return
        entry = file.entry
        try:
            if prepared.unreadable is not None:
                raise prepared.unreadable
            assert prepared.job is not None
            for item in source.items(prepared.job):
                if isinstance(item, FileFailed):
                    item.raise_for(file.path)
                if isinstance(item, FileEnd):
                    entry.unknown = item.unknown  # what its reader did not know (format drift, `sources`)
                    break
                self._take(file, item, report)
                if self._batches.full():
                    self._batches.write(generation, report)
                    self._tell(notify, done, total, file.path)
                    if is_cancelled(cancel):
                        report.cancelled = True
                        file.failed = True  # read only partly: the next run reads it again
                        return
        except ParseError as exc:
            if file.pending or file.entry.sessions:
                # Parts were read before the error: they stay as published, the file is read again next time.
                file.failed = True
                report.skipped.append((file.path, exc.reason if exc.line is None else f"line {exc.line}: {exc.reason}"))
                return
            entry.error = exc.reason if exc.line is None else f"line {exc.line}: {exc.reason}"
            entry.hash = entry.hash or self.files.hash(prepared.path)
            report.skipped.append((file.path, entry.error))
            old = self.manifest.get(file.key)
            if old is None or not old.sessions:
                self.manifest.put(file.key, entry)
            # A file that used to parse keeps its indexed sessions (archive).
            return
        except ReadFailed:
            file.failed = True  # whatever was published stays; the next run reads the file again
            raise
        file.read = True
        if file.pending == 0:
            self._batches.finish_file(file, report)

    def _take(self, file: FileWork, read: PartRead, report: IndexReport) -> None:
        """One part of a session, into the batch."""
        if read.first_message == 0 or file.current is None:
            file.current = self._claims.start(file, read.session_id, read.session_path, report)
        stream = file.current
        if stream.skip:
            return
        if read.failure:
            report.skipped.append((file.path, read.failure))
            stream.skip = True
            file.entry.sessions.remove(stream.session_id)
            file.pending -= 1
            return
        points = read.points
        if not read.whole:
            stream.parts += 1
            if read.head is not None and (read.last or stream.new):
                if stream.new and stream.parts > 1:
                    stream.head = read.head  # written once this part is visible (batches.py)
                else:
                    points.insert(0, read.head)
        self._batches.add(Unit(file, points, stream, read.last))

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

    def _clean_leftovers(self) -> None:
        hidden = Filter(must=(Cond("visible", value=False),))
        if self.store.count(hidden):
            self.store.delete(hidden)
