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
from convo_tui.tui.card_messages import CardClosed, CardExpand
from convo_tui.tui.render import format_date, highlighted_content, icon_lines, relevance_bar
from convo_tui.tui.widgets.card_header import CardHeader
from convo_tui.tui.widgets.turn_detail import TurnDetail
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.widget import AwaitMount, Widget
from textual.widgets import Static

SNIPPET_CELLS = 240  # wider than any card line: the line is cut on screen, the match stays near its start


def card_title(hit: Hit) -> Text:
    return Text(display(hit.session_title) or "(untitled)", style="bold", no_wrap=True, overflow="ellipsis")


def card_place(hit: Hit) -> str:
    """Where and when, for a card's first line when the meta line is not shown."""
    return f"{hit.project or '—'} · {format_date(hit.timestamp)[:10]}"


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


def snippet_line(text: str, terms: list[str]) -> Content:
    """One line of the matched part of `text`, terms marked (the card cuts it at its edge with "…")."""
    return highlighted_content(snippet(text, terms, SNIPPET_CELLS, cut_after=True), terms)


class ResultCard(Vertical, can_focus=True):
    """Collapsed: header and clipped texts. Expanded: the per-message view.

    The actions post messages (tui/card_messages.py); the screen does the work.
    """

    # Only Enter here: printable keys belong to the query, the other card keys are the screen's.
    BINDINGS = [Binding("enter", "toggle_expanded", "Expand", show=False, id="card.expand")]  # F1 lists it

    def __init__(self, hit: Hit, terms: list[str], *, shown: Callable[[str], str] | None = None, scored: bool = True) -> None:
        super().__init__(classes="card")
        self.hit = hit
        self.terms = terms
        self.scored = scored  # a filter-only query has no similarity worth showing
        self.expanded = False
        self.compact = False
        self.dense = False  # a short screen: three rows, where and when on the first
        self._shown = shown or (lambda text: text)
        self._header: CardHeader | None = None
        self._parts: dict[str, Static] = {}

    def compose(self) -> ComposeResult:
        # Every part is always composed (the score left out when unscored) so that
        # set_hit can refill the same widgets: the search screen reuses its cards.
        self._header = CardHeader(
            card_title(self.hit),
            card_score(self.hit, self.compact),
            scored=self.scored,
            place=self._place(),
            classes="card-top",
        )
        parts = self._parts = {
            "meta": Static(card_meta(self.hit), classes="card-meta"),
            "summary": Static(self._summary(), classes="card-summary"),
        }
        yield self._header
        yield parts["summary"]
        yield parts["meta"]

    def set_hit(self, hit: Hit, terms: list[str], *, scored: bool = True, keep_open: bool = False) -> None:
        """Show another hit in this card, collapsed, without rebuilding its widgets.

        Typing searches on every key: refilling a few Statics costs a fraction of
        removing and mounting the cards (widget creation, styles, layout).
        `keep_open`: the same result with a new score (the index moved): an open card stays open.
        """
        if hit == self.hit and terms == self.terms and scored == self.scored:
            return  # the same result again (a re-search after indexing): keep it as it is
        if not keep_open:
            self.collapse()
        old, old_terms, old_scored = self.hit, self.terms, self.scored
        self.hit, self.terms, self.scored = hit, terms, scored
        parts = self._parts
        if not parts or self._header is None:
            return  # not composed yet: compose reads the new hit
        # The one-line parts keep their size: no layout for them, and only what changed is redrawn.
        if (hit.session_title, hit.score, scored) != (old.session_title, old.score, old_scored) or self.compact or self.dense:
            self._show_header()
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

    def set_view(self, compact: bool, dense: bool) -> None:
        """Compact: one line (the screen hides the rest by its `-compact-list` class); dense: three
        (the app's `-short` class hides the meta line). Both name project and date on the first."""
        if (compact, dense) != (self.compact, self.dense):
            self.compact, self.dense = compact, dense
            self._show_header()

    def _place(self) -> str:
        return card_place(self.hit) if self.compact or self.dense else ""

    def _show_header(self) -> None:
        if self._header is not None:
            self._header.show(card_title(self.hit), card_score(self.hit, self.compact), self.scored, self._place())

    def _summary(self) -> Content:
        """A line for the question and one for the answer, each centred on what matched;
        a third, labelled, when the match was only in thinking, a tool input or a tool output."""
        hit = self.hit
        rows: list[tuple[str, Content]] = []
        for icon, text in (("👤", hit.user_text), ("🤖", hit.ai_text)):
            if text.strip():
                rows.append((icon, snippet_line(self._shown(text), self.terms)))
        if hit.part and hit.part_text.strip():
            rows.append(("🔎", Content.styled(f"{hit.part}: ", "bold") + snippet_line(self._shown(hit.part_text), self.terms)))
        return icon_lines(rows)

    def expand_with(self, session: Session, cost: str = "") -> AwaitMount | None:
        """Show the turn's messages; await the result to know they are composed.
        `cost`: the session's tokens and cost, "" when its tool recorded none."""
        if self.expanded:
            return None
        self.expanded = True
        self.add_class("-expanded")  # which hides the clipped texts (tui/styles/card.tcss)
        return self.mount(
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

    def first_match(self) -> tuple[Widget, int]:
        """Where reading an open card starts: (widget, row in it), see TurnDetail.first_match."""
        details = list(self.query(TurnDetail))
        return details[0].first_match() if details else (self, 0)

    def collapse(self) -> None:
        if not self.expanded:
            return
        self.expanded = False
        self.remove_class("-expanded")
        self.query(TurnDetail).remove()

    def action_toggle_expanded(self) -> None:
        if self.expanded:
            self.collapse()
            self.post_message(CardClosed(self))
        else:
            self.post_message(CardExpand(self))  # the screen reads the session, then calls expand_with()
