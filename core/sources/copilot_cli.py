"""GitHub Copilot CLI sessions (`~/.copilot/session-state/<id>/events.jsonl`).

An append-only event log, one `{type, data, id, timestamp, parentId,
ephemeral?}` a line (the event types of the official schema shipped in the
npm package `@github/copilot`). The user's words are `user.message.content`
(not `transformedContent`, which adds injected context); each model round is
an `assistant.message` with its `content`, `reasoningText` and the tool calls
it asked for (`toolRequests`, arguments included); `tool.execution_complete`
answers a call by `toolCallId`. The same calls appear again as
`tool.execution_start`: they are counted once, from `toolRequests`.
Ephemeral events (streamed deltas) are skipped. `workspace.yaml` beside the
log names the session. Tokens: each reply's `outputTokens`; the input side is
only written as session totals (`session.shutdown.modelMetrics`), kept in the
session's meta. A saved `copilot -p --output-format json` stdout reads the same.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from convo_tui.core.model import ASSISTANT, SYSTEM, USER, Message, Session, ToolCall
from convo_tui.core.resume import command as resume_command
from convo_tui.core.sources import SourceFormat, read_text
from convo_tui.core.sources._common import (
    Names,
    arguments,
    dict_of,
    head_records,
    json_records,
    list_of,
    result_text,
    str_of,
    to_utc,
    token_count,
    usage_of,
)
from convo_tui.core.sources._drift import unknown
from convo_tui.core.sources._session import Calls, build_session

SOURCE = "copilot-cli"
_FIRST_TYPES = Names({"session.start", "session.resume", "user.message", "system.message", "session.model_change"})
# Events that hold nothing of the conversation (progress, bookkeeping, UI state).
_BOOKKEEPING = Names(
    {
        "assistant.turn_start",
        "assistant.turn_end",
        "assistant.usage",
        "session.context_changed",
        "session.compaction_start",
        "session.compaction_complete",
        "session.truncation",
        "session.info",
        "session.warning",
        "session.idle",
        "session.title_changed",
        "session.task_complete",
        "session.usage_checkpoint",
        "session.mode_changed",
        "session.plan_changed",
        "session.workspace_file_changed",
        "session.snapshot_rewind",
        "session.tools_updated",
        "subagent.started",
        "subagent.completed",
        "tool.execution_progress",
        "tool.execution_partial_result",
        "abort",
        "result",
    }
)
_BOOKKEEPING_FAMILIES = ("hook.", "permission.", "skill.")
_YAML_LINE = re.compile(r"^(\w+):\s*(.*?)\s*$")


def sniff(path: Path, head: str) -> bool:
    return any(r.get("type") in _FIRST_TYPES and isinstance(r.get("data"), dict) for r in head_records(head, 3))


def workspace(path: Path) -> dict[str, str]:
    """The flat `key: value` lines of `workspace.yaml` beside the log (title, cwd)."""
    try:
        text = (path.absolute().parent / "workspace.yaml").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    found = {}
    for line in text.splitlines()[:200]:
        match = _YAML_LINE.match(line)
        if match and match.group(2):
            found[match.group(1)] = match.group(2).strip("'\"")
    return found


class _Reader:
    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.calls = Calls()
        self.facts: dict[str, Any] = {}
        self.model = ""
        self.reasoning: list[str] = []  # `assistant.reasoning` waiting for its message
        self.totals: dict[str, int] = {}

    def event(self, event: dict[str, Any]) -> None:
        if event.get("ephemeral") is True:
            return
        kind = event.get("type")
        data = dict_of(event.get("data"))
        stamp = to_utc(event.get("timestamp"))
        if kind in ("session.start", "session.resume"):
            self._start(data)
        elif kind == "session.model_change":
            self.model = str_of(data.get("newModel"), self.model)
        elif kind == "user.message":
            self._user(data, stamp)
        elif kind == "assistant.message":
            self._assistant(data, stamp)
        elif kind == "assistant.reasoning":
            self.reasoning.append(str_of(data.get("content")))
        elif kind in ("tool.execution_start", "tool.user_requested"):
            self._extra_call(data, stamp)
        elif kind == "tool.execution_complete":
            self.calls.answer(data.get("toolCallId"), _result(data))
        elif kind == "session.error":
            said = str_of(data.get("message"))
            if said:
                self.messages.append(Message(id="", role=SYSTEM, text=said, timestamp=stamp, error=True))
        elif kind == "session.shutdown":
            self._totals(data)
        elif kind == "system.message" or kind in _BOOKKEEPING:
            return
        elif not (isinstance(kind, str) and kind.startswith(_BOOKKEEPING_FAMILIES)):
            unknown("event", kind)

    def _start(self, data: dict[str, Any]) -> None:
        context = dict_of(data.get("context"))
        for key, value in (
            ("id", data.get("sessionId")),
            ("started", data.get("startTime")),
            ("cwd", context.get("cwd")),
            ("version", data.get("copilotVersion")),
            ("branch", context.get("branch")),
        ):
            if isinstance(value, str) and value:
                self.facts.setdefault(key, value)
        self.model = str_of(data.get("selectedModel"), self.model)

    def _user(self, data: dict[str, Any], stamp: Any) -> None:
        text = str_of(data.get("content")).strip()
        if not text or str_of(data.get("source")).startswith("skill-") or text.startswith("<skill-context"):
            return
        self.messages.append(Message(id="", role=USER, text=text, timestamp=stamp))

    def _assistant(self, data: dict[str, Any], stamp: Any) -> None:
        tools = []
        for request in list_of(data.get("toolRequests")):
            if isinstance(request, dict) and request.get("name"):
                call = ToolCall(str(request["name"]), arguments(request.get("arguments")))
                tools.append(self.calls.add(request.get("toolCallId"), call))
        thinking = "\n\n".join(t.strip() for t in [*self.reasoning, str_of(data.get("reasoningText"))] if t.strip())
        self.reasoning = []
        text = str_of(data.get("content")).strip()
        if not (text or thinking or tools):
            return
        model = str_of(data.get("model"), self.model)
        meta: dict[str, Any] = {"model": model} if model else {}
        usage = usage_of(output_tokens=token_count(data.get("outputTokens")))
        if usage:
            meta["usage"] = usage
        sidechain = bool(data.get("parentToolCallId"))
        self.messages.append(
            Message(
                id="", role=ASSISTANT, text=text, thinking=thinking, timestamp=stamp, tools=tools, sidechain=sidechain, meta=meta
            )
        )

    def _extra_call(self, data: dict[str, Any], stamp: Any) -> None:
        """A call no `toolRequests` listed (one the user ran, `!cmd`): kept on a reply of its own."""
        call_id = data.get("toolCallId")
        if call_id in self.calls or not data.get("toolName"):
            return
        call = self.calls.add(call_id, ToolCall(str(data["toolName"]), arguments(data.get("arguments"))))
        self.messages.append(
            Message(id="", role=ASSISTANT, text="", timestamp=stamp, tools=[call], meta={"requested_by": "user"})
        )

    def _totals(self, data: dict[str, Any]) -> None:
        for metrics in dict_of(data.get("modelMetrics")).values():
            usage = dict_of(dict_of(metrics).get("usage"))
            for key, name in (
                ("inputTokens", "input_tokens"),
                ("outputTokens", "output_tokens"),
                ("cacheReadTokens", "cache_read_tokens"),
                ("cacheWriteTokens", "cache_write_tokens"),
            ):
                self.totals[name] = self.totals.get(name, 0) + token_count(usage.get(key))


def _result(data: dict[str, Any]) -> str:
    """A tool's answer: the fuller `detailedContent`, else `content`, else the error."""
    result = data.get("result")
    if isinstance(result, str):
        return result_text(result)
    result = dict_of(result)
    content, detailed = str_of(result.get("content")), str_of(result.get("detailedContent"))
    text = detailed if len(detailed) > len(content) else content
    if not text and isinstance(result.get("contents"), list):
        text = result_text(result["contents"])
    if not text and data.get("success") is False:
        text = str_of(dict_of(data.get("error")).get("message"))
    return result_text(text)


def parse(path: Path) -> list[Session]:
    path = Path(path)
    warnings: list[str] = []
    reader = _Reader()
    for _number, event in json_records(path, read_text(path), warnings):
        reader.event(event)
    if not reader.messages:
        return []
    facts, described = reader.facts, workspace(path)
    session_id = facts.get("id") or described.get("id") or path.absolute().parent.name
    meta: dict[str, Any] = {"model": reader.model, "cli_version": facts.get("version"), "branch": facts.get("branch")}
    if any(reader.totals.values()):
        meta["session_usage"] = {k: v for k, v in reader.totals.items() if v}
    return [
        build_session(
            path,
            SOURCE,
            session_id,
            reader.messages,
            title=described.get("name"),
            cwd=facts.get("cwd") or described.get("cwd"),
            project="Copilot CLI",
            started=to_utc(facts.get("started")),
            meta=meta,
            resume=resume_command("copilot", session_id),
            warnings=warnings,
        )
    ]


FORMAT = SourceFormat(
    name=SOURCE,
    label="GitHub Copilot CLI session",
    sniff=sniff,
    parse=parse,
    tool="GitHub Copilot CLI",
    versions="0.0.369 – 1.0.102 (event schema 1)",
    places="`$COPILOT_HOME` or `~/.copilot` (`%USERPROFILE%\\.copilot`), and `$XDG_STATE_HOME/.copilot`: "
    "`session-state/<id>/events.jsonl` (older: `session-state/<id>.jsonl`)",
    resume="`copilot --resume <id>`",
    keeps="your words (not the injected context), replies, reasoning as thinking, tool calls with arguments and "
    "results (each once), model, output tokens per reply; title and folder from `workspace.yaml`",
)
