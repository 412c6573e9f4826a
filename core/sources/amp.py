"""Amp threads (`~/.local/share/amp/threads/T-<id>.json`).

Amp (ampcode.com) keeps a local JSON copy of each thread: `{v, id: "T-…",
created (ms), title?, messages, env: {initial: {trees: [{displayName, uri}]}},
meta}`. Messages are Anthropic-like: a user's `text`, an assistant's `text`,
`thinking` and `tool_use` {id, name, input}; a tool's answer comes back in a
user message as `tool_result` {toolUseID, run: {status, result | progress,
error?}}. Assistant messages carry `usage` {model, inputTokens, outputTokens,
cacheCreationInputTokens, cacheReadInputTokens, timestamp}; OpenAI models
report the uncached prompt under `cacheCreationInputTokens`, folded into the
input. `info` messages (summaries) are not the conversation. Threads also
live on Amp's servers: only the ones Amp copied to disk can be read. Amp is
closed source: the shape follows other readers and public notes.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from convo_tui.core.errors import ParseError
from convo_tui.core.model import ASSISTANT, USER, Message, Session, ToolCall
from convo_tui.core.resume import command as resume_command
from convo_tui.core.sources import SourceFormat, read_text
from convo_tui.core.sources._common import (
    IMAGE,
    Names,
    arguments,
    dict_of,
    list_of,
    load_json,
    result_text,
    str_of,
    to_utc,
    token_count,
    usage_of,
)
from convo_tui.core.sources._drift import unknown
from convo_tui.core.sources._session import Calls, Reply, build_session

SOURCE = "amp"
THREAD_ID = re.compile(r"T-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_ID_IN_HEAD = re.compile(r'"id"\s*:\s*"T-[0-9a-fA-F-]{36}"')
_FAILED = Names({"error", "cancelled", "rejected-by-user"})


def sniff(path: Path, head: str) -> bool:
    text = head.lstrip()
    return text.startswith("{") and bool(_ID_IN_HEAD.search(text[:4096])) and '"messages"' in text


def _run_text(run: dict[str, Any]) -> str:
    """What a tool run answered: its result (text, `output`, `content` or `diff`), its progress, or its error."""
    result = run.get("result", run.get("progress"))
    if isinstance(result, dict):
        for key in ("output", "content", "diff"):
            if isinstance(result.get(key), str):
                return result_text(result[key])
    text = result_text(result)
    if not text and run.get("status") in _FAILED:
        text = str_of(dict_of(run.get("error")).get("message")) or f"[{run.get('status')}]"
    return text


def _usage(usage: dict[str, Any]) -> dict[str, int]:
    creation = token_count(usage.get("cacheCreationInputTokens"))
    openai = str_of(usage.get("model")).startswith(("gpt-", "o3", "o4"))
    return usage_of(
        input_tokens=token_count(usage.get("inputTokens")) + (creation if openai else 0),
        cache_creation_input_tokens=0 if openai else creation,
        cache_read_input_tokens=token_count(usage.get("cacheReadInputTokens")),
        output_tokens=token_count(usage.get("outputTokens")),
    )


class _Reader:
    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.calls = Calls()

    def message(self, message: dict[str, Any]) -> None:
        role = message.get("role")
        if role == "info":
            return
        if role not in ("user", "assistant"):
            unknown("event", f"message.{role}")
            return
        reply = Reply()
        for block in list_of(message.get("content")):
            self._block(reply, dict_of(block))
        usage = dict_of(message.get("usage"))
        stamp = to_utc(dict_of(message.get("meta")).get("sentAt")) or to_utc(usage.get("timestamp"))
        meta = {"model": usage.get("model"), "usage": _usage(usage)} if role == "assistant" else {}
        built = reply.message(USER if role == "user" else ASSISTANT, stamp, meta)
        if built is not None:
            self.messages.append(built)

    def _block(self, reply: Reply, block: dict[str, Any]) -> None:
        kind = block.get("type")
        if kind == "text":
            reply.texts.append(str_of(block.get("text")))
        elif kind == "thinking":
            reply.thinking.append(str_of(block.get("thinking")))
        elif kind == "tool_use":
            call = ToolCall(str_of(block.get("name")) or "tool", arguments(block.get("input")))
            reply.tools.append(self.calls.add(block.get("id"), call))
        elif kind == "tool_result":
            call_id = block.get("toolUseID") or block.get("tool_use_id")
            run = dict_of(block.get("run"))
            self.calls.answer(call_id, _run_text(run) if run else result_text(block.get("content") or block.get("output")))
        elif kind == "image":
            reply.texts.append(IMAGE)
        elif kind != "redacted_thinking":
            unknown("part", kind)


def _folder(thread: dict[str, Any]) -> tuple[str | None, str]:
    """(the thread's folder, its display name) from the first workspace tree."""
    initial = dict_of(dict_of(thread.get("env")).get("initial"))
    for tree in list_of(initial.get("trees")):
        tree = dict_of(tree)
        uri = tree.get("uri")
        if isinstance(uri, dict):
            uri = uri.get("fsPath") or uri.get("path")
        if isinstance(uri, str) and uri:
            path = unquote(urlparse(uri).path) if uri.startswith("file:") else uri
            return path or None, str_of(tree.get("displayName"))
    return None, ""


def _updated(thread: dict[str, Any]) -> Any:
    ends = [to_utc(dict_of(t).get("endTime")) for t in list_of(dict_of(thread.get("meta")).get("traces"))]
    return max((e for e in ends if e is not None), default=None)


def parse(path: Path) -> list[Session]:
    path = Path(path)
    thread = load_json(path, read_text(path))
    if not isinstance(thread, dict) or not isinstance(thread.get("messages"), list):
        raise ParseError(path, "not an Amp thread (no `messages` list)")
    reader = _Reader()
    for message in thread["messages"]:
        reader.message(dict_of(message))
    if not reader.messages:
        return []
    session_id = str_of(thread.get("id")) or path.stem
    cwd, name = _folder(thread)
    return [
        build_session(
            path,
            SOURCE,
            session_id,
            reader.messages,
            title=thread.get("title"),
            cwd=cwd,
            project=name or "Amp",
            started=to_utc(thread.get("created")),
            updated=_updated(thread),
            meta={"mode": thread.get("agentMode")},
            resume=resume_command("amp", session_id),
        )
    ]


FORMAT = SourceFormat(
    name=SOURCE,
    label="Amp thread",
    sniff=sniff,
    parse=parse,
    tool="Amp",
    versions="thread files of 2025-06 – 2026-01 (closed source: public notes and other readers)",
    places="`$XDG_DATA_HOME/amp/threads` or `~/.local/share/amp/threads` (all systems), and the older "
    "`<Code, Cursor, Windsurf app dir>/User/globalStorage/sourcegraph.amp/threads3`",
    resume="`amp threads continue <id>`",
    keeps="your words, replies, thinking, tool calls with inputs and results, model and tokens per reply, the "
    "title and the workspace folder",
)
