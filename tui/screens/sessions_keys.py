"""The sessions browser's keys: the list's letters, and characters typed on the
list going into the filter (as on the search screen)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from convo_tui.tui.session_actions import SESSION_BINDINGS
from convo_tui.tui.session_filter import SORTS
from textual import events
from textual.binding import Binding
from textual.widgets import Input

if TYPE_CHECKING:
    from convo_tui.tui.widgets.session_list import SessionList

SESSIONS_BINDINGS = [
    # Enter opens here: ctrl+o stays out of the footer, which must fit 80 columns with s and f.
    *[dataclasses.replace(b, show=False) if isinstance(b, Binding) else b for b in SESSION_BINDINGS],
    Binding("escape", "back", "Back", id="sessions.back"),
    Binding("slash", "focus_filter", "Filter", show=False, id="sessions.filter"),
    Binding("s", "cycle_sort", "Sort", id="sessions.sort"),
    Binding("f", "toggle_starred", "Starred", id="sessions.starred"),
    # Not a letter: a word typed into the list goes to the filter (on_key), and "dyn"
    # must not delete the session under the cursor with its "y".
    Binding("delete", "delete", "Delete", show=False, id="sessions.delete"),
    Binding("number_sign", "tag", "Tags", show=False, id="sessions.tag"),  # tags show as #name
    Binding("j", "cursor_down", "Down", show=False, id="sessions.down"),
    Binding("k", "cursor_up", "Up", show=False, id="sessions.up"),
    Binding("g", "first", "First", show=False, id="sessions.first"),
    Binding("G", "last", "Last", show=False, id="sessions.last"),
    # Priority: the move to the list is made where the app reads the key, so the
    # keys typed right after it (an s to sort) already go to the list, not the filter.
    Binding("down", "cursor_down", "List", show=False, priority=True, id="sessions.list"),
]


class ListKeys:
    """SessionsScreen's keys (a mixin: the screen owns the list, the filter and the reads)."""

    _keep: str | None  # the session to highlight again once a new ordering is read

    # Provided by textual's Screen and SessionsScreen.
    app: Any
    focused: Any
    query_one: Any
    set_focus: Any
    notify: Any

    @property
    def listing(self) -> SessionList:
        raise NotImplementedError  # SessionsScreen

    @property
    def filter_text(self) -> str:
        raise NotImplementedError  # SessionsScreen

    def reload(self, keep: str | None = None) -> None:
        raise NotImplementedError  # SessionsScreen

    @property
    def HELP_NOTE(self) -> str:  # the help screen reads HELP_NOTE (a constant on the search screen)
        """While the filter has the focus, letters are typed into it and the list's keys
        are not active: F1 listed none of them (tmux, session 32)."""
        if isinstance(self.focused, Input):
            return (
                "Letters go into the filter here: ↓ moves to the list, and F1 there lists its keys (sort, starred, tags, delete)."
            )
        return ""

    def on_key(self, event: events.Key) -> None:
        """A character typed while the list has the focus goes into the filter, at its
        end (as on the search screen), unless a key binding takes it (the list's letters,
        as the user's `[keys]` map them, `?`)."""
        box = self.query_one("#session-filter", Input)
        if self.focused is not box:
            # A key pressed on the list moves it (or reorders it, which picks its own row):
            # the session highlighted before a new ordering is no longer where to go back to.
            self._keep = None
        char = event.character
        # The box types its own characters (they never get here); these came from the list,
        # some of them after the first of a burst moved the focus to the box.
        if not event.is_printable or char is None or event.key in self.app.active_bindings:
            return
        event.stop()
        event.prevent_default()
        if self.focused is not box:
            self.set_focus(box)
        box.cursor_position = len(box.value)
        box.insert_text_at_cursor(char)

    def on_click(self) -> None:
        self._keep = None  # a row clicked: where the user wants to be

    def action_back(self) -> None:
        self.app.pop_screen()

    def action_focus_filter(self) -> None:
        self.query_one("#session-filter", Input).focus()

    def action_focus_list(self) -> None:
        listing = self.listing
        self.set_focus(listing)  # now: Widget.focus() waits for the app's next turn, after the keys queued behind
        if listing.highlighted is None and listing.count:
            listing.action_first()

    def _on_list(self, action: str) -> None:
        listing = self.listing
        if not listing.has_focus:
            self.action_focus_list()
            if action in ("cursor_down", "cursor_up"):
                return  # the first key lands on the first row
        getattr(listing, f"action_{action}")()

    def action_cursor_down(self) -> None:
        self._on_list("cursor_down")

    def action_cursor_up(self) -> None:
        self._on_list("cursor_up")

    def action_first(self) -> None:
        self._on_list("first")

    def action_last(self) -> None:
        self._on_list("last")

    def action_cycle_sort(self) -> None:
        prefs = self.app.browser
        prefs.sort = SORTS[(SORTS.index(prefs.sort) + 1) % len(SORTS)]
        if self.filter_text.strip():  # the list is by match while filtered: the key would seem to do nothing
            self.notify(f"Sorted by {prefs.sort} once the filter is cleared (now: best match first)", timeout=3)
        self.reload()

    def action_toggle_starred(self) -> None:
        prefs = self.app.browser
        prefs.starred_only = not prefs.starred_only
        self.reload()
