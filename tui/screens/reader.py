"""The whole session, turn by turn, scrolled to the hit; n/N walk the query's hits.

The index is read and written in workers (star, display settings, rename,
delete); they report back with messages, and a change is announced to the app
(SessionEdited) so that every list showing the session reloads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from convo_tui.core.cost.prices import price_table
from convo_tui.core.errors import ConvoError
from convo_tui.core.model import Session
from convo_tui.tui.query_line import highlight_words
from convo_tui.tui.render import session_cost
from convo_tui.tui.screens.reader_place import TurnPlace
from convo_tui.tui.screens.reader_window import TurnWindow
from convo_tui.tui.session_actions import SESSION_BINDINGS, SessionActions, SessionTarget
from convo_tui.tui.session_messages import SessionsChanged
from convo_tui.tui.shown import when_shown
from convo_tui.tui.widgets.message_block import MessageBlock
from convo_tui.tui.widgets.session_view import TurnView, build_turn_views, session_head
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

if TYPE_CHECKING:
    from convo_tui.tui.app import ConvoApp


class SessionNotes(Message):
    """What the index keeps about the session beside its text: the star, the tags and
    description the user gave it (`convo-tui session tag / describe`), display settings."""

    def __init__(self, starred: bool, settings: dict[str, bool], tags: tuple[str, ...] = (), description: str = "") -> None:
        super().__init__()
        self.starred = starred
        self.settings = settings
        self.tags = tags
        self.description = description


class SettingsStored(Message):
    """A worker could not write the session's display settings (`error`)."""

    def __init__(self, error: str) -> None:
        super().__init__()
        self.error = error


class ReaderScreen(TurnPlace, SessionActions, Screen):
    # Shown in the footer: what fits 80 columns beside the app's keys and Quit; F1 lists them all.
    BINDINGS = [
        *[b for b in SESSION_BINDINGS if isinstance(b, Binding) and b.action != "open"],
        Binding("escape", "back", "Back", id="reader.back"),
        Binding("n", "next_hit", "Next hit", id="reader.next_hit"),
        Binding("N", "previous_hit", "Prev hit", show=False, id="reader.previous_hit"),
        Binding("t", "toggle_thinking", "Thinking", show=False, id="reader.thinking"),
        Binding("w", "toggle_tools", "Tools", show=False, id="reader.tools"),
        Binding("s", "search_here", "Search here", show=False, id="reader.search_here"),
        Binding("v", "reveal", "Reveal secret", show=False, id="reader.reveal"),
        Binding("d", "delete", "Delete", show=False, id="reader.delete"),
        Binding("number_sign", "tag", "Tags", show=False, id="reader.tag"),
        Binding("j", "scroll_down", "Down", show=False, id="reader.down"),
        Binding("k", "scroll_up", "Up", show=False, id="reader.up"),
        Binding("g", "top", "Top", show=False, id="reader.top"),
        Binding("G", "bottom", "Bottom", show=False, id="reader.bottom"),
    ]

    app: ConvoApp

    def __init__(self, session: Session, turn_index: int | None, query: str) -> None:
        super().__init__()
        self.session = session
        self.current_turn = turn_index
        self.query_text = query
        self.hit_turns: list[int] = [turn_index] if turn_index is not None else []
        self.hits_counted = False  # hit_turns is only the opened turn until _find_hits answers
        self.starred = False
        self.notes: tuple[tuple[str, ...], str] = ((), "")  # tags and description, once read
        self._cost: str = ""  # the session's tokens and cost, computed once on mount
        # The turn at the top of the view and how far into it (a share of its height),
        # kept as the reader scrolls, put back after a resize reflowed every turn.
        self._place: tuple[str, float] | None = None
        self._reflowing = False
        self._window: TurnWindow | None = None  # the turns mounted (reader_window.py)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="reader-head")
        yield VerticalScroll(id="reader-body")
        yield Footer(compact=True)

    @when_shown
    async def on_mount(self) -> None:
        self._cost = session_cost(self.session, price_table(self.app.settings))
        self._show_head()
        await self._fill_body()
        self.watch(self.query_one("#reader-body", VerticalScroll), "scroll_y", self._remember_place, init=False)
        if self.app.library is not None:
            self._read_notes()
            if self.query_text.strip():
                self._find_hits(self.query_text, self.app.mode)

    @work(thread=True, exclusive=True, group="reader-notes")
    def _read_notes(self) -> None:
        with self.app.background.running():  # the index stays open until this returns
            library = self.app.library
            assert library is not None
            try:
                summary = library.session_summary(self.session.id)
                settings = library.session_settings(self.session.id)
                notes = SessionNotes(summary.starred, settings, tuple(summary.tags), summary.description)
            except ConvoError:
                return  # shown without star and with the default settings
            self.post_message(notes)

    def on_session_notes(self, event: SessionNotes) -> None:
        self.starred = event.starred
        self.notes = (event.tags, event.description)
        self.set_class(bool(event.settings.get("hide_thinking")), "-hide-thinking")
        self.set_class(bool(event.settings.get("hide_tools")), "-hide-tools")
        self._show_head()

    async def _fill_body(self) -> None:
        body = self.query_one("#reader-body", VerticalScroll)
        terms = highlight_words(self.query_text)

        def build(start: int, end: int) -> list[TurnView]:
            views = build_turn_views(self.session, terms, self.app.redactor, slice(start, end))
            for view in views:
                self._mark(view)
            return views

        self._window = TurnWindow(body, [index for index, _ in self.session.turn_groups()], build)
        if self.current_turn is not None:
            # The window starts turns above the opened one: its first frames showed
            # them, then jumped (tmux, session 32). The body is transparent until
            # scrolled there (not hidden: a hidden widget has no place to scroll to).
            body.styles.opacity = 0
        await self._window.open_at(self.current_turn)
        body.focus()
        if self.current_turn is not None:
            self.call_after_refresh(self._land, self.current_turn)

    def _land(self, index: int) -> None:
        """The first scroll to the opened turn, then the body shown, every line of it
        drawn again (lines drawn while it was transparent are kept otherwise)."""
        found = self.query("#reader-body")
        if not found:
            return  # the screen was taken down meanwhile (ctrl+q)
        self._scroll_to_turn(index)
        body = found.first(VerticalScroll)
        body.styles.clear_rule("opacity")
        for widget in (body, *body.walk_children()):
            widget.notify_style_update()  # their styles' caches hold the transparent colours
            widget.refresh()

    def _session_texts(self) -> list[str]:
        return [
            t
            for m in self.session.messages
            for t in (m.text, m.thinking, *(str(a) for tool in m.tools for a in tool.args.values()))
        ]

    def _show_head(self) -> None:
        masked = self.app.redactor.masked_count(self._session_texts())
        box = self.query_one("#reader-head", Static)
        width = box.content_region.width or max(0, self.size.width - 4)  # 0 before the first layout
        position = self.hit_position()
        tags, description = self.notes
        head = session_head(
            self.session,
            starred=self.starred,
            masked=masked,
            cost=self._cost,
            position=position,
            width=width,
            tags=tags,
            description=description,
        )
        box.update(head)

    def on_resize(self) -> None:
        self._show_head()  # the title is cut to the width
        self._keep_place()

    def turn_view(self, index: int) -> TurnView | None:
        found = self.query(f"#turn-{index}")
        return found.first(TurnView) if found else None

    def _mark_hits(self) -> None:
        for view in self.query(TurnView):
            self._mark(view)

    def _mark(self, view: TurnView) -> None:
        view.set_class(view.index in self.hit_turns, "-hit")
        view.set_class(view.index == self.current_turn, "-current")

    def _scroll_to_turn(self, index: int) -> None:
        view = self.turn_view(index)
        if view is not None:
            self.query_one("#reader-body", VerticalScroll).scroll_to_widget(view, top=True, animate=False)
        elif self._window is not None:
            self.call_later(self._reach_turn, index)  # outside the turns mounted

    @work(thread=True, exclusive=True, group="reader-hits")
    def _find_hits(self, query: str, mode: str) -> None:
        app = self.app
        assert app.library is not None  # the reader opens from an open index
        used = mode if (mode not in ("hybrid", "semantic") or app.model_ready) else "keyword"
        try:
            hits = app.library.hits_in_session(query, self.session.id, mode=used)
        except ConvoError as exc:
            app.call_from_thread(app.notify, str(exc), severity="warning")
            app.call_from_thread(self._set_hits, [])  # the opened turn alone, said as such
            return
        turns = sorted({hit.turn_index for hit in hits})
        app.call_from_thread(self._set_hits, turns)

    def _set_hits(self, turns: list[int]) -> None:
        if self.current_turn is not None and self.current_turn not in turns:
            turns = sorted({*turns, self.current_turn})
        self.hit_turns = turns
        self.hits_counted = True
        self._mark_hits()
        self._show_head()

    # -- keys --------------------------------------------------------------------------

    def _jump(self, step: int) -> None:
        if not self.query_text.strip():
            self.notify("No query to walk: s searches this session, or open the reader from a search", timeout=4)
            return
        if not self.hit_turns:
            self.notify(f"No turn of this session matches “{self.query_text.strip()}”", timeout=3)
            return
        if self.current_turn is None:
            target = self.hit_turns[0 if step > 0 else -1]
        else:
            after = [t for t in self.hit_turns if (t > self.current_turn if step > 0 else t < self.current_turn)]
            ahead = (after[0] if step > 0 else after[-1]) if after else None
            target = ahead if ahead is not None else self.hit_turns[0 if step > 0 else -1]  # else wrap around
        self.current_turn = target
        self._mark_hits()
        self._show_head()
        self._scroll_to_turn(target)

    def hit_position(self) -> str:
        """ "hit 2/5" while walking the query's hits (n/N), "5 hits" before the first step."""
        if not self.query_text.strip() or not self.hit_turns:
            return ""
        if not self.hits_counted:  # "hit 1/1" here was the opened turn alone, not a count
            return "counting hits · n/N"
        if self.current_turn in self.hit_turns:
            return f"hit {self.hit_turns.index(self.current_turn) + 1}/{len(self.hit_turns)} · n/N"
        return f"{len(self.hit_turns)} hits · n/N"

    def action_next_hit(self) -> None:
        self._jump(1)

    def action_previous_hit(self) -> None:
        self._jump(-1)

    # -- the session actions (tui/session_actions.py) and what they changed --------------

    OFFERS_NOT = frozenset({"action_open"})  # it is open

    def session_target(self) -> SessionTarget:
        session = self.session
        return SessionTarget(session.id, title=session.title, path=session.path, starred=self.starred, session=session)

    def current_query(self) -> str:
        return self.query_text

    def action_open(self) -> None:
        self.notify("This session is open", timeout=2)

    def on_sessions_changed(self, event: SessionsChanged) -> None:
        if event.session_id != self.session.id:
            return
        if event.deleted:
            if self.is_current:
                self.app.pop_screen()
            return
        if event.title is not None:
            self.session.title = event.title
        if event.starred is not None:
            self.starred = event.starred
        if event.tags is not None:
            self.notes = (tuple(event.tags), self.notes[1])
        self._show_head()

    @work(thread=True, group="reader-store")
    def _store_settings(self, hide_thinking: bool | None = None, hide_tools: bool | None = None) -> None:
        """Per-session display settings live in the index's annotations; written off the UI thread."""
        with self.app.background.running():  # the index stays open until this returns
            library = self.app.library
            if library is None:
                return
            try:
                library.set_session_settings(self.session.id, hide_thinking=hide_thinking, hide_tools=hide_tools)
            except ConvoError as exc:
                self.post_message(SettingsStored(str(exc)))

    def on_settings_stored(self, event: SettingsStored) -> None:
        self.notify(event.error, severity="warning")

    def action_toggle_thinking(self) -> None:
        hidden = not self.has_class("-hide-thinking")
        self._keeping_place(lambda: self.set_class(hidden, "-hide-thinking"))
        self._store_settings(hide_thinking=hidden)
        self.notify("Thinking hidden for this session" if hidden else "Thinking shown", timeout=2)

    def action_toggle_tools(self) -> None:
        hidden = not self.has_class("-hide-tools")
        self._keeping_place(lambda: self.set_class(hidden, "-hide-tools"))
        self._store_settings(hide_tools=hidden)
        self.notify("Tool calls hidden for this session" if hidden else "Tool calls shown", timeout=2)

    def _keeping_place(self, change: Callable[[], object]) -> None:
        """`change` (what is hidden above moves the rest), then the message that was at
        the top of the view back where it was on screen (it jumped turns away)."""
        body = self.query_one("#reader-body", VerticalScroll)
        top = body.region.y
        anchor = next((block for block in self.query(MessageBlock) if block.region.bottom > top), None)
        was = anchor.region.y if anchor is not None else 0
        change()
        if anchor is not None:

            def again() -> None:
                body.scroll_to(y=max(0, body.scroll_y + anchor.region.y - was), animate=False)

            self.call_after_refresh(again)

    def action_search_here(self) -> None:
        from convo_tui.core.search.query import session_filter

        self.app.set_query(f"{session_filter(self.session.id)} ")

    async def action_reveal(self) -> None:
        kind = self.app.redactor.reveal_next(self._session_texts())
        if kind is None:
            self.notify("No masked secret left in this session", timeout=2)
            return
        self.notify(f"Revealed one {kind}", timeout=3)
        self._show_head()
        await self._fill_body()

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_scroll_down(self) -> None:
        self.query_one("#reader-body", VerticalScroll).scroll_down(animate=False)

    def action_scroll_up(self) -> None:
        self.query_one("#reader-body", VerticalScroll).scroll_up(animate=False)
