"""The app's index runs and how it follows the index as it changes.

An index run goes in a worker that reports progress and its end with messages;
while the index changes (our run, or `serve` and another app's), the screens
re-run their search and reload their lists, at most every FOLLOW_EVERY seconds.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from convo_tui.core.errors import ConvoError
from convo_tui.tui.background import BackgroundThreads
from convo_tui.tui.index_state import IndexState
from convo_tui.tui.messages import BackgroundFailed, IndexingFinished, IndexingProgress, ReadinessRead
from convo_tui.tui.session_messages import SessionsChanged
from textual import work
from textual.worker import get_current_worker

if TYPE_CHECKING:
    from convo_tui.core.engine import Engine
    from convo_tui.tui.screens.search import SearchScreen

# Seconds between two re-runs of the shown search (and list reloads) while the index changes.
FOLLOW_EVERY = 1.5


class IndexFollowing:
    """ConvoApp's part that runs the index and follows it (a mixin: the app owns the state)."""

    library: Engine | None
    model_ready: bool
    indexing: bool
    cancel_indexing: threading.Event
    background: BackgroundThreads
    index_state: IndexState
    _followed: float
    _follow_timer: Any
    # Set when the user quits: a worker's report that arrives after that (the
    # screens may be gone) is dropped, not shown.
    quitting: bool

    # Provided by textual.app.App and ConvoApp.
    @property
    def search_screen(self) -> SearchScreen:
        raise NotImplementedError

    notify: Any
    post_message: Any
    set_timer: Any
    tell_screens: Callable[[SessionsChanged], None]

    def start_indexing(self, rebuild: bool = False) -> None:
        if self.library is None or not self.model_ready:
            self.notify("The index is not ready yet", severity="warning")
            return
        if self.indexing:
            self.notify("Indexing is already running")
            return
        self.indexing = True
        self.index_state.started()
        self.cancel_indexing.clear()
        self.search_screen.status.say("Indexing: looking for transcripts…")
        self._index(rebuild)

    @work(thread=True, group="index", exclusive=True, name="index")
    def _index(self, rebuild: bool) -> None:
        with self.background.running():
            self._index_now(rebuild)

    def _index_now(self, rebuild: bool) -> None:
        assert self.library is not None
        worker = get_current_worker()

        def progress(p: Any) -> None:
            if not worker.is_cancelled:
                self.post_message(IndexingProgress(p.phase, p.done, p.total, p.path, p.sessions, p.eta))

        try:
            report = self.library.index(progress=progress, cancel=self.cancel_indexing, rebuild=rebuild)
        except ConvoError as exc:
            self.post_message(BackgroundFailed("index", str(exc)))
            self.post_message(IndexingFinished(None))
            return
        self.post_message(IndexingFinished(report))

    def on_indexing_progress(self, event: IndexingProgress) -> None:
        if self.quitting:
            return
        self.search_screen.status.progress(event.phase, event.done, event.total, event.path, event.sessions, event.eta)
        if self.index_state.progress(event.phase, event.done, event.total, event.sessions):
            self.index_moved()

    def on_indexing_finished(self, event: IndexingFinished) -> None:
        self.indexing = False
        if self.quitting:
            return
        self.index_state.finished()
        self.search_screen.status.finish()
        report = event.report
        if report is not None:
            changed = report.added + report.updated + report.removed
            if changed or report.skipped:
                text = f"Indexed {report.sessions} sessions: {report.added} new, {report.updated} updated"
                if report.skipped:
                    text += f", {len(report.skipped)} files skipped"
                self.notify(text, title="Index")
            for path, reason in report.skipped[:3]:
                self.notify(f"{path}: {reason}", severity="warning", timeout=8)
            for line in report.notes:  # an unreachable machine, a full archive
                self.notify(line, severity="warning", timeout=10)
        self._follow_now()

    # -- following the index ------------------------------------------------------------

    def index_moved(self) -> None:
        """Sessions were published or vectors added: the screens follow, at most every FOLLOW_EVERY."""
        wait = self._followed + FOLLOW_EVERY - time.monotonic()
        if wait <= 0:
            self._follow_now()
        elif self._follow_timer is None:
            self._follow_timer = self.set_timer(wait, self._follow_now)

    def _follow_now(self) -> None:
        if self._follow_timer is not None:
            self._follow_timer.stop()
            self._follow_timer = None
        self._followed = time.monotonic()
        self._read_readiness(True)

    def _poll_index(self) -> None:
        # Our own run reports its progress; one waiting for another's run (which changes
        # the index meanwhile) hears nothing until that ends, so it is polled as when idle.
        idle = not self.indexing or self.index_state.waiting
        if idle and self.library is not None and not self.cancel_indexing.is_set():
            self._read_readiness(False)

    @work(thread=True, exclusive=True, group="readiness", name="readiness")
    def _read_readiness(self, follow: bool) -> None:
        """How much of the index is searchable, read off the UI thread; `follow`: re-run searches whatever it says."""
        library = self.library
        if library is None:
            return
        with self.background.running():
            try:
                readiness = library.readiness()
            except ConvoError:
                return  # the next look tries again
        if not get_current_worker().is_cancelled:
            self.post_message(ReadinessRead(readiness, follow))

    def on_readiness_read(self, event: ReadinessRead) -> None:
        if self.quitting:
            return
        old = self.index_state.readiness
        changed = self.index_state.read(event.readiness)
        if self.indexing and self.index_state.waiting:  # another run goes on: say how far it is
            ready = event.readiness
            self.search_screen.status.progress("wait", ready.texts_ready, ready.texts_total, None, ready.sessions)
        if old is None and not event.follow:  # the first look: the screens have just searched and listed
            self.search_screen.show_coverage()
            return
        sessions_changed = old is None or old.sessions != event.readiness.sessions
        if changed or event.follow:
            self.search_screen.follow_index()
        if sessions_changed or event.follow:
            self.tell_screens(SessionsChanged())
