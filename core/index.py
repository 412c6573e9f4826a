"""Incremental indexing: discover, diff against the manifest, parse, embed, publish.

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
from pathlib import Path

from convo_tui.core.errors import ParseError
from convo_tui.core.manifest import FileEntry, Manifest, file_hash
from convo_tui.core.model import Session
from convo_tui.core.points import PendingPoint, session_points
from convo_tui.core.sources import detect, format_by_name, parse_path
from convo_tui.core.store.base import Cond, Filter, Point, Store, point_id

# Texts embedded per round: enough for full, length-sorted model batches.
BATCH_TEXTS = 1024
UPSERT_POINTS = 512


@dataclass
class IndexProgress:
    phase: str  # "scan" | "index" | "done"
    done: int
    total: int
    path: str | None = None


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


ProgressFn = Callable[[IndexProgress], None]


@dataclass
class _Parsed:
    key: str
    entry: FileEntry
    sessions: list[Session]
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


class Indexer:
    """One indexing run over a store; embedders are passed in already loaded."""

    def __init__(self, store: Store, manifest: Manifest, dense, sparse, suppressed: Callable[[str, str], bool] | None = None):
        self.store = store
        self.manifest = manifest
        # (session id, source path) -> True for a session the user deleted (core/annotations.py).
        self.suppressed = suppressed or (lambda _sid, _path: False)
        self.dense = dense
        self.sparse = sparse
        self.model = dense.name
        # session id -> (source key, path) of the file that produced it in this run
        self._claimed: dict[str, tuple[str, str]] = {}

    def run(
        self, files: Iterable[Path], *, progress: ProgressFn | None = None, cancel: threading.Event | None = None
    ) -> IndexReport:
        started = time.perf_counter()
        report = IndexReport()
        notify = progress or (lambda _p: None)
        self.store.ensure(self.dense.dim)
        self._clean_leftovers()
        owners = self.manifest.session_owner()
        self._claimed = {}
        todo: list[tuple[Path, os.stat_result]] = []
        files = list(files)
        for done, path in enumerate(files):
            if cancel is not None and cancel.is_set():
                report.cancelled = True
                break
            if done % 200 == 0:
                notify(IndexProgress("scan", done, len(files), str(path)))
            state = self._check(path, report)
            if state is not None:
                todo.append((path, state))
        generation = time.time_ns()
        batch: list[_Parsed] = []
        pending_texts = 0
        for done, (path, stat) in enumerate(todo):
            if report.cancelled or (cancel is not None and cancel.is_set()):
                report.cancelled = True
                break
            notify(IndexProgress("index", done, len(todo), str(path)))
            parsed = self._parse(path, stat, generation, report)
            if parsed is None:
                continue
            batch.append(parsed)
            pending_texts += sum(1 for p in parsed.points if p.text)
            if pending_texts >= BATCH_TEXTS:
                self._write(batch, generation, owners, report)
                batch, pending_texts = [], 0
        if batch and not report.cancelled:
            self._write(batch, generation, owners, report)
        if todo and not report.cancelled:
            notify(IndexProgress("optimize", len(todo), len(todo), None))
            self.store.optimize()
        self.manifest.save()
        self.store.flush()
        report.sessions = self.store.count(visible_filter(Cond("level", value="session")))
        report.points = self.store.count(visible_filter())
        report.seconds = time.perf_counter() - started
        notify(IndexProgress("done", len(todo), len(todo), None))
        return report

    # -- diffing ------------------------------------------------------------

    def _check(self, path: Path, report: IndexReport) -> os.stat_result | None:
        """The file's stat when it must be parsed again, None when unchanged."""
        key = source_key(path)
        try:
            stat = path.stat()
        except OSError as exc:
            report.skipped.append((str(path), f"cannot read: {exc.strerror or exc}"))
            return None
        entry = self.manifest.get(key)
        if entry is None or not self._same_parser(entry):
            return stat
        if entry.size == stat.st_size and entry.mtime_ns == stat.st_mtime_ns:
            return self._unchanged(path, entry, report)
        if entry.size == stat.st_size:
            try:
                same = file_hash(path) == entry.hash
            except OSError:
                return stat
            if same:
                entry.mtime_ns = stat.st_mtime_ns
                self.manifest.put(key, entry)
                return self._unchanged(path, entry, report)
        return stat

    def _unchanged(self, path: Path, entry: FileEntry, report: IndexReport) -> None:
        if entry.error:
            report.skipped.append((str(path), entry.error))
        report.unchanged += len(entry.sessions)
        return None

    def _same_parser(self, entry: FileEntry) -> bool:
        if entry.model != self.model:
            return False
        if entry.error:
            return True
        fmt = format_by_name(entry.format)
        return fmt is not None and fmt.version == entry.parser_version

    # -- parsing ------------------------------------------------------------

    def _parse(self, path: Path, stat: os.stat_result, generation: int, report: IndexReport) -> _Parsed | None:
        key = source_key(path)
        try:
            digest = file_hash(path)
        except OSError as exc:
            report.skipped.append((str(path), f"cannot read: {exc.strerror or exc}"))
            return None
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
            report.skipped.append((str(path), entry.error))
            old = self.manifest.get(key)
            if old is None or not old.sessions:
                self.manifest.put(key, entry)
            # A file that used to parse keeps its indexed sessions (archive).
            return None
        sessions = [s for s in sessions if not self.suppressed(s.id, s.path)]
        sessions = self._first_claim(key, path, sessions, report)
        entry.sessions = [s.id for s in sessions]
        points = [p for s in sessions for p in session_points(s, generation, self.dense.tokenizer)]
        return _Parsed(key, entry, sessions, points)

    def _first_claim(self, key: str, path: Path, sessions: list[Session], report: IndexReport) -> list[Session]:
        """Within one run a session id belongs to the first file that has it.

        Two files holding the same session (a backup copy, an export saved
        twice) would write the same point ids in the same generation, and the
        longer copy's extra turns would be published beside the shorter copy's
        record. The later copy is skipped and reported instead.
        """
        kept = []
        for session in sessions:
            first = self._claimed.setdefault(session.id, (key, str(path)))
            if first[0] == key:
                kept.append(session)
            else:
                report.skipped.append((str(path), f"session {session.id} is also in {first[1]}; indexed from there"))
        return kept

    # -- writing and publishing -----------------------------------------------

    def _write(self, batch: list[_Parsed], generation: int, owners: dict[str, str], report: IndexReport) -> None:
        pending = [p for parsed in batch for p in parsed.points]
        vectors = self._embed([p.text for p in pending if p.text])
        out: list[Point] = []
        for item in pending:
            dense, sparse = vectors.get(item.text, (None, None)) if item.text else (None, None)
            out.append(_GenerationPoint(item.key, dense, sparse, item.payload, generation))
            if len(out) >= UPSERT_POINTS:
                self.store.upsert(out)
                out = []
        if out:
            self.store.upsert(out)
        self.store.flush()
        for parsed in batch:
            self._publish(parsed, generation, owners, report)
        self.manifest.save()

    def _embed(self, texts: list[str]) -> dict[str, tuple[list[float], object]]:
        unique = list(dict.fromkeys(texts))
        dense = self.dense.embed_documents(unique)
        sparse = self.sparse.embed_documents(unique)
        return {text: (d, s) for text, d, s in zip(unique, dense, sparse, strict=False)}

    def _publish(self, parsed: _Parsed, generation: int, owners: dict[str, str], report: IndexReport) -> None:
        for session in parsed.sessions:
            this = Cond("session_id", value=session.id)
            self.store.set_payload({"visible": True}, Filter(must=(this, Cond("generation", value=generation))))
            self.store.delete(Filter(must=(this,), must_not=(Cond("generation", value=generation),)))
            if session.id in owners:
                report.updated += 1
            else:
                report.added += 1
            owners[session.id] = parsed.key
        old = self.manifest.get(parsed.key)
        gone = [sid for sid in (old.sessions if old else []) if sid not in set(parsed.entry.sessions)]
        if gone:
            self.store.delete(Filter(must=(Cond("session_id", any=tuple(gone)),)))
            report.removed += len(gone)
        self.manifest.put(parsed.key, parsed.entry)

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
