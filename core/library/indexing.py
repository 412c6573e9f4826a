"""Index runs: bring the index up to date with the transcripts on disk, one run
at a time per process (the app, a watcher and clients may all ask at once)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from convo_tui.core.annotations import Annotations
from convo_tui.core.errors import IndexUnavailable
from convo_tui.core.index.health import FilesCheck, forget_lost
from convo_tui.core.index.manifest import Manifest
from convo_tui.core.index.prune import prune
from convo_tui.core.index.publish import CancelLike, Indexer, IndexProgress, IndexReport, ProgressFn, is_cancelled
from convo_tui.core.library.archiving import Archiving
from convo_tui.core.library.models import Models
from convo_tui.core.library.opening import SCHEMA_VERSION
from convo_tui.core.settings import Settings
from convo_tui.core.store.base import Store


def adopt_model(manifest: Manifest, model: str) -> None:
    """The manifest's files count as indexed with the index's model: after a
    model switch their sessions are already in the store and only their dense
    vectors were redone (the indexer parses a file again when its entry names
    another model)."""
    if manifest.set_model(model):
        manifest.save()


# Seconds between two looks at the cancel signal while a run waits for its turn.
_CANCEL_POLL = 0.25


def combined(first: IndexReport, second: IndexReport) -> IndexReport:
    """One report for a run made of two passes (this machine's files, then other machines')."""
    return IndexReport(
        added=first.added + second.added,
        updated=first.updated + second.updated,
        unchanged=first.unchanged + second.unchanged,
        removed=first.removed + second.removed,
        skipped=first.skipped + second.skipped,
        sessions=second.sessions,
        points=second.points,
        seconds=first.seconds + second.seconds,
        cancelled=first.cancelled or second.cancelled,
        embedded=first.embedded + second.embedded,
        vectors_added=first.vectors_added + second.vectors_added,
        semantic_ready=second.semantic_ready,
        semantic_total=second.semantic_total,
        keyword_seconds=first.keyword_seconds,
        notes=first.notes + second.notes,
    )


class IndexRuns:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        models: Models,
        annotations: Annotations,
        manifest_dir: Path,
        archiving: Archiving,
        files: FilesCheck,
    ):
        self.settings = settings
        self.store = store
        self.models = models
        self.annotations = annotations
        self.manifest_dir = manifest_dir
        self.archiving = archiving
        self._one_at_a_time = threading.Lock()
        self._rebuild_told = False  # the store's rebuild note, once a process (the app indexes often)
        # Why the index may not be read (a rebuild clears it).
        self.meta_error: IndexUnavailable | None = None
        self.files = files  # the store's files checked once per open (health.FilesCheck)

    def default_paths(self) -> list[Path]:
        from convo_tui.core.index.discover import default_locations

        return [location.path for location in default_locations(self.settings)]

    def run(
        self,
        paths: list[Path] | None,
        *,
        progress: ProgressFn | None,
        cancel: CancelLike,
        rebuild: bool,
        semantic: bool,
    ) -> IndexReport:
        if self.meta_error is not None and not rebuild:
            raise self.meta_error
        if not self._wait_for_turn(progress, cancel):
            return IndexReport(cancelled=True)
        try:
            return self._run(paths, progress=progress, cancel=cancel, rebuild=rebuild, semantic=semantic)
        finally:
            self._one_at_a_time.release()
            self.store.release_pages()  # a holder lives on: what the run read and wrote need not stay resident

    def _wait_for_turn(self, progress: ProgressFn | None, cancel: CancelLike) -> bool:
        """Wait while another run of this process goes (telling so once); False if
        cancelled meanwhile (a holder stopping, a client gone, Ctrl+C)."""
        if self._one_at_a_time.acquire(blocking=False):
            return True
        if progress is not None:
            progress(IndexProgress("wait", 0, 0))
        while not self._one_at_a_time.acquire(timeout=_CANCEL_POLL):
            if is_cancelled(cancel):
                return False
        return True

    def _run(
        self, paths: list[Path] | None, *, progress: ProgressFn | None, cancel: CancelLike, rebuild: bool, semantic: bool
    ) -> IndexReport:
        manifest = Manifest.load(self.manifest_dir)
        try:
            return self._run_with(manifest, paths, progress=progress, cancel=cancel, rebuild=rebuild, semantic=semantic)
        finally:
            manifest.close()

    def _run_with(
        self,
        manifest: Manifest,
        paths: list[Path] | None,
        *,
        progress: ProgressFn | None,
        cancel: CancelLike,
        rebuild: bool,
        semantic: bool,
    ) -> IndexReport:
        from convo_tui.core.embed.dense import vector_id
        from convo_tui.core.index.discover import iter_source_files
        from convo_tui.core.index.vector_cache import VectorCache

        previous = str(self.store.read_meta().get("model") or "") if rebuild and self.meta_error is None else ""
        if rebuild:
            self.store.drop()
            manifest.clear()  # the vector cache stays: same model, same texts, same vectors
            manifest.save()
            self.meta_error = None
        else:
            self.files.ensure()  # a damaged store is named, never indexed into
        roots = list(paths) if paths is not None else self.default_paths()
        self.models.choose_for(roots, previous=previous)
        switched = self.models.switch(self.manifest_dir, progress, cancel)
        if switched is not None and switched.cancelled:
            return IndexReport(cancelled=True)
        if not self.models.ready and progress is not None:
            progress(IndexProgress("model", 0, 0, self.models.choice().model))  # seconds, the first time
        self.models.load()
        dense, sparse = self.models.dense, self.models.sparse
        assert dense is not None and sparse is not None
        self.store.ensure(dense.dim)
        files = self.archiving.files_for_run()
        # Re-index what the store lost (core/index/health.py), from the archive when its source is gone.
        forget_lost(self.store, manifest, self.annotations, files.archived_state)
        if not self.store.read_meta():
            self.store.write_meta(
                {
                    "schema": SCHEMA_VERSION,
                    "model": dense.name,
                    "model_reason": self.models.choice().reason,
                    "dim": dense.dim,
                    "sparse": sparse.NAME,
                }
            )
        adopt_model(manifest, dense.name)
        cache = VectorCache(self.manifest_dir, vector_id(dense), dense.dim)
        unreadable: list[tuple[str, str]] = []  # folders we may not open, links to nothing: told once each

        def tell(path: Path, reason: str) -> None:
            unreadable.append((str(path), reason))

        # Other machines are pulled meanwhile (core/remote/); their files are indexed in a second pass.
        pulls = self.archiving.start_pulls(files) if paths is None else None
        try:
            with files.held():  # the archive: one connection for the run's writes
                indexer = Indexer(
                    self.store,
                    manifest,
                    dense,
                    sparse,
                    suppressed=self.annotations.suppressor(files.file_state),
                    cache=cache,
                    files=files,
                )
                # This machine's files, and those the archive holds whose source is gone.
                local = [*iter_source_files(roots, tell), *files.restorable(paths, remote=False)]
                if pulls is None and paths is None:
                    local += files.restorable(None, remote=True)
                report = indexer.run(local, progress=progress, cancel=cancel, semantic=semantic)
                if pulls is not None:
                    pulled = pulls.join(cancel)
                    report.notes += [r.line() for r in pulled if not r.ok]
                    if not report.cancelled:
                        remote = [*iter_source_files(pulls.index_roots(), tell), *files.restorable(None, remote=True)]
                        report = combined(report, indexer.run(remote, progress=progress, cancel=cancel, semantic=semantic))
        finally:
            if pulls is not None:
                pulls.stop()
            cache.close()
            if files.archive is not None:
                files.archive.checkpoint()
        report.skipped.extend(unreadable)
        if cache.notice:
            report.notes.append(cache.notice)
        report.notes.extend(files.notes)
        if not self._rebuild_told and (note := self.store.rebuild_note()) is not None:
            report.notes.append(note)
            self._rebuild_told = True
        return report

    def prune(self) -> int:
        """Drop sessions whose source is gone; the archive keeps their files but leaves them out of re-indexing."""
        manifest = Manifest.load(self.manifest_dir)
        try:
            gone = [key for key in manifest.paths() if not os.path.exists(key)]
            removed = prune(self.store, manifest)
        finally:
            manifest.close()
        self.archiving.mark_pruned(gone)
        return removed
