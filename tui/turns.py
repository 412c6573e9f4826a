"""Which messages belong to a turn, and which sit beside it, for display.

Pure functions over core.model objects: the card and the reader both show a
turn as its user messages, its AI messages and the messages that were shown
to the user but never sent to the model (virtual, sub-agent, errors).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from convo_tui.core.export.facts import aside
from convo_tui.core.model import Message, Session, Turn


@dataclass
class TurnParts:
    turn: Turn | None
    users: list[Message] = field(default_factory=list)
    ais: list[Message] = field(default_factory=list)
    asides: list[Message] = field(default_factory=list)


def turn_of_message(session: Session) -> dict[str, int]:
    """message id -> index of the turn it belongs to."""
    owner: dict[str, int] = {}
    for turn in session.turns:
        for message_id in turn.message_ids:
            owner[message_id] = turn.index
    return owner


def turn_parts(session: Session, turn_index: int, message_ids: list[str] | None = None) -> TurnParts:
    """The messages of one turn, plus the asides between it and the next turn."""
    turns = session.turns
    if 0 <= turn_index < len(turns):
        turn = turns[turn_index]
        users = [m for m in (session.message(i) for i in turn.user_message_ids) if m]
        ais = [m for m in (session.message(i) for i in turn.ai_message_ids) if m]
    else:
        turn = None
        picked = [m for m in (session.message(i) for i in message_ids or []) if m]
        users = [m for m in picked if m.role == "user"]
        ais = [m for m in picked if m.role != "user"]
    owner = turn_of_message(session)
    asides: list[Message] = []
    inside = False
    for message in session.messages:
        index = owner.get(message.id)
        if index == turn_index:
            inside = True
        elif index is not None and inside:
            break
        elif index is None and inside:
            asides.append(message)
    return TurnParts(turn, users, ais, asides)


def aside_label(message: Message) -> str:
    """What a message outside the conversation is, in the exports' words; else its role."""
    return aside(message) or message.role
