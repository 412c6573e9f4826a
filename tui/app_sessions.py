"""The app's part that follows the sessions: edits made here or elsewhere reach
every screen, the palette's projects and tags are read again in a worker, and a
session is read in a worker before the reader opens on it."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from convo_tui.core.errors import ConvoError
from convo_tui.tui.background import BackgroundThreads
from convo_tui.tui.messages import BackgroundFailed, OpenReader, ReaderLoaded
from convo_tui.tui.session_messages import ProjectsLoaded, SessionEdited, SessionsChanged
from textual import work

if TYPE_CHECKING:
    from convo_tui.core.engine import Engine
    from convo_tui.tui.screens.search import SearchScreen


# A session read that takes longer than this (a long session, the model loading beside
# it) is said to be coming: ctrl+o showed nothing for 1-2 s (tmux, session 32).
OPENING_NOTICE = 0.4


class SessionEvents:
    """ConvoApp's part that follows the sessions (a mixin: the app owns the state)."""

    library: Engine | None
    quitting: bool
    background: BackgroundThreads
    projects: list[tuple[str, int]]
    tags: list[tuple[str, int]]
    _opening_notice: Any = None  # the timer of "Opening the session…"

    # Provided by textual.app.App and ConvoApp.
    @property
    def search_screen(self) -> SearchScreen:
        raise NotImplementedError

    screen: Any
    screen_stack: list[Any]
    notify: Any
    post_message: Any
    pop_screen: Any
    push_screen: Any
    set_timer: Any
    call_from_thread: Any

    # -- sessions changed ----------------------------------------------------------------

    def tell_screens(self, message: SessionsChanged) -> None:
        """Every screen reloads what it shows of the sessions; the palette's projects too."""
        for screen in self.screen_stack:
            screen.post_message(
                SessionsChanged(
                    message.session_id,
                    deleted=message.deleted,
                    title=message.title,
                    starred=message.starred,
                    tags=message.tags,
                )
            )
        if self.library is not None:
            self._read_projects()

    def on_session_edited(self, event: SessionEdited) -> None:
        from convo_tui.tui.screens.reader import ReaderScreen

        if self.quitting:
            return
        if event.deleted and isinstance(self.screen, ReaderScreen) and self.screen.session.id == event.session_id:
            self.pop_screen()  # its session is gone; before the toast, which the next screen would clear
        changed = SessionsChanged(
            event.session_id, deleted=event.deleted, title=event.title, starred=event.starred, tags=event.tags
        )
        self.tell_screens(changed)
        self.search_screen.follow_index()  # the new title (or the card gone), the reader's place kept
        if event.done:
            self.notify(event.done, timeout=4 if event.deleted else 2)

    @work(thread=True, exclusive=True, group="projects", name="projects")
    def _read_projects(self) -> None:
        library = self.library
        if library is None:
            return
        with self.background.running():  # the index stays open until this returns
            try:
                projects = library.projects()
            except ConvoError:
                return  # the palette keeps the last list
            try:
                tags = library.tags()
            except ConvoError:  # a holder of an older convo-tui (`serve`) has no tags to give
                tags = self.tags
        self.post_message(ProjectsLoaded(projects, tags))

    def on_projects_loaded(self, event: ProjectsLoaded) -> None:
        self.projects = event.projects
        self.tags = event.tags

    # -- the reader --------------------------------------------------------------------

    def on_open_reader(self, event: OpenReader) -> None:
        if self.library is None:
            self.notify("The index is still opening", severity="warning")
            return
        self._stop_opening_notice()
        self._opening_notice = self.set_timer(OPENING_NOTICE, partial(self._say_opening, self.screen))
        self._read_for_reader(event.session_id, event.turn_index, event.query, self.screen)

    def _say_opening(self, origin: object) -> None:
        if self.screen is origin:  # a screen change clears toasts: the reader's, or where the user went
            self.notify("Opening the session…", timeout=10)

    def _stop_opening_notice(self) -> None:
        if self._opening_notice is not None:
            self._opening_notice.stop()
            self._opening_notice = None

    @work(thread=True, group="reader-load", exclusive=True)
    def _read_for_reader(self, session_id: str, turn_index: int | None, query: str, origin: object) -> None:
        with self.background.running():
            if self.library is None:
                return
            try:
                session = self.library.session(session_id)
            except ConvoError as exc:
                self.call_from_thread(self._stop_opening_notice)
                self.post_message(BackgroundFailed("open the session", str(exc)))
                return
            self.post_message(ReaderLoaded(session, turn_index, query, origin))

    def on_reader_loaded(self, event: ReaderLoaded) -> None:
        """The reader opens over the screen it was asked from, if that is still the one
        shown: keys typed while the session was read (F3, F7, escape, ctrl+q) moved
        the user on, and a reader arriving after them covered where they went (or
        opened as the app quit)."""
        from convo_tui.tui.screens.reader import ReaderScreen

        self._stop_opening_notice()
        if self.quitting or self.screen is not event.origin:
            return
        self.push_screen(ReaderScreen(event.session, event.turn_index, event.query))
