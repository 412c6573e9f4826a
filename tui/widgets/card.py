"""A search result card: the hit in a few lines, expandable in place."""

from __future__ import annotations

from collections.abc import Callable

from convo_tui.core.hits import Hit
from convo_tui.core.model import Session
from convo_tui.tui.card_messages import CardCopy, CardEdit, CardExpand, CardExport, CardMove, CardOpen
from convo_tui.tui.render import IconRows, clip_chars, format_date, highlighted, similarity_bar
from convo_tui.tui.widgets.card_header import CardHeader
from convo_tui.tui.widgets.turn_detail import TurnDetail
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

CLIP_LINES = 3
USER_CHARS = 160  # about two rows of an 80-column card
AI_CHARS = 240


def card_title(hit: Hit) -> Text:
    return Text(hit.session_title or "(untitled)", style="bold", no_wrap=True, overflow="ellipsis")


def card_meta(hit: Hit) -> Text:
    meta = Text(no_wrap=True, overflow="ellipsis")
    meta.append(hit.project or "—", style="italic")
    meta.append(f" · {hit.source} · {format_date(hit.timestamp)}")
    return meta


def folded(text: Text) -> Text:
    """Break long unspaced runs (Chinese, paths) instead of cutting them with "…"."""
    text.overflow = "fold"
    return text


def card_score(hit: Hit) -> Text:
    return Text(f"{similarity_bar(hit.similarity)} {hit.similarity:.2f}")


class ResultCard(Vertical, can_focus=True):
    """Collapsed: header and clipped texts. Expanded: the per-message view.

    The actions post messages (tui/card_messages.py); the screen does the work.
    """

    BINDINGS = [
        Binding("enter,space", "toggle", "Expand", id="card.expand"),
        Binding("o", "open", "Open", id="card.open"),
        Binding("c", "copy", "Copy", id="card.copy"),
        Binding("e", "edit", "Editor", show=False, id="card.edit"),
        Binding("x", "export", "Export", id="card.export"),
        Binding("down,j", "next", "Next", show=False, id="card.next"),
        Binding("up,k", "previous", "Previous", show=False, id="card.previous"),
    ]

    def __init__(self, hit: Hit, terms: list[str], *, shown: Callable[[str], str] | None = None, scored: bool = True) -> None:
        super().__init__(classes="card")
        self.hit = hit
        self.terms = terms
        self.scored = scored  # a filter-only query has no similarity worth showing
        self.expanded = False
        self._shown = shown or (lambda text: text)
        self._header: CardHeader | None = None
        self._parts: dict[str, Static] = {}

    def compose(self) -> ComposeResult:
        # Every part is always composed (the score left out when unscored) so that
        # set_hit can refill the same widgets: the search screen reuses its cards.
        self._header = CardHeader(card_title(self.hit), card_score(self.hit), scored=self.scored, classes="card-top")
        parts = self._parts = {
            "meta": Static(card_meta(self.hit), classes="card-meta"),
            "summary": Static(self._summary(), classes="card-summary"),
        }
        yield self._header
        yield parts["meta"]
        yield parts["summary"]

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
        if not parts:
            return  # not composed yet: compose reads the new hit
        # The one-line parts keep their size: no layout for them, and only what changed is redrawn.
        if (hit.session_title, hit.similarity, scored) != (old.session_title, old.similarity, old_scored):
            self._header.show(card_title(hit), card_score(hit), scored)
        if (hit.project, hit.source, hit.timestamp) != (old.project, old.source, old.timestamp):
            parts["meta"].update(card_meta(hit), layout=False)
        if (hit.user_text, hit.ai_text, hit.tools, terms) != (old.user_text, old.ai_text, old.tools, old_terms):
            parts["summary"].update(self._summary())

    def _summary(self) -> IconRows:
        """Icon column and text column, so wrapped lines stay under their text."""
        hit = self.hit
        rows: list[tuple[str, Text]] = []
        user = clip_chars(self._shown(hit.user_text), CLIP_LINES, USER_CHARS)
        ai = clip_chars(self._shown(hit.ai_text), CLIP_LINES, AI_CHARS)
        if user:
            rows.append(("👤", folded(highlighted(user, self.terms))))
        if ai:
            rows.append(("🤖", folded(highlighted(ai, self.terms))))
        if hit.tools:
            rows.append(("🔧", Text(", ".join(dict.fromkeys(hit.tools)), style="dim")))
        return IconRows(tuple(rows))

    def expand(self, session: Session) -> None:
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
            )
        )

    def collapse(self) -> None:
        if not self.expanded:
            return
        self.expanded = False
        self.remove_class("-expanded")
        self._parts["summary"].display = True
        self.query(TurnDetail).remove()

    def action_toggle(self) -> None:
        if self.expanded:
            self.collapse()
        else:
            self.post_message(CardExpand(self))  # the screen reads the session, then calls expand()

    def action_open(self) -> None:
        self.post_message(CardOpen(self))

    def action_copy(self) -> None:
        self.post_message(CardCopy(self))

    def action_edit(self) -> None:
        self.post_message(CardEdit(self))

    def action_export(self) -> None:
        self.post_message(CardExport(self))

    def action_next(self) -> None:
        self.post_message(CardMove(self, 1))

    def action_previous(self) -> None:
        self.post_message(CardMove(self, -1))
