"""Sessions to and from JSON-ready dicts.

`session_to_json` is the `convo-tui show --json` shape (documented in the
README). `session_to_record`/`session_from_record` round-trip a whole session
through the index so it can be read after its file is gone.
"""

from __future__ import annotations

import base64
import json
import zlib
from datetime import datetime
from typing import Any

from convo_tui.core.model import Message, Session, ToolCall


def iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def parse_iso(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def _tool_json(tool: ToolCall) -> dict[str, Any]:
    out: dict[str, Any] = {"name": tool.name, "args": tool.args}
    if tool.result:
        out["result"] = tool.result
    return out


def session_to_json(session: Session) -> dict[str, Any]:
    return {
        "session": {
            "id": session.id,
            "title": session.title,
            "project": session.project,
            "source": session.source,
            "path": session.path,
            "started_at": iso(session.started_at),
            "updated_at": iso(session.updated_at),
            "cwd": session.cwd,
            "resume": session.resume,
        },
        "messages": [
            {
                "id": m.id,
                "role": m.role,
                "text": m.text,
                "thinking": m.thinking,
                "timestamp": iso(m.timestamp),
                "tools": [_tool_json(t) for t in m.tools],
                "virtual": m.virtual,
                "sidechain": m.sidechain,
            }
            for m in session.messages
        ],
        "turns": [
            {
                "index": t.index,
                "user_message_ids": t.user_message_ids,
                "ai_message_ids": t.ai_message_ids,
                "user_text": t.user_text,
                "ai_text": t.ai_text,
                "combined_text": t.combined_text,
                "tools": t.tool_names,
                "timestamp": iso(t.timestamp),
            }
            for t in session.turns
        ],
    }


def _message_record(m: Message) -> dict[str, Any]:
    record: dict[str, Any] = {"id": m.id, "role": m.role, "text": m.text}
    optional = {
        "thinking": m.thinking,
        "timestamp": iso(m.timestamp),
        "tools": [_tool_json(t) for t in m.tools],
        "virtual": m.virtual,
        "sidechain": m.sidechain,
        "error": m.error,
        "is_html": m.is_html,
        "attachment": m.attachment,
        "available_tasks": m.available_tasks,
        "meta": m.meta,
    }
    record.update({k: v for k, v in optional.items() if v})
    return record


def message_records(messages: list[Message]) -> list[dict[str, Any]]:
    return [_message_record(m) for m in messages]


def session_to_record(session: Session, with_messages: bool = True) -> dict[str, Any]:
    """Everything needed to rebuild the session, compactly (falsy fields dropped);
    without its messages for a session whose parts are stored apart."""
    return {
        "id": session.id,
        "title": session.title,
        "project": session.project,
        "source": session.source,
        "path": session.path,
        "started_at": iso(session.started_at),
        "updated_at": iso(session.updated_at),
        "meta": session.meta,
        "cwd": session.cwd,
        "resume": session.resume,
        "messages": [_message_record(m) for m in session.messages] if with_messages else [],
    }


def messages_from_records(records: list[dict[str, Any]]) -> list[Message]:
    return [
        Message(
            id=m["id"],
            role=m["role"],
            text=m.get("text", ""),
            thinking=m.get("thinking", ""),
            timestamp=parse_iso(m.get("timestamp")),
            tools=[ToolCall(t["name"], t.get("args", {}), t.get("result", "")) for t in m.get("tools", [])],
            virtual=m.get("virtual", False),
            sidechain=m.get("sidechain", False),
            error=m.get("error", False),
            is_html=m.get("is_html", False),
            attachment=m.get("attachment"),
            available_tasks=m.get("available_tasks", []),
            meta=m.get("meta", {}),
        )
        for m in records
    ]


def session_from_record(record: dict[str, Any]) -> Session:
    messages = messages_from_records(record.get("messages", []))
    return Session(
        id=record["id"],
        title=record.get("title", ""),
        project=record.get("project", ""),
        source=record.get("source", ""),
        path=record.get("path", ""),
        messages=messages,
        started_at=parse_iso(record.get("started_at")),
        updated_at=parse_iso(record.get("updated_at")),
        meta=record.get("meta", {}),
        cwd=record.get("cwd"),
        resume=record.get("resume"),
    )


def pack(value: Any) -> str:
    """A JSON value as a compact string for the index (zlib, base64): a
    session's record is read only when the session is opened, so it need not be
    stored as searchable JSON. A few times smaller, and a string costs the store
    far less to take in than a tree of values."""
    raw = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8", "surrogatepass")
    return base64.b64encode(zlib.compress(raw, 3)).decode("ascii")


def unpack(text: str) -> Any:
    return json.loads(zlib.decompress(base64.b64decode(text)).decode("utf-8", "surrogatepass"))
