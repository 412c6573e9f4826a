"""Messages -> turns, by the pairing rules of docs/ARCHITECTURE.md ("Pairing").

A user message that arrives after AI messages closes the current turn;
consecutive user messages accumulate, consecutive AI messages accumulate, and a
trailing half-turn is still a turn. Virtual, sidechain, error and system
messages never take part.
"""

from __future__ import annotations

from convo_tui.core.model import ASSISTANT, USER, Message, ToolCall, Turn


def combine_texts(messages: list[Message]) -> str:
    return "\n\n".join(t for t in (m.text.strip() for m in messages) if t)


def combined_text(user_text: str, ai_text: str) -> str:
    return f"用户: {user_text}\n\nAI: {ai_text}"


def _make_turn(index: int, users: list[Message], ais: list[Message]) -> Turn:
    user_text = combine_texts(users)
    ai_text = combine_texts(ais)
    tools: list[ToolCall] = [tool for m in ais for tool in m.tools]
    stamp = next((m.timestamp for m in (*users, *ais) if m.timestamp is not None), None)
    return Turn(
        index=index,
        user_message_ids=[m.id for m in users],
        ai_message_ids=[m.id for m in ais],
        user_text=user_text,
        ai_text=ai_text,
        combined_text=combined_text(user_text, ai_text),
        tools=tools,
        timestamp=stamp,
    )


def pair_messages(messages: list[Message]) -> list[Turn]:
    turns: list[Turn] = []
    users: list[Message] = []
    ais: list[Message] = []
    for message in messages:
        if not message.is_conversation:
            continue
        if message.role == USER:
            if ais:
                turns.append(_make_turn(len(turns), users, ais))
                users, ais = [], []
            users.append(message)
        elif message.role == ASSISTANT:
            ais.append(message)
    if users or ais:
        turns.append(_make_turn(len(turns), users, ais))
    return turns
