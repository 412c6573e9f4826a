"""Kimi CLI sessions (`~/.kimi/sessions/<md5 of folder>/<id>/wire.jsonl`).

Kimi CLI (MoonshotAI/kimi-cli) logs what its UI showed, one wire message a
line (`wire/file.py`): `{timestamp, message: {type, payload}}` after a
`{type: "metadata", protocol_version}` header. `TurnBegin` holds the user's
input; each `StepBegin` starts a model round whose words and thinking arrive
as streamed `ContentPart`s (`text` / `think`, joined in order), whose calls
are `ToolCall` {id, function: {name, arguments as JSON text}} (arguments may
be completed by `ToolCallPart` deltas), answered by `ToolResult`
{tool_call_id, return_value: {output, message, is_error}}; `StatusUpdate`
carries the round's `token_usage` (Anthropic-like: `input_other` without the
cache). The session folder's name is its id; `state.json` beside the log holds
a custom title and `kimi.json` at the top maps folder hashes back to folders.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from convo_tui.core.model import ASSISTANT, USER, Message, Session, ToolCall
from convo_tui.core.resume import command as resume_command
from convo_tui.core.sources import SourceFormat, read_text
from convo_tui.core.sources._common import (
    Names,
    arguments,
    dict_of,
    head_records,
    json_records,
    list_of,
    parts_text,
    result_text,
    str_of,
    to_utc,
    token_count,
    usage_of,
)
from convo_tui.core.sources._drift import unknown
from convo_tui.core.sources._session import UUID, Calls, build_session

SOURCE = "kimi-cli"
_WIRE_TYPES = Names({"TurnBegin", "StepBegin", "ContentPart", "ToolCall", "ToolResult", "StatusUpdate", "TurnEnd", "SteerInput"})
_BOOKKEEPING = Names(
    {
        "TurnEnd",
        "StepInterrupted",
        "StepRetry",
        "CompactionBegin",
        "CompactionEnd",
        "MCPLoadingBegin",
        "MCPLoadingEnd",
        "HookTriggered",
        "HookResolved",
        "HookRequest",
        "Notification",
        "PlanDisplay",
        "BtwBegin",
        "BtwEnd",
        "ApprovalRequest",
        "ApprovalResponse",
        "ApprovalRequestResolved",
        "QuestionRequest",
        "ToolCallRequest",
        "SubagentEvent",
    }
)


def sniff(path: Path, head: str) -> bool:
    records = head_records(head, 3)
    if not records:
        return False
    if records[0].get("type") == "metadata" and "protocol_version" in records[0]:
        return True
    return any(dict_of(r.get("message")).get("type") in _WIRE_TYPES and "payload" in dict_of(r.get("message")) for r in records)


class _Reader:
    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.calls = Calls()
        self.reply: Message | None = None
        self.raw_arguments: list[tuple[ToolCall, list[str]]] = []

    def wire(self, kind: Any, payload: dict[str, Any], stamp: Any) -> None:
        if kind in ("TurnBegin", "SteerInput"):
            self.reply = None
            text = parts_text(payload.get("user_input")).strip()
            if text:
                self.messages.append(Message(id="", role=USER, text=text, timestamp=stamp))
        elif kind == "StepBegin":
            self.reply = None
        elif kind == "ContentPart":
            self._part(payload, stamp)
        elif kind == "ToolCall":
            function = dict_of(payload.get("function"))
            call = ToolCall(str_of(function.get("name")) or "tool")
            raw = function.get("arguments")
            self.raw_arguments.append((call, [raw] if isinstance(raw, str) else []))
            if isinstance(raw, dict):
                call.args = raw
            self._current(stamp).tools.append(self.calls.add(payload.get("id"), call))
        elif kind == "ToolCallPart":
            if self.raw_arguments and isinstance(payload.get("arguments_part"), str):
                self.raw_arguments[-1][1].append(payload["arguments_part"])
        elif kind == "ToolResult":
            value = dict_of(payload.get("return_value"))
            output = value.get("output")
            text = result_text(output) if output not in (None, "", []) else str_of(value.get("message"))
            self.calls.answer(payload.get("tool_call_id"), text)
        elif kind == "StatusUpdate":
            self._usage(dict_of(payload.get("token_usage")))
        elif kind not in _BOOKKEEPING:
            unknown("event", kind)

    def _part(self, payload: dict[str, Any], stamp: Any) -> None:
        kind = payload.get("type")
        if kind == "text":
            self._current(stamp).text += str_of(payload.get("text"))
        elif kind == "think":
            self._current(stamp).thinking += str_of(payload.get("think"))
        elif kind in ("image_url", "audio_url", "video_url"):
            self._current(stamp).text += f"[{kind.split('_')[0]}]"
        else:
            unknown("part", kind)

    def _current(self, stamp: Any) -> Message:
        if self.reply is None:
            self.reply = Message(id="", role=ASSISTANT, text="", timestamp=stamp)
            self.messages.append(self.reply)
        return self.reply

    def _usage(self, usage: dict[str, Any]) -> None:
        counts = usage_of(
            input_tokens=token_count(usage.get("input_other")),
            output_tokens=token_count(usage.get("output")),
            cache_read_input_tokens=token_count(usage.get("input_cache_read")),
            cache_creation_input_tokens=token_count(usage.get("input_cache_creation")),
        )
        if counts and self.reply is not None:
            self.reply.meta["usage"] = counts

    def finished(self) -> list[Message]:
        for call, pieces in self.raw_arguments:
            if pieces:
                call.args = arguments("".join(pieces))
        for message in self.messages:
            message.text, message.thinking = message.text.strip(), message.thinking.strip()
        return [m for m in self.messages if m.text or m.thinking or m.tools]


def _json_file(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def work_dir(path: Path) -> str | None:
    """The folder a session ran in: `kimi.json` lists the folders, the session's parent folder is the md5 of one."""
    bucket = path.absolute().parent.parent
    share = bucket.parent.parent
    wanted = bucket.name.rsplit("_", 1)[-1]
    for entry in list_of(_json_file(share / "kimi.json").get("work_dirs")):
        folder = dict_of(entry).get("path")
        if isinstance(folder, str) and hashlib.md5(folder.encode("utf-8"), usedforsecurity=False).hexdigest() == wanted:
            return folder
    return None


def parse(path: Path) -> list[Session]:
    path = Path(path)
    warnings: list[str] = []
    reader = _Reader()
    for _number, line in json_records(path, read_text(path), warnings):
        message = dict_of(line.get("message"))
        if message:
            reader.wire(message.get("type"), dict_of(message.get("payload")), to_utc(line.get("timestamp")))
        elif line.get("type") != "metadata":
            unknown("record", line.get("type"))
    messages = reader.finished()
    if not messages:
        return []
    folder = path.absolute().parent
    session_id = folder.name if UUID.fullmatch(folder.name) else path.stem
    state = _json_file(folder / "state.json")
    return [
        build_session(
            path,
            SOURCE,
            session_id,
            messages,
            title=state.get("custom_title"),
            cwd=work_dir(path),
            project="Kimi CLI",
            resume=resume_command("kimi", session_id),
            warnings=warnings,
        )
    ]


FORMAT = SourceFormat(
    name=SOURCE,
    label="Kimi CLI wire log",
    sniff=sniff,
    parse=parse,
    tool="Kimi CLI",
    versions="wire protocol 1.1 – 1.10 (kimi-cli source of 2026-07)",
    places="`$KIMI_SHARE_DIR` or `~/.kimi` (`%USERPROFILE%\\.kimi`): `sessions/<hash>/<id>/wire.jsonl`",
    resume="`kimi --session <id>`",
    keeps="your words (and input typed while it worked), replies and thinking joined from their streamed parts, "
    "tool calls with arguments and results, tokens per round; folder from `kimi.json`, title from `state.json`",
)
