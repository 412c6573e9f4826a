"""VS Code Copilot Chat: "Chat: Export Chat..." JSON and the live `chatSessions` files.

A chat is `{requests: [...]}` (live files add `sessionId`, `creationDate`,
`customTitle`); each request holds the user's `message.text`, a `timestamp`,
`modelId`, and the `response` parts: markdown (`{value}` or
`markdownContent`), `thinking`, `toolInvocationSerialized` (toolId,
toolCallId, invocationMessage, toolSpecificData), `textEditGroup` (uri,
edits) and display-only parts. The tool arguments and outputs the model
exchanged are in `result.metadata.toolCallRounds` / `toolCallResults`.
Newer VS Code writes `chatSessions/<id>.jsonl`, a journal: line 0 is
`{kind: 0, v: snapshot}`, then `{kind: 1, k: path, v: value}` sets a field and
`{kind: 2, k: path, v: [items], i?}` appends to (or splices into) a list.
The workspace folder is named in `workspace.json` beside `chatSessions/`.
Copilot Chat has no command that reopens a chat, so there is no resume.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from convo_tui.core.errors import ParseError
from convo_tui.core.model import ASSISTANT, USER, Message, Session, ToolCall
from convo_tui.core.sources import SourceFormat, read_text
from convo_tui.core.sources._common import (
    Names,
    clip_result,
    dict_of,
    json_error_reason,
    list_of,
    load_json,
    str_of,
    to_utc,
)
from convo_tui.core.sources._drift import unknown
from convo_tui.core.sources._session import build_session

SOURCE = "copilot-chat"


def sniff(path: Path, head: str) -> bool:
    if path.is_dir():
        return False
    text = head.lstrip()
    if not text.startswith("{"):
        return False
    if '"requests"' not in text:
        return False
    return '"responderUsername"' in text or '"requesterUsername"' in text or ('"kind"' in text and '"sessionId"' in text)


def _value(item: Any) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, dict):
        value = item.get("value")
        if isinstance(value, str):
            return value
        content = item.get("content")
        if isinstance(content, dict):
            return str_of(content.get("value"))
    return ""


def _uri_path(uri: Any) -> str:
    if isinstance(uri, dict):
        return str(uri.get("fsPath") or uri.get("path") or "")
    if isinstance(uri, str):
        return unquote(urlparse(uri).path)
    return ""


def _round_calls(result: Any) -> tuple[dict[str, dict[str, Any]], dict[str, str], list[str]]:
    """The model's own view: tool call id -> arguments, id -> output, and thinking."""
    metadata = result.get("metadata") if isinstance(result, dict) else None
    if not isinstance(metadata, dict):
        return {}, {}, []
    args: dict[str, dict[str, Any]] = {}
    thinking: list[str] = []
    for round_ in metadata.get("toolCallRounds") or []:
        if not isinstance(round_, dict):
            continue
        thought = round_.get("thinking")
        if isinstance(thought, dict) and isinstance(thought.get("text"), str):
            thinking.append(thought["text"])
        for call in round_.get("toolCalls") or []:
            if isinstance(call, dict) and isinstance(call.get("id"), str):
                try:
                    value = json.loads(call.get("arguments") or "{}")
                except (json.JSONDecodeError, TypeError):
                    value = {"arguments": call.get("arguments")}
                args[call["id"]] = value if isinstance(value, dict) else {"arguments": value}
    outputs: dict[str, str] = {}
    results = metadata.get("toolCallResults")
    for call_id, answer in results.items() if isinstance(results, dict) else []:
        content = answer.get("content") if isinstance(answer, dict) else None
        texts = [_value(part) for part in content if _value(part)] if isinstance(content, list) else []
        if texts:
            outputs[str(call_id)] = clip_result("\n".join(texts))
    return args, outputs, thinking


# Parts that only show something (progress, references, an edit's code block): never a call or words.
_DISPLAY_PARTS = Names(
    {
        "prepareToolInvocation",
        "toolInvocation",
        "codeblockUri",
        "inlineReference",
        "undoStop",
        "progressMessage",
        "progressTask",
        "progressTaskSerialized",
        "confirmation",
        "command",
        "textEdit",
        "notebookEditGroup",
        "warning",
        "reference",
        "codeCitation",
        "elicitation",
        "extensions",
        "pullRequest",
        "mcpServersStarting",
    }
)
_PATH_ARGS = ("filePath", "path", "uri", "file")
_EDIT_WORDS = ("replace", "edit", "patch", "create", "write")


def _edits(call: ToolCall) -> bool:
    """A tool that changes files (`copilot_replaceString`, `insert_edit_into_file`, `create_file`, ...)."""
    name = call.name.lower()
    return any(word in name for word in _EDIT_WORDS)


def _paths(args: dict[str, Any]) -> set[str]:
    """The file paths a tool call's arguments name (a `file://` URI read as its path)."""
    found = set()
    for key in _PATH_ARGS:
        value = args.get(key)
        if isinstance(value, str) and value:
            found.add(_uri_path(value) if value.startswith("file:") else value)
    return found


def _tool(part: dict[str, Any], args_by_id: dict[str, dict[str, Any]], outputs: dict[str, str]) -> ToolCall:
    """One `toolInvocationSerialized` part: arguments from the model's rounds, else what the panel showed."""
    call_id = str(part.get("toolCallId") or "")
    args = dict(args_by_id.get(call_id, {}))
    special = part.get("toolSpecificData")
    if not args and isinstance(special, dict):
        command = (
            special.get("commandLine", {}).get("original")
            if isinstance(special.get("commandLine"), dict)
            else special.get("command")
        )
        if isinstance(command, str):
            args = {"command": command}
    if not args:
        shown = _value(part.get("pastTenseMessage")) or _value(part.get("invocationMessage"))
        args = {"description": shown} if shown else {}
    return ToolCall(str(part.get("toolId") or "tool"), args, outputs.get(call_id, ""))


def _reply(request: dict[str, Any]) -> Message | None:
    args_by_id, outputs, round_thinking = _round_calls(request.get("result"))
    texts: list[str] = []
    thinking: list[str] = []
    tools: list[ToolCall] = []
    edit_pending = False  # an edit tool was called since the last words shown
    for part in list_of(request.get("response")):
        if not isinstance(part, dict):
            continue
        kind = part.get("kind")
        if kind in (None, "markdownContent", "markdownVuln"):
            shown = _value(part)
            texts.append(shown)
            edit_pending = edit_pending and not shown.strip()
        elif kind == "thinking":
            thinking.append(_value(part))
        elif kind == "toolInvocationSerialized":
            tools.append(_tool(part, args_by_id, outputs))
            edit_pending = edit_pending or _edits(tools[-1])
            if texts and not texts[-1].endswith("\n\n"):
                texts.append("\n\n")  # words after a call are a paragraph of their own
        elif kind == "textEditGroup":
            # The effect of an edit tool (`copilot_replaceString`, ...) already counted
            # as its call; only an edit no tool call made (the old Edits mode) is one.
            path = _uri_path(part.get("uri"))
            if path and not edit_pending and not any(_edits(t) and path in _paths(t.args) for t in tools):
                tools.append(ToolCall("edit", {"path": path}))
        elif kind not in _DISPLAY_PARTS:
            unknown("part", kind)
    text = "".join(texts).strip()
    shown_thinking = [t.strip() for t in thinking if t and t.strip()]
    reasoning = "\n\n".join(shown_thinking or [t.strip() for t in round_thinking if t.strip()])
    if not (text or reasoning or tools):
        return None
    model = request.get("modelId")
    stamp = to_utc(request.get("timestamp"))
    meta = {"model": model} if isinstance(model, str) and model else {}
    return Message(id="", role=ASSISTANT, text=text, thinking=reasoning, timestamp=stamp, tools=tools, meta=meta)


def _replay(path: Path, text: str) -> dict[str, Any]:
    """The chat a `.jsonl` journal describes, its patches applied in order."""
    state: dict[str, Any] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ParseError(path, json_error_reason(exc, line), line=number) from None
        if not isinstance(entry, dict):
            continue
        kind, keys, value = entry.get("kind"), entry.get("k") or [], entry.get("v")
        if kind == 0 and isinstance(value, dict):
            state = value
            continue
        target: Any = state
        for key in keys[:-1]:
            try:
                target = target[key]
            except (KeyError, IndexError, TypeError):
                target = None
                break
        if target is None or not keys:
            continue
        last = keys[-1]
        try:
            if kind == 1:
                target[last] = value
            elif kind == 2 and isinstance(value, list):
                items = target[last]
                if isinstance(entry.get("i"), int):
                    del items[entry["i"] :]
                items.extend(value)
        except (KeyError, IndexError, TypeError):
            continue
    return state


def _workspace_folder(path: Path) -> str | None:
    described = path.absolute().parent.parent / "workspace.json"
    try:
        data = json.loads(described.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    uri = data.get("folder") if isinstance(data, dict) else None
    if not isinstance(uri, str):
        return None
    folder = unquote(urlparse(uri).path)
    return folder[1:] if len(folder) > 2 and folder[0] == "/" and folder[2] == ":" else folder


def parse(path: Path) -> list[Session]:
    path = Path(path)
    text = read_text(path)
    data = _replay(path, text) if path.suffix == ".jsonl" else load_json(path, text)
    if not isinstance(data, dict) or not isinstance(data.get("requests"), list):
        raise ParseError(path, "not a Copilot Chat session (no `requests` list)")
    messages: list[Message] = []
    for request in data["requests"]:
        if not isinstance(request, dict):
            continue
        message = dict_of(request.get("message"))
        asked = str_of(message.get("text"))
        if asked.strip():
            messages.append(Message(id="", role=USER, text=asked.strip(), timestamp=to_utc(request.get("timestamp"))))
        reply = _reply(request)
        if reply is not None:
            messages.append(reply)
    if not messages:
        return []
    cwd = _workspace_folder(path) if path.absolute().parent.name == "chatSessions" else None
    session = build_session(
        path,
        SOURCE,
        str(data.get("sessionId") or path.stem),
        messages,
        title=data.get("customTitle"),
        cwd=cwd,
        project="Copilot Chat",
        started=to_utc(data.get("creationDate")),
        updated=to_utc(data.get("lastMessageDate")),
    )
    return [session]


FORMAT = SourceFormat(
    name=SOURCE,
    label="Copilot Chat session",
    sniff=sniff,
    parse=parse,
    version=2,
    tool="VS Code Copilot Chat",
    versions="chat session format 3 (VS Code 1.9x – 1.10x), the `.jsonl` journal of 2025-10 on",
    places="`<Code, Code - Insiders, VSCodium app dir>/User/workspaceStorage/*/chatSessions/` and "
    '`User/globalStorage/emptyWindowChatSessions/`; "Export Chat" JSON anywhere (add it to `sources`)',
    keeps="tool calls with arguments and outputs (each once: an edit's file change is not a second call), thinking, "
    "edited files; the newer `.jsonl` journal is replayed; folder from `workspace.json`",
)
