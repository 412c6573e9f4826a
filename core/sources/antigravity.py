"""Google Antigravity trajectories (`~/.gemini/antigravity*/brain/<id>/.system_generated/logs/transcript.jsonl`).

One trajectory step a line: `{step_index, source (USER_EXPLICIT | MODEL |
SYSTEM), type, status, created_at, content?, thinking?, tool_calls?}`.
`USER_INPUT` holds the user's words inside `<USER_REQUEST>` (beside injected
`<ADDITIONAL_METADATA>` and `<USER_SETTINGS_CHANGE>` blocks, the latter naming
the model chosen); `PLANNER_RESPONSE` is the agent speaking (text, thinking,
`tool_calls` [{name, args}] whose argument values are JSON encoded a second
time); the MODEL steps of other types (`RUN_COMMAND`, `VIEW_FILE`, ...) are
what those tools answered, in the order the calls were made (there are no call
ids). SYSTEM steps (history dumps, reminders, checkpoints) are not the
conversation. The conversation id is the `brain/<id>` folder; the CLI's
`history.jsonl` beside `brain/` names its workspace folder. Antigravity is
closed source: the shape follows transcripts quoted in public repositories
and three other readers; the encrypted `.pb` and protobuf `.db` files are not read.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from convo_tui.core.model import ASSISTANT, USER, Message, Session, ToolCall
from convo_tui.core.sources import SourceFormat, read_text
from convo_tui.core.sources._common import (
    Names,
    arguments,
    decoded_values,
    dict_of,
    head_records,
    json_records,
    list_of,
    str_of,
    to_utc,
    token_count,
    usage_of,
)
from convo_tui.core.sources._drift import unknown
from convo_tui.core.sources._session import UUID, Calls, Reply, build_session

SOURCE = "antigravity"
_REQUEST = re.compile(r"<USER_REQUEST>\s*(.*?)\s*</USER_REQUEST>", re.DOTALL)
_WRAPPER = re.compile(r"<([A-Z_]+)>.*?</\1>", re.DOTALL)
_MODEL_CHOICE = re.compile(r"setting `Model Selection` from .*? to (.+?)\.(?:\s|$)")
_TIMES = re.compile(r"\A(?:(?:Created|Completed) At: [^\n]*\n)+")
_SOURCES = Names({"USER_EXPLICIT", "MODEL", "SYSTEM"})
# Steps that answer the planner's tool calls.
_TOOL_STEPS = Names(
    {
        "RUN_COMMAND",
        "COMMAND_STATUS",
        "SEND_COMMAND_INPUT",
        "VIEW_FILE",
        "VIEW_FILE_OUTLINE",
        "VIEW_CODE_ITEM",
        "LIST_DIRECTORY",
        "FIND",
        "CODE_ACTION",
        "EDIT_FILE",
        "WRITE_TO_FILE",
        "GREP_SEARCH",
        "SEARCH_WEB",
        "READ_URL_CONTENT",
        "BROWSER_SUBAGENT",
        "MCP_TOOL",
        "GENERIC",
        "ERROR_MESSAGE",
        "TASK_BOUNDARY",
        "NOTIFY_USER",
    }
)
_SYSTEM_STEPS = Names({"CONVERSATION_HISTORY", "KNOWLEDGE_ARTIFACTS", "EPHEMERAL_MESSAGE", "SYSTEM_MESSAGE", "CHECKPOINT"})
_HISTORY_BYTES = 4 * 1024 * 1024


def sniff(path: Path, head: str) -> bool:
    records = head_records(head, 2)
    return bool(records) and "step_index" in records[0] and records[0].get("source") in _SOURCES


def user_words(content: str) -> tuple[str, str]:
    """(the user's request, the model they chose) from a USER_INPUT step."""
    requests = _REQUEST.findall(content)
    text = "\n\n".join(r.strip() for r in requests) if requests else _WRAPPER.sub("", content).strip()
    choice = _MODEL_CHOICE.search(content)
    return text, choice.group(1).strip() if choice else ""


def _usage(value: Any) -> dict[str, int]:
    usage = dict_of(value)
    return usage_of(
        input_tokens=token_count(usage.get("input_tokens")) or token_count(usage.get("prompt_token_count")),
        cached_input_tokens=token_count(usage.get("cached_content_token_count")),
        output_tokens=token_count(usage.get("output_tokens")) or token_count(usage.get("candidates_token_count")),
    )


class _Reader:
    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.calls = Calls()
        self.waiting: list[str] = []  # call ids in the order the planner made them
        self.model = ""

    def step(self, step: dict[str, Any]) -> None:
        kind, source = step.get("type"), step.get("source")
        stamp = to_utc(step.get("created_at"))
        content = str_of(step.get("content"))
        if kind == "USER_INPUT":
            text, model = user_words(content)
            self.model = model or self.model
            if text:
                self.messages.append(Message(id="", role=USER, text=text, timestamp=stamp))
        elif kind == "PLANNER_RESPONSE":
            self._planner(step, content, stamp)
        elif kind in _SYSTEM_STEPS:
            return
        elif source == "MODEL" or kind in _TOOL_STEPS:
            if kind not in _TOOL_STEPS:
                unknown("event", kind)
            if self.waiting:
                self.calls.answer(self.waiting.pop(0), _TIMES.sub("", content))
        else:
            unknown("event", kind)

    def _planner(self, step: dict[str, Any], content: str, stamp: Any) -> None:
        reply = Reply([content], [str_of(step.get("thinking"))])
        for number, call in enumerate(list_of(step.get("tool_calls"))):
            if isinstance(call, dict) and call.get("name"):
                key = f"{step.get('step_index')}:{number}"
                reply.tools.append(self.calls.add(key, _call(call)))
                self.waiting.append(key)
        meta: dict[str, Any] = {"model": str_of(step.get("model"), self.model), "usage": _usage(step.get("usage"))}
        message = reply.message(ASSISTANT, stamp, meta)
        if message is not None:
            self.messages.append(message)


def _call(call: dict[str, Any]) -> ToolCall:
    return ToolCall(str(call["name"]), decoded_values(arguments(call.get("args"))))


def _order(records: list[tuple[int, dict[str, Any]]]) -> list[dict[str, Any]]:
    def key(item: tuple[int, dict[str, Any]]) -> tuple[int, int]:
        index = item[1].get("step_index")
        return (index if isinstance(index, int) and not isinstance(index, bool) else item[0], item[0])

    return [record for _, record in sorted(records, key=key)]


def conversation_folder(path: Path) -> Path:
    """`brain/<id>` for `brain/<id>/.system_generated/logs/transcript.jsonl`."""
    return path.absolute().parent.parent.parent


def _workspace(root: Path, conversation: str) -> str | None:
    """The CLI's `history.jsonl` names the folder each conversation ran in."""
    try:
        with open(root / "history.jsonl", "rb") as handle:
            raw = handle.read(_HISTORY_BYTES)
    except OSError:
        return None
    for line in raw.decode("utf-8", errors="replace").splitlines():
        if conversation not in line:
            continue
        try:
            entry = json.loads(line)
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(entry, dict) and conversation in (entry.get("conversationId"), entry.get("conversation_id")):
            folder = entry.get("workspace")
            if isinstance(folder, str) and folder:
                return folder
    return None


def parse(path: Path) -> list[Session]:
    path = Path(path)
    warnings: list[str] = []
    reader = _Reader()
    for step in _order(list(json_records(path, read_text(path), warnings))):
        reader.step(step)
    if not reader.messages:
        return []
    folder = conversation_folder(path)
    session_id = folder.name if UUID.fullmatch(folder.name) else path.stem
    cwd = _workspace(folder.parent.parent, session_id) if folder.parent.name == "brain" else None
    return [
        build_session(
            path,
            SOURCE,
            session_id,
            reader.messages,
            cwd=cwd,
            project="Antigravity",
            meta={"model": reader.model},
            warnings=warnings,
        )
    ]


FORMAT = SourceFormat(
    name=SOURCE,
    label="Antigravity trajectory",
    sniff=sniff,
    parse=parse,
    tool="Google Antigravity",
    versions="IDE 2026-06, CLI 1.2.16 (closed source: transcripts quoted in public repositories)",
    places="`~/.gemini/antigravity`, `antigravity-ide` and `antigravity-cli` (`%USERPROFILE%\\.gemini\\…`): "
    "`brain/<id>/.system_generated/logs/transcript.jsonl`",
    resume="none (no verified command)",
    keeps="your request (injected metadata dropped), the agent's replies and thinking, tool calls with arguments and "
    "results, the model you chose, tokens when a step records them; the CLI's workspace folder",
)
