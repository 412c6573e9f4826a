"""What every parsed Session must look like, whatever the input was."""

from __future__ import annotations

import json
import re
from datetime import datetime

from convo_tui.core.model import ASSISTANT, SYSTEM, USER, Message, Session, ToolCall
from convo_tui.core.serialize import session_to_json, session_to_record

_MESSAGE_ID = re.compile(r"msg-\d+")


def _check_time(value: object, where: str) -> None:
    assert value is None or isinstance(value, datetime), f"{where}: {value!r} is not a datetime"
    if isinstance(value, datetime):
        assert value.tzinfo is not None, f"{where}: naive datetime {value!r}"


def _check_message(message: Message, where: str) -> None:
    assert isinstance(message, Message), f"{where}: {type(message).__name__} is not a Message"
    assert isinstance(message.id, str) and _MESSAGE_ID.fullmatch(message.id), f"{where}: bad id {message.id!r}"
    assert message.role in (USER, ASSISTANT, SYSTEM), f"{where}: bad role {message.role!r}"
    assert isinstance(message.text, str), f"{where}: text is {type(message.text).__name__}"
    assert isinstance(message.thinking, str), f"{where}: thinking is {type(message.thinking).__name__}"
    _check_time(message.timestamp, f"{where}.timestamp")
    assert isinstance(message.tools, list), f"{where}: tools is {type(message.tools).__name__}"
    for tool in message.tools:
        assert isinstance(tool, ToolCall), f"{where}: tool {tool!r}"
        assert isinstance(tool.name, str) and tool.name, f"{where}: tool name {tool.name!r}"
        assert isinstance(tool.args, dict), f"{where}: tool args {tool.args!r}"
    for flag in ("virtual", "sidechain", "error", "is_html"):
        assert isinstance(getattr(message, flag), bool), f"{where}: {flag} is {getattr(message, flag)!r}"
    assert message.attachment is None or isinstance(message.attachment, str), f"{where}: attachment {message.attachment!r}"
    assert isinstance(message.available_tasks, list), f"{where}: available_tasks {message.available_tasks!r}"
    assert isinstance(message.meta, dict), f"{where}: meta {message.meta!r}"


def assert_well_formed(session: Session, source: str | None = None) -> None:
    """Types of every field, unique msg-N ids, valid roles, turns consistent with messages,
    and everything serialisable to UTF-8 JSON (what the index stores)."""
    assert isinstance(session, Session), f"{type(session).__name__} is not a Session"
    where = f"session {session.id!r}"
    for name in ("id", "title", "project", "source", "path"):
        assert isinstance(getattr(session, name), str), f"{where}: {name} is {getattr(session, name)!r}"
    assert session.id, "empty session id"
    if source is not None:
        assert session.source == source, f"{where}: source {session.source!r}, expected {source!r}"
    _check_time(session.started_at, f"{where}.started_at")
    _check_time(session.updated_at, f"{where}.updated_at")
    assert isinstance(session.meta, dict), f"{where}: meta {session.meta!r}"
    assert isinstance(session.warnings, list) and all(isinstance(w, str) for w in session.warnings), f"{where}: warnings"
    assert isinstance(session.messages, list), f"{where}: messages is {type(session.messages).__name__}"
    for position, message in enumerate(session.messages):
        _check_message(message, f"{where} message {position}")
    ids = [m.id for m in session.messages]
    assert len(ids) == len(set(ids)), f"{where}: duplicate message ids {ids}"

    by_id = {m.id: m for m in session.messages}
    paired: list[str] = []
    for position, turn in enumerate(session.turns):
        assert turn.index == position, f"{where}: turn {position} has index {turn.index}"
        assert turn.user_message_ids or turn.ai_message_ids, f"{where}: empty turn {position}"
        for mid in turn.user_message_ids:
            assert by_id[mid].role == USER and by_id[mid].is_conversation, f"{where}: turn {position} user id {mid}"
        for mid in turn.ai_message_ids:
            assert by_id[mid].role == ASSISTANT and by_id[mid].is_conversation, f"{where}: turn {position} ai id {mid}"
        assert turn.combined_text == f"用户: {turn.user_text}\n\nAI: {turn.ai_text}"
        paired.extend(turn.message_ids)
    expected = [m.id for m in session.messages if m.is_conversation and m.role in (USER, ASSISTANT)]
    assert paired == expected, f"{where}: turns cover {paired}, messages {expected}"
    assert len(paired) == len(set(paired)), f"{where}: a message is in two turns"

    # Ids, paths, projects and folders may keep a lone surrogate (a file name's byte that is
    # not UTF-8, or a JSON escape): the index escapes them where it stores them. What is shown
    # and indexed is valid Unicode (core/sources/surrogates.py).
    for shape in (session_to_json(session), session_to_record(session)):
        json.dumps(shape, ensure_ascii=False).encode("utf-8", "surrogatepass")
    shown = [session.title]
    for message in session.messages:
        shown += [message.text, message.thinking, message.attachment or ""]
        shown += [part for tool in message.tools for part in (tool.name, tool.result, json.dumps(tool.args, ensure_ascii=False))]
    "\n".join(shown).encode("utf-8")
