"""A search result card: the hit in a few lines, expandable in place.

Normal: title and score, one line of the question and one of the answer (each
the part that matched, see core.snippets), then project, source, date and tools.
Compact (the screen's `-compact-list` class): the first line only, a preview pane
beside the list shows the rest.
"""

from __future__ import annotations

from collections.abc import Callable

from convo_tui.core.hits import Hit
from convo_tui.core.model import Session
from convo_tui.core.redact import display
from convo_tui.core.search.snippets import snippet
from convo_tui.tui.card_messages import (
    CardCopy,
    CardCopyId,
    CardCopyResume,
    CardEdit,
    CardExpand,
    CardExport,
    CardExportPage,
    CardOpen,
    CardResume,
)
from convo_tui.tui.render import IconRows, format_date, highlighted, relevance_bar
from convo_tui.tui.widgets.card_header import CardHeader
from convo_tui.tui.widgets.turn_detail import TurnDetail
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

SNIPPET_CELLS = 240  # wider than any card line: the line is cut on screen, the match stays near its start


def card_title(hit: Hit, compact: bool = False) -> Text:
    title = Text(display(hit.session_title) or "(untitled)", style="bold", no_wrap=True, overflow="ellipsis")
    if compact:  # the one line of the compact list also says where and when
        title.append(f"  {hit.project or '—'} · {format_date(hit.timestamp)[:10]}", style="dim")
    return title


def card_meta(hit: Hit) -> Text:
    meta = Text(no_wrap=True, overflow="ellipsis")
    meta.append(hit.project or "—", style="italic")
    meta.append(f" · {hit.source} · {format_date(hit.timestamp)}")
    if hit.machine:  # read from another machine over SSH
        meta.append(f" · on {hit.machine}", style="bold")
    if hit.tools:
        meta.append(" · 🔧 " + ", ".join(dict.fromkeys(hit.tools)))
    return meta


def card_score(hit: Hit, compact: bool = False) -> Text:
    if compact:  # the bar would take the compact list's title room
        return Text(f"{hit.score:.2f}")
    return Text(f"{relevance_bar(hit.score)} {hit.score:.2f}")


def snippet_line(text: str, terms: list[str]) -> Text:
    """One line of the matched part of `text`, terms marked; cut with "…" at the card's edge."""
    line = highlighted(snippet(text, terms, SNIPPET_CELLS), terms)
    line.no_wrap = True
    line.overflow = "ellipsis"
    return line


class ResultCard(Vertical, can_focus=True):
    """Collapsed: header and clipped texts. Expanded: the per-message view.

    The actions post messages (tui/card_messages.py); the screen does the work.
    """

    # Only Enter here: printable keys belong to the query, the other card keys are the screen's.
    BINDINGS = [Binding("enter", "toggle_expanded", "Expand", id="card.expand")]

    def __init__(self, hit: Hit, terms: list[str], *, shown: Callable[[str], str] | None = None, scored: bool = True) -> None:
        super().__init__(classes="card")
        self.hit = hit
        self.terms = terms
        self.scored = scored  # a filter-only query has no similarity worth showing
        self.expanded = False
        self.compact = False
        self._shown = shown or (lambda text: text)
        self._header: CardHeader | None = None
        self._parts: dict[str, Static] = {}

    def compose(self) -> ComposeResult:
        # Every part is always composed (the score left out when unscored) so that
        # set_hit can refill the same widgets: the search screen reuses its cards.
        self._header = CardHeader(
            card_title(self.hit, self.compact), card_score(self.hit, self.compact), scored=self.scored, classes="card-top"
        )
        parts = self._parts = {
            "meta": Static(card_meta(self.hit), classes="card-meta"),
            "summary": Static(self._summary(), classes="card-summary"),
        }
        yield self._header
        yield parts["summary"]
        yield parts["meta"]

    def set_hit(self, hit: Hit, terms: list[str], *, scored: bool = True) -> None:
        """Show another hit in this card, collapsed, without rebuilding its widgets.

        Typing searches on every key: refilling a few Statics costs a fraction of
        removing and mounting the cards (widget creation, styles, layout).
        """
        if hit == self.hit and terms == self.terms and scored == self.scored:
            return  # the same result again (a re-search after indexing): keep it as it is
        self.collapse()
        old, old_terms, old_scored = self.hit, self.terms, self.scored
        self.hit, self.terms, self.scored = hit, terms, scored
        parts = self._parts
        if not parts or self._header is None:
            return  # not composed yet: compose reads the new hit
        # The one-line parts keep their size: no layout for them, and only what changed is redrawn.
        if (hit.session_title, hit.score, scored) != (old.session_title, old.score, old_scored) or self.compact:
            self._header.show(card_title(hit, self.compact), card_score(hit, self.compact), scored)
        if (hit.project, hit.source, hit.timestamp, hit.tools, hit.machine) != (
            old.project,
            old.source,
            old.timestamp,
            old.tools,
            old.machine,
        ):
            parts["meta"].update(card_meta(hit), layout=False)
        if (hit.user_text, hit.ai_text, hit.tools, hit.part_text, terms) != (
            old.user_text,
            old.ai_text,
            old.tools,
            old.part_text,
            old_terms,
        ):
            parts["summary"].update(self._summary())

    def set_compact(self, compact: bool) -> None:
        """One line (the screen hides the rest by its `-compact-list` class) that also names project and date."""
        if compact != self.compact:
            self.compact = compact
            if self._header is not None:
                self._header.show(card_title(self.hit, compact), card_score(self.hit, compact), self.scored)

    def _summary(self) -> IconRows:
        """A line for the question and one for the answer, each centred on what matched;
        a third, labelled, when the match was only in thinking, a tool input or a tool output."""
        hit = self.hit
        rows: list[tuple[str, Text]] = []
        for icon, text in (("👤", hit.user_text), ("🤖", hit.ai_text)):
            if text.strip():
                rows.append((icon, snippet_line(self._shown(text), self.terms)))
        if hit.part and hit.part_text.strip():
            rows.append(("🔎", Text(f"{hit.part}: ", style="bold") + snippet_line(self._shown(hit.part_text), self.terms)))
        return IconRows(tuple(rows))

    def expand_with(self, session: Session, cost: str = "") -> None:
        if self.expanded:
            return
        self.expanded = True
        self.add_class("-expanded")
        self._parts["summary"].display = False
        self.mount(
            TurnDetail(
                session,
                self.hit.turn_index,
                self.hit.message_ids,
                matched=self.hit.matched_message_ids,
                terms=self.terms,
                shown=self._shown,
                cost=cost,
            )
        )

    def collapse(self) -> None:
        if not self.expanded:
            return
        self.expanded = False
        self.remove_class("-expanded")
        self._parts["summary"].display = True
        self.query(TurnDetail).remove()

    def action_toggle_expanded(self) -> None:
        if self.expanded:
            self.collapse()
        else:
            self.post_message(CardExpand(self))  # the screen reads the session, then calls expand_with()

    def action_open(self) -> None:
        self.post_message(CardOpen(self))

    def action_copy(self) -> None:
        self.post_message(CardCopy(self))

    def action_edit(self) -> None:
        self.post_message(CardEdit(self))

    def action_export(self) -> None:
        self.post_message(CardExport(self))

    def action_export_page(self, fmt: str = "html") -> None:
        self.post_message(CardExportPage(self, fmt))

    def action_resume(self) -> None:
        self.post_message(CardResume(self))

    def action_copy_resume(self) -> None:
        self.post_message(CardCopyResume(self))

    def action_copy_id(self) -> None:
        self.post_message(CardCopyId(self))
