"""Kiro CLI sessions (`~/.kiro/sessions/cli/<id>.jsonl` + `<id>.json`).

The Kiro CLI (AWS, formerly Amazon Q Developer CLI) writes an interactive
session as JSONL `{kind, data}` lines: `Prompt` (the user's `content`
blocks), `AssistantMessage` (`text`, `thinking` and `toolUse` {toolUseId,
name, input} blocks) and `ToolResults` (`toolResult` {toolUseId, content,
status} blocks). Content blocks are `{kind, data}` too: only `text` holds a
string. `<id>.json` beside it holds the session's id, folder, title and times
(the lines carry none). Kiro is closed source: the shape follows other
readers and notes verified on live files.
"""

from __future__ import annotations

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
    result_text,
    str_of,
    to_utc,
)
from convo_tui.core.sources._drift import unknown
from convo_tui.core.sources._session import Calls, Reply, build_session

SOURCE = "kiro-cli"
_KINDS = Names({"Prompt", "AssistantMessage", "ToolResults"})


def sniff(path: Path, head: str) -> bool:
    records = head_records(head, 3)
    return any(r.get("kind") in _KINDS and isinstance(r.get("data"), dict) for r in records)


def _block_text(block: dict[str, Any]) -> str:
    data = block.get("data")
    if isinstance(data, str):
        return data
    data = dict_of(data)
    return str_of(data.get("text")) or str_of(data.get("thinking")) or str_of(data.get("content"))


def _result(data: dict[str, Any]) -> str:
    pieces = []
    for block in list_of(data.get("content")):
        block = dict_of(block)
        value = block.get("data")
        pieces.append(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False) if value is not None else "")
    return result_text("\n".join(p for p in pieces if p))


class _Reader:
    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.calls = Calls()

    def line(self, kind: Any, data: dict[str, Any]) -> None:
        blocks = [dict_of(b) for b in list_of(data.get("content"))]
        if kind == "Prompt":
            text = "\n".join(_block_text(b) for b in blocks if b.get("kind") == "text").strip()
            if text:
                self.messages.append(Message(id="", role=USER, text=text, timestamp=None))
        elif kind == "AssistantMessage":
            self._assistant(blocks)
        elif kind == "ToolResults":
            for block in blocks:
                result = dict_of(block.get("data"))
                if block.get("kind") == "toolResult":
                    self.calls.answer(result.get("toolUseId"), _result(result))
        else:
            unknown("event", kind)

    def _assistant(self, blocks: list[dict[str, Any]]) -> None:
        reply = Reply()
        for block in blocks:
            kind = block.get("kind")
            if kind == "text":
                reply.texts.append(_block_text(block))
            elif kind == "thinking":
                reply.thinking.append(_block_text(block))
            elif kind == "toolUse":
                use = dict_of(block.get("data"))
                call = ToolCall(str_of(use.get("name")) or "tool", arguments(use.get("input")))
                reply.tools.append(self.calls.add(use.get("toolUseId"), call))
            else:
                unknown("part", kind)
        message = reply.message(ASSISTANT, None)
        if message is not None:
            self.messages.append(message)


def metadata(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def parse(path: Path) -> list[Session]:
    path = Path(path)
    warnings: list[str] = []
    reader = _Reader()
    for _number, line in json_records(path, read_text(path), warnings):
        reader.line(line.get("kind"), dict_of(line.get("data")))
    if not reader.messages:
        return []
    meta = metadata(path)
    session_id = str_of(meta.get("session_id")) or path.stem
    started, updated = to_utc(meta.get("created_at")), to_utc(meta.get("updated_at"))
    return [
        build_session(
            path,
            SOURCE,
            session_id,
            reader.messages,
            title=meta.get("title"),
            cwd=meta.get("cwd"),
            project="Kiro",
            started=started,
            updated=updated,
            meta={"agent": dict_of(meta.get("session_state")).get("agent_name")},
            resume=resume_command("kiro", session_id),
            warnings=warnings,
        )
    ]


FORMAT = SourceFormat(
    name=SOURCE,
    label="Kiro CLI session",
    sniff=sniff,
    parse=parse,
    tool="Kiro CLI",
    versions="kiro-cli of 2026-07 (closed source: notes verified on live files, other readers)",
    places="`~/.kiro/sessions/cli/*.jsonl` (`%USERPROFILE%\\.kiro\\sessions\\cli`), with `<id>.json`",
    resume="`kiro-cli chat --resume-id <id>`",
    keeps="your words, replies, thinking, tool calls with inputs and results; title, folder and times from "
    "`<id>.json` (the lines have no times)",
)
