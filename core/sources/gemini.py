"""Gemini CLI saved sessions (`~/.gemini/tmp/<project>/chats/session-*.json` and `*.jsonl`).

Up to 0.38, one JSON document per session: `{sessionId, projectHash,
startTime, lastUpdated, messages: [...]}`; each message has `type` (user,
gemini, info, error, warning), `content` (text or a list of parts),
`timestamp`, and for the model `thoughts` [{subject, description}],
`toolCalls` [{name, args, result, status, resultDisplay}] and `model`.
From 0.39 (`chatRecordingService.ts`, "migrate chat recording to JSONL
streaming") the chat is a journal, `session-<time>-<id>.jsonl`: a first line
with the same metadata (and `kind`: main or subagent), then one message
record a line (a record written again with the same `id` replaces it),
`{"$set": {...}}` updating the metadata (or, with `messages`, replacing the
whole list after a compression) and `{"$rewindTo": id}` dropping that message
and everything after it. The project folder is stored only as a
hash; newer versions name the folder after the project and write its path to
`.project_root` beside `chats/`, which is read when present.

A model message's `tokens: {input, output, cached, thoughts, tool, total}` is
the API's usage metadata: `input` (the prompt) includes `cached`; `thoughts`
and `tool` (tool-use prompt) come on top of `output` and `input`.

Gemini CLI's `--output-format stream-json` logs are not read: they are a
stream of deltas (a reply cut into chunks) that other tools also write, and
they are refused as unknown rather than read wrongly.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from convo_tui.core.errors import ParseError
from convo_tui.core.model import ASSISTANT, SYSTEM, USER, Message, Role, Session, ToolCall
from convo_tui.core.resume import command as resume_command
from convo_tui.core.sources import SourceFormat, read_text
from convo_tui.core.sources._common import (
    Names,
    clip_result,
    dict_of,
    head_records,
    json_records,
    list_of,
    load_json,
    str_of,
    to_utc,
    token_count,
    usage_of,
)
from convo_tui.core.sources._drift import unknown
from convo_tui.core.sources._session import Reply, build_session

SOURCE = "gemini-cli"
_ROLES: dict[str, Role] = {"user": USER, "gemini": ASSISTANT, "model": ASSISTANT, "error": SYSTEM}
_HASH = re.compile(r"^[0-9a-f]{64}$")
_STATUS = Names({"info", "warning"})


def sniff(path: Path, head: str) -> bool:
    if path.is_dir():
        return False
    text = head.lstrip()
    if not (text.startswith("{") and '"sessionId"' in text and ('"projectHash"' in text or '"startTime"' in text)):
        return False
    if '"messages"' in text:
        return True
    first = head_records(head, 1)
    return bool(first) and "projectHash" in first[0] and "type" not in first[0]  # a 0.39+ journal's metadata line


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    parts = []
    for part in content if isinstance(content, list) else []:
        if isinstance(part, str):
            parts.append(part)
        elif isinstance(part, dict) and isinstance(part.get("text"), str) and not part.get("thought"):
            parts.append(part["text"])
        elif isinstance(part, dict) and "inlineData" in part:
            parts.append("[attachment]")
    return "\n".join(p for p in parts if p)


def _result(call: dict[str, Any]) -> str:
    """The tool's answer: its `functionResponse` output, else what the terminal showed."""
    for item in list_of(call.get("result")):
        response = item.get("functionResponse", {}).get("response") if isinstance(item, dict) else None
        if isinstance(response, dict):
            value = response.get("output", response.get("error", response.get("content")))
            if isinstance(value, str):
                return clip_result(value)
            if value is not None:
                return clip_result(json.dumps(value, ensure_ascii=False))
    display = call.get("resultDisplay")
    if isinstance(display, str):
        return clip_result(display)
    return ""


def _thoughts(value: Any) -> str:
    out = []
    for thought in value if isinstance(value, list) else []:
        if isinstance(thought, dict):
            subject = str(thought.get("subject") or "").strip()
            description = str(thought.get("description") or "").strip()
            out.append(f"**{subject}**\n{description}".strip() if subject else description)
    return "\n\n".join(t for t in out if t)


def _usage(tokens: Any) -> dict[str, int]:
    """Gemini's counts as an OpenAI-style usage object (cached tokens are part of the input)."""
    if not isinstance(tokens, dict):
        return {}
    thoughts = token_count(tokens.get("thoughts"))
    return usage_of(
        input_tokens=token_count(tokens.get("input")) + token_count(tokens.get("tool")),
        cached_input_tokens=token_count(tokens.get("cached")),
        output_tokens=token_count(tokens.get("output")) + thoughts,
        reasoning_output_tokens=thoughts,
    )


def _message(entry: dict[str, Any]) -> Message | None:
    role = _ROLES.get(str(entry.get("type")))
    if role is None:
        if entry.get("type") not in _STATUS:
            unknown("event", entry.get("type"))
        return None  # info and warning lines are the CLI's own status, not the conversation
    text = _text(entry.get("content")).strip()
    tools: list[ToolCall] = []
    for call in list_of(entry.get("toolCalls")):
        if isinstance(call, dict) and call.get("name"):
            args = dict_of(call.get("args"))
            tools.append(ToolCall(str(call["name"]), args, _result(call)))
    thinking = _thoughts(entry.get("thoughts")) if role == ASSISTANT else ""
    meta = {"model": str_of(entry.get("model")), "usage": _usage(entry.get("tokens")) if role == ASSISTANT else {}}
    return Reply([text], [thinking], tools).message(role, to_utc(entry.get("timestamp")), meta, error=role == SYSTEM)


def project_root(path: Path) -> str | None:
    """The project's folder, when Gemini CLI wrote it beside the chats folder."""
    marker = path.absolute().parent.parent / ".project_root"
    try:
        text = marker.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text or None


def _is_journal(text: str) -> bool:
    """A 0.39+ chat: a first line that is a whole JSON object without `messages`, and more lines after it."""
    first, _, rest = text.lstrip().partition("\n")
    if not rest.strip():
        return False
    try:
        value = json.loads(first)
    except (json.JSONDecodeError, RecursionError):
        return False
    return isinstance(value, dict) and "messages" not in value


def replay(path: Path, text: str, warnings: list[str]) -> dict[str, Any]:
    """The session a 0.39+ journal describes: its metadata and its messages, updates applied."""
    data: dict[str, Any] = {}
    messages: dict[str, dict[str, Any]] = {}  # by id, in the order first written
    unnamed = 0
    for number, record in json_records(path, text, warnings):
        if number == 1 and "type" not in record and "$set" not in record:
            data.update(record)
        elif isinstance(record.get("$set"), dict):
            update = dict(record["$set"])
            if isinstance(update.get("messages"), list):
                messages = {}
                for item in update.pop("messages"):
                    if isinstance(item, dict):
                        unnamed += 1
                        messages[str(item.get("id") or f"#{unnamed}")] = item
            data.update(update)
        elif "$rewindTo" in record:
            target = str(record["$rewindTo"])
            if target in messages:
                keys = list(messages)
                messages = {k: messages[k] for k in keys[: keys.index(target)]}
        elif "type" in record:
            unnamed += 1
            messages[str(record.get("id") or f"#{unnamed}")] = record
        else:
            unknown("record", next(iter(record), "(empty)"))
    data["messages"] = list(messages.values())
    return data


def parse(path: Path) -> list[Session]:
    path = Path(path)
    text = read_text(path)
    warnings: list[str] = []
    data = replay(path, text, warnings) if _is_journal(text) else load_json(path, text)
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        raise ParseError(path, "not a Gemini CLI session (no `messages` list)")
    messages = [m for m in (_message(e) for e in data["messages"] if isinstance(e, dict)) if m is not None]
    if not messages:
        return []
    session_id = str(data.get("sessionId") or path.stem)
    folder = path.absolute().parent.parent.name
    session = build_session(
        path,
        SOURCE,
        session_id,
        messages,
        title=data.get("summary"),  # the summary Gemini CLI writes for its session list
        cwd=project_root(path),
        project=folder if folder and not _HASH.match(folder) else "Gemini CLI",
        started=to_utc(data.get("startTime")),
        updated=to_utc(data.get("lastUpdated")),
        meta={
            name: data.get(key)
            for key, name in (("projectHash", "project_hash"), ("kind", "kind"))
            if isinstance(data.get(key), str)
        },
        resume=resume_command("gemini", session_id),
        warnings=warnings,
    )
    return [session]


FORMAT = SourceFormat(
    name=SOURCE,
    label="Gemini CLI session",
    sniff=sniff,
    parse=parse,
    version=3,
    tool="Gemini CLI",
    versions="`.json` sessions of 2025-09 – 2026-03; the `.jsonl` journals of 0.39 (2026-04) on",
    places="`~/.gemini/tmp/*/chats/` (`$GEMINI_CLI_HOME/.gemini` when set), all systems",
    resume="`gemini --resume <id>`",
    keeps="thoughts as thinking, tool calls with results, model and tokens per reply (thoughts counted as output); "
    "the project folder when Gemini wrote `.project_root`, else only its hash",
)
