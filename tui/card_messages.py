"""What a result card asks of the screen it sits on, as messages.

A card never calls its screen's methods by name: it posts one of these, they
bubble up to the screen, and the screen (CardActions) does the work with what
only it knows (the current query, the index, workers).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from convo_tui.core.hits import Hit
    from convo_tui.tui.widgets.card import ResultCard


class CardRequest(Message):
    def __init__(self, card: ResultCard) -> None:
        super().__init__()
        self.card = card

    @property
    def hit(self) -> Hit:
        return self.card.hit


class CardExpand(CardRequest):
    """Show the turn's messages inside the card (the screen reads the session)."""


class CardOpen(CardRequest):
    """Open the whole session in the reader at the card's turn."""


class CardCopy(CardRequest):
    """Copy the card's turn as Markdown."""


class CardEdit(CardRequest):
    """Open the source file in $EDITOR."""


class CardExport(CardRequest):
    """Export the LLM context of the card's session."""


class CardExportPage(CardRequest):
    """Save the card's session as a page to share (HTML, or Markdown with `fmt` "md")."""

    def __init__(self, card: ResultCard, fmt: str = "html") -> None:
        super().__init__(card)
        self.fmt = fmt


class CardResume(CardRequest):
    """Run the session's resume command in its folder (the app suspends)."""


class CardCopyResume(CardRequest):
    """Copy the session's resume command."""


class CardCopyId(CardRequest):
    """Copy the session id."""


class CardMove(CardRequest):
    """Focus the next (step 1) or previous (step -1) card."""

    def __init__(self, card: ResultCard, step: int) -> None:
        super().__init__(card)
        self.step = step
