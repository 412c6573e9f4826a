"""Every indexed session: sorted by date, title or project, a fuzzy filter, a starred filter.

The list is the engine's (Engine.session_page): the screen reads the pages the
list is about to draw, in workers, and the counts come with them, so opening
the browser on 45,000 sessions reads one page of a hundred, whatever the size.
Pages are read again whenever the app says sessions changed (indexing, a
rename, star or delete here or in the reader) or the filter, sort or starred
choice changes; the highlighted session keeps its row when it is still there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from convo_tui.core.errors import ConvoError
from convo_tui.core.hits import PageEntry, SessionPage, SessionSummary
from convo_tui.tui.render import plural
from convo_tui.tui.screens.sessions_keys import SESSIONS_BINDINGS, ListKeys
from convo_tui.tui.session_actions import SessionActions, SessionTarget
from convo_tui.tui.session_messages import SessionLoaded, SessionsChanged
from convo_tui.tui.shown import when_shown
from convo_tui.tui.widgets.session_list import SessionList, session_line
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Header, Input, Static
from textual.worker import get_current_worker

if TYPE_CHECKING:
    from convo_tui.tui.app import ConvoApp

PAGE = 100  # entries a read brings: a few screens of the list
TYPED_WAIT = 0.08  # seconds the filter waits for the next key before it reads (a fuzzy match over 45k titles)


class PageRead(Message):
    """A worker read one page of the list (or could not: `error`)."""

    def __init__(
        self, generation: int, number: int, page: SessionPage | None, error: str | None = None, asked: int | None = None
    ) -> None:
        super().__init__()
        self.generation = generation
        self.number = number  # the page read
        self.asked = number if asked is None else asked  # the page asked for (another when read around a session)
        self.page = page
        self.error = error


class SessionsScreen(ListKeys, SessionActions, Screen):
    BINDINGS = SESSIONS_BINDINGS

    app: ConvoApp

    def __init__(self) -> None:
        super().__init__()
        self.counts: SessionPage | None = None  # the latest page read: the list's counts (None: none read yet)
        self.error: str | None = None
        self._pages: dict[int, list[PageEntry]] = {}  # page number -> its entries, of the current reading
        self._asked: set[int] = set()  # pages being read
        self._generation = 0  # of the current ordering: a page of an older one is dropped
        self._reading = -1  # the ordering the pages held are of (shown until the new one's first page)
        self._keep: str | None = None  # the session to highlight again once the new ordering is read
        self._typed: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(
            placeholder="Filter sessions by title or project…",
            id="session-filter",
            compact=True,
            select_on_focus=False,  # a character typed on the list is added to the filter, not typed over it
        )
        yield Static("Loading sessions…", id="sessions-count")
        yield SessionList(self.entry_at, self._draw, id="session-list")
        yield Footer(compact=True)

    @when_shown
    def on_mount(self) -> None:
        if self.focused is None:  # a key typed as it opened (down) may have chosen the list already
            self.query_one("#session-filter", Input).focus()
        self.reload()

    @property
    def listing(self) -> SessionList:
        return self.query_one("#session-list", SessionList)

    # -- reading pages -----------------------------------------------------------------

    def reload(self, keep: str | None = None) -> None:
        """Read the list again (sessions changed, or the filter, sort or starred choice),
        keeping `keep` (else the highlighted session) highlighted: the first read is the
        page that holds it now, wherever the change moved it.

        What is shown stays until the new first page arrives, so nothing flickers."""
        self._generation += 1
        self._asked = set()
        if keep is None:
            current = self._highlighted()
            keep = current.id if current is not None else None
        self._keep = keep
        if self.app.library is None:
            self._show_counts()  # the index is still opening; SessionsChanged follows when it is open
            return
        at = self.listing.highlighted or 0
        self._request(at // PAGE, around=keep or "")

    def entry_at(self, index: int) -> PageEntry | None:
        """Entry `index` of the list, or None while its page is read (the list draws a placeholder)."""
        number, within = divmod(index, PAGE)
        entries = self._pages.get(number)
        if entries is None:
            self._request(number)
            return None
        return entries[within] if within < len(entries) else None

    def _request(self, number: int, around: str = "") -> None:
        """Read page `number`; with `around`, the page that holds that session instead."""
        if number in self._asked or self.app.library is None:
            return
        self._asked.add(number)
        prefs = self.app.browser
        self._read_page(self._generation, number, prefs.sort, prefs.starred_only, self.filter_text, around)

    @work(thread=True, group="sessions-page")
    def _read_page(self, generation: int, number: int, sort: str, starred_only: bool, text: str, around: str) -> None:
        with self.app.background.running():  # the index stays open until this returns
            library = self.app.library
            if library is None:
                return
            try:
                page = library.session_page(
                    offset=number * PAGE, limit=PAGE, sort=sort, starred_only=starred_only, text=text, around=around
                )
                message = PageRead(generation, page.offset // PAGE, page, asked=number)
            except ConvoError as exc:
                message = PageRead(generation, number, None, str(exc))
        if not get_current_worker().is_cancelled:
            self.post_message(message)

    def on_page_read(self, event: PageRead) -> None:
        if event.generation != self._generation:
            return  # an older ordering's page
        listing = self.listing
        if event.page is None:
            self.error = event.error
            self._asked.discard(event.number)
            self._show_counts()
            return
        if self._reading != self._generation:  # the first page of a new reading replaces what was shown
            self._pages, self._reading = {}, self._generation
        if event.asked != event.number:  # read around a session: that page came, the one asked is still to read
            self._asked.discard(event.asked)
            self._asked.add(event.number)
        self._pages[event.number] = event.page.entries
        self.counts, self.error = event.page, None
        if listing.count != event.page.total:
            listing.set_count(event.page.total)
        listing.refresh_entries()
        self._highlight_again(event.number)
        self._show_counts()

    def _highlight_again(self, number: int) -> None:
        """The highlighted session on its new row, if this page holds it; else the nearest session."""
        listing = self.listing
        entries = self._pages.get(number, [])
        if self._keep is not None:
            for offset, entry in enumerate(entries):
                if entry.summary is not None and entry.summary.id == self._keep:
                    self._keep = None
                    if listing.highlighted != number * PAGE + offset:
                        listing.move_to(number * PAGE + offset)
                    return
        if listing.highlighted is not None and listing.highlighted >= listing.count:
            listing.action_last()
        elif listing.highlighted is not None and not listing.is_session(listing.highlighted):
            listing.action_cursor_down()
        elif listing.has_focus and listing.highlighted is None and listing.count:
            listing.action_first()

    def on_sessions_changed(self, event: SessionsChanged) -> None:
        gone = event.deleted and event.session_id is not None and event.session_id == self._highlighted_id()
        # The highlight goes to the session beside the deleted one, wherever it is now
        # (grouped by project, a deletion may move its group, even to another page).
        self.reload(keep=self._neighbour() if gone else None)

    def _neighbour(self) -> str | None:
        """The id of the session after the highlighted one in the list (before it, at the end), when read."""
        at = self.listing.highlighted
        if at is None:
            return None
        for index in [*range(at + 1, at + 3), *range(at - 1, at - 3, -1)]:  # past a project's header
            number, within = divmod(index, PAGE)
            entries = self._pages.get(number, []) if index >= 0 else []
            if within < len(entries) and entries[within].summary is not None:
                return entries[within].summary.id
        return None

    # -- showing ---------------------------------------------------------------------

    @staticmethod
    def _draw(entry: PageEntry) -> object:
        assert entry.summary is not None
        return session_line(entry.summary, with_project=True)

    @property
    def filter_text(self) -> str:
        return self.query_one("#session-filter", Input).value

    @on(Input.Changed, "#session-filter")
    def _filter(self) -> None:
        if self._typed is not None:
            self._typed.stop()
        self._typed = self.set_timer(TYPED_WAIT, self._filter_now)

    def _filter_now(self) -> None:
        self._typed = None
        self.listing.move_to(None)  # another list: its best match gets the cursor when it comes
        self.reload()

    @on(Input.Submitted, "#session-filter")
    def _submitted(self) -> None:
        if self._typed is not None:  # Enter right after typing: the filter reads now
            self._typed.stop()
            self._filter_now()
        self.action_focus_list()

    def shown(self) -> list[SessionSummary]:
        """The sessions read so far, in the list's order (headers left out)."""
        return [e.summary for number in sorted(self._pages) for e in self._pages[number] if e.summary is not None]

    def _show_counts(self) -> None:
        self.query_one("#sessions-count", Static).update(self._count_line())

    def _count_line(self) -> Text:
        prefs = self.app.browser
        line = Text()
        if self.error is not None:
            line.append(f"⚠ {self.error}", style="bold")
            return line
        counts = self.counts
        if counts is None:
            line.append("Loading sessions…")
            return line
        total = counts.everything
        filtered = self.filter_text.strip() or prefs.starred_only
        line.append(f"{counts.matched} of {plural(total, 'session')}" if filtered else plural(total, "session"))
        line.append(f" · by {prefs.sort}" if not self.filter_text.strip() else " · best match first")
        if prefs.starred_only:
            line.append(" · ★ starred only")
        if self.app.sessions_may_appear:  # files still being read; not while only vectors are added
            line.append(" · indexing, more may appear")
        elif not total:
            line.append("  (F5 indexes)")
        elif not counts.matched and prefs.starred_only and not self.filter_text.strip():
            line.append("  (ctrl+b stars the highlighted session)")
        return line

    def _highlighted_id(self) -> str | None:
        summary = self._highlighted()
        return summary.id if summary is not None else None

    def _highlighted(self) -> SessionSummary | None:
        if not self.is_mounted:
            return None
        listing = self.listing
        if listing.highlighted is None:
            return None
        number, within = divmod(listing.highlighted, PAGE)
        entries = self._pages.get(number, [])
        return entries[within].summary if within < len(entries) else None

    # -- opening -----------------------------------------------------------------------

    @on(SessionList.Selected)
    def _open(self, event: SessionList.Selected) -> None:
        if event.entry.summary is not None and self.app.library is not None:
            self._read_session(event.entry.summary.id)

    @work(thread=True, exclusive=True, group="sessions-open")
    def _read_session(self, session_id: str) -> None:
        with self.app.background.running():  # the index stays open until this returns
            library = self.app.library
            assert library is not None
            try:
                message = SessionLoaded(library.session(session_id))
            except ConvoError as exc:
                message = SessionLoaded(None, str(exc))
            self.post_message(message)

    def on_session_loaded(self, event: SessionLoaded) -> None:
        from convo_tui.tui.screens.reader import ReaderScreen

        if event.session is None:
            self.notify(event.error or "Could not read the session", severity="error", markup=False)
        elif self.is_current:
            self.app.push_screen(ReaderScreen(event.session, None, ""))

    # -- the session actions (tui/session_actions.py) act on the highlighted row ----------

    NO_TARGET = "No session highlighted"

    def session_target(self) -> SessionTarget | None:
        summary = self._highlighted()
        if summary is None and self.is_mounted and self.listing.highlighted is None:
            # Nothing chosen yet (the filter box has the focus): the first session, as the
            # search screen's keys take the first card; highlighted, so the user sees which.
            self.listing.action_first()
            summary = self._highlighted()
        if summary is None:
            return None
        return SessionTarget(summary.id, title=summary.title, path=summary.path, starred=summary.starred)
