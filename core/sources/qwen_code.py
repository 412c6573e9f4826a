"""Qwen Code sessions (`~/.qwen/projects/<folder>/chats/<id>.jsonl`).

Qwen Code (QwenLM/qwen-code, a Gemini CLI fork) records one `ChatRecord` a
line (`chatRecordingService.ts`): `{uuid, parentUuid, sessionId, timestamp,
type: user | assistant | tool_result | system, subtype?, cwd, version,
message?: {role: user | model, parts}, usageMetadata?, model?,
toolCallResult?, systemPayload?}`. The bodies are Gemini `Content` parts:
`text` (with `thought: true` for thinking), `functionCall` {id, name, args},
`functionResponse` {id, name, response: {output | error}}. Records form a tree
by `parentUuid` (rewinds branch): the conversation is the chain from the last
record back. A `tool_result` record answers a call and is never the user;
`system` records with subtype `custom_title` name the session. Tokens are
Gemini's usage metadata (cached tokens inside the prompt count, thoughts on
top of the answer).
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
    head_records,
    json_records,
    last_branch,
    list_of,
    result_text,
    str_of,
    to_utc,
    token_count,
    usage_of,
)
from convo_tui.core.sources._drift import unknown
from convo_tui.core.sources._session import Calls, Reply, build_session

SOURCE = "qwen-code"
_RECORDS = Names({"user", "assistant", "tool_result", "system"})


def sniff(path: Path, head: str) -> bool:
    records = head_records(head, 4)
    return any(
        "sessionId" in r and "parentUuid" in r and isinstance(dict_of(r.get("message")).get("parts"), list) for r in records
    ) and not any(isinstance(dict_of(r.get("message")).get("content"), (str, list)) for r in records)


def _usage(value: Any) -> dict[str, int]:
    usage = dict_of(value)
    thoughts = token_count(usage.get("thoughtsTokenCount"))
    return usage_of(
        input_tokens=token_count(usage.get("promptTokenCount")) + token_count(usage.get("toolUsePromptTokenCount")),
        cached_input_tokens=token_count(usage.get("cachedContentTokenCount")),
        output_tokens=token_count(usage.get("candidatesTokenCount")) + thoughts,
        reasoning_output_tokens=thoughts,
    )


def _response_text(response: Any) -> str:
    response = dict_of(response)
    value = response.get("output", response.get("error", response.get("content")))
    return value if isinstance(value, str) else result_text(value) if value is not None else ""


class _Reader:
    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.calls = Calls()
        self.title = ""
        self.facts: dict[str, Any] = {}

    def record(self, record: dict[str, Any]) -> None:
        kind = record.get("type")
        for key in ("sessionId", "cwd", "version", "gitBranch"):
            if isinstance(record.get(key), str) and record[key]:
                self.facts.setdefault(key, record[key])
        stamp = to_utc(record.get("timestamp"))
        parts = list_of(dict_of(record.get("message")).get("parts"))
        sidechain = record.get("isSidechain") is True
        if kind == "user":
            reply = self._parts(parts)
            message = reply.message(USER, stamp, sidechain=sidechain)
            if message is not None:
                self.messages.append(message)
        elif kind == "assistant":
            reply = self._parts(parts)
            meta = {"model": record.get("model"), "usage": _usage(record.get("usageMetadata"))}
            message = reply.message(ASSISTANT, stamp, meta, sidechain=sidechain)
            if message is not None:
                self.messages.append(message)
        elif kind == "tool_result":
            self._results(record, parts)
        elif kind == "system":
            if record.get("subtype") == "custom_title":
                self.title = str_of(dict_of(record.get("systemPayload")).get("customTitle"), self.title)
        elif kind not in _RECORDS:
            unknown("record", kind)

    def _parts(self, parts: list[Any]) -> Reply:
        reply = Reply()
        for part in parts:
            part = dict_of(part)
            if isinstance(part.get("text"), str):
                (reply.thinking if part.get("thought") else reply.texts).append(part["text"])
            elif isinstance(part.get("functionCall"), dict):
                call = part["functionCall"]
                tool = ToolCall(str_of(call.get("name")) or "tool", arguments(call.get("args")))
                reply.tools.append(self.calls.add(call.get("id"), tool))
            elif "inlineData" in part or "fileData" in part:
                reply.texts.append("[attachment]")
            elif "functionResponse" not in part:
                unknown("part", next(iter(part), "(empty)"))
        return reply

    def _results(self, record: dict[str, Any], parts: list[Any]) -> None:
        outcome = dict_of(record.get("toolCallResult"))
        for part in parts:
            response = dict_of(dict_of(part).get("functionResponse"))
            if response:
                text = _response_text(response.get("response")) or str_of(outcome.get("resultDisplay"))
                self.calls.answer(response.get("id") or outcome.get("callId"), text)
        if not parts and outcome:
            self.calls.answer(outcome.get("callId"), result_text(outcome.get("resultDisplay")))


def parse(path: Path) -> list[Session]:
    path = Path(path)
    warnings: list[str] = []
    records = [record for _, record in json_records(path, read_text(path), warnings)]
    reader = _Reader()
    for record in last_branch(records, "uuid", "parentUuid"):
        reader.record(record)
    if not reader.messages:
        return []
    facts = reader.facts
    session_id = str_of(facts.get("sessionId")) or path.stem
    return [
        build_session(
            path,
            SOURCE,
            session_id,
            reader.messages,
            title=reader.title,
            cwd=facts.get("cwd"),
            project="Qwen Code",
            meta={"cli_version": facts.get("version"), "branch": facts.get("gitBranch")},
            resume=resume_command("qwen", session_id),
            warnings=warnings,
        )
    ]


FORMAT = SourceFormat(
    name=SOURCE,
    label="Qwen Code session",
    sniff=sniff,
    parse=parse,
    tool="Qwen Code",
    versions="0.19.11 – 0.24.7 (`chatRecordingService.ts`)",
    places="`$QWEN_RUNTIME_DIR`, `$QWEN_HOME` or `~/.qwen` (`%USERPROFILE%\\.qwen`): `projects/<folder>/chats/*.jsonl`",
    resume="`qwen --resume <id>`",
    keeps="the branch you last saw, your words, replies, thinking, tool calls with arguments and results, model and "
    "tokens per reply (Gemini style), the session title",
)
