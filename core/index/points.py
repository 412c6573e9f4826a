"""A session -> the points that represent it in the index (vectors filled later).

Three levels: one `session` point (the whole session record, what `sessions`
lists and `show SESSION_ID` reads), one point per turn, and one per message
chunk. Every point carries the generation it belongs to and starts invisible;
indexing flips `visible` once the whole session is written.

Keyword-only points (BM25, no dense vector) make the rest of a session
searchable by words: a message's thinking and each tool call's input and output
(packed together into message-level points whose `part_spans` label each
stretch), and the tail of a message longer than the dense chunks cover
(core/index/keyword_parts.py: how much of each is indexed; what lies past
that stays in the session record, shown by `show`).
Message chunks and what a turn's vector reads: core/index/chunks.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from convo_tui.core.index.chunks import TokenizerLike, chunk_spans, covered_prefix, word_end
from convo_tui.core.index.keyword_parts import (
    KEYWORD_CAPS,
    PART_MESSAGE,
    PART_PACKED,
    PART_THINKING,
    PART_TOOL_INPUT,
    PART_TOOL_OUTPUT,
    capped_pieces,
    packed_parts,
    tool_input_text,
)
from convo_tui.core.index.text_lang import text_lang
from convo_tui.core.model import USER, Message, Session, Turn, combined_text, pair_messages
from convo_tui.core.serialize import message_records, pack, session_to_record, unpack
from convo_tui.core.store.base import SparseVec
from convo_tui.core.tally import session_tally

LEVEL_SESSION = "session"
LEVEL_TURN = "turn"
LEVEL_MESSAGE = "message"
# The messages of one part of a session published in parts (its session point
# then holds the record without messages, and `record_parts`).
LEVEL_RECORD = "record"
# The session point's field with its messages' counts for the stats (core/tally.py).
TALLY = "tally"

# Dense chunks per message (about 400 word pieces): past them a pasted log, a
# file or a long generated answer stops changing what the message is about
# (issue 25: 16 chunks made 1.8 texts per message to embed); the rest is keyword-only.
MAX_DENSE_CHUNKS = 2
# The turn text is embedded (MiniLM reads its first 128 word pieces, e5 512) and
# BM25-indexed up to this many characters; its messages' points cover the rest.
TURN_TEXT_CHARS = 16_000
# Which message chunks get a dense vector of their own: "uncovered" = only
# those the turn's own vector does not already read (the part of a long turn
# past the model's window); "answers" = the same, less the assistant's
# narration around tool calls (an AI message that made tool calls and is not
# the turn's last: "Let me look at the config."), which stays keyword-only;
# "all" = every chunk (before issue 25). A chunk without a vector stays a
# keyword point and is ranked by meaning through its turn's vector
# (core/search/meaning.py): the same words are not embedded twice.
EMBED_SELECTION = "answers"
# Dense points get `lang` ("cjk" when Chinese, Japanese or Korean carry the
# text, else "latin": core/index/text_lang.py).


@dataclass
class PendingPoint:
    """A point before its vectors: `text` is what gets embedded ("" = no dense
    vector); `keyword` is what BM25 indexes (by default the same text)."""

    key: str
    text: str
    payload: dict[str, Any] = field(default_factory=dict)
    keyword: str | None = None
    sparse: SparseVec | None = None  # the keyword text's BM25 vector, once computed (reading.py)

    @property
    def keyword_text(self) -> str:
        return self.text if self.keyword is None else self.keyword


def turn_text(user_text: str, ai_text: str) -> str:
    """What a turn point embeds and BM25-indexes (phase 2 rebuilds it from the payload)."""
    if not (user_text or ai_text):
        return ""
    return combined_text(user_text, ai_text)[:TURN_TEXT_CHARS]


def clean_text(value: str) -> str:
    """A string the store can hold: a lone surrogate (a file name that is not
    valid UTF-8, decoded by os.fsdecode) becomes a visible \\xNN escape."""
    if value.isascii():
        return value
    try:
        value.encode("utf-8")
        return value
    except UnicodeEncodeError:
        try:
            return value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")


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


def record_key(session_id: str, part: int) -> str:
    return f"{session_id}:record-{part}"


def turn_key(session_id: str, index: int) -> str:
    return f"{session_id}:turn-{index}"


def message_key(session_id: str, message_index: int, chunk: int = 0) -> str:
    base = f"{session_id}:msg-{message_index}"
    return base if chunk == 0 else f"{base}#{chunk}"


def tool_names(tools: list[Any]) -> list[str]:
    seen: dict[str, None] = {}
    for tool in tools:
        seen.setdefault(tool.name, None)
    return list(seen)


def _common(session: Session, generation: int) -> dict[str, Any]:
    common: dict[str, Any] = {
        "session_id": session.id,
        "project": session.project,
        "source": session.source,
        "session_title": session.title,
        "path": session.path,
        "generation": generation,
        "visible": False,
    }
    machine = session.meta.get("machine")
    if isinstance(machine, str) and machine:
        common["machine"] = machine  # another machine's session (core/remote/); `machine:` filters on it
    return common


def session_points(
    session: Session,
    generation: int,
    tokenizer: TokenizerLike | None = None,
    window: int | None = None,
    questions: bool = False,
) -> list[PendingPoint]:
    """Every point of one session, the session record first. With the dense
    model's `window` (word pieces), message chunks its turn vector already
    reads get no vector of their own (EMBED_SELECTION), except, with
    `questions`, the user's own messages of a turn that has an answer: a
    question alone is what a short query matches best with a symmetric model
    (MiniLM: a paraphrase of a question scored under the noise floor against
    its question-and-answer turn)."""
    session.fill_times()
    turns = session.turns
    record = session_to_record(session)
    head = session_point(session, generation, len(turns), message_count(session.messages), record, tally=session_tally(session))
    return [head, *content_points(session, generation, tokenizer, turns=turns, window=window, questions=questions)]


def message_count(messages: list[Message]) -> int:
    return sum(1 for m in messages if m.role in ("user", "assistant"))


def content_points(
    session: Session,
    generation: int,
    tokenizer: TokenizerLike | None = None,
    *,
    first_message: int = 0,
    first_turn: int = 0,
    turns: list[Turn] | None = None,
    window: int | None = None,
    questions: bool = False,
) -> list[PendingPoint]:
    """The turn and message points of a session, or of one part of it: its
    messages are the session's from position `first_message`, its turns from
    index `first_turn` (a part starts at a turn boundary, so pairing it alone
    gives the session's turns). `window` and `questions`: see session_points."""
    session.fill_times()
    common = _common(session, generation)
    fallback_time = epoch(session.started_at) or epoch(session.updated_at)
    if turns is None:
        turns = pair_messages(session.messages)
    if first_turn:
        turns = [replace(turn, index=turn.index + first_turn) for turn in turns]
    turn_of_message = {mid: turn.index for turn in turns for mid in turn.message_ids}
    turn_points = [_turn_point(session.id, turn, common, fallback_time) for turn in turns]
    points = list(turn_points)
    covered: dict[int, str] = {}
    narration: set[str] = set()
    if EMBED_SELECTION in ("uncovered", "answers") and window:
        covered = {
            turn.index: covered_prefix(point.text, tokenizer, window) for turn, point in zip(turns, turn_points, strict=True)
        }
    if EMBED_SELECTION == "answers" and window:
        by_id = {m.id: m for m in session.messages}
        for turn in turns:
            for mid in turn.ai_message_ids[:-1]:  # the last answer of a turn always counts
                message = by_id.get(mid)
                if message is not None and message.tools:
                    narration.add(mid)
    answered = {mid for turn in turns if turn.ai_text.strip() for mid in turn.user_message_ids}
    for index, message in enumerate(session.messages, start=first_message):
        if message.is_conversation:
            turn_index = turn_of_message.get(message.id, -1)
            question = questions and message.id in answered
            points += _message_points(
                session.id,
                index,
                message,
                turn_index,
                common,
                fallback_time,
                tokenizer,
                "" if question else covered.get(turn_index, ""),
                keyword_only=message.id in narration,
            )
    return points


def session_point(
    session: Session,
    generation: int,
    turn_count: int,
    messages: int,
    record: dict[str, Any],
    *,
    record_parts: int = 0,
    tally: str = "",
) -> PendingPoint:
    """The point `sessions` lists and `show` reads: the session's facts and its
    record (without messages when they are kept in `record_parts` record points),
    and its messages' `tally` for the stats (core/tally.py)."""
    payload = {
        **_common(session, generation),
        "level": LEVEL_SESSION,
        "key": session_key(session.id),
        "timestamp": epoch(session.updated_at) or epoch(session.started_at),
        "started_at": epoch(session.started_at),
        "updated_at": epoch(session.updated_at),
        "message_count": messages,
        "turn_count": turn_count,
        "record_z": pack(record),
    }
    if record_parts:
        payload["record_parts"] = record_parts
    if tally:
        payload[TALLY] = tally
    # The session point is found by filters, never by vectors.
    return PendingPoint(payload["key"], "", payload)


def record_point(session: Session, generation: int, part: int) -> PendingPoint:
    """One part's messages, for the reader to put the session together."""
    payload = {
        **_common(session, generation),
        "level": LEVEL_RECORD,
        "key": record_key(session.id, part),
        "record_part": part,
        "messages_z": pack(message_records(session.messages)),
    }
    return PendingPoint(payload["key"], "", payload)


def stored_record(payload: dict[str, Any]) -> dict[str, Any] | None:
    """A session point's record (packed since the scale work; plain JSON before)."""
    if isinstance(payload.get("record_z"), str):
        value = unpack(payload["record_z"])
        return value if isinstance(value, dict) else None
    record = payload.get("record")
    return record if isinstance(record, dict) else None


def stored_messages(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages a record point holds."""
    if isinstance(payload.get("messages_z"), str):
        value = unpack(payload["messages_z"])
        return value if isinstance(value, list) else []
    return list(payload.get("messages") or [])


def _turn_point(session_id: str, turn: Turn, common: dict[str, Any], fallback_time: float | None) -> PendingPoint:
    names = tool_names(turn.tools)
    payload = {
        **common,
        "level": LEVEL_TURN,
        "key": turn_key(session_id, turn.index),
        "turn_index": turn.index,
        "message_ids": turn.message_ids,
        "timestamp": epoch(turn.timestamp) or fallback_time,
        "has_tools": bool(names),
        "tools": names,
        "tool_keys": [name.lower() for name in names],
        "user_text": turn.user_text,
        "ai_text": turn.ai_text,
    }
    text = turn_text(turn.user_text, turn.ai_text)
    if text:
        payload["lang"] = text_lang(text)
    return PendingPoint(payload["key"], text, payload)


def _message_points(
    session_id: str,
    index: int,
    message: Message,
    turn_index: int,
    common: dict[str, Any],
    fallback_time: float | None,
    tokenizer: TokenizerLike | None,
    covered: str = "",
    keyword_only: bool = False,
) -> list[PendingPoint]:
    """The message's chunks (a dense vector each, unless `covered`, the part of
    the turn text the turn's vector reads, holds the chunk, or the message is
    `keyword_only`) and its keyword-only parts."""
    names = tool_names(message.tools)
    base = {
        **common,
        "level": LEVEL_MESSAGE,
        "turn_index": turn_index,
        "message_index": index,
        "message_ids": [message.id],
        "role": role_name(message.role),
        "timestamp": epoch(message.timestamp) or fallback_time,
        "has_tools": bool(names),
        "tools": names,
        "tool_keys": [name.lower() for name in names],
    }
    points = []
    text = message.text.strip()
    spans = chunk_spans(text, tokenizer, max_chunks=MAX_DENSE_CHUNKS)
    for chunk, (start, end) in enumerate(spans):
        key = message_key(session_id, index, chunk)
        piece = text[start:end].strip()
        payload = {**base, "key": key, "chunk": chunk, "text": piece, "lang": text_lang(piece)}
        if keyword_only or (covered and piece in covered):
            points.append(PendingPoint(key, "", payload, keyword=piece))  # its turn's vector reads it, or narration
        else:
            points.append(PendingPoint(key, piece, payload))
    rest = text[word_end(text, spans[-1][1]) :] if spans else ""
    points += _keyword_points(f"{message_key(session_id, index)}:rest", PART_MESSAGE, rest, base)
    parts = [(PART_THINKING, message.thinking)]
    for tool in message.tools:
        parts += [(PART_TOOL_INPUT, tool_input_text(tool)), (PART_TOOL_OUTPUT, tool.result)]
    key = f"{message_key(session_id, index)}:parts"
    for chunk, (piece, part_spans) in enumerate(packed_parts(parts)):
        point_key = f"{key}#{chunk}" if chunk else key
        payload = {**base, "key": point_key, "chunk": chunk, "text": piece, "part": PART_PACKED, "part_spans": part_spans}
        points.append(PendingPoint(point_key, "", payload, keyword=piece))
    return points


def _keyword_points(key: str, part: str, text: str, base: dict[str, Any]) -> list[PendingPoint]:
    """BM25-only points for one part of a message, its start and end within KEYWORD_CAPS[part]."""
    points = []
    for chunk, raw in enumerate(capped_pieces((text or "").strip(), KEYWORD_CAPS[part])):
        piece = raw.strip()
        if piece:
            point_key = f"{key}#{chunk}" if chunk else key
            payload = {**base, "key": point_key, "chunk": chunk, "text": piece, "part": part}
            points.append(PendingPoint(point_key, "", payload, keyword=piece))
    return points
