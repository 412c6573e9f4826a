"""Pi coding agent sessions (`~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl`).

Pi (badlogic/pi-mono, `@mariozechner/pi-coding-agent`) writes a header line
`{type: "session", version, id, timestamp, cwd}` and then entries `{type, id,
parentId, timestamp, ...}` that form a tree: `/tree` and `/fork` branch inside
one file. The conversation the user last saw is the chain from the last entry
back through `parentId` (what Pi itself rebuilds); version 1 files have no ids
and are read in order. `message` entries hold the agent's messages: `user`,
`assistant` (parts `text`, `thinking`, `toolCall` {id, name, arguments};
`model`, `usage` {input, output, cacheRead, cacheWrite}: Anthropic style,
input without the cache), `toolResult` (answers a call by `toolCallId`) and
`bashExecution` (a `!command` the user ran). `session_info.name` is the title.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from convo_tui.core.model import ASSISTANT, USER, Message, Session, ToolCall
from convo_tui.core.resume import command as resume_command
from convo_tui.core.sources import SourceFormat, read_text
from convo_tui.core.sources._common import (
    Names,
    arguments,
    dict_of,
    first_record,
    json_records,
    last_branch,
    list_of,
    parts_text,
    result_text,
    str_of,
    to_utc,
    token_count,
    usage_of,
)
from convo_tui.core.sources._drift import unknown
from convo_tui.core.sources._session import Calls, Reply, build_session

SOURCE = "pi"
_ENTRIES = Names(
    {
        "message",
        "model_change",
        "thinking_level_change",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "label",
        "session_info",
        "session",
    }
)
_QUIET_ROLES = Names({"custom", "branchSummary", "compactionSummary"})


def sniff(path: Path, head: str) -> bool:
    first = first_record(head)
    return first.get("type") == "session" and "cwd" in first and "id" in first


class _Reader:
    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.calls = Calls()
        self.header: dict[str, Any] = {}
        self.model = ""
        self.title = ""

    def entry(self, entry: dict[str, Any]) -> None:
        kind = entry.get("type")
        if kind == "session":
            self.header = self.header or entry
            self.model = str_of(entry.get("modelId"), self.model)  # version 1 headers
        elif kind == "model_change":
            self.model = str_of(entry.get("modelId"), self.model)
        elif kind == "session_info":
            self.title = str_of(entry.get("name"), self.title)
        elif kind == "message":
            message = dict_of(entry.get("message"))
            self._message(message, to_utc(entry.get("timestamp")) or to_utc(message.get("timestamp")))
        elif kind not in _ENTRIES:
            unknown("record", kind)

    def _message(self, message: dict[str, Any], stamp: Any) -> None:
        role = message.get("role")
        if role == "user":
            text = parts_text(message.get("content")).strip()
            if text:
                self.messages.append(Message(id="", role=USER, text=text, timestamp=stamp))
        elif role == "assistant":
            self._assistant(message, stamp)
        elif role == "toolResult":
            self.calls.answer(message.get("toolCallId"), result_text(message.get("content")))
        elif role == "bashExecution":
            command = str_of(message.get("command")).strip()
            if command:
                self.messages.append(Message(id="", role=USER, text=f"!{command}", timestamp=stamp))
        elif role not in _QUIET_ROLES:
            unknown("event", f"message.{role}")

    def _assistant(self, message: dict[str, Any], stamp: Any) -> None:
        reply = Reply()
        content = message.get("content")
        for part in list_of(content) if not isinstance(content, str) else [{"type": "text", "text": content}]:
            kind = dict_of(part).get("type")
            if kind == "text":
                reply.texts.append(str_of(part.get("text")))
            elif kind == "thinking":
                reply.thinking.append(str_of(part.get("thinking")))
            elif kind == "toolCall":
                call = ToolCall(str_of(part.get("name")) or "tool", arguments(part.get("arguments")))
                reply.tools.append(self.calls.add(part.get("id"), call))
            else:
                unknown("part", kind)
        usage = dict_of(message.get("usage"))
        meta = {
            "model": str_of(message.get("model"), self.model),
            "usage": usage_of(
                input_tokens=token_count(usage.get("input")),
                output_tokens=token_count(usage.get("output")),
                cache_read_input_tokens=token_count(usage.get("cacheRead")),
                cache_creation_input_tokens=token_count(usage.get("cacheWrite")),
            ),
        }
        error = message.get("stopReason") == "error" and reply.empty()
        if error and str_of(message.get("errorMessage")):
            reply.texts.append(str_of(message.get("errorMessage")))
        built = reply.message(ASSISTANT, stamp, meta, error=error)
        if built is not None:
            self.messages.append(built)


def parse(path: Path) -> list[Session]:
    path = Path(path)
    warnings: list[str] = []
    entries = [entry for _, entry in json_records(path, read_text(path), warnings)]
    headers = [e for e in entries if e.get("type") == "session"]  # written once; a re-run may repeat it
    last: dict[str, dict[str, Any]] = {}  # an entry written twice counts once, in its last form
    for entry in entries:
        if entry.get("type") != "session":
            last[entry["id"] if isinstance(entry.get("id"), str) else f"#{len(last)}"] = entry
    reader = _Reader()
    for entry in headers[:1] + last_branch(list(last.values()), "id", "parentId"):
        reader.entry(entry)
    if not reader.messages:
        return []
    header = reader.header
    session_id = str_of(header.get("id")) or path.stem.rsplit("_", 1)[-1]
    return [
        build_session(
            path,
            SOURCE,
            session_id,
            reader.messages,
            title=reader.title,
            cwd=header.get("cwd"),
            project="Pi",
            started=to_utc(header.get("timestamp")),
            meta={"model": reader.model, "format_version": header.get("version")},
            resume=resume_command("pi", session_id),
            warnings=warnings,
        )
    ]


FORMAT = SourceFormat(
    name=SOURCE,
    label="Pi session",
    sniff=sniff,
    parse=parse,
    tool="Pi coding agent",
    versions="session format 1 (2025-11) – 3 (pi-coding-agent 0.58.3)",
    places="`$PI_CODING_AGENT_DIR` or `~/.pi/agent` (`%USERPROFILE%\\.pi\\agent`): `sessions/--<folder>--/*.jsonl`; "
    "its forks' `~/.omp/agent/sessions` (OhMyPi) and `~/.prime/agent/sessions` (Prime Agent)",
    resume="`pi --session <id>`",
    keeps="the branch you last saw, your words and `!` commands, replies, thinking, tool calls with arguments and "
    "results, model and tokens per reply, the session name",
)
