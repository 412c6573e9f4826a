"""Cline and Roo Code tasks: `tasks/<id>/api_conversation_history.json` (+ `ui_messages.json`).

The API history is Anthropic-style `{role, content: [parts]}` (Roo adds `ts`).
The human's words sit inside `<task>`, `<feedback>`, `<answer>` and
`<user_message>`; everything else in a user message is Cline talking to the
model: `<environment_details>`, `[read_file for 'x'] Result:` tool results,
`[TASK RESUMPTION]` notes. Older versions call tools with XML in the
assistant's text (`<read_file><path>..</path></read_file>`), newer ones with
`tool_use` parts; `<thinking>` is thinking. The answer the user is shown sits
in `<attempt_completion><result>`, `<ask_followup_question><question>` and
`<plan_mode_respond><response>`. `ui_messages.json` beside it gives the times
when the history has none. Neither tool has a command that reopens a task.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from convo_tui.core.errors import ParseError
from convo_tui.core.model import ASSISTANT, USER, Message, Session, ToolCall
from convo_tui.core.sources import SourceFormat, read_text
from convo_tui.core.sources._common import (
    clip_result,
    dict_of,
    folder_name,
    load_json,
    number_messages,
    title_from_messages,
    to_utc,
)
from convo_tui.core.sources._drift import unknown

SOURCE = "cline"
HISTORY_FILE = "api_conversation_history.json"
UI_FILE = "ui_messages.json"
_HUMAN = re.compile(r"<(task|feedback|answer|user_message)>\s*(.*?)\s*</\1>", re.DOTALL)
_TOOL_RESULT_HEAD = re.compile(r"^\[([\w-]+)(?: for [^\]]*)?\] Result:\s*", re.DOTALL)
_CWD = re.compile(r"# Current (?:Working Directory|Workspace Directory) \((.+?)\) Files")
_THINKING = re.compile(r"<thinking>\s*(.*?)\s*</thinking>", re.DOTALL)
_TOOLS = (
    "read_file|write_to_file|replace_in_file|apply_diff|insert_content|search_and_replace|execute_command|"
    "search_files|list_files|list_code_definition_names|codebase_search|browser_action|use_mcp_tool|"
    "access_mcp_resource|ask_followup_question|attempt_completion|plan_mode_respond|new_task|switch_mode|"
    "update_todo_list|fetch_instructions|load_mcp_documentation|web_fetch|condense|report_bug|new_rule"
)
_XML_TOOL = re.compile(rf"<({_TOOLS})>(.*?)(?:</\1>|\Z)", re.DOTALL)
_PARAM = re.compile(r"<(\w+)>\n?(.*?)\n?</\1>", re.DOTALL)
# Tool parameters that are the words the user is shown, not arguments.
_SHOWN = {"attempt_completion": "result", "ask_followup_question": "question", "plan_mode_respond": "response"}


def sniff(path: Path, head: str) -> bool:
    if path.is_dir():
        return False
    text = head.lstrip()
    if not text.startswith("["):
        return False
    if path.name == HISTORY_FILE:
        return '"role"' in text
    return '"role"' in text and ("<environment_details>" in text or "<task>" in text)


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    out = []
    for part in content if isinstance(content, list) else []:
        if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
            out.append(part["text"])
    return out


class _Reader:
    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.calls: dict[str, ToolCall] = {}
        self.pending: list[ToolCall] = []  # XML calls waiting for their "[tool] Result:" text
        self.cwd: str | None = None

    def user(self, entry: dict[str, Any]) -> None:
        words: list[str] = []
        receiving: ToolCall | None = None  # an XML call whose result the following parts hold
        content = entry.get("content")
        for part in content if isinstance(content, list) else [{"type": "text", "text": content}]:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "tool_result":
                output = "\n".join(_texts(part.get("content")))
                call = self.calls.get(str(part.get("tool_use_id")))
                if call is not None and not call.result:
                    call.result = clip_result(_HUMAN.sub("", output))
                words += [m.group(2) for m in _HUMAN.finditer(output)]
            elif part.get("type") == "text" and isinstance(part.get("text"), str):
                text = part["text"]
                cwd = _CWD.search(text)
                if cwd and not self.cwd:
                    self.cwd = cwd.group(1).strip()
                head = _TOOL_RESULT_HEAD.match(text)
                if head:
                    receiving = next((c for c in self.pending if not c.result), None)
                    if receiving is not None:
                        self.pending.remove(receiving)
                    text = text[head.end() :]
                if "<environment_details>" in text and not text.lstrip().startswith("<environment_details>"):
                    text = text[: text.index("<environment_details>")]
                elif text.lstrip().startswith("<environment_details>"):
                    continue
                words += [m.group(2) for m in _HUMAN.finditer(text)]
                if receiving is not None and text.strip():
                    answer = _HUMAN.sub("", text).strip()
                    receiving.result = clip_result("\n".join(p for p in (receiving.result, answer) if p))
            elif part.get("type") == "image":
                words.append("[image]")
        text = "\n\n".join(w.strip() for w in words if w.strip())
        if text:
            self.messages.append(Message(id="", role=USER, text=text, timestamp=to_utc(entry.get("ts"))))

    def assistant(self, entry: dict[str, Any]) -> None:
        texts: list[str] = []
        thinking: list[str] = []
        tools: list[ToolCall] = []
        content = entry.get("content")
        for part in content if isinstance(content, list) else [{"type": "text", "text": content}]:
            if not isinstance(part, dict):
                continue
            kind = part.get("type")
            if kind == "text" and isinstance(part.get("text"), str):
                text = part["text"]
                thinking += _THINKING.findall(text)
                text = _THINKING.sub("", text)
                for match in _XML_TOOL.finditer(text):
                    name, body = match.group(1), match.group(2)
                    args = {key: value for key, value in _PARAM.findall(body)}
                    shown = _SHOWN.get(name)
                    if shown and shown in args:
                        texts.append(args[shown])
                    call = ToolCall(name, args)
                    tools.append(call)
                    self.pending.append(call)
                texts.append(_XML_TOOL.sub("", text))
            elif kind in ("thinking", "reasoning") and isinstance(thought := part.get("thinking") or part.get("text"), str):
                thinking.append(thought)
            elif kind == "tool_use":
                args = dict_of(part.get("input"))
                call = ToolCall(str(part.get("name") or "tool"), args)
                shown = _SHOWN.get(call.name)
                if shown and isinstance(args.get(shown), str):
                    texts.append(args[shown])
                tools.append(call)
                if isinstance(part.get("id"), str):
                    self.calls[part["id"]] = call
            elif kind not in ("image", "redacted_thinking"):
                unknown("part", kind)
        text = "\n\n".join(t.strip() for t in texts if t.strip())
        reasoning = "\n\n".join(t.strip() for t in thinking if t.strip())
        if text or reasoning or tools:
            self.messages.append(
                Message(id="", role=ASSISTANT, text=text, thinking=reasoning, timestamp=to_utc(entry.get("ts")), tools=tools)
            )


def _ui_times(folder: Path) -> list[Any]:
    try:
        data = json.loads(read_text(folder / UI_FILE))
    except (ParseError, json.JSONDecodeError, RecursionError):
        return []
    return [m.get("ts") for m in data if isinstance(m, dict) and m.get("ts")] if isinstance(data, list) else []


def parse(path: Path) -> list[Session]:
    path = Path(path)
    text = read_text(path)
    data = load_json(path, text)
    if not isinstance(data, list):
        raise ParseError(path, "not a Cline task history (expected a list of messages)")
    reader = _Reader()
    for entry in data:
        if isinstance(entry, dict) and entry.get("role") == "user":
            reader.user(entry)
        elif isinstance(entry, dict) and entry.get("role") == "assistant":
            reader.assistant(entry)
    messages = reader.messages
    if not messages:
        return []
    number_messages(messages)
    folder = path.absolute().parent
    task_id = folder.name
    times = [t for t in (to_utc(v) for v in _ui_times(folder)) if t]
    extension = folder.parent.parent.name  # globalStorage/<extension id>/tasks/<id>
    session = Session(
        id=task_id,
        title=title_from_messages(messages, task_id),
        project=folder_name(reader.cwd) if reader.cwd else "Cline",
        source=SOURCE,
        path=str(path),
        messages=messages,
        started_at=min(times) if times else to_utc(task_id),
        updated_at=max(times) if times else None,
        meta={"extension": extension} if "." in extension else {},
        cwd=reader.cwd,
        resume=None,
    )
    session.fill_times()
    return [session]


FORMAT = SourceFormat(
    name=SOURCE,
    label="Cline / Roo Code task",
    sniff=sniff,
    parse=parse,
    tool="Cline / Roo Code",
    versions="Cline and Roo Code task folders of 2025 – 2026",
    places="`<Code, Code - Insiders, VSCodium, Cursor, Windsurf app dir>/User/globalStorage/{saoudrizwan.claude-dev, rooveterinaryinc.roo-cline}/tasks/<id>/api_conversation_history.json`",
    resume="none",
    keeps="only your words (`<task>`, `<feedback>`, `<answer>`, `<user_message>`); tool results attached to their calls; `<environment_details>` dropped",
)
