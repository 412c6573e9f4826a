"""The facade the app and the CLI share: open the index, index, search, browse.

`open` is fast (no model): it opens the store and checks the index's
metadata (schema version, model). `load_model` is the slow part; the app runs
it in a worker thread. Methods that need the model load it on first use.

An embedded index has one opener at a time; `open` makes this process its
holder: it answers the other convo-tui processes over a socket in the index
folder (core/holder/) until `close`. Methods are safe to call from several
threads: the store is guarded (core/holder/guard.py) and index runs queue.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from convo_tui.core.annotations import Annotations, overlay_hits, overlay_session, overlay_summary
from convo_tui.core.embed.choice import AUTO, ModelChoice, choose_model, pending_switch, sample_texts
from convo_tui.core.errors import ConvoError, IndexUnavailable
from convo_tui.core.holder.guard import GuardedStore
from convo_tui.core.index.dense_phase import SemanticStatus, semantic_status
from convo_tui.core.index.health import check as check_health
from convo_tui.core.index.health import forget_lost
from convo_tui.core.index.manifest import Manifest
from convo_tui.core.index.model_switch import SwitchResult, switch_dense_model
from convo_tui.core.index.points import LEVEL_SESSION, from_epoch
from convo_tui.core.index.publish import (
    CancelLike,
    Indexer,
    IndexProgress,
    IndexReport,
    ProgressFn,
    is_cancelled,
    prune,
    source_key,
    visible_filter,
)
from convo_tui.core.model import Session
from convo_tui.core.search.hits import Hit, SessionSummary
from convo_tui.core.search.pipeline import Embedders, hits_in_session, search
from convo_tui.core.serialize import session_from_record
from convo_tui.core.settings import Settings
from convo_tui.core.stats import Stats, count_sessions
from convo_tui.core.store import open_store
from convo_tui.core.store.base import Cond, Filter, Scored, Store

if TYPE_CHECKING:
    from convo_tui.core.embed.dense import DenseModel
    from convo_tui.core.embed.sparse import SparseEmbedder
    from convo_tui.core.holder.server import HolderServer

# Bump when points or payloads change shape: older indexes are rebuilt, never misread.
SCHEMA_VERSION = 1
REBUILD_HINT = "run `convo-tui index --rebuild` to re-index"
_SUMMARY_FIELDS = [
    "session_id",
    "session_title",
    "project",
    "source",
    "path",
    "message_count",
    "turn_count",
    "started_at",
    "updated_at",
    "description",
    "starred",
    "tags",
    "generation",
]

__all__ = ["SCHEMA_VERSION", "IndexProgress", "IndexReport", "Library"]


def check_meta(meta: dict[str, Any], where: str) -> None:
    """IndexUnavailable (with the way out) when the index is not readable as asked.

    Another model in the settings is not an error: searches use the index's
    own model until `index` switches it (core/index/model_switch.py)."""
    if not meta:
        return
    schema = meta.get("schema")
    if not isinstance(schema, int) or schema < SCHEMA_VERSION:
        raise IndexUnavailable(
            f"the index at {where} was written by an older convo-tui (schema {schema}, this version uses {SCHEMA_VERSION}); {REBUILD_HINT}"
        )
    if schema > SCHEMA_VERSION:
        raise IndexUnavailable(
            f"the index at {where} was written by a newer convo-tui (schema {schema}, this version reads {SCHEMA_VERSION}); upgrade convo-tui or {REBUILD_HINT}"
        )


def _newest_generation(points: Iterable[Scored]) -> list[Scored]:
    """One session point per session. The indexer flips a new generation visible
    before it deletes the old one, so for a moment a session has two."""
    newest: dict[str, Scored] = {}
    for point in points:
        sid = point.payload.get("session_id", "")
        kept = newest.get(sid)
        if kept is None or point.payload.get("generation", 0) > kept.payload.get("generation", 0):
            newest[sid] = point
    return list(newest.values())


def _adopt_model(manifest: Manifest, model: str) -> None:
    """The manifest's files count as indexed with the index's model: after a
    model switch their sessions are already in the store and only their dense
    vectors were redone (the indexer parses a file again when its entry names
    another model)."""
    stale = [entry for entry in manifest.files.values() if entry.model != model]
    for entry in stale:
        entry.model = model
    if stale:
        manifest.save(force=True)


class Library:
    def __init__(self, settings: Settings, store: Store, *, read_only: bool, meta_error: IndexUnavailable | None):
        self.settings = settings
        self.store: Store = store if isinstance(store, GuardedStore) else GuardedStore(store)
        self.read_only = read_only
        self._meta_error = meta_error
        self._lock = threading.Lock()
        self._index_lock = threading.Lock()
        self._server: HolderServer | None = None
        # Why this process could not serve the others (they then get the lock's message).
        self.serve_error: ConvoError | None = None
        self._dense: DenseModel | None = None
        self._sparse: SparseEmbedder | None = None
        self._choice: ModelChoice | None = None
        # User edits (titles, stars, deletions...) beside the manifest: they survive re-indexing.
        self.annotations = Annotations(self._manifest_dir())

    @classmethod
    def open(
        cls,
        settings: Settings,
        *,
        read_only: bool = False,
        allow_mismatch: bool = False,
        serve: bool = True,
        reading: bool = False,
    ) -> Library:
        """Open the index; IndexUnavailable if it is locked, or built by another
        model or schema (unless `allow_mismatch`, which `index --rebuild` uses).
        `reading`: a read-only command that opens the index writable (to serve
        others' edits) still gets a reader's checks: a lost store or lost
        sessions are named, not silently served as an empty index.

        With `serve` (an embedded index), this process answers the others until
        `close`; core.holder.access.attach is how they find it."""
        store = open_store(settings, read_only=read_only, repair=allow_mismatch)
        try:
            damaged = getattr(store, "damaged", None)  # unloadable Edge shard: only a rebuild may go on
            if damaged is not None:
                raise damaged
            check_meta(store.read_meta(), str(settings.qdrant_url or settings.index_dir))
            if not settings.qdrant_url:  # core/index/health.py: damaged files, sessions the store lost
                check_health(store, settings.index_dir, settings.index_dir, read_only=read_only or reading)
            error = None
        except IndexUnavailable as exc:
            if not allow_mismatch:
                store.close()
                raise
            error = exc
        library = cls(settings, store, read_only=read_only, meta_error=error)
        if serve and not settings.qdrant_url:
            library._serve()
        return library

    def _serve(self) -> None:
        from convo_tui.core.holder import protocol
        from convo_tui.core.holder.server import HolderServer

        if not protocol.supported():
            return
        try:
            self._server = HolderServer(self, self.settings.index_dir).start()
        except ConvoError as exc:
            self.serve_error = exc

    # -- models --------------------------------------------------------------

    def load_model(self) -> None:
        with self._lock:
            if self._dense is not None:
                return
            from convo_tui.core.embed.dense import shared_dense
            from convo_tui.core.embed.sparse import SparseEmbedder
            from convo_tui.core.heap import keep_large_buffers_mapped

            keep_large_buffers_mapped()  # the model's large buffers go back when freed (core/heap.py)
            self._sparse = self._sparse or SparseEmbedder()
            self._dense = shared_dense(self.model_choice().model)

    def _load_sparse(self) -> None:
        with self._lock:
            if self._sparse is None:
                from convo_tui.core.embed.sparse import SparseEmbedder

                self._sparse = SparseEmbedder()

    def model_choice(self) -> ModelChoice:
        """The dense model searches use and why (`model = "auto"` picks by the
        history's languages; a model the index does not have yet waits for `index`)."""
        if self._choice is None:
            meta = self.store.read_meta() if self._meta_error is None else {}
            index_model = meta.get("model")
            target = choose_model(self.settings.model, index_model=index_model)
            self._choice = pending_switch(index_model, target) if index_model and index_model != target.model else target
        return self._choice

    def _switch_model(self, progress: ProgressFn | None, cancel: CancelLike) -> SwitchResult | None:
        """Give the index the dense vectors of the model the settings ask for,
        when it was built with another: the sessions stay as published (no
        parsing, no BM25), the cached vectors of the new model are reused and
        phase 2 embeds the rest. None when there is nothing to switch."""
        meta = self.store.read_meta()
        current = meta.get("model")
        target = choose_model(self.settings.model, index_model=current)
        if not current or target.model == current:
            return None
        from convo_tui.core.embed.dense import shared_dense
        from convo_tui.core.index.vector_cache import VectorCache

        dense = shared_dense(target.model)
        notify = progress or (lambda _p: None)
        cache = VectorCache(self._manifest_dir(), dense.name, dense.dim)
        try:
            result = switch_dense_model(
                self.store,
                dense,
                cache,
                {**meta, "model": dense.name, "model_reason": target.reason, "dim": dense.dim},
                progress=lambda done, total: notify(IndexProgress("switch", done, total)),
                cancelled=lambda: is_cancelled(cancel),
            )
        finally:
            cache.close()
        if not result.cancelled:
            self._load_sparse()
            with self._lock:
                self._dense, self._choice = dense, target
        return result

    def _choose_for(self, roots: list[Path]) -> None:
        """Before a first build (or a rebuild) with "auto": measure the history to index."""
        if self.settings.model != AUTO or self.store.read_meta().get("model"):
            return
        choice = choose_model(AUTO, texts=sample_texts(roots))
        with self._lock:
            if self._dense is not None and self._dense.name != choice.model:
                self._dense = None
            self._choice = choice

    @property
    def model_ready(self) -> bool:
        return self._dense is not None

    def _embedders(self, mode: str) -> Embedders:
        if self._meta_error is not None:
            raise self._meta_error
        if mode in ("keyword", "fuzzy") and not self.model_ready:
            self._load_sparse()  # no need to wait for the dense model
        else:
            self.load_model()
        assert self._sparse is not None  # both loaders set it
        return Embedders(self._dense, self._sparse)

    # -- indexing --------------------------------------------------------------

    def default_paths(self) -> list[Path]:
        from convo_tui.core.index.discover import default_locations

        return [location.path for location in default_locations(self.settings)]

    def index(
        self,
        paths: list[Path] | None = None,
        *,
        progress: ProgressFn | None = None,
        cancel: CancelLike = None,
        rebuild: bool = False,
        semantic: bool = True,
    ) -> IndexReport:
        """Bring the index up to date: phase 1 publishes new and changed sessions
        for keyword search in batches, phase 2 adds their dense vectors (skipped
        when `semantic` is False; the next run continues it). `cancel` (an Event
        or a callable) is checked between publish batches and inside embedding
        batches: set it to stop within about a second; what was published stays.

        When the settings name another model than the index's, the run first
        switches the index's dense vectors (progress phase "switch": points
        copied; nothing is parsed again, see core/index/model_switch.py)."""
        if self._meta_error is not None and not rebuild:
            raise self._meta_error
        with self._index_lock:  # the app, a watcher and clients may all ask at once: one run at a time
            try:
                return self._index(paths, progress=progress, cancel=cancel, rebuild=rebuild, semantic=semantic)
            finally:
                self.store.release_pages()  # a holder lives on: what the run read and wrote need not stay resident

    def _index(
        self,
        paths: list[Path] | None,
        *,
        progress: ProgressFn | None,
        cancel: CancelLike,
        rebuild: bool,
        semantic: bool,
    ) -> IndexReport:
        from convo_tui.core.index.discover import iter_source_files
        from convo_tui.core.index.vector_cache import VectorCache

        manifest = Manifest.load(self._manifest_dir())
        if rebuild:
            self.store.drop()
            manifest.clear()  # the vector cache stays: same model, same texts, same vectors
            manifest.save(force=True)
            self._meta_error = None
        roots = list(paths) if paths is not None else self.default_paths()
        self._choose_for(roots)
        switched = self._switch_model(progress, cancel)
        if switched is not None and switched.cancelled:
            return IndexReport(cancelled=True)
        self.load_model()
        assert self._dense is not None and self._sparse is not None
        self.store.ensure(self._dense.dim)
        forget_lost(self.store, manifest, self.annotations)  # re-index what the store lost (core/index/health.py)
        meta = self.store.read_meta()
        if not meta:
            self.store.write_meta(
                {
                    "schema": SCHEMA_VERSION,
                    "model": self._dense.name,
                    "model_reason": self.model_choice().reason,
                    "dim": self._dense.dim,
                    "sparse": self._sparse.NAME,
                }
            )
        _adopt_model(manifest, self._dense.name)
        cache = VectorCache(self._manifest_dir(), self._dense.name, self._dense.dim)
        unreadable: list[tuple[str, str]] = []  # folders we may not open, links to nothing: told once each
        try:
            indexer = Indexer(
                self.store, manifest, self._dense, self._sparse, suppressed=self.annotations.suppressor(), cache=cache
            )
            report = indexer.run(
                iter_source_files(roots, lambda path, reason: unreadable.append((str(path), reason))),
                progress=progress,
                cancel=cancel,
                semantic=semantic,
            )
        finally:
            cache.close()
        report.skipped.extend(unreadable)
        return report

    @classmethod
    def readiness(cls, settings: Settings) -> str | None:
        """Two lines for `convo-tui sources`: how much of the index is searchable,
        by keyword and by meaning, and the model (None when there is no index yet).
        Asked of the holder when one runs (the app, `serve`, an `index` run)."""
        from convo_tui.core.holder.access import open_library

        if not settings.qdrant_url and not (Path(settings.index_dir) / "shard").is_dir():
            return None
        try:
            with open_library(settings, read_only=True) as library:
                line: str = library.readiness_line()
                return line
        except ConvoError as exc:
            return f"index: {exc}"

    def readiness_line(self) -> str:
        status = self.semantic_status()
        sessions = self.store.count(visible_filter(Cond("level", value=LEVEL_SESSION)))
        choice = self.model_choice()
        return (
            f"index: {sessions} sessions searchable by keyword; {status.ready}/{status.total} texts "
            f"({status.fraction:.0%}) searchable by meaning\nmodel: {choice.model} ({choice.reason})"
        )

    def semantic_status(self) -> SemanticStatus:
        """How many of the index's text points have their dense vector (found by meaning)."""
        return semantic_status(self.store)

    def _manifest_dir(self) -> Path:
        if self.settings.qdrant_url:
            # One manifest per server collection, kept beside this machine's settings.
            from convo_tui.core.settings import default_index_dir

            folder = default_index_dir() / "server"
            for private in (folder.parent, folder):  # it lists every transcript path: owner only
                private.mkdir(parents=True, exist_ok=True, mode=0o700)
                private.chmod(0o700)
            return folder
        return self.settings.index_dir

    def prune(self) -> int:
        return prune(self.store, Manifest.load(self._manifest_dir()))

    # -- search ----------------------------------------------------------------

    def search(self, query: str, *, limit: int = 10, mode: str = "hybrid", offset: int = 0) -> list[Hit]:
        """Cards `offset .. offset+limit` of the ranking (the app pages with offset)."""
        hits = search(self.store, self._embedders(mode), query, limit=limit, mode=mode, offset=offset)
        return overlay_hits(hits, self.annotations.all())

    def hits_in_session(self, query: str, session_id: str, mode: str = "hybrid") -> list[Hit]:
        return overlay_hits(
            hits_in_session(self.store, self._embedders(mode), query, session_id, mode=mode), self.annotations.all()
        )

    # -- browsing ----------------------------------------------------------------

    def sessions(self, project: str | None = None) -> list[SessionSummary]:
        """Indexed sessions, newest first."""
        conds = [Cond("level", value=LEVEL_SESSION)]
        if project:
            conds.append(Cond("project", value=project))
        notes = self.annotations.all()
        summaries = [
            overlay_summary(self._summary(p.payload), notes.get(p.payload.get("session_id", "")))
            for p in _newest_generation(self.store.scroll(visible_filter(*conds), fields=_SUMMARY_FIELDS))
        ]
        summaries.sort(key=lambda s: when.timestamp() if (when := s.updated_at or s.started_at) else 0.0, reverse=True)
        return summaries

    def projects(self) -> list[tuple[str, int]]:
        """(project, session count), most sessions first."""
        counts: dict[str, int] = {}
        points = self.store.scroll(
            visible_filter(Cond("level", value=LEVEL_SESSION)), fields=["session_id", "project", "generation"]
        )
        for point in _newest_generation(points):
            name = point.payload.get("project", "")
            counts[name] = counts.get(name, 0) + 1
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))

    def session(self, session_id: str) -> Session:
        flt = visible_filter(Cond("level", value=LEVEL_SESSION), Cond("session_id", value=session_id))
        for point in _newest_generation(self.store.scroll(flt, fields=["session_id", "record", "generation"])):
            record = point.payload.get("record")
            if isinstance(record, dict):
                return overlay_session(session_from_record(record), self.annotations.get(session_id))
        raise ConvoError(f"no session '{session_id}' in the index")

    def stats(self) -> Stats:
        """Sessions, messages and tokens per project, source and week (the stats screen)."""
        return count_sessions(self.iter_sessions())

    def iter_sessions(self) -> Iterable[Session]:
        """Every indexed session, whole (for counting: stats), in no particular order."""
        notes = self.annotations.all()
        points = self.store.scroll(
            visible_filter(Cond("level", value=LEVEL_SESSION)), fields=["session_id", "record", "generation"]
        )
        for point in _newest_generation(points):
            record = point.payload.get("record")
            if isinstance(record, dict):
                yield overlay_session(session_from_record(record), notes.get(point.payload.get("session_id", "")))

    def session_summary(self, session_id: str) -> SessionSummary:
        flt = visible_filter(Cond("level", value=LEVEL_SESSION), Cond("session_id", value=session_id))
        for point in _newest_generation(self.store.scroll(flt, fields=_SUMMARY_FIELDS)):
            return overlay_summary(self._summary(point.payload), self.annotations.get(session_id))
        raise ConvoError(f"no session '{session_id}' in the index")

    # -- user edits (core/annotations.py): never written to the source file -------

    def rename_session(self, session_id: str, title: str) -> SessionSummary:
        """A blank title gives the source's title back."""
        self.session_summary(session_id)
        self.annotations.set_title(session_id, title)
        return self.session_summary(session_id)

    def describe_session(self, session_id: str, text: str) -> SessionSummary:
        self.session_summary(session_id)
        self.annotations.set_description(session_id, text)
        return self.session_summary(session_id)

    def star_session(self, session_id: str, starred: bool = True) -> SessionSummary:
        self.session_summary(session_id)
        self.annotations.set_starred(session_id, starred)
        return self.session_summary(session_id)

    def tag_session(self, session_id: str, tags: list[str], *, remove: bool = False) -> SessionSummary:
        """Add `tags` (or remove them) and keep the others."""
        current = self.session_summary(session_id).tags
        if remove:
            dropped = {t.strip().casefold() for t in tags}
            self.annotations.set_tags(session_id, [t for t in current if t.casefold() not in dropped])
        else:
            self.annotations.set_tags(session_id, [*current, *tags])
        return self.session_summary(session_id)

    def session_settings(self, session_id: str) -> dict[str, bool]:
        """How the app shows the session: hide_thinking, hide_tools."""
        self.session_summary(session_id)
        return self.annotations.get(session_id).effective_settings()

    def set_session_settings(self, session_id: str, **values: bool) -> dict[str, bool]:
        self.session_summary(session_id)
        return self.annotations.set_settings(session_id, **values)

    def delete_session(self, session_id: str) -> None:
        """Remove the session's points; re-indexing skips it until its source file
        changes or `restore_session` is called. The source file is never touched."""
        if self.read_only:
            raise IndexUnavailable("the index is open read-only; cannot delete a session")
        summary = self.session_summary(session_id)
        self.annotations.mark_deleted(session_id, summary.path)
        self.store.delete(Filter(must=(Cond("session_id", value=session_id),)))
        self.store.flush()

    def restore_session(self, session_id: str) -> bool:
        """Forget a deletion (True if there was one); the next index run brings it back."""
        deletion = self.annotations.get(session_id).deleted
        if deletion is None or not self.annotations.restore(session_id):
            return False
        # Make the next run parse the source again even though it did not change.
        manifest = Manifest.load(self._manifest_dir())
        for key in [k for k, e in manifest.files.items() if session_id in e.sessions]:
            manifest.remove(key)
        if deletion.path:
            manifest.remove(source_key(Path(deletion.path)))
        manifest.save()
        return True

    def _summary(self, p: dict[str, Any]) -> SessionSummary:
        path = p.get("path", "")
        return SessionSummary(
            id=p.get("session_id", ""),
            title=p.get("session_title", ""),
            project=p.get("project", ""),
            source=p.get("source", ""),
            path=path,
            message_count=int(p.get("message_count", 0)),
            turn_count=int(p.get("turn_count", 0)),
            started_at=from_epoch(p.get("started_at")),
            updated_at=from_epoch(p.get("updated_at")),
            description=p.get("description", "") or "",
            starred=bool(p.get("starred", False)),
            tags=list(p.get("tags", []) or []),
            orphaned=bool(path) and not Path(path).exists(),
        )

    def close(self) -> None:
        """Stop serving (running requests finish), then let go of the index."""
        server, self._server = self._server, None
        if server is not None:
            server.stop()
        self.store.close()

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
