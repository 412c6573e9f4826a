"""`Library`: the engine run in this process, over an index it has opened.

`open` is fast (no model): it opens the store and checks the index's metadata
(schema version, model) and health. The parts do the work: `Models`
(models.py), `Reader` (reading.py), `Editor` (edits.py) and `IndexRuns`
(indexing.py); this class is the `Engine` interface over them. Methods are
safe to call from several threads: the store is guarded
(core/store/guard.py) and index runs queue.

Serving other processes is not the library's business: core/holder/access.py
opens a library and, when it may, serves it (`on_close` stops the server
before the library lets go of the index).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

from convo_tui.core.annotations import Annotations, overlay_hits, tag_counts
from convo_tui.core.engine import Engine, ModelInfo, Readiness, SourceReading
from convo_tui.core.errors import IndexUnavailable
from convo_tui.core.index.health import FilesCheck
from convo_tui.core.index.manifest import Manifest, source_readings
from convo_tui.core.index.visible import SemanticStatus, semantic_status
from convo_tui.core.library.catalogue import Catalogue
from convo_tui.core.library.models import Models
from convo_tui.core.library.opening import manifest_dir, open_checked
from convo_tui.core.library.reading import Reader
from convo_tui.core.library.session_ids import SessionIds
from convo_tui.core.search.in_session import hits_in_session
from convo_tui.core.search.pipeline import search
from convo_tui.core.settings import Settings
from convo_tui.core.store.base import Store
from convo_tui.core.store.guard import GuardedStore

if TYPE_CHECKING:
    from convo_tui.core.archive.status import ArchiveStatus, ExportReport, ImportReport
    from convo_tui.core.context import ChatMessage
    from convo_tui.core.hits import Hit, SessionPage, SessionSummary
    from convo_tui.core.index.publish import CancelLike, IndexProgress, IndexReport, ProgressFn
    from convo_tui.core.library.archiving import Archiving
    from convo_tui.core.library.edits import Editor
    from convo_tui.core.library.indexing import IndexRuns
    from convo_tui.core.model import Session
    from convo_tui.core.stats import Stats


class Library(Engine):
    def __init__(self, settings: Settings, store: Store, *, read_only: bool, meta_error: IndexUnavailable | None):
        self.settings = settings
        self.store: Store = store if isinstance(store, GuardedStore) else GuardedStore(store)
        self.read_only = read_only
        self._closers: list[Callable[[], None]] = []
        # The last readiness, until this process changes the index (it alone writes
        # it: core/store/lock.py); a server collection is read afresh every time.
        self._readiness: Readiness | None = None
        folder = manifest_dir(settings)
        # User edits (titles, stars, deletions...) beside the manifest: they survive re-indexing.
        self.annotations = Annotations(folder)
        self.models = Models(settings, self.store)
        self.reader = Reader(self.store, self.annotations)
        # The sessions list's rows: read once, then only what changed; kept beside the manifest.
        self.catalogue = Catalogue(self.store, self.annotations, folder, writable=not read_only)
        self.files = FilesCheck(self.store, settings.index_dir, needed=not settings.qdrant_url)
        self._folder = folder
        self._meta_error = meta_error  # why the index may not be read, until a rebuild (IndexRuns)
        # Made on first use (`runs`, `archiving`, `editor`), once: the holder serves several threads.
        self._parts = threading.RLock()
        self._runs: IndexRuns | None = None
        self._archiving: Archiving | None = None
        self._editor: Editor | None = None
        # Ids as people type them (a unique 8+ character prefix) -> the session's id.
        self.ids = SessionIds(
            self.store,
            lambda: [sid for sid, note in self.annotations.all().items() if note.deleted],
            indexed=lambda: [row.id for row in self.catalogue.rows()],
        )

    @classmethod
    def open(cls, settings: Settings, *, read_only: bool = False, allow_mismatch: bool = False, reading: bool = False) -> Library:
        """Open the index; IndexUnavailable if it is locked, damaged, or built by
        another schema (unless `allow_mismatch`, which `index --rebuild` uses).
        `reading`: a read-only command that opens the index writable (to serve
        others' edits) still gets a reader's checks: a lost store or lost
        sessions are named, not silently served as an empty index."""
        store, error = open_checked(settings, read_only=read_only, allow_mismatch=allow_mismatch, reading=reading)
        return cls(settings, store, read_only=read_only, meta_error=error)

    # Indexing and the archive are made on first use: a search, a listing or `show`
    # never imports their machinery (phase 1 and 2, the archive, SSH pulls).

    @property
    def archiving(self) -> Archiving:
        with self._parts:
            if self._archiving is None:
                from convo_tui.core.library.archiving import Archiving

                self._archiving = Archiving(self.settings, self._folder, self.annotations)
            return self._archiving

    @property
    def editor(self) -> Editor:
        with self._parts:
            if self._editor is None:
                from convo_tui.core.library.edits import Editor

                self._editor = Editor(self.reader, self.store, self.annotations, self._folder, read_only=self.read_only)
            return self._editor

    @property
    def runs(self) -> IndexRuns:
        with self._parts:
            if self._runs is None:
                from convo_tui.core.library.indexing import IndexRuns

                runs = IndexRuns(
                    self.settings, self.store, self.models, self.annotations, self._folder, self.archiving, self.files
                )
                runs.meta_error = self._meta_error
                self._runs = runs
            return self._runs

    def _unreadable(self) -> IndexUnavailable | None:
        """Why the index may not be searched (its metadata), as the index runs know it now."""
        runs = self._runs
        return runs.meta_error if runs is not None else self._meta_error

    def on_close(self, closer: Callable[[], None]) -> None:
        """Run `closer` first when the library closes (the holder's server stops there)."""
        self._closers.append(closer)

    # -- models ----------------------------------------------------------------

    def load_model(self) -> None:
        """Load the dense model, asked by what searches for a while (the app, a
        holder). Before a first index with `model = "auto"`, the model that index
        of the usual places will pick (by the history's languages), not the
        default: the app's first start loaded MiniLM, then its index picked e5
        for a Chinese history and loaded that too."""
        if not self.read_only and self._meta_error is None:
            self.models.choose_first(lambda: self.runs.default_paths())
        self.models.load(prepare_translation=True)

    def model_info(self) -> ModelInfo:
        return self.models.info()

    @property
    def model_ready(self) -> bool:
        return self.models.ready

    # -- search ----------------------------------------------------------------

    def search(self, query: str, *, limit: int = 10, mode: str = "hybrid", offset: int = 0) -> list[Hit]:
        embedders = self.models.embedders(mode, self._unreadable())
        hits = search(
            self.store,
            embedders,
            query,
            limit=limit,
            mode=mode,
            offset=offset,
            resolve_session=self.ids.resolve_in_query,
            resolve_tag=self.annotations.tagged,
        )
        return overlay_hits(hits, self.annotations.all())

    def hits_in_session(self, query: str, session_id: str, *, mode: str = "hybrid") -> list[Hit]:
        embedders = self.models.embedders(mode, self._unreadable())
        session_id = self.ids.resolve_in_query(session_id)
        hits = hits_in_session(
            self.store,
            embedders,
            query,
            session_id,
            mode=mode,
            resolve_session=self.ids.resolve_in_query,
            resolve_tag=self.annotations.tagged,
        )
        return overlay_hits(hits, self.annotations.all())

    def context(
        self,
        question: str,
        *,
        session_id: str | None = None,
        recent: int = 10,
        refs: int = 5,
        all_sessions: bool = False,
        preferences: str | None = None,
        system: str | None = None,
        split: bool = False,
    ) -> list[ChatMessage]:
        from convo_tui.core.context import DEFAULT_SYSTEM, context_for

        return context_for(
            self,
            question,
            session_id=None if session_id is None else self.ids.resolve(session_id),
            recent=recent,
            refs=refs,
            all_sessions=all_sessions,
            preferences=preferences,
            system=DEFAULT_SYSTEM if system is None else system,
            split=split,
        )

    # -- browsing ----------------------------------------------------------------

    def sessions(self, project: str | None = None, limit: int | None = None) -> list[SessionSummary]:
        # The rows may all come from their file, which reads no page of the index:
        # a damaged one is named here as by every command (once per open: 0.3 s at
        # 100k messages, 0.8 s warm at a million, in a process of its own while the
        # rows are read).
        return self.files.overlapping(lambda: self.catalogue.summaries(project, limit))

    def session_page(
        self,
        *,
        offset: int = 0,
        limit: int = 100,
        sort: str = "date",
        starred_only: bool = False,
        text: str = "",
        around: str = "",
    ) -> SessionPage:
        return self.catalogue.page(offset=offset, limit=limit, sort=sort, starred_only=starred_only, text=text, around=around)

    def projects(self) -> list[tuple[str, int]]:
        return self.catalogue.projects()

    def tags(self) -> list[tuple[str, int]]:
        indexed = {row.id for row in self.catalogue.rows()}
        return tag_counts(self.annotations.all(), indexed)

    def session(self, session_id: str) -> Session:
        return self.reader.session(self.ids.resolve(session_id))

    def session_summary(self, session_id: str) -> SessionSummary:
        return self.reader.session_summary(self.ids.resolve(session_id))

    def resolve_session_id(self, session_id: str) -> str:
        return self.ids.resolve(session_id)

    def stats(self) -> Stats:
        """Sessions, messages and tokens per project, source, model, week and day (the
        stats screen and `stats`), counted from the sessions' tallies (core/tally.py)."""
        # as sessions(): a damaged index is named
        return self.files.overlapping(lambda: self.catalogue.stats(self.reader.tallies))

    def readiness(self, checked: bool = False) -> Readiness:
        """How much is searchable; with `checked`, only once every file search reads
        was checked (`sources`). Search, MCP and the app ask after every search for
        the coverage they show, which is counts alone.

        The check (a read of every page of every segment) runs once per open,
        shared with index runs (health.FilesCheck): 0.5-1.1 s at 100k messages,
        2-3 s cold at a million, which a cold hybrid `search` paid before its
        coverage line."""
        if checked:
            self.files.ensure()
        known = self._readiness
        if known is None:
            choice = self.models.choice()
            known = self.reader.readiness(choice.model, choice.reason)
            if not self.settings.qdrant_url:
                self._readiness = known
        return known

    def _changed(self) -> None:
        """The index changed here: the sessions list and the readiness are read again."""
        self._readiness = None
        self.catalogue.invalidate()

    def reading(self) -> list[SourceReading]:
        manifest = Manifest.load(manifest_dir(self.settings), read_only=True)
        try:
            return source_readings(manifest)
        finally:
            manifest.close()

    def semantic_status(self) -> SemanticStatus:
        """How many of the index's text points have their dense vector (found by meaning)."""
        return semantic_status(self.store)

    # -- edits ---------------------------------------------------------------------

    def rename_session(self, session_id: str, title: str) -> SessionSummary:
        return self.editor.rename(self.ids.resolve(session_id), title)

    def describe_session(self, session_id: str, text: str) -> SessionSummary:
        return self.editor.describe(self.ids.resolve(session_id), text)

    def star_session(self, session_id: str, starred: bool = True) -> SessionSummary:
        return self.editor.star(self.ids.resolve(session_id), starred)

    def tag_session(self, session_id: str, tags: list[str], *, remove: bool = False) -> SessionSummary:
        return self.editor.tag(self.ids.resolve(session_id), tags, remove=remove)

    def session_settings(self, session_id: str) -> dict[str, bool]:
        return self.editor.settings(self.ids.resolve(session_id))

    def set_session_settings(
        self, session_id: str, *, hide_thinking: bool | None = None, hide_tools: bool | None = None
    ) -> dict[str, bool]:
        values = {k: v for k, v in (("hide_thinking", hide_thinking), ("hide_tools", hide_tools)) if v is not None}
        return self.editor.set_settings(self.ids.resolve(session_id), values)

    def delete_session(self, session_id: str) -> None:
        resolved = self.ids.resolve(session_id)
        try:
            self.editor.delete(resolved)
        except BaseException:
            self._changed()  # perhaps half done: the count check finds out
            raise
        self._readiness = None
        self.catalogue.forget(resolved)

    def restore_session(self, session_id: str) -> bool:
        return self.editor.restore(self.ids.resolve_deleted(session_id))  # back at the next index run, which invalidates

    # -- indexing --------------------------------------------------------------------

    def default_paths(self) -> list[Path]:
        return self.runs.default_paths()

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

        def told(event: IndexProgress) -> None:
            self._readiness = None  # texts were published or embedded
            if event.phase in ("index", "switch", "done"):  # sessions were published (or may have been)
                self.catalogue.invalidate()
            if progress is not None:
                progress(event)

        try:
            report = self.runs.run(paths, progress=told, cancel=cancel, rebuild=rebuild, semantic=semantic)
        finally:
            self._changed()
        # Leave the rows' file current, so the next start's sessions list reads it and
        # not every session point (here only the run's own: its newest generation),
        # with every session's tally: an index made before tallies gets them here,
        # once, so that no later `stats` reads its sessions whole.
        # The run's work is done and kept: a store that fails now fails the next look.
        with suppress(IndexUnavailable):
            if report.cancelled:
                self.catalogue.rows()
            else:
                self.catalogue.fill_tallies(self.reader.tallies)
        return report

    def prune(self) -> int:
        try:
            return self.runs.prune()
        finally:
            self._changed()

    # -- the archive -------------------------------------------------------------------

    def archive_status(self) -> ArchiveStatus:
        manifest = Manifest.load(self.runs.manifest_dir, read_only=True)
        try:
            return self.archiving.status(manifest)
        finally:
            manifest.close()

    def export_archive(self, path: Path) -> ExportReport:
        return self.archiving.export(path)

    def import_archive(self, path: Path) -> ImportReport:
        return self.archiving.import_(path)

    # -- lifecycle ---------------------------------------------------------------------

    def served_by(self) -> str | None:
        return None  # this process holds the index

    def close(self) -> None:
        """Stop serving (running requests finish), then let go of the index."""
        closers, self._closers = self._closers, []
        for closer in closers:
            closer()
        self.store.let_go()  # the end of this process's use of it (core/store/parking.py)
