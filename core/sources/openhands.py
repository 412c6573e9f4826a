"""OpenHands conversations (`~/.openhands/conversations/<id>/base_state.json` + `events/`).

The OpenHands CLI (V1, on the software-agent-sdk) keeps one folder per
conversation: `base_state.json` (id, `agent.llm.model`,
`workspace.working_dir`, token totals in `stats`) and `events/event-<n>-<id>.json`,
one event a file, discriminated by `kind`: `MessageEvent` (the user's words,
or the agent's, with `reasoning_content` / `thinking_blocks`), `ActionEvent`
(a tool call: `tool_name`, `tool_call.arguments`, the `thought` the model said
with it; calls of one model response share `llm_response_id`; the `finish`
tool's `message` is the agent's last answer), `ObservationEvent` (a tool's
result by `tool_call_id`), rejections and errors, and bookkeeping
(condensation, state updates). `base_state.json` is the unit discovery
offers; the events are read with it. Event times are the machine's local time
without a zone: they are read as UTC.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from convo_tui.core.errors import ParseError
from convo_tui.core.model import ASSISTANT, SYSTEM, USER, Message, Session, ToolCall
from convo_tui.core.resume import command as resume_command
from convo_tui.core.sources import SourceFormat, read_text
from convo_tui.core.sources._common import (
    Names,
    arguments,
    dict_of,
    joined,
    json_error_reason,
    list_of,
    load_json,
    parts_text,
    result_text,
    str_of,
    to_utc,
    token_count,
)
from convo_tui.core.sources._drift import unknown
from convo_tui.core.sources._session import HEX32, Calls, build_session

SOURCE = "openhands"
STATE_FILE = "base_state.json"
EVENTS_FOLDER = "events"
_EVENT_FILE = re.compile(r"^event-(\d+)-.*\.json$")
_MAX_EVENTS = 20_000
_QUIET = Names(
    {
        "SystemPromptEvent",
        "Condensation",
        "CondensationRequest",
        "CondensationSummaryEvent",
        "ConversationStateUpdateEvent",
        "PauseEvent",
        "TokenEvent",
        "LLMCompletionLogEvent",
    }
)


def sniff(path: Path, head: str) -> bool:
    return path.name == STATE_FILE and head.lstrip().startswith("{") and ('"agent"' in head or '"workspace"' in head)


def _event_files(folder: Path, warnings: list[str]) -> list[Path]:
    try:
        names = [(int(m.group(1)), p) for p in folder.iterdir() if (m := _EVENT_FILE.match(p.name)) and p.is_file()]
    except OSError as exc:
        warnings.append(f"{folder}: cannot read folder: {exc.strerror or exc}")
        return []
    if len(names) > _MAX_EVENTS:
        warnings.append(f"{folder}: {len(names)} events, only the first {_MAX_EVENTS} read")
    return [path for _, path in sorted(names)[:_MAX_EVENTS]]


def _load_events(folder: Path, warnings: list[str]) -> list[dict[str, Any]]:
    events = []
    for path in _event_files(folder, warnings):
        try:
            text = read_text(path)
            value = json.loads(text)
        except ParseError as exc:
            warnings.append(f"{path}: {exc.reason}")
            continue
        except json.JSONDecodeError as exc:
            warnings.append(f"{path}: {json_error_reason(exc, text)}")
            continue
        except RecursionError:
            warnings.append(f"{path}: JSON nested too deeply")
            continue
        if isinstance(value, dict):
            events.append(value)
    return events


def _thinking(event: dict[str, Any]) -> str:
    blocks = [str_of(dict_of(b).get("thinking")) for b in list_of(event.get("thinking_blocks"))]
    return joined([str_of(event.get("reasoning_content")), *blocks])


class _Reader:
    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.calls = Calls()
        self.responses: dict[str, Message] = {}  # llm_response_id -> the reply holding its calls

    def event(self, event: dict[str, Any]) -> None:
        kind = event.get("kind")
        stamp = to_utc(event.get("timestamp"))
        if kind == "MessageEvent":
            self._message(event, stamp)
        elif kind == "ActionEvent":
            self._action(event, stamp)
        elif kind == "ObservationEvent":
            observation = dict_of(event.get("observation"))
            self.calls.answer(event.get("tool_call_id"), result_text(observation.get("content")))
        elif kind == "UserRejectObservation":
            self.calls.answer(event.get("tool_call_id"), f"[rejected] {str_of(event.get('rejection_reason'))}".strip())
        elif kind == "AgentErrorEvent":
            error = str_of(event.get("error"))
            if not self.calls.answer(event.get("tool_call_id"), error) and error:
                self.messages.append(Message(id="", role=SYSTEM, text=error, timestamp=stamp, error=True))
        elif kind not in _QUIET and not (isinstance(kind, str) and kind.startswith("Hook")):
            unknown("event", kind)

    def _message(self, event: dict[str, Any], stamp: Any) -> None:
        llm = dict_of(event.get("llm_message"))
        text = parts_text(llm.get("content")).strip()
        source = event.get("source")
        if source == "user":
            if text:
                self.messages.append(Message(id="", role=USER, text=text, timestamp=stamp))
        elif source == "agent":
            thinking = _thinking(llm)
            if text or thinking:
                self.messages.append(Message(id="", role=ASSISTANT, text=text, thinking=thinking, timestamp=stamp))
        else:
            unknown("field", f"MessageEvent.source={source}")

    def _action(self, event: dict[str, Any], stamp: Any) -> None:
        response = str_of(event.get("llm_response_id")) or str_of(event.get("id"))
        reply = self.responses.get(response)
        if reply is None or not self.messages or self.messages[-1] is not reply:
            reply = Message(id="", role=ASSISTANT, text="", timestamp=stamp)
            self.messages.append(reply)
            self.responses[response] = reply
        said = joined([reply.text, parts_text(event.get("thought"))])
        reply.thinking = joined([reply.thinking, _thinking(event)])
        action = dict_of(event.get("action"))
        name = str_of(event.get("tool_name")) or str_of(dict_of(event.get("tool_call")).get("name"))
        if name == "finish" or action.get("kind") == "FinishAction":
            reply.text = joined([said, str_of(action.get("message"))])
            return
        reply.text = said
        if name == "think" or action.get("kind") == "ThinkAction":
            reply.thinking = joined([reply.thinking, str_of(action.get("thought"))])
            return
        args = arguments(dict_of(event.get("tool_call")).get("arguments")) or {k: v for k, v in action.items() if k != "kind"}
        reply.tools.append(self.calls.add(event.get("tool_call_id"), ToolCall(name or "tool", args)))


def _session_usage(state: dict[str, Any]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for metrics in dict_of(dict_of(state.get("stats")).get("usage_to_metrics")).values():
        usage = dict_of(dict_of(metrics).get("accumulated_token_usage"))
        for key in ("prompt_tokens", "completion_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens"):
            totals[key] = totals.get(key, 0) + token_count(usage.get(key))
    return {k: v for k, v in totals.items() if v}


def parse(path: Path) -> list[Session]:
    path = Path(path)
    state = load_json(path, read_text(path))
    if not isinstance(state, dict):
        raise ParseError(path, "not an OpenHands conversation state (expected an object)")
    warnings: list[str] = []
    reader = _Reader()
    for event in _load_events(path.absolute().parent / EVENTS_FOLDER, warnings):
        reader.event(event)
    messages = [m for m in reader.messages if m.text or m.thinking or m.tools]
    if not messages:
        return []
    folder = path.absolute().parent.name
    dashed = f"{folder[:8]}-{folder[8:12]}-{folder[12:16]}-{folder[16:20]}-{folder[20:]}" if HEX32.fullmatch(folder) else folder
    session_id = str_of(state.get("id")) or dashed
    agent = dict_of(state.get("agent"))
    return [
        build_session(
            path,
            SOURCE,
            session_id,
            messages,
            cwd=dict_of(state.get("workspace")).get("working_dir"),
            project="OpenHands",
            meta={"model": dict_of(agent.get("llm")).get("model"), "session_usage": _session_usage(state)},
            resume=resume_command("openhands", session_id),
            warnings=warnings,
        )
    ]


FORMAT = SourceFormat(
    name=SOURCE,
    label="OpenHands conversation",
    sniff=sniff,
    parse=parse,
    tool="OpenHands",
    versions="OpenHands-CLI and software-agent-sdk of 2026-05 – 2026-08",
    places="`$OPENHANDS_CONVERSATIONS_DIR`, `$OPENHANDS_PERSISTENCE_DIR/conversations` or "
    "`~/.openhands/conversations` (all systems): `<id>/base_state.json` with its `events/`",
    resume="`openhands --resume <id>`",
    keeps="your words, the agent's words and thinking, tool calls with arguments and results (the `finish` "
    "message as the answer), rejections and errors, model and the session's token totals",
)
