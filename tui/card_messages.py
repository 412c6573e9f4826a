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


class CardClosed(CardRequest):
    """The card's messages were folded away (the screen may now show what it held back)."""
