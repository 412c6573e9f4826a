"""ChatGPT data exports (`conversations.json`: many conversations in one file).

Each conversation is a tree in `mapping` (node id -> message, parent,
children): edits and regenerations are branches. The branch the user last saw
ends at `current_node`; it is read by following parents up and reversing, never
in dict order. Everything the assistant side does between two user messages
(tool calls, tool output, thoughts, the answer) becomes ONE assistant Message,
as ChatGPT shows it: calls go to `tools`, reasoning to `thinking`, and tool
output is skipped from the text.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from convo_tui.core.errors import ParseError
from convo_tui.core.model import ASSISTANT, SYSTEM, USER, Message, Session, ToolCall
from convo_tui.core.sources import SourceFormat, read_text
from convo_tui.core.sources._common import (
    Names,
    clip,
    clip_result,
    dict_of,
    json_error_reason,
    number_messages,
    str_of,
    title_from_messages,
    to_utc,
)
from convo_tui.core.sources._drift import unknown

SOURCE = "chatgpt"
PROJECT = "ChatGPT"
IMAGE = "[image]"
_KNOWN_CONTENT = Names(
    {
        "text",
        "multimodal_text",
        "code",
        "execution_output",
        "thoughts",
        "reasoning_recap",
        "tether_browsing_display",
        "tether_quote",
        "system_error",
        "user_editable_context",
        "model_editable_context",
        "sonic_webpage",
        "computer_output",
    }
)
AUDIO = "[audio]"
_SNIFF = re.compile(r'"mapping"\s*:\s*\{')


def sniff(path: Path, head: str) -> bool:
    start = head.lstrip()[:1]
    return start in {"[", "{"} and bool(_SNIFF.search(head)) and ('"current_node"' in head or '"create_time"' in head)


def _parts_text(content: dict[str, Any]) -> str:
    """Readable text of `text` / `multimodal_text` content; images become a marker."""
    out: list[str] = []
    parts = content.get("parts")
    for part in parts if isinstance(parts, list) else []:
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, dict):
            kind = str_of(part.get("content_type"))
            if "image" in kind:
                out.append(IMAGE)
            elif "audio" in kind:
                out.append(AUDIO)
            elif isinstance(part.get("text"), str):
                out.append(part["text"])
    return "\n\n".join(p.strip() for p in out if p and p.strip())


def _thoughts(content: dict[str, Any]) -> str:
    kind = content.get("content_type")
    if kind == "reasoning_recap":
        return str(content.get("content") or "").strip()
    blocks = []
    thoughts = content.get("thoughts")
    for thought in thoughts if isinstance(thoughts, list) else []:
        if isinstance(thought, dict):
            summary, body = str(thought.get("summary") or "").strip(), str(thought.get("content") or "").strip()
            blocks.append("\n".join(x for x in (summary, body) if x))
    return "\n\n".join(b for b in blocks if b)


def _tool_args(content: dict[str, Any], text: str) -> dict[str, Any]:
    if content.get("content_type") == "code":
        args: dict[str, Any] = {"code": str(content.get("text") or "")}
        if content.get("language") and content.get("language") != "unknown":
            args["language"] = content["language"]
        return args
    try:
        parsed = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        parsed = None
    return parsed if isinstance(parsed, dict) else {"input": text}


class _Reply:
    """The assistant side between two user messages."""

    def __init__(self, node_id: str, stamp: Any):
        self.node_id = node_id
        self.stamp = stamp
        self.texts: list[str] = []
        self.thinking: list[str] = []
        self.tools: list[ToolCall] = []

    def message(self) -> Message | None:
        text = "\n\n".join(t for t in self.texts if t)
        thinking = "\n\n".join(t for t in self.thinking if t)
        if not (text or thinking or self.tools):
            return None
        return Message(
            id="",
            role=ASSISTANT,
            text=text,
            thinking=thinking,
            timestamp=to_utc(self.stamp),
            tools=self.tools,
            meta={"node": self.node_id},
        )


def _branch(conv: dict[str, Any], where: str, warnings: list[str]) -> list[dict[str, Any]]:
    """The messages along the current branch, root first."""
    mapping = conv.get("mapping")
    if not isinstance(mapping, dict) or not mapping:
        return []
    node_id = conv.get("current_node")
    if not isinstance(node_id, str) or node_id not in mapping:
        if node_id is not None:
            warnings.append(f"{where}: current_node {node_id} is not in the mapping; reading the latest leaf")
        node_id = _latest_leaf(mapping)
    chain: list[dict[str, Any]] = []
    seen: set[str] = set()
    while node_id is not None:
        if node_id in seen:
            warnings.append(f"{where}: node {node_id} is its own ancestor; branch cut there")
            break
        seen.add(node_id)
        node = mapping.get(node_id)
        if not isinstance(node, dict):
            warnings.append(f"{where}: parent {node_id} is missing from the mapping; earlier messages are lost")
            break
        if isinstance(node.get("message"), dict):
            chain.append(node["message"])
        node_id = (
            node["parent"] if isinstance(node.get("parent"), str) else None
        )  # ids are strings; anything else ends the branch
    chain.reverse()
    return chain


def _latest_leaf(mapping: dict[str, Any]) -> str | None:
    leaves = [k for k, n in mapping.items() if isinstance(n, dict) and not n.get("children")]

    def stamp(key: str) -> float:
        message = mapping[key].get("message")
        value = message.get("create_time") if isinstance(message, dict) else None
        return float(value) if isinstance(value, (int, float)) else 0.0

    return max(leaves, key=stamp) if leaves else None


def _is_status_author(message: dict[str, Any]) -> bool:
    """A `tool` message that is the model's progress line, not a tool's output."""
    metadata = dict_of(message.get("metadata"))
    return "finished_text" in metadata or "initial_text" in metadata


def _hidden(message: dict[str, Any]) -> bool:
    metadata = dict_of(message.get("metadata"))
    return bool(metadata.get("is_visually_hidden_from_conversation") or metadata.get("is_user_system_message"))


def _messages(chain: list[dict[str, Any]]) -> list[Message]:
    out: list[Message] = []
    reply: _Reply | None = None

    def close() -> None:
        nonlocal reply
        if reply is not None:
            done = reply.message()
            if done is not None:
                out.append(done)
        reply = None

    for message in chain:
        author = dict_of(message.get("author"))
        role = str_of(author.get("role"))
        content = dict_of(message.get("content"))
        kind = str_of(content.get("content_type"))
        recipient = str_of(message.get("recipient"), "all")
        if _hidden(message):
            continue
        text = _parts_text(content)
        if role == USER:
            close()
            if text:
                out.append(
                    Message(
                        id="",
                        role=USER,
                        text=text,
                        timestamp=to_utc(message.get("create_time")),
                        meta={"node": message.get("id")},
                    )
                )
            continue
        if role == SYSTEM:
            if text:
                close()
                out.append(Message(id="", role=SYSTEM, text=text, timestamp=to_utc(message.get("create_time"))))
            continue
        if reply is None:
            reply = _Reply(str(message.get("id") or ""), message.get("create_time"))
        if kind in ("thoughts", "reasoning_recap"):
            reply.thinking.append(_thoughts(content))
        elif role == "tool":
            name = str(author.get("name") or "tool")
            called = [t for t in reply.tools if t.name == name]
            output = text or str(content.get("text") or "")
            if called:
                pending = next((t for t in called if not t.result), None)
                if pending is not None and output.strip():
                    pending.result = clip_result(output)
            elif _is_status_author(message):
                # o3-mini era reasoning and "Reasoned for 8 seconds" placeholders: the
                # model thinking, logged under a made-up author name, never a tool.
                if text.strip():
                    reply.thinking.append(text)
            else:
                reply.tools.append(ToolCall(name, {}, clip_result(output)))  # a tool that ran with no visible call
        elif recipient != "all":
            raw = text or str(content.get("text") or "")
            reply.tools.append(ToolCall(recipient, _tool_args(content, raw)))
        elif kind == "code":
            reply.tools.append(ToolCall("python", _tool_args(content, "")))
        elif role == ASSISTANT and text:
            reply.texts.append(text)
        if kind and kind not in _KNOWN_CONTENT:
            unknown("part", kind)
    close()
    return out


def _session(conv: dict[str, Any], path: Path, index: int, warnings: list[str]) -> Session | None:
    session_id = str(conv.get("conversation_id") or conv.get("id") or f"{path.stem}-{index}")
    messages = _messages(_branch(conv, f"{path}: conversation {session_id}", warnings))
    if not messages:
        return None
    number_messages(messages)
    title = str(conv.get("title") or "").strip()
    session = Session(
        id=session_id,
        title=clip(title) if title else title_from_messages(messages, session_id),
        project=PROJECT,
        source=SOURCE,
        path=str(path),
        messages=messages,
        started_at=to_utc(conv.get("create_time")),
        updated_at=to_utc(conv.get("update_time")),
        warnings=warnings,
    )
    session.fill_times()
    return session


def parse(path: Path) -> list[Session]:
    path = Path(path)
    text = read_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(path, json_error_reason(exc, text), line=exc.lineno) from None
    except RecursionError:
        raise ParseError(path, "JSON nested too deeply") from None
    conversations = data if isinstance(data, list) else [data]
    sessions: list[Session] = []
    pending: list[str] = []  # problems with entries that gave no session: told with the next one
    for index, conv in enumerate(conversations):
        if not isinstance(conv, dict):
            pending.append(f"{path}: entry {index} is not a conversation object; skipped")
            continue
        warnings = pending
        session = _session(conv, path, index, warnings)
        if session is not None:
            if any(s.id == session.id for s in sessions):
                session.id = f"{session.id}-{index}"  # ids must stay unique within the file
            sessions.append(session)
            pending = []
    if pending and sessions:
        sessions[-1].warnings.extend(pending)
    return sessions


FORMAT = SourceFormat(
    name=SOURCE,
    label="ChatGPT export",
    sniff=sniff,
    parse=parse,
    version=2,
    tool="ChatGPT export",
    versions="`conversations.json` of the data export, 2024 – 2026",
    places="`conversations.json` from the export (add it to `sources`)",
    resume="none",
    keeps="the branch you last saw (`current_node`); tool calls with their output; reasoning as thinking",
)


def count_conversations(path: Path) -> int:
    """How many conversations an export holds (0 when it cannot be read), for listings."""
    try:
        data = json.loads(read_text(path))
    except (ParseError, json.JSONDecodeError, RecursionError):
        return 0
    entries = data if isinstance(data, list) else [data]
    return sum(1 for entry in entries if isinstance(entry, dict) and isinstance(entry.get("mapping"), dict))
