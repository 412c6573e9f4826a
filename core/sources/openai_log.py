"""OpenAI-style chat logs: message arrays, JSONL, and conversation-row exports.

Accepted shapes, in one JSON document or one per line (JSONL):
`{role, content}` messages (content a string or a list of parts), arrays of
them, `{"messages": [...]}`, conversation rows `{conversation_id, timestamp,
user_message, ai_response}` (one row = one user + one AI message), and the
`{"conversations": [...], "conversation_messages": [...]}` table export.
Rows give one session per conversation; plain messages one session per file.

Only these shapes are accepted. Other tools' event logs also have `role` and
`content` (Gemini CLI's stream-json, Anthropic Managed Agents event exports,
Claude's stream-json): a top-level `type` other than "message", or streamed
`delta` chunks, mark such a file, and it is refused as unknown rather than
read as a garbled conversation.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from convo_tui.core.errors import ParseError
from convo_tui.core.model import ASSISTANT, SYSTEM, USER, Message, Role, Session, ToolCall
from convo_tui.core.sources import SourceFormat, read_text
from convo_tui.core.sources._common import (
    arguments,
    iter_json_lines,
    json_error_reason,
    number_messages,
    strip_bom,
    title_from_messages,
    to_utc,
)
from convo_tui.core.sources._drift import unknown

SOURCE = "openai"
_ROLES: dict[str, Role] = {"user": USER, "assistant": ASSISTANT, "system": SYSTEM, "developer": SYSTEM}
_TOOL_ROLES = {"tool", "function"}
_TIME_KEYS = ("timestamp", "created_at", "create_time", "created")
_ROW_META = ("id", "tokens_input", "tokens_output", "cost", "created_at", "metadata")
_SNIFF = re.compile(r'"(role|conversation_id|user_message|ai_response|conversation_messages)"\s*:')
_JSONL_PROBE_LINES = 20


def _first(mapping: dict[str, Any], keys: tuple[str, ...]) -> Any:
    return next((mapping[k] for k in keys if mapping.get(k) not in (None, "")), None)


_FOREIGN_PROBE = 200  # items of a document checked for another tool's shape


def foreign_shape(value: Any) -> str | None:
    """Why `value` is another tool's event rather than an OpenAI message, or None."""
    if isinstance(value, list):
        for item in value[:_FOREIGN_PROBE]:
            reason = foreign_shape(item)
            if reason:
                return reason
        return None
    if not isinstance(value, dict):
        return None
    if "delta" in value:
        return "streamed chunks (`delta`)"
    if "role" in value and isinstance(value.get("message"), dict):
        return "messages wrapped in `message`"
    kind = value.get("type")
    if kind is not None and kind != "message":
        return f"events of type {kind!r}"
    if isinstance(value.get("data"), list) and "role" not in value:
        return foreign_shape(value["data"])
    return None


def content_text(content: Any) -> str:
    """Plain text of a content field: a string, or text parts (images as a placeholder)."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return ""
    parts = []
    for part in content:
        if isinstance(part, str):
            parts.append(part)
        elif isinstance(part, dict):
            kind = part.get("type")
            if isinstance(part.get("text"), str) and kind in (None, "text", "input_text", "output_text"):
                parts.append(part["text"])
            elif kind in ("image_url", "input_image", "image"):
                parts.append("[image]")
            elif kind == "refusal" and isinstance(part.get("refusal"), str):
                parts.append(part["refusal"])
            elif kind not in (None, "text", "input_text", "output_text", "input_audio", "file"):
                unknown("part", kind)
    return "\n".join(p for p in parts if p)


def tool_calls(message: dict[str, Any]) -> list[ToolCall]:
    calls = []
    for call in message.get("tool_calls") or []:
        if isinstance(call, dict):
            function = call["function"] if isinstance(call.get("function"), dict) else call
            calls.append(ToolCall(str(function.get("name") or "tool"), arguments(function.get("arguments"), "arguments")))
    legacy = message.get("function_call")
    if isinstance(legacy, dict):
        calls.append(ToolCall(str(legacy.get("name") or "function"), arguments(legacy.get("arguments"), "arguments")))
    return calls


def to_message(item: dict[str, Any]) -> Message | None:
    """One chat message; None for tool results, which never become text."""
    role = _ROLES.get(str(item.get("role", "")).lower())
    if role is None:
        return None
    thinking = item.get("reasoning_content") or item.get("reasoning")
    return Message(
        id="",
        role=role,
        text=content_text(item.get("content")),
        thinking=thinking if isinstance(thinking, str) else "",
        timestamp=to_utc(_first(item, _TIME_KEYS)),
        tools=tool_calls(item) if role == ASSISTANT else [],
    )


def row_messages(row: dict[str, Any]) -> list[Message]:
    stamp = to_utc(_first(row, ("timestamp", "created_at")))
    meta = {key: row[key] for key in _ROW_META if row.get(key) not in (None, "", {})}
    out = []
    for role, key in ((USER, "user_message"), (ASSISTANT, "ai_response")):
        text = content_text(row.get(key))
        if text.strip():
            out.append(Message(id="", role=role, text=text, timestamp=stamp, meta=meta if role == ASSISTANT else {}))
    return out


class _Collector:
    """Sorts decoded JSON values into plain messages and per-conversation rows."""

    def __init__(self, path: Path):
        self.path = path
        self.messages: list[Message] = []
        self.title: str | None = None
        self.rows: dict[str, list[dict[str, Any]]] = {}
        self.conversations: dict[str, dict[str, Any]] = {}
        self.problems: list[tuple[int | None, str]] = []

    def add(self, value: Any, line: int | None) -> None:
        if isinstance(value, list):
            for item in value:
                self.add(item, line)
            return
        if not isinstance(value, dict):
            self.problems.append((line, "not an OpenAI message or conversation row"))
            return
        if "conversation_messages" in value or "conversations" in value:
            for conversation in value.get("conversations") or []:
                if isinstance(conversation, dict) and conversation.get("id") is not None:
                    self.conversations[str(conversation["id"])] = conversation
            self.add(value.get("conversation_messages") or [], line)
        elif "conversation_id" in value and ("user_message" in value or "ai_response" in value):
            self.rows.setdefault(str(value["conversation_id"]), []).append(value)
        elif isinstance(value.get("messages"), list):
            if isinstance(value.get("title"), str):
                self.title = self.title or value["title"]
            self.add(value["messages"], line)
        elif "role" in value:
            message = to_message(value)
            if message is not None:
                self.messages.append(message)
            elif str(value.get("role")).lower() not in _TOOL_ROLES:
                unknown("field", f"role={value.get('role')}")
                self.problems.append((line, f"unknown role {value.get('role')!r}"))
        else:
            self.problems.append((line, "not an OpenAI message or conversation row"))

    def sessions(self) -> list[Session]:
        sessions = []
        if self.messages:
            sessions.append(self._session(self.path.stem, self.messages, {}, self.title))
        order = [cid for cid in self.conversations if cid in self.rows]
        order += [cid for cid in self.rows if cid not in self.conversations]
        for cid in order:
            indexed = list(enumerate(self.rows[cid]))
            stamps = {i: to_utc(_first(row, ("timestamp", "created_at"))) for i, row in indexed}
            indexed.sort(key=lambda pair: (0, stamps[pair[0]], pair[0]) if stamps[pair[0]] else (1, pair[0]))
            messages = [m for _, row in indexed for m in row_messages(row)]
            conversation = self.conversations.get(cid, {})
            sessions.append(self._session(cid, messages, conversation, conversation.get("title")))
        return sessions

    def _session(self, sid: str, messages: list[Message], conversation: dict[str, Any], title: Any) -> Session:
        number_messages(messages)
        meta = {k: conversation[k] for k in ("description", "settings") if conversation.get(k)}
        session = Session(
            id=sid or f"{self.path.stem}-conversation",  # an empty conversation_id must not make an empty key
            title=str(title) if title else title_from_messages(messages, sid),
            project=self.path.absolute().parent.name,
            source=SOURCE,
            path=str(self.path.absolute()),
            messages=messages,
            meta=meta,
        )
        session.fill_times()
        session.started_at = session.started_at or to_utc(conversation.get("created_at"))
        session.updated_at = session.updated_at or to_utc(conversation.get("updated_at"))
        return session


def _looks_like_jsonl(text: str) -> bool:
    """Some early line is a whole JSON object or array on its own."""
    probed = 0
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            if isinstance(json.loads(line), (dict, list)):
                return True
        except (json.JSONDecodeError, RecursionError):
            pass
        probed += 1
        if probed >= _JSONL_PROBE_LINES:
            break
    return False


def parse(path: Path) -> list[Session]:
    path = Path(path)
    text = strip_bom(read_text(path))
    collector = _Collector(path)
    try:
        document = json.loads(text)
        _refuse_foreign(path, document)
        collector.add(document, None)
    except json.JSONDecodeError as exc:
        if not _looks_like_jsonl(text):
            raise ParseError(path, json_error_reason(exc, text), line=exc.lineno) from None
        bad_lines: list[tuple[int, str]] = []
        values = list(iter_json_lines(text, bad_lines))
        for _, value in values:  # every line: one event line marks the whole log
            _refuse_foreign(path, value)
        for number, value in values:
            collector.add(value, number)
        collector.problems = sorted([*bad_lines, *collector.problems], key=lambda p: p[0] or 0)
    except RecursionError:
        raise ParseError(path, "JSON nested too deeply") from None
    sessions = collector.sessions()
    if not sessions:
        if collector.problems:
            line, reason = collector.problems[0]
            raise ParseError(path, f"no usable messages ({reason})", line=line)
        raise ParseError(path, "no OpenAI messages or conversation rows found")
    sessions[0].warnings.extend(
        f"{path}:{line}: {reason}" if line else f"{path}: {reason}" for line, reason in collector.problems
    )
    return sessions


def _refuse_foreign(path: Path, value: Any) -> None:
    reason = foreign_shape(value)
    if reason:
        raise ParseError(path, f"unknown format ({reason}: another tool's event log, not an OpenAI chat log)")


def _foreign_in_head(text: str) -> bool:
    for line in text.splitlines()[:_JSONL_PROBE_LINES]:
        try:
            if foreign_shape(json.loads(line)):
                return True
        except (json.JSONDecodeError, RecursionError):
            continue
    try:
        return foreign_shape(json.loads(text)) is not None
    except (json.JSONDecodeError, RecursionError):
        return False  # a head cut mid-document: parse decides


def sniff(path: Path, head: str) -> bool:
    if path.is_dir():
        return False
    text = strip_bom(head).lstrip()
    return text.startswith(("[", "{")) and bool(_SNIFF.search(text)) and not _foreign_in_head(text)


FORMAT = SourceFormat(
    name=SOURCE,
    label="OpenAI chat log",
    sniff=sniff,
    parse=parse,
    tool="OpenAI-style logs",
    versions="Chat Completions messages and conversation-row exports",
    places="`.json` / `.jsonl` (add them to `sources`)",
    resume="none",
    keeps='`{role, content}` arrays or lines, `{"messages": [...]}`, and `conversation_id`/`user_message`/`ai_response` rows; other tools\' event logs no reader takes are refused with one line',
)
