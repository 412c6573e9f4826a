"""Claude.ai data export: `conversations.json` from the export zip.

A list of conversations `{uuid, name, summary, created_at, updated_at,
chat_messages: [...]}`; each message has `sender` (human | assistant), `text`,
`created_at`, and newer exports a `content` list of parts: `text`,
`thinking`, `tool_use` {name, input} and `tool_result` {name, content}.
Attachments carry `file_name` (and the extracted text, which is the file's,
not the user's words). One session per conversation; Claude.ai has no command
to reopen one, so there is no resume.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from convo_tui.core.errors import ParseError
from convo_tui.core.model import ASSISTANT, USER, Message, Session, ToolCall
from convo_tui.core.sources import SourceFormat, read_text
from convo_tui.core.sources._common import (
    clip_result,
    dict_of,
    load_json,
    to_utc,
)
from convo_tui.core.sources._drift import unknown
from convo_tui.core.sources._session import Reply, build_session

SOURCE = "claude-ai"


def sniff(path: Path, head: str) -> bool:
    if path.is_dir():
        return False
    text = head.lstrip()
    return text.startswith("[") and '"chat_messages"' in text


def _part_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    pieces = []
    for part in content if isinstance(content, list) else []:
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            pieces.append(part["text"])
    return "\n".join(pieces)


def _message(entry: dict[str, Any]) -> Message | None:
    sender = entry.get("sender")
    role = USER if sender == "human" else ASSISTANT if sender == "assistant" else None
    if role is None:
        unknown("field", f"sender={sender}")
        return None
    texts: list[str] = []
    thinking: list[str] = []
    tools: list[ToolCall] = []
    content = entry.get("content")
    if isinstance(content, list) and content:
        for part in content:
            if not isinstance(part, dict):
                continue
            kind = part.get("type")
            if kind == "text" and isinstance(part.get("text"), str):
                texts.append(part["text"])
            elif kind == "thinking" and isinstance(part.get("thinking"), str):
                thinking.append(part["thinking"])
            elif kind == "tool_use":
                args = dict_of(part.get("input"))
                tools.append(ToolCall(str(part.get("name") or "tool"), args))
            elif kind == "tool_result" and tools:
                match = next((t for t in reversed(tools) if t.name == part.get("name") and not t.result), tools[-1])
                match.result = clip_result(_part_text(part.get("content")))
            elif kind not in ("tool_result", "image"):
                unknown("part", kind)
    elif isinstance(entry.get("text"), str):
        texts.append(entry["text"])
    listed = [entry.get("attachments"), entry.get("files")]
    files = [f.get("file_name") for group in listed if isinstance(group, list) for f in group if isinstance(f, dict)]
    names = [f"[file: {name}]" for name in dict.fromkeys(n for n in files if isinstance(n, str) and n)]
    return Reply([*texts, *names], thinking, tools).message(role, to_utc(entry.get("created_at")))


def parse(path: Path) -> list[Session]:
    path = Path(path)
    text = read_text(path)
    data = load_json(path, text)
    if not isinstance(data, list):
        raise ParseError(path, "not a Claude.ai export (expected a list of conversations)")
    sessions: list[Session] = []
    skipped = 0
    for conversation in data:
        if not isinstance(conversation, dict) or not isinstance(conversation.get("chat_messages"), list):
            skipped += 1
            continue
        messages = [m for m in (_message(e) for e in conversation["chat_messages"] if isinstance(e, dict)) if m]
        if not messages:
            continue  # an empty conversation: opened, never used
        summary = conversation.get("summary")
        session = build_session(
            path,
            SOURCE,
            str(conversation.get("uuid") or f"{path.stem}-{len(sessions)}"),
            messages,
            title=conversation.get("name"),
            project="Claude.ai",
            started=to_utc(conversation.get("created_at")),
            updated=to_utc(conversation.get("updated_at")),
            meta={"summary": summary if isinstance(summary, str) else None},
        )
        sessions.append(session)
    if sessions and skipped:
        sessions[0].warnings.append(f"{path}: {skipped} entr{'ies' if skipped != 1 else 'y'} without `chat_messages` skipped")
    return sessions


def count_conversations(path: Path) -> int:
    try:
        data = json.loads(read_text(path))
    except (ParseError, json.JSONDecodeError, RecursionError):
        return 0
    if not isinstance(data, list):
        return 0
    return sum(1 for c in data if isinstance(c, dict) and isinstance(c.get("chat_messages"), list) and c["chat_messages"])


FORMAT = SourceFormat(
    name=SOURCE,
    label="Claude.ai export",
    sniff=sniff,
    parse=parse,
    tool="Claude.ai export",
    versions="`conversations.json` of the data export, 2024 – 2026",
    places="`conversations.json` from the export zip (add it to `sources`)",
    resume="none",
    keeps="one session per conversation; thinking and tool calls (web search) with results; attachments named, their content not shown as yours",
)
