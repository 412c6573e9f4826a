"""A session -> the points that represent it in the index (vectors filled later).

Three levels: one `session` point (the whole session record, what `sessions`
lists and `show SESSION_ID` reads), one point per turn, and one per message
chunk. Every point carries the generation it belongs to and starts invisible;
indexing flips `visible` once the whole session is written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from convo_tui.core.model import USER, Message, Session, Turn
from convo_tui.core.serialize import session_to_record

LEVEL_SESSION = "session"
LEVEL_TURN = "turn"
LEVEL_MESSAGE = "message"

# Word pieces per chunk (the default model reads 256, minus special tokens and slack).
CHUNK_TOKENS = 200
CHUNK_OVERLAP = 32


class TokenizerLike(Protocol):
    def encode(self, text: str, add_special_tokens: bool = ...) -> Any: ...


@dataclass
class PendingPoint:
    """A point before its vectors: `text` is what gets embedded ("" = no vectors)."""

    key: str
    text: str
    payload: dict[str, Any] = field(default_factory=dict)


def role_name(role: str) -> str:
    """The filter vocabulary (`role:user|ai`) for a message role."""
    return "user" if role == USER else "ai"


def epoch(value: datetime | None) -> float | None:
    return value.timestamp() if value is not None else None


def from_epoch(value: object) -> datetime | None:
    """A payload time back as an aware UTC datetime, like the parsers make;
    showing it in the reader's zone is the faces' job."""
    return datetime.fromtimestamp(value, tz=UTC) if isinstance(value, (int, float)) else None


def session_key(session_id: str) -> str:
    return f"{session_id}:session"


def turn_key(session_id: str, index: int) -> str:
    return f"{session_id}:turn-{index}"


def message_key(session_id: str, message_index: int, chunk: int = 0) -> str:
    base = f"{session_id}:msg-{message_index}"
    return base if chunk == 0 else f"{base}#{chunk}"


def chunk_text(
    text: str, tokenizer: TokenizerLike | None, max_tokens: int = CHUNK_TOKENS, overlap: int = CHUNK_OVERLAP
) -> list[str]:
    """Split text into pieces of at most `max_tokens` word pieces, overlapping a little.

    A word piece never spans fewer than one character, so text no longer than
    `max_tokens` characters needs no tokenizer at all (the common case).
    """
    text = text.strip()
    if not text:
        return []
    if len(text) <= max_tokens:
        return [text]
    if tokenizer is None:
        return _chunk_words(text, max_tokens, overlap)
    offsets = [span for span in tokenizer.encode(text, add_special_tokens=False).offsets if span[1] > span[0]]
    if len(offsets) <= max_tokens:
        return [text]
    chunks: list[str] = []
    step = max(1, max_tokens - overlap)
    start = 0
    while start < len(offsets):
        end = min(start + max_tokens, len(offsets))
        piece = text[offsets[start][0] : offsets[end - 1][1]].strip()
        if piece:
            chunks.append(piece)
        if end == len(offsets):
            break
        start += step
    return chunks


def _chunk_words(text: str, max_tokens: int, overlap: int) -> list[str]:
    """Fallback without a tokenizer: about 1.3 word pieces per word."""
    words = text.split()
    size = max(1, int(max_tokens / 1.3))
    step = max(1, size - int(overlap / 1.3))
    chunks = [" ".join(words[i : i + size]) for i in range(0, len(words), step)]
    while len(chunks) > 1 and len(words) - (len(chunks) - 1) * step <= 0:
        chunks.pop()
    return chunks


def tool_names(tools: list[Any]) -> list[str]:
    seen: dict[str, None] = {}
    for tool in tools:
        seen.setdefault(tool.name, None)
    return list(seen)


def _common(session: Session, generation: int) -> dict[str, Any]:
    return {
        "session_id": session.id,
        "project": session.project,
        "source": session.source,
        "session_title": session.title,
        "path": session.path,
        "generation": generation,
        "visible": False,
    }


def session_points(session: Session, generation: int, tokenizer: TokenizerLike | None = None) -> list[PendingPoint]:
    """Every point of one session, the session record first."""
    session.fill_times()
    common = _common(session, generation)
    fallback_time = epoch(session.started_at) or epoch(session.updated_at)
    turns = session.turns
    turn_of_message = {mid: turn.index for turn in turns for mid in turn.message_ids}
    points = [_session_point(session, common, len(turns))]
    points += [_turn_point(session.id, turn, common, fallback_time) for turn in turns]
    for index, message in enumerate(session.messages):
        if message.is_conversation:
            points += _message_points(
                session.id, index, message, turn_of_message.get(message.id, -1), common, fallback_time, tokenizer
            )
    return points


def _session_point(session: Session, common: dict[str, Any], turn_count: int) -> PendingPoint:
    payload = {
        **common,
        "level": LEVEL_SESSION,
        "key": session_key(session.id),
        "message_type": LEVEL_SESSION,
        "timestamp": epoch(session.updated_at) or epoch(session.started_at),
        "started_at": epoch(session.started_at),
        "updated_at": epoch(session.updated_at),
        "message_count": sum(1 for m in session.messages if m.role in ("user", "assistant")),
        "turn_count": turn_count,
        "record": session_to_record(session),
    }
    # The session point is found by filters, never by vectors.
    return PendingPoint(payload["key"], "", payload)


def _turn_point(session_id: str, turn: Turn, common: dict[str, Any], fallback_time: float | None) -> PendingPoint:
    names = tool_names(turn.tools)
    payload = {
        **common,
        "level": LEVEL_TURN,
        "key": turn_key(session_id, turn.index),
        "turn_index": turn.index,
        "message_ids": turn.message_ids,
        "message_type": LEVEL_TURN,
        "timestamp": epoch(turn.timestamp) or fallback_time,
        "has_tools": bool(names),
        "tools": names,
        "tool_keys": [name.lower() for name in names],
        "user_text": turn.user_text,
        "ai_text": turn.ai_text,
    }
    text = turn.combined_text if (turn.user_text or turn.ai_text) else ""
    return PendingPoint(payload["key"], text, payload)


def _message_points(
    session_id: str,
    index: int,
    message: Message,
    turn_index: int,
    common: dict[str, Any],
    fallback_time: float | None,
    tokenizer: TokenizerLike | None,
) -> list[PendingPoint]:
    names = tool_names(message.tools)
    base = {
        **common,
        "level": LEVEL_MESSAGE,
        "turn_index": turn_index,
        "message_index": index,
        "message_ids": [message.id],
        "role": role_name(message.role),
        "message_type": message.role,
        "timestamp": epoch(message.timestamp) or fallback_time,
        "has_tools": bool(names),
        "tools": names,
        "tool_keys": [name.lower() for name in names],
    }
    points = []
    for chunk, piece in enumerate(chunk_text(message.text, tokenizer)):
        key = message_key(session_id, index, chunk)
        points.append(PendingPoint(key, piece, {**base, "key": key, "chunk": chunk, "text": piece}))
    return points
