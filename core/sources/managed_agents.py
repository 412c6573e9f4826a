"""Claude Managed Agents session event logs, as people save them.

A hosted agent's session is an event log read from the API
(`GET /v1/sessions/{id}/events`, or its SSE stream): a page `{"data": [...]}`,
a list, one event a line, or the stream's `data: {...}` lines. Every event is
`{id: "sevt_...", type: "<family>.<name>", processed_at, ...}` (the
`BetaManagedAgentsSessionEvent` union of the official SDK):

- the conversation: `user.message` (the human's request), `agent.message`
  (the agent's words), `system.message`;
- tool use: `agent.tool_use` / `agent.mcp_tool_use` / `agent.custom_tool_use`
  {name, input}, answered by `agent.tool_result` (`tool_use_id`),
  `agent.mcp_tool_result` (`mcp_tool_use_id`) and `user.custom_tool_result`
  (`custom_tool_use_id`), each naming the EVENT id of its call;
- status: `session.*`, `span.*` (whose `model_request_end.model_usage` holds
  the only token counts, Anthropic style), `agent.thinking` (a progress signal:
  no thinking text is ever exposed), confirmations and interrupts. Status
  events are never messages; `session.error` is shown as an error.

One reply per model request (the span), or per round between tool results
when the spans were not saved. Hosted sessions have no folder and no local
resume command.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from convo_tui.core.errors import ParseError
from convo_tui.core.model import ASSISTANT, SYSTEM, USER, Message, Session, ToolCall
from convo_tui.core.sources import SourceFormat, read_text
from convo_tui.core.sources._anthropic import api_usage
from convo_tui.core.sources._common import (
    Names,
    add_usage,
    arguments,
    dict_of,
    iter_json_lines,
    parts_text,
    result_text,
    str_of,
    strip_bom,
    to_utc,
)
from convo_tui.core.sources._drift import unknown
from convo_tui.core.sources._session import Calls, build_session

SOURCE = "claude-managed-agents"
_EVENT = re.compile(r'"type"\s*:\s*"(?:user|agent|session|span|system)\.[a-z_]+"')
_SESSION_ID = re.compile(r"sesn_[0-9A-Za-z]+")
_CALLS = Names({"agent.tool_use", "agent.mcp_tool_use", "agent.custom_tool_use"})
_RESULTS = {
    "agent.tool_result": "tool_use_id",
    "agent.mcp_tool_result": "mcp_tool_use_id",
    "user.custom_tool_result": "custom_tool_use_id",
}
_STATUS = Names(
    {
        "span.model_request_start",
        "span.model_request_end",
        "agent.thinking",
        "agent.thread_context_compacted",
        "agent.thread_message_sent",
        "agent.thread_message_received",
        "user.interrupt",
        "user.define_outcome",
        "user.tool_confirmation",
    }
)
_STATUS_FAMILIES = ("session.status_", "session.thread_", "span.outcome_evaluation")
_SESSION_EVENTS = Names({"session.updated", "session.deleted", "session.error"})


def sniff(path: Path, head: str) -> bool:
    text = strip_bom(head).lstrip()
    return text.startswith(("{", "[", "data:", "event:", "id:")) and '"sevt_' in text and bool(_EVENT.search(text))


def _events(path: Path, text: str, warnings: list[str]) -> list[dict[str, Any]]:
    """The events of a page, a list, an export with its session, JSONL or SSE `data:` lines."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        document = None
    except RecursionError:
        raise ParseError(path, "JSON nested too deeply") from None
    values: list[Any] = [document] if document is not None else []
    if document is None:
        lines = []
        for line in text.splitlines():
            stripped = line.strip()
            if stripped.startswith("data:"):
                stripped = stripped[5:].strip()
            elif stripped.startswith(("event:", "id:", ":", "retry:")):
                stripped = ""
            lines.append(stripped)
        problems: list[tuple[int, str]] = []
        values = [value for _, value in iter_json_lines("\n".join(lines), problems)]
        warnings.extend(f"{path}:{line}: {reason}" for line, reason in problems)
    events: list[dict[str, Any]] = []
    for value in values:
        if isinstance(value, dict) and isinstance(value.get("data"), list):
            value = value["data"]
        elif isinstance(value, dict) and isinstance(value.get("events"), list):
            events.append({**dict_of(value.get("session")), "type": "(session)"})
            value = value["events"]
        events.extend(item for item in (value if isinstance(value, list) else [value]) if isinstance(item, dict))
    return events


class _Reader:
    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.calls = Calls()
        self.reply: Message | None = None
        self.session: dict[str, Any] = {}

    def event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        stamp = to_utc(event.get("processed_at") or event.get("created_at"))
        if kind == "user.message":
            self.reply = None
            self._add(USER, parts_text(event.get("content")), stamp)
        elif kind == "agent.message":
            reply = self._reply(stamp)
            reply.text = "\n\n".join(t for t in (reply.text, parts_text(event.get("content")).strip()) if t)
        elif kind == "system.message":
            self._add(SYSTEM, parts_text(event.get("content")), stamp)
        elif kind in _CALLS:
            name = str_of(event.get("name")) or "tool"
            server = str_of(event.get("mcp_server_name"))
            call = ToolCall(f"{server}/{name}" if server else name, arguments(event.get("input")))
            self._reply(stamp).tools.append(self.calls.add(event.get("id"), call))
        elif isinstance(kind, str) and kind in _RESULTS:
            self.reply = None  # the agent's next words are the next round
            self.calls.answer(event.get(_RESULTS[kind]), result_text(event.get("content")))
        elif kind == "span.model_request_start" or (isinstance(kind, str) and kind.startswith("session.status_idle")):
            self.reply = None
        elif kind == "span.model_request_end":
            usage = api_usage({"usage": event.get("model_usage")})
            target = self.reply or next((m for m in reversed(self.messages) if m.role == ASSISTANT), None)
            if usage and target is not None:
                target.meta["usage"] = add_usage(target.meta.get("usage", {}), usage)
        elif kind == "session.error":
            error = dict_of(event.get("error"))
            self._add(SYSTEM, str_of(error.get("message")) or str_of(error.get("type")), stamp, error=True)
        elif kind == "(session)":
            self.session = event
        elif not (kind in _STATUS or kind in _SESSION_EVENTS or (isinstance(kind, str) and kind.startswith(_STATUS_FAMILIES))):
            unknown("event", kind)

    def _add(self, role: Any, text: str, stamp: Any, error: bool = False) -> None:
        if text.strip():
            self.messages.append(Message(id="", role=role, text=text.strip(), timestamp=stamp, error=error))

    def _reply(self, stamp: Any) -> Message:
        if self.reply is None:
            self.reply = Message(id="", role=ASSISTANT, text="", timestamp=stamp)
            self.messages.append(self.reply)
        return self.reply


def parse(path: Path) -> list[Session]:
    path = Path(path)
    warnings: list[str] = []
    reader = _Reader()
    for event in _events(path, strip_bom(read_text(path)), warnings):
        reader.event(event)
    messages = [m for m in reader.messages if m.text or m.tools]
    if not messages:
        return []
    session = reader.session
    named = _SESSION_ID.search(path.name)
    session_id = str_of(session.get("id")) or (named.group(0) if named else path.stem)
    agent = dict_of(session.get("agent"))
    model = agent.get("model")
    return [
        build_session(
            path,
            SOURCE,
            session_id,
            messages,
            title=session.get("title"),
            project=str_of(agent.get("name")) or "Managed Agents",
            started=to_utc(session.get("created_at")),
            updated=to_utc(session.get("updated_at")),
            meta={"model": str_of(dict_of(model).get("id")) or str_of(model)},
            warnings=warnings,
        )
    ]


FORMAT = SourceFormat(
    name=SOURCE,
    label="Managed Agents event log",
    sniff=sniff,
    parse=parse,
    tool="Claude Managed Agents",
    versions="API beta `managed-agents-2026-04-01` (anthropic-sdk-python types of 2026-08)",
    places="wherever you saved the events (add them to `sources`)",
    resume="none (a hosted session)",
    keeps="the human's requests, the agent's words, tool calls (built-in, MCP, custom) with inputs and results, "
    "errors, tokens per model request; status events are not messages",
)
