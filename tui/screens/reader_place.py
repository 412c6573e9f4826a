"""Where the reader is in its session: the turn on top, kept through a resize
(every line wraps anew, and the same scroll offset showed turns seven to twelve
away), and the window of turns mounted (reader_window.py), widened where the
view reaches one of its ends and moved by g, G and n/N."""

from __future__ import annotations

from typing import Any

from convo_tui.tui.screens.reader_window import TurnWindow
from convo_tui.tui.widgets.session_view import TurnView
from textual.containers import VerticalScroll

# The view this close to an end of the turns mounted widens them.
EDGE_ROWS = 2


class TurnPlace:
    """ReaderScreen's part that keeps its place (a mixin: the screen owns the state)."""

    # The turn at the top of the view and how far into it (a share of its height),
    # kept as the reader scrolls; set while the screen's own moves run.
    _place: tuple[str, float] | None
    _reflowing: bool
    _window: TurnWindow | None

    # Provided by textual's Screen and ReaderScreen.
    query: Any
    query_one: Any
    call_later: Any
    call_after_refresh: Any

    def turn_view(self, index: int) -> TurnView | None:
        raise NotImplementedError  # ReaderScreen

    async def _reach_turn(self, index: int) -> None:
        if self._window is not None:
            self._reflowing = True  # what is mounted above moves the view: not the reader's place
            await self._window.reach(index)
            self.call_after_refresh(self._after_reach, index)

    def _after_reach(self, index: int) -> None:
        self._reflowing = False
        view = self.turn_view(index)
        if view is not None:
            self.query_one("#reader-body", VerticalScroll).scroll_to_widget(view, top=True, animate=False)

    def _remember_place(self) -> None:
        if self._reflowing:
            return  # the reflow's own moves are not the reader's
        body = self.query_one("#reader-body", VerticalScroll)
        for view in body.query_children(TurnView):
            box = view.virtual_region
            if box.bottom > body.scroll_y and view.id:
                self._place = (view.id, (body.scroll_y - box.y) / max(1, box.height))
                break
        window = self._window
        if window is not None and not window.whole:
            if body.scroll_y <= EDGE_ROWS and window.lo > 0:
                self._reflowing = True
                self.call_later(self._grow, True)
            elif body.scroll_y >= body.max_scroll_y - EDGE_ROWS and window.hi < window.size:
                self._reflowing = True
                self.call_later(self._grow, False)

    async def _grow(self, up: bool) -> None:
        """More turns where the view reached an end of those mounted; the turn on top
        stays where it is on screen (turns mounted above it would push it down)."""
        if self._window is not None:
            await (self._window.grow_up() if up else self._window.grow_down())
        self.call_after_refresh(self._put_back)

    def _keep_place(self) -> None:
        """After a resize: the same scroll offset shows other turns once every line
        wrapped anew (a window made narrower put the reader turns away from where it was)."""
        if self._place is not None:
            self._reflowing = True
            self.call_after_refresh(self._put_back)

    def _put_back(self) -> None:
        self._reflowing = False
        if self._place is None:
            return
        name, share = self._place
        found = self.query(f"#{name}")
        if found:
            box = found.first().virtual_region
            body = self.query_one("#reader-body", VerticalScroll)
            body.scroll_to(y=box.y + round(share * box.height), animate=False)

    async def action_top(self) -> None:
        window = self._window
        if window is not None and window.lo > 0:
            self._reflowing = True  # the turns mounted anew are not the reader's place
            await window.open_at(window.indexes[0])
            self._reflowing = False
        self.call_after_refresh(self.query_one("#reader-body", VerticalScroll).scroll_home, animate=False)

    async def action_bottom(self) -> None:
        window = self._window
        if window is not None and window.hi < window.size:
            self._reflowing = True
            await window.open_at(window.indexes[-1])
            self._reflowing = False
        self.call_after_refresh(self.query_one("#reader-body", VerticalScroll).scroll_end, animate=False)
