"""Factory Droid sessions (`~/.factory/sessions/<folder>/<id>.jsonl` + `<id>.settings.json`).

The first line is `{type: "session_start", id, title, sessionTitle, owner,
version, cwd, callingSessionId?}`; then `message` lines `{id, parentId,
timestamp, message: {role, content}}` whose content blocks are Anthropic's
(text, thinking, tool_use, tool_result: read as Claude Code's are, tool
results in user messages attached to their calls), and bookkeeping lines
(`todo_state`, `compaction_state`, ...). The JSONL holds no per-message
tokens: `<id>.settings.json` beside it has the session's model and cumulative
`tokenUsage`, kept in the session's meta. A session started by another one
(`callingSessionId`) is a sub-agent's. Droid is closed source: the shape
follows other readers and real paths and hook payloads seen in public repositories.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from convo_tui.core.model import ASSISTANT, USER, Message, Session
from convo_tui.core.resume import command as resume_command
from convo_tui.core.sources import SourceFormat, read_text
from convo_tui.core.sources._anthropic import Parts
from convo_tui.core.sources._claude_text import clean_user_text
from convo_tui.core.sources._common import (
    Names,
    dict_of,
    first_record,
    joined,
    json_records,
    str_of,
    to_utc,
    token_count,
)
from convo_tui.core.sources._drift import unknown
from convo_tui.core.sources._session import Calls, build_session

SOURCE = "factory-droid"
_BOOKKEEPING = Names({"todo_state", "compaction_state", "session_event", "session_start"})
_PLACEHOLDER_TITLES = {"", "new session", "untitled"}


def sniff(path: Path, head: str) -> bool:
    first = first_record(head)
    return first.get("type") == "session_start" and "id" in first


def settings_of(path: Path) -> dict[str, Any]:
    """`<id>.settings.json` beside the transcript: model and the session's token totals."""
    try:
        data = json.loads(path.with_name(f"{path.stem}.settings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


class _Reader:
    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.calls = Calls()
        self.start: dict[str, Any] = {}

    def line(self, line: dict[str, Any]) -> None:
        kind = line.get("type")
        if kind == "session_start":
            self.start = self.start or line
        elif kind == "message":
            self._message(dict_of(line.get("message")), to_utc(line.get("timestamp")))
        elif kind not in _BOOKKEEPING:
            unknown("record", kind)

    def _message(self, message: dict[str, Any], stamp: Any) -> None:
        parts = Parts().add(message.get("content"))
        for call_id, output in parts.outputs:
            self.calls.answer(call_id, output)
        role = message.get("role")
        if role == "user":
            text = clean_user_text(joined(parts.texts))
            if text:
                self.messages.append(Message(id="", role=USER, text=text, timestamp=stamp))
        elif role == "assistant":
            for call_id, call in parts.call_ids:
                self.calls.add(call_id, call)
            text, thinking = joined(parts.texts), joined(parts.thinking)
            if text or thinking or parts.tools:
                self.messages.append(
                    Message(id="", role=ASSISTANT, text=text, thinking=thinking, timestamp=stamp, tools=parts.tools)
                )
        else:
            unknown("event", f"message.{role}")


def parse(path: Path) -> list[Session]:
    path = Path(path)
    warnings: list[str] = []
    reader = _Reader()
    for _number, line in json_records(path, read_text(path), warnings):
        reader.line(line)
    if not reader.messages:
        return []
    start, settings = reader.start, settings_of(path)
    session_id = str_of(start.get("id")) or path.stem
    usage = dict_of(settings.get("tokenUsage"))
    totals = {
        name: token_count(usage.get(key))
        for key, name in (
            ("inputTokens", "input_tokens"),
            ("outputTokens", "output_tokens"),
            ("cacheCreationTokens", "cache_creation_tokens"),
            ("cacheReadTokens", "cache_read_tokens"),
        )
    }
    title = str_of(start.get("title")) or str_of(start.get("sessionTitle"))
    return [
        build_session(
            path,
            SOURCE,
            session_id,
            reader.messages,
            title=title if title.strip().lower() not in _PLACEHOLDER_TITLES else None,
            cwd=start.get("cwd"),
            project="Factory Droid",
            meta={
                "model": settings.get("model"),
                "session_usage": {k: v for k, v in totals.items() if v},
                "parent_session": start.get("callingSessionId"),
            },
            resume=resume_command("droid", session_id),
            warnings=warnings,
        )
    ]


FORMAT = SourceFormat(
    name=SOURCE,
    label="Factory Droid session",
    sniff=sniff,
    parse=parse,
    tool="Factory Droid",
    versions="session format 2 (2026; closed source: real paths and hook payloads in public repositories)",
    places="`~/.factory/sessions/<folder>/*.jsonl` (`%USERPROFILE%\\.factory\\sessions`), with `<id>.settings.json`",
    resume="`droid --resume <id>`",
    keeps="your words (injected reminders dropped), replies, thinking, tool calls with inputs and results, the title "
    "and folder; model and token totals of the session from its settings file",
)
