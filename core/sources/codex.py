"""Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`).

One JSON object a line, `{timestamp, type, payload}`. Two logs interleave:
`response_item` is what the model saw (messages, reasoning, tool calls and
their outputs) and `event_msg` is what the terminal showed. The user's words
come from `event_msg.user_message`: the `response_item` user messages also
carry AGENTS.md and `<environment_context>` blocks Codex adds on its own.
Files written before the envelope existed (mid 2025) hold the items bare after
a first `{id, timestamp, instructions}` line; they read the same way.

Token usage: after each model request Codex writes an `event_msg` of type
`token_count` whose `info` holds `last_token_usage` (that request) and
`total_token_usage` (the session so far), OpenAI style: `input_tokens`
includes `cached_input_tokens`, `output_tokens` includes
`reasoning_output_tokens`. A count is often written twice (a rate-limit
refresh repeats it): an identical count in a row is read once. The requests
of one answer add up in its `Message.meta["usage"]`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from convo_tui.core.model import ASSISTANT, USER, Message, Session, ToolCall
from convo_tui.core.resume import command as resume_command
from convo_tui.core.sources import SessionPart, SourceFormat, read_lines
from convo_tui.core.sources._common import (
    Names,
    add_usage,
    arguments,
    clip_result,
    dict_of,
    folder_name,
    json_error_reason,
    parts_text,
    title_from_messages,
    to_utc,
    token_count,
    usage_of,
)
from convo_tui.core.sources._drift import unknown

SOURCE = "codex"
_ENVELOPE = re.compile(r'"type"\s*:\s*"(session_meta|response_item|event_msg|turn_context)"')
_BARE_ITEM = re.compile(r'"type"\s*:\s*"(message|reasoning|function_call|function_call_output)"')
# Blocks Codex puts in user messages on its own: never the user's words.
_SCAFFOLD = re.compile(
    r"^\s*(<environment_context>|<user_instructions>|<permissions instructions>|# AGENTS\.md instructions|"
    r"<INSTRUCTIONS>|<user_shell_command>|<turn_aborted>)",
)
_CWD_IN_CONTEXT = re.compile(r"<environment_context>.*?<cwd>(.*?)</cwd>", re.DOTALL)
# Response items that hold nothing to show (opaque compaction state, ghost commits).
_QUIET_ITEMS = Names({"compaction", "compaction_summary", "ghost_snapshot", "image_generation_call"})
_USAGE_KEYS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens")
_ID_IN_NAME = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$")


def sniff(path: Path, head: str) -> bool:
    if path.is_dir():
        return False
    first = next((line for line in head.splitlines() if line.strip()), "").strip()
    if not first.startswith("{"):
        return False
    if '"session_meta"' in first and _ENVELOPE.search(first):
        return True
    # An older rollout: a header line with instructions, then bare response items.
    if path.name.startswith("rollout-") and _BARE_ITEM.search(head):
        return True
    return bool(_ENVELOPE.search(first)) and '"payload"' in first and path.name.startswith("rollout-")


def _output_text(raw: Any) -> str:
    """A tool output: plain text, or Codex's `{"output": ..., "metadata": ...}` JSON string."""
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            return clip_result(raw)
        if isinstance(value, dict) and isinstance(value.get("output"), str):
            return clip_result(value["output"])
        return clip_result(raw)
    if isinstance(raw, dict):
        if isinstance(raw.get("content"), str):
            return clip_result(raw["content"])
        return clip_result(json.dumps(raw, ensure_ascii=False))
    if isinstance(raw, list):
        return clip_result(parts_text(raw))
    return ""


def _usage(value: Any) -> dict[str, int]:
    if not isinstance(value, dict):
        return {}
    return usage_of(**{key: token_count(value.get(key)) for key in _USAGE_KEYS})


class _Reader:
    """Lines -> messages. With a `part_chars` bound, the part being read is
    closed before the user's next prompt once it reached the bound (and the
    prompts come from events: an older rollout's are placed only at its end)."""

    def __init__(self, path: Path, part_chars: int | None = None):
        self.path = path
        self.part_chars = part_chars
        self.ready: list[list[Message]] = []
        self.numbered = 0
        self.part_size = 0
        self.first_title = ""
        self.meta: dict[str, Any] = {}
        self.model = ""
        self.messages: list[Message] = []
        self.calls: dict[str, ToolCall] = {}
        self.response_users: list[Message] = []  # user items, used only when no event carries the words
        self.has_user_events = False
        self.reply: Message | None = None  # the assistant message being built
        self._last_count = ""  # the previous token_count, to skip it when written again
        self._session_total: dict[str, int] = {}  # total_token_usage so far
        self._unclaimed: dict[str, int] = {}  # usage counted before its answer had a message

    def line(self, value: dict[str, Any]) -> None:
        kind = value.get("type")
        payload = value.get("payload")
        stamp = to_utc(value.get("timestamp"))
        if kind == "session_meta" and isinstance(payload, dict):
            meta = payload["meta"] if isinstance(payload.get("meta"), dict) else payload
            self.meta = {**meta, **self.meta}
        elif kind == "turn_context" and isinstance(payload, dict):
            self.model = str(payload.get("model") or self.model)
            if isinstance(payload.get("cwd"), str):
                self.meta.setdefault("cwd", payload["cwd"])
        elif kind == "response_item" and isinstance(payload, dict):
            self.item(payload, stamp)
        elif kind == "event_msg" and isinstance(payload, dict):
            self.event(payload, stamp)
        elif kind is None and "instructions" in value and "id" in value and not self.meta:
            self.meta = dict(value)  # the header of an older rollout
        elif kind in ("message", "reasoning", "function_call", "function_call_output", "custom_tool_call"):
            self.item(value, to_utc(value.get("timestamp")))
        elif kind not in ("compacted", None):
            unknown("record", kind)

    def event(self, payload: dict[str, Any], stamp: Any) -> None:
        if payload.get("type") == "token_count":
            self._token_count(payload.get("info"))
            return
        if payload.get("type") != "user_message":
            return
        text = payload.get("message")
        if not isinstance(text, str) or _SCAFFOLD.match(text):
            return
        self.has_user_events = True
        images = payload.get("images")
        if images:
            text = "\n\n".join(["[image]" * len(images) if isinstance(images, list) else "[image]", text]).strip()
        if text.strip():
            self._cut_before_prompt()
            self._append(Message(id="", role=USER, text=text.strip(), timestamp=stamp))
            self.first_title = self.first_title or title_from_messages(self.messages[-1:], "")

    def item(self, item: dict[str, Any], stamp: Any) -> None:
        kind = item.get("type")
        if kind == "message":
            role = item.get("role")
            text = parts_text(item.get("content")).strip()
            if role == "assistant":
                if text:
                    self._reply(stamp).text = "\n\n".join(p for p in (self._reply(stamp).text, text) if p)
            elif role == "user":
                context = _CWD_IN_CONTEXT.search(text)
                if context and context.group(1).strip():
                    self.meta.setdefault("cwd", context.group(1).strip())
                if text and not _SCAFFOLD.match(text):
                    self.response_users.append(
                        Message(id="", role=USER, text=text, timestamp=stamp, meta={"at": len(self.messages)})
                    )
                self.reply = None
        elif kind == "reasoning":
            summary = item.get("summary")
            texts = [s.get("text", "") for s in summary if isinstance(s, dict)] if isinstance(summary, list) else []
            content = item.get("content")
            if not any(texts) and isinstance(content, list):
                texts = [c.get("text", "") for c in content if isinstance(c, dict)]
            thinking = "\n\n".join(t.strip() for t in texts if isinstance(t, str) and t.strip())
            if thinking:
                reply = self._reply(stamp)
                reply.thinking = "\n\n".join(p for p in (reply.thinking, thinking) if p)
        elif kind in ("function_call", "custom_tool_call", "local_shell_call", "web_search_call"):
            name = str(item.get("name") or kind.replace("_call", ""))
            if kind == "custom_tool_call":
                args = {"input": item.get("input")} if isinstance(item.get("input"), str) else arguments(item.get("input"))
            elif kind == "local_shell_call" or kind == "web_search_call":
                args = arguments(item.get("action"))
            else:
                args = arguments(item.get("arguments"))
            call = ToolCall(name, args)
            self._reply(stamp).tools.append(call)
            call_id = item.get("call_id") or item.get("id")
            if isinstance(call_id, str):
                self.calls[call_id] = call
        elif kind in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
            answered = self.calls.get(str(item.get("call_id")))
            if answered is not None and not answered.result:
                answered.result = _output_text(item.get("output"))
        elif kind not in _QUIET_ITEMS:
            unknown("part", kind)

    def _token_count(self, info: Any) -> None:
        """One request's usage, added to the answer being written (`info` is null before the first request)."""
        if not isinstance(info, dict):
            return
        total, last = info.get("total_token_usage"), info.get("last_token_usage")
        seen = json.dumps([total, last], sort_keys=True, default=str)
        if seen == self._last_count:
            return
        self._last_count = seen
        usage = _usage(last)
        if isinstance(total, dict):
            if not usage:  # older rollouts: only the running total, so the difference
                previous = self._session_total
                usage = usage_of(**{k: v - previous.get(k, 0) for k, v in _usage(total).items()})
            self._session_total = _usage(total)
        if not usage:
            return
        if self.reply is not None:
            self.reply.meta["usage"] = add_usage(self.reply.meta.get("usage", {}), usage)
        else:
            self._unclaimed = add_usage(self._unclaimed, usage)

    def _reply(self, stamp: Any) -> Message:
        if self.reply is None:
            self.reply = Message(id="", role=ASSISTANT, text="", timestamp=stamp)
            if self.model:  # the model of this answer: a session can switch (/model), its price with it
                self.reply.meta["model"] = self.model
            if self._unclaimed:  # a request of this answer that wrote nothing readable (hidden reasoning)
                self.reply.meta["usage"], self._unclaimed = self._unclaimed, {}
            self._append(self.reply)
        return self.reply

    def _append(self, message: Message) -> None:
        if message.role != ASSISTANT:
            self.reply = None
        self.messages.append(message)

    def _cut_before_prompt(self) -> None:
        if self.part_chars is None or self.part_size < self.part_chars or not self.has_user_events:
            return
        kept = _readable(self.messages)
        if not kept or kept[-1].role != ASSISTANT:
            return
        self._number(kept)
        self.ready.append(kept)
        self.messages, self.part_size, self.reply = [], 0, None
        self.calls.clear()
        self.response_users.clear()  # the prompts come from events: these are never used

    def _number(self, messages: list[Message]) -> None:
        for position, message in enumerate(messages, start=self.numbered):
            message.id = f"msg-{position}"
        self.numbered += len(messages)

    def grow(self, line: str) -> None:
        """The part's size is what was read for it (a rollout writes each output twice)."""
        self.part_size += len(line)

    def finish(self) -> list[Message]:
        messages = self.messages
        answers = [m for m in messages if m.role == ASSISTANT]
        if self._unclaimed and answers:  # a last request with no answer after it still counts
            answers[-1].meta["usage"] = add_usage(answers[-1].meta.get("usage", {}), self._unclaimed)
        if not self.has_user_events and self.response_users:
            # An older rollout without events: the user's items, in their places.
            for offset, user in enumerate(self.response_users):
                messages.insert(user.meta.pop("at") + offset, user)
        kept = _readable(messages)
        self._number(kept)
        return kept


def _readable(messages: list[Message]) -> list[Message]:
    """Without the answers that wrote nothing readable (hidden reasoning only)."""
    return [m for m in messages if m.role != ASSISTANT or m.text or m.thinking or m.tools]


def _session(reader: _Reader, messages: list[Message], problems: list[tuple[int, str]], *, final: bool) -> Session:
    path = reader.path
    meta = reader.meta
    match = _ID_IN_NAME.search(path.name)
    session_id = str(meta.get("id") or (match.group(1) if match else path.stem))
    cwd = meta.get("cwd") if isinstance(meta.get("cwd"), str) and meta.get("cwd") else None
    git = dict_of(meta.get("git"))
    session = Session(
        id=session_id,
        title=reader.first_title or title_from_messages(messages, path.stem),
        project=folder_name(cwd) if cwd else path.parent.name,
        source=SOURCE,
        path=str(path),
        messages=messages,
        started_at=to_utc(meta.get("timestamp")),
        meta={
            k: v
            for k, v in (("model", reader.model), ("cli_version", meta.get("cli_version")), ("branch", git.get("branch")))
            if v
        },
        cwd=cwd,
        resume=resume_command("codex", session_id),
        warnings=[f"{path}:{line}: {reason}" for line, reason in problems] if final else [],
    )
    session.fill_times()
    return session


def stream(path: Path, part_chars: int | None) -> Iterator[SessionPart]:
    """The rollout's session in parts of about `part_chars` characters (None: one
    part), reading one line at a time."""
    path = Path(path)
    reader = _Reader(path, part_chars)
    problems: list[tuple[int, str]] = []
    notes: list[str] = []
    first = 0
    session_id: str | None = None
    for number, line in read_lines(path, notes):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append((number, json_error_reason(exc, line)))
            continue
        except RecursionError:
            problems.append((number, "JSON nested too deeply"))
            continue
        if isinstance(value, dict):
            reader.grow(line)
            reader.line(value)
        while reader.ready:
            messages = reader.ready.pop(0)
            part = _session(reader, messages, problems, final=False)
            session_id = session_id or part.id
            part.id = session_id  # fixed by the first part: later parts land in the same session
            yield SessionPart(part, first, last=False)
            first += len(messages)
    messages = reader.finish()
    if not messages and session_id is None:
        return
    session = _session(reader, messages, problems, final=True)
    session.id = session_id or session.id
    session.resume = resume_command("codex", session.id)
    session.warnings[:0] = notes
    yield SessionPart(session, first, last=True)


def parse(path: Path) -> list[Session]:
    parts = list(stream(path, None))
    return [parts[0].session] if parts else []


FORMAT = SourceFormat(
    name=SOURCE,
    label="Codex CLI rollout",
    sniff=sniff,
    parse=parse,
    version=3,
    stream=stream,
    tool="Codex CLI",
    versions="rollouts of mid 2025 (no envelope) – 2026",
    places="`$CODEX_HOME/sessions` and `$CODEX_HOME/archived_sessions`; `CODEX_HOME` defaults to `~/.codex` (`%USERPROFILE%\\.codex` on Windows)",
    resume="`codex resume -- <id>`",
    keeps="your words from the `user_message` events (AGENTS.md and `<environment_context>` are not yours); reasoning summaries as thinking; `function_call` / `custom_tool_call` (apply_patch) with arguments and outputs; tokens per request",
)
