"""Gemini CLI saved sessions (`~/.gemini/tmp/<project>/chats/session-*.json`).

One JSON document per session: `{sessionId, projectHash, startTime,
lastUpdated, messages: [...]}`; each message has `type` (user, gemini, info,
error, warning), `content` (text or a list of parts), `timestamp`, and for the
model `thoughts` [{subject, description}], `toolCalls` [{name, args, result,
status, resultDisplay}] and `model`. The project folder is stored only as a
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
    clip_result,
    dict_of,
    folder_name,
    list_of,
    load_json,
    number_messages,
    title_from_messages,
    to_utc,
    token_count,
    usage_of,
)

SOURCE = "gemini-cli"
_ROLES: dict[str, Role] = {"user": USER, "gemini": ASSISTANT, "model": ASSISTANT, "error": SYSTEM}
_HASH = re.compile(r"^[0-9a-f]{64}$")


def sniff(path: Path, head: str) -> bool:
    if path.is_dir():
        return False
    text = head.lstrip()
    return (
        text.startswith("{")
        and '"sessionId"' in text
        and ('"projectHash"' in text or '"startTime"' in text)
        and '"messages"' in text
    )


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
        return None  # info and warning lines are the CLI's own status, not the conversation
    text = _text(entry.get("content")).strip()
    tools = []
    for call in list_of(entry.get("toolCalls")):
        if isinstance(call, dict) and call.get("name"):
            args = dict_of(call.get("args"))
            tools.append(ToolCall(str(call["name"]), args, _result(call)))
    thinking = _thoughts(entry.get("thoughts")) if role == ASSISTANT else ""
    if not (text or tools or thinking):
        return None
    meta: dict[str, Any] = {"model": entry["model"]} if isinstance(entry.get("model"), str) else {}
    usage = _usage(entry.get("tokens")) if role == ASSISTANT else {}
    if usage:
        meta["usage"] = usage
    return Message(
        id="",
        role=role,
        text=text,
        thinking=thinking,
        timestamp=to_utc(entry.get("timestamp")),
        tools=tools if role == ASSISTANT else [],
        error=role == SYSTEM,
        meta=meta,
    )


def project_root(path: Path) -> str | None:
    """The project's folder, when Gemini CLI wrote it beside the chats folder."""
    marker = path.absolute().parent.parent / ".project_root"
    try:
        text = marker.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text or None


def parse(path: Path) -> list[Session]:
    path = Path(path)
    text = read_text(path)
    data = load_json(path, text)
    if not isinstance(data, dict) or not isinstance(data.get("messages"), list):
        raise ParseError(path, "not a Gemini CLI session (no `messages` list)")
    messages = [m for m in (_message(e) for e in data["messages"] if isinstance(e, dict)) if m is not None]
    if not messages:
        return []
    number_messages(messages)
    session_id = str(data.get("sessionId") or path.stem)
    cwd = project_root(path)
    folder = path.absolute().parent.parent.name
    project = folder_name(cwd) if cwd else (folder if folder and not _HASH.match(folder) else "Gemini CLI")
    session = Session(
        id=session_id,
        title=title_from_messages(messages, path.stem),
        project=project,
        source=SOURCE,
        path=str(path),
        messages=messages,
        started_at=to_utc(data.get("startTime")),
        updated_at=to_utc(data.get("lastUpdated")),
        meta={"project_hash": data["projectHash"]} if isinstance(data.get("projectHash"), str) else {},
        cwd=cwd,
        resume=resume_command("gemini", session_id),
    )
    session.fill_times()
    return [session]


FORMAT = SourceFormat(name=SOURCE, label="Gemini CLI session", sniff=sniff, parse=parse, version=2)
