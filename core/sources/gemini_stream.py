"""Gemini CLI `--output-format stream-json` logs (what `gemini -p ... -o stream-json` prints).

One event a line (gemini-cli `packages/core/src/output/types.ts`): `init`
{session_id, model}, `message` {role, content, delta?}, `tool_use` {tool_name,
tool_id, parameters}, `tool_result` {tool_id, status, output?, error?},
`error` {severity, message} and `result` {status, stats}. The user's prompt is
one `message`; the reply arrives as `delta` chunks, joined here in order; a
tool call ends a reply's text and text after the tool answered is the next
reply (one message per model round, as the saved chats have them). The run's
token totals (`result.stats`, cached tokens inside the input) go on its last
reply. The log has no thinking, folder or per-reply counts: the same run is
also saved by Gemini CLI under `~/.gemini/tmp`, which the `gemini-cli` reader
reads with more detail. Several runs appended to one file are read in turn.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from convo_tui.core.model import ASSISTANT, SYSTEM, USER, Message, Session, ToolCall
from convo_tui.core.resume import command as resume_command
from convo_tui.core.sources import SourceFormat, read_text
from convo_tui.core.sources._common import (
    arguments,
    dict_of,
    first_record,
    json_records,
    result_text,
    str_of,
    to_utc,
    token_count,
    usage_of,
)
from convo_tui.core.sources._drift import unknown
from convo_tui.core.sources._session import Calls, build_session

SOURCE = "gemini-stream"


def sniff(path: Path, head: str) -> bool:
    first = first_record(head)
    return first.get("type") == "init" and "session_id" in first and "subtype" not in first and "model" in first


class _Run:
    """One `init` and the events after it."""

    def __init__(self, init: dict[str, Any]):
        self.session_id = str_of(init.get("session_id"))
        self.model = str_of(init.get("model"))
        self.started = to_utc(init.get("timestamp"))
        self.messages: list[Message] = []
        self.calls = Calls()
        self.reply: Message | None = None  # the reply whose text is still streaming

    def event(self, kind: Any, event: dict[str, Any]) -> None:
        stamp = to_utc(event.get("timestamp"))
        if kind == "message":
            self._message(event, stamp)
        elif kind == "tool_use":
            name = str_of(event.get("tool_name")) or "tool"
            call = self.calls.add(event.get("tool_id"), ToolCall(name, arguments(event.get("parameters"))))
            self._current(stamp).tools.append(call)
        elif kind == "tool_result":
            self.reply = None  # what the model says next is a new round
            output = event.get("output")
            if output is None:
                output = dict_of(event.get("error")).get("message")
            self.calls.answer(event.get("tool_id"), result_text(output))
        elif kind == "error" and event.get("severity") != "warning":
            said = str_of(event.get("message"))
            if said:
                self.messages.append(Message(id="", role=SYSTEM, text=said, timestamp=stamp, error=True))
        elif kind == "result":
            self._stats(dict_of(event.get("stats")))
        elif kind != "error":
            unknown("event", kind)

    def _message(self, event: dict[str, Any], stamp: Any) -> None:
        text = str_of(event.get("content"))
        if event.get("role") == "user":
            self.reply = None
            if text.strip():
                self.messages.append(Message(id="", role=USER, text=text.strip(), timestamp=stamp))
        elif event.get("role") == "assistant":
            self._current(stamp).text += text
        else:
            unknown("field", f"message.role={event.get('role')}")

    def _current(self, stamp: Any) -> Message:
        return self.reply if self.reply is not None else self._new(stamp)

    def _new(self, stamp: Any) -> Message:
        self.reply = Message(id="", role=ASSISTANT, text="", timestamp=stamp, meta={"model": self.model} if self.model else {})
        self.messages.append(self.reply)
        return self.reply

    def _stats(self, stats: dict[str, Any]) -> None:
        usage = usage_of(
            input_tokens=token_count(stats.get("input_tokens")),
            cached_input_tokens=token_count(stats.get("cached")),
            output_tokens=token_count(stats.get("output_tokens")),
        )
        replies = [m for m in self.messages if m.role == ASSISTANT]
        if usage and replies:
            replies[-1].meta["usage"] = usage
        models = dict_of(stats.get("models"))
        if not self.model and len(models) == 1:
            self.model = next(iter(models))

    def finished(self) -> list[Message]:
        for message in self.messages:
            message.text = message.text.strip()
        return [m for m in self.messages if m.text or m.tools]


def parse(path: Path) -> list[Session]:
    path = Path(path)
    warnings: list[str] = []
    runs: list[_Run] = []
    for _number, event in json_records(path, read_text(path), warnings):
        kind = event.get("type")
        if kind == "init":
            runs.append(_Run(event))
        elif runs:
            runs[-1].event(kind, event)
    by_id: dict[str, list[_Run]] = {}
    for number, run in enumerate(runs):
        by_id.setdefault(run.session_id or f"{path.stem}-{number}", []).append(run)
    sessions: list[Session] = []
    for session_id, group in by_id.items():
        messages = [m for run in group for m in run.finished()]
        if not messages:
            continue
        model = next((run.model for run in group if run.model), "")
        sessions.append(
            build_session(
                path,
                SOURCE,
                session_id,
                messages,
                project="Gemini CLI",
                started=group[0].started,
                meta={"model": model},
                resume=resume_command("gemini", session_id),
                warnings=warnings if not sessions else [],
            )
        )
    return sessions


FORMAT = SourceFormat(
    name=SOURCE,
    label="Gemini CLI stream-json log",
    sniff=sniff,
    parse=parse,
    tool="Gemini CLI stream-json",
    versions="gemini-cli source of 2026-08 (`5411f113`, `packages/core/src/output/types.ts`)",
    places="wherever you saved the output (add it to `sources`)",
    resume="`gemini --resume <id>` (on the machine that ran it)",
    keeps="your prompt, the reply's streamed chunks joined (one message per model round), tool calls with parameters "
    "and results, errors, the model and the run's token totals",
)
