"""The per-message view of one turn: user messages [0..n], AI messages [0..n], tools."""

from __future__ import annotations

from collections.abc import Callable

from convo_tui.core.model import Session
from convo_tui.tui.turns import turn_parts
from convo_tui.tui.widgets.message_block import MessageBlock
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static


class TurnDetail(Vertical):
    def __init__(
        self,
        session: Session,
        turn_index: int,
        message_ids: list[str],
        *,
        matched: list[str],
        terms: list[str],
        shown: Callable[[str], str] | None = None,
        cost: str = "",
    ) -> None:
        super().__init__(classes="turn-detail")
        self.cost = cost  # the session's tokens and cost ("" when its tool recorded no usage)
        self.parts = turn_parts(session, turn_index, message_ids)
        self.matched = set(matched)
        self.terms = terms
        self._shown = shown

    def compose(self) -> ComposeResult:
        parts = self.parts
        tool_count = sum(len(m.tools) for m in parts.ais)
        if self.cost:
            yield Static(f"Session: {self.cost}", classes="section-title -cost")
        yield Static(f"👤 User messages ({len(parts.users)})", classes="section-title")
        for number, message in enumerate(parts.users):
            yield MessageBlock(message, number, terms=self.terms, matched=message.id in self.matched, shown=self._shown)
        yield Static(f"🤖 AI messages ({len(parts.ais)}) · 🔧 tool calls ({tool_count})", classes="section-title")
        for number, message in enumerate(parts.ais):
            yield MessageBlock(message, number, terms=self.terms, matched=message.id in self.matched, shown=self._shown)
        if parts.asides:
            yield Static(f"Beside the conversation ({len(parts.asides)})", classes="section-title -aside")
            for message in parts.asides:
                yield MessageBlock(message, None, terms=self.terms, shown=self._shown)
