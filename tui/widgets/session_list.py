"""The sessions browser's list, virtual: rows are drawn for what is on screen only.

The list knows how many entries the whole ordering has and asks its screen for
each entry it is about to draw (`entry_at`); an entry not read yet is drawn as a
placeholder and the screen reads its page from the engine (Engine.session_page)
in a worker, then calls `refresh_entries`. At 45,000 sessions opening the list
reads one page and draws one screenful: no widget per row, no option per session.
Every entry (a session, or a project's header) is two rows tall.
"""

from __future__ import annotations

from collections.abc import Callable

from convo_tui.core.annotations import tags_line
from convo_tui.core.hits import PageEntry, SessionSummary
from convo_tui.core.redact import display
from convo_tui.tui.render import format_date, plural
from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

ROWS = 2  # every entry: a session's title over its details, or a header over a blank row


class SessionList(ScrollView, can_focus=True):
    """`entry_at(i)` gives entry i or None (not read yet); `draw(entry)` its renderable."""

    COMPONENT_CLASSES = {"session-list--cursor", "session-list--header", "session-list--pending"}
    BINDINGS = [
        Binding("down", "cursor_down", "Down", show=False),
        Binding("up", "cursor_up", "Up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("home", "first", "First", show=False),
        Binding("end", "last", "Last", show=False),
        Binding("enter", "select", "Open", show=False),
    ]
    DEFAULT_CSS = """
    SessionList { overflow-x: hidden; }
    SessionList > .session-list--cursor { background: $block-cursor-background; color: $block-cursor-foreground; }
    SessionList:blur > .session-list--cursor { background: $block-cursor-blurred-background; color: $foreground; }
    SessionList > .session-list--header { color: $text-primary; text-style: bold; }
    SessionList > .session-list--pending { color: $text-muted; }
    """

    class Selected(Message):
        """Enter (or a click on the highlighted row) on a session."""

        def __init__(self, index: int, entry: PageEntry) -> None:
            super().__init__()
            self.index = index
            self.entry = entry

    class Highlighted(Message):
        def __init__(self, index: int | None) -> None:
            super().__init__()
            self.index = index

    def __init__(
        self, entry_at: Callable[[int], PageEntry | None], draw: Callable[[PageEntry], object], *, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self._entry_at = entry_at
        self._draw = draw
        self.count = 0
        self.highlighted: int | None = None
        self._lines: dict[tuple[int, int, bool], list[list[Segment]]] = {}  # (entry, width, cursor) -> its rows

    # -- the data --------------------------------------------------------------------

    def set_count(self, count: int) -> None:
        """The ordering changed (or grew): `count` entries; drawn rows are forgotten."""
        self.count = count
        self._lines.clear()
        self.virtual_size = Size(self.size.width, count * ROWS)
        if self.highlighted is not None and self.highlighted >= count:
            self.highlighted = None if not count else self._session_near(count - 1, -1)
        self.refresh()

    def refresh_entries(self) -> None:
        """Entries were read: draw them (placeholders become rows)."""
        self._lines.clear()
        self.refresh()

    def is_session(self, index: int) -> bool:
        entry = self._entry_at(index)
        return entry is None or entry.summary is not None  # a row not read yet counts as a session

    def _session_near(self, index: int, step: int) -> int | None:
        while 0 <= index < self.count:
            if self.is_session(index):
                return index
            index += step
        return None

    # -- drawing ---------------------------------------------------------------------

    def on_resize(self) -> None:
        self._lines.clear()
        self.virtual_size = Size(self.size.width, self.count * ROWS)

    def render_line(self, y: int) -> Strip:
        line = round(self.scroll_offset.y) + y
        index, row = divmod(line, ROWS)
        width = self.scrollable_content_region.width
        if index >= self.count or width <= 0:
            return Strip.blank(width, self.rich_style)
        cursor = index == self.highlighted
        key = (index, width, cursor)
        rows = self._lines.get(key)
        if rows is None:
            rows = self._render_entry(index, width, cursor)
            if self._entry_at(index) is not None:
                self._lines[key] = rows
        return Strip(rows[row], width).crop(0, width)

    def _render_entry(self, index: int, width: int, cursor: bool) -> list[list[Segment]]:
        entry = self._entry_at(index)
        base = self.rich_style
        if entry is None:
            renderable: object = Text("…", style=self.get_component_rich_style("session-list--pending", partial=True))
        elif entry.summary is None:
            header = Text(f"▍{entry.header}  ({entry.count})")
            header.stylize(self.get_component_rich_style("session-list--header", partial=True))
            renderable = header
        else:
            renderable = self._draw(entry)
        style: Style = base + self.get_component_rich_style("session-list--cursor") if cursor else base
        options = self.app.console.options.update_width(width).update(height=ROWS)
        lines = self.app.console.render_lines(renderable, options, style=style, pad=True)  # type: ignore[arg-type]
        lines = (lines + [[Segment(" " * width, style)]] * ROWS)[:ROWS]
        return [list(line) for line in lines]

    # -- moving ----------------------------------------------------------------------

    def move_to(self, index: int | None) -> None:
        old = self.highlighted
        self.highlighted = index
        self._forget(old)
        self._forget(index)
        if index is not None:
            # A group's first session comes into view with its project's header above it.
            above = self._entry_at(index - 1) if index > 0 else None
            top = index - 1 if above is not None and above.header is not None else index
            self.scroll_to_region(Region(0, top * ROWS, 1, (index - top + 1) * ROWS), animate=False, immediate=True)
        self.refresh()
        self.post_message(self.Highlighted(index))

    def _forget(self, index: int | None) -> None:
        if index is not None:
            for key in [k for k in self._lines if k[0] == index]:
                del self._lines[key]

    def action_cursor_down(self) -> None:
        start = 0 if self.highlighted is None else self.highlighted + 1
        target = self._session_near(start, 1)
        if target is not None:
            self.move_to(target)

    def action_cursor_up(self) -> None:
        if self.highlighted is None:
            self.action_first()
            return
        target = self._session_near(self.highlighted - 1, -1)
        if target is not None:
            self.move_to(target)

    def _page_entries(self) -> int:
        return max(1, self.scrollable_content_region.height // ROWS - 1)

    def action_page_down(self) -> None:
        start = min(self.count - 1, (self.highlighted or 0) + self._page_entries())
        target = self._session_near(start, 1) or self._session_near(start, -1)
        if target is not None:
            self.move_to(target)

    def action_page_up(self) -> None:
        start = max(0, (self.highlighted or 0) - self._page_entries())
        target = self._session_near(start, -1) or self._session_near(start, 1)
        if target is not None:
            self.move_to(target)

    def action_first(self) -> None:
        target = self._session_near(0, 1)
        if target is not None:
            self.move_to(target)

    def action_last(self) -> None:
        target = self._session_near(self.count - 1, -1)
        if target is not None:
            self.move_to(target)

    def action_select(self) -> None:
        if self.highlighted is None:
            return
        entry = self._entry_at(self.highlighted)
        if entry is not None and entry.summary is not None:
            self.post_message(self.Selected(self.highlighted, entry))

    def on_click(self, event: events.Click) -> None:
        index = (round(self.scroll_offset.y) + event.y) // ROWS
        if 0 <= index < self.count and self.is_session(index):
            if index == self.highlighted:
                self.action_select()
            else:
                self.move_to(index)


def session_line(summary: SessionSummary, *, with_project: bool = False) -> Table:
    """Star column, then the title over the details, each one row: at 80 columns the
    title is cut with "…" and so is the project, never the counts and their units."""
    grid = Table.grid()
    grid.add_column(width=2, no_wrap=True)
    grid.add_column(ratio=1)
    title = Text(display(summary.title) or "(untitled)", style="bold", no_wrap=True, overflow="ellipsis")
    # Not dim: below 4.5:1 on textual-light; the bold title stands out enough.
    details = Text(
        f"{format_date(summary.updated_at or summary.started_at)} · {summary.source}"
        f" · {plural(summary.turn_count, 'turn')} · {plural(summary.message_count, 'message')}",
        no_wrap=True,
        overflow="ellipsis",
    )
    if summary.orphaned:
        details.append(" · source gone", style="italic")
    # The user's own tags: last, and the first to give way, so the project and the counts show.
    tags = Text(tags_line(summary.tags), style="italic") if summary.tags else None
    meta = PlaceAndDetails(Text(summary.project or "—", style="italic") if with_project else None, details, tags)
    grid.add_row(Text("★" if summary.starred else "", style="bold"), title)
    grid.add_row("", meta)
    return grid


class PlaceAndDetails:
    """`project · details · tags` on one row, cut to the width it gets: the tags give way
    first, then the project, so "6 turns · 30 messages" keeps its unit at 80 columns."""

    def __init__(self, project: Text | None, details: Text, tags: Text | None = None) -> None:
        self.project = project
        self.details = details
        self.tags = tags

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        line = Text(no_wrap=True, overflow="ellipsis")
        if self.project is not None:
            room = width - self.details.cell_len - 3
            if room >= 4:
                project = self.project.copy()
                project.truncate(room, overflow="ellipsis")
                line.append_text(project)
                line.append(" · ")
        line.append_text(self.details)
        room = width - line.cell_len - 3
        if self.tags is not None and room >= 4:  # at least "#a…"
            tags = self.tags.copy()
            tags.truncate(room, overflow="ellipsis")
            line.append(" · ")
            line.append_text(tags)
        line.truncate(width, overflow="ellipsis")
        yield line

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        project = self.project.cell_len + 3 if self.project is not None else 0
        tags = self.tags.cell_len + 3 if self.tags is not None else 0
        return Measurement(min(options.max_width, 8), min(options.max_width, project + self.details.cell_len + tags))
