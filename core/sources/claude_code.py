"""Claude Code session logs (`~/.claude/projects/<slug>/<session>.jsonl`).

One JSON object a line. `user`/`assistant` lines carry `message.content`, a
string or a list of parts; every other line type is bookkeeping, except the
title lines (`custom-title`, `ai-title`, `summary`).

Claude Code writes one API response as several lines, one per content part,
all with the same `message.id` (thinking, then text, then each tool_use).
Those lines become ONE Message, so a reply reads as the user saw it; lines of
another API response stay separate messages (pairing joins them into the turn).
User lines that only carry tool results are the tools talking, not the user.

Each of those lines repeats the response's `message.usage`; it is kept once
per `message.id` (the last line's, the final count) in `Message.meta["usage"]`,
with the 1-hour share of the cache writes (`cache_creation.ephemeral_1h_input_tokens`,
billed at another price) and the response's `message.model` in `meta["model"]`.
A sub-agent's lines copied into `progress` lines keep no usage: Claude Code
also writes them to the sub-agent's own file, which counts them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path, PureWindowsPath
from typing import Any

from convo_tui.core.model import ASSISTANT, SYSTEM, USER, Message, Role, Session, ToolCall
from convo_tui.core.resume import command as resume_command
from convo_tui.core.sources import SessionPart, SourceFormat, read_lines
from convo_tui.core.sources._anthropic import Parts, api_usage
from convo_tui.core.sources._claude_text import clean_user_text
from convo_tui.core.sources._common import (
    Names,
    clip,
    head_records,
    json_error_reason,
    json_records,
    title_from_messages,
    to_utc,
)
from convo_tui.core.sources._drift import unknown

SOURCE = "claude-code"
_LINE_TYPE = re.compile(
    r'"type"\s*:\s*"(user|assistant|summary|system|file-history-snapshot|queue-operation|custom-title|ai-title|progress|attachment)"'
)
# Line types that hold nothing of the conversation.
_BOOKKEEPING = Names({"system", "file-history-snapshot", "queue-operation"})


_LINE_TYPES = Names(
    {
        "user",
        "assistant",
        "summary",
        "system",
        "file-history-snapshot",
        "queue-operation",
        "custom-title",
        "ai-title",
        "progress",
        "attachment",
    }
)


def sniff(path: Path, head: str) -> bool:
    records = head_records(head, 1)
    if records:  # a whole first line: its top-level `type` decides (a one-line JSON document of another tool is no log)
        return records[0].get("type") in _LINE_TYPES and ('"sessionId"' in head or '"leafUuid"' in head)
    first = next((line for line in head.splitlines() if line.strip()), "")
    if not first.lstrip().startswith("{"):
        return False
    return bool(_LINE_TYPE.search(first)) and ('"sessionId"' in head or '"leafUuid"' in head)


def _join(parts: list[str]) -> str:
    return "\n\n".join(p.strip() for p in parts if p and p.strip())


class Transcript:
    """Turns the lines of one file into messages and the session's naming facts.

    `messages` holds the part being read; with a `part_chars` bound, a part
    that reached it is closed when the user's next prompt arrives (a turn
    boundary) and waits in `ready` until the stream hands it out.
    """

    def __init__(self, path: Path, part_chars: int | None = None):
        self.path = path
        self.part_chars = part_chars
        self.messages: list[Message] = []
        self.ready: list[list[Message]] = []  # closed parts, not yet handed out
        self.numbered = 0  # messages before the current part
        self.part_size = 0  # characters in the current part
        self.first_title = ""  # the first user prompt's line, the title's last resort
        self.warnings: list[str] = []
        self.session_ids: dict[str, int] = {}  # sessionId -> lines carrying it
        self.calls: dict[str, ToolCall] = {}  # tool_use id -> call, to attach its result
        self._seen_progress: set[str] = set()  # sub-agent message uuids already read
        self.cwd: str | None = None
        self.custom_title = ""
        self.ai_title = ""
        self.summaries: list[tuple[str, str]] = []  # (leafUuid, summary)
        self.uuids: set[str] = set()
        # API message id -> the Message it became, while the assistant is replying.
        self._open_replies: dict[tuple[str, bool], Message] = {}
        # API message id -> the Message holding its usage: every line repeats it.
        self._usage_holders: dict[str, Message] = {}

    def feed(self, number: int, raw: str) -> None:
        """One line of the file."""
        if not raw.strip():
            return
        try:
            line = json.loads(raw)
        except json.JSONDecodeError as exc:
            self.warnings.append(f"{self.path}:{number}: {json_error_reason(exc, raw)}")
            return
        except RecursionError:
            self.warnings.append(f"{self.path}:{number}: JSON nested too deeply")
            return
        if not isinstance(line, dict):
            self.warnings.append(f"{self.path}:{number}: not a JSON object")
            return
        self.line(number, line)

    def _cut_before_prompt(self) -> None:
        """Close the current part before the user's next prompt, once it is big
        enough and ends with an answer (so no turn spans two parts)."""
        if self.part_chars is None or self.part_size < self.part_chars:
            return
        last = next((m for m in reversed(self.messages) if m.is_conversation), None)
        if last is None or last.role != ASSISTANT:
            return
        self.ready.append(self.messages)
        self.numbered += len(self.messages)
        self.messages, self.part_size = [], 0
        # What only the closed part's messages needed: their tool calls (results came
        # before this prompt) and their usage holders.
        self.calls.clear()
        self._usage_holders.clear()

    def read(self, text: str) -> None:
        """A whole log's lines (a stream of another tool's messages in this shape: claude_stream)."""
        for number, line in json_records(self.path, text, self.warnings):
            self.line(number, line)

    def line(self, number: int, line: dict[str, Any]) -> None:
        """Read one line of a session log (a JSON object)."""
        kind = line.get("type") if isinstance(line.get("type"), str) else ""
        if isinstance(line.get("sessionId"), str) and line["sessionId"].strip():
            self.session_ids[line["sessionId"]] = self.session_ids.get(line["sessionId"], 0) + 1
        if self.cwd is None and isinstance(line.get("cwd"), str) and line["cwd"].strip():
            self.cwd = line["cwd"]
        if isinstance(line.get("uuid"), str):
            self.uuids.add(line["uuid"])
        if kind == "custom-title" and isinstance(line.get("customTitle"), str):
            self.custom_title = line["customTitle"].strip() or self.custom_title
        elif kind == "ai-title" and isinstance(line.get("aiTitle"), str):
            self.ai_title = line["aiTitle"].strip() or self.ai_title
        elif kind == "summary" and isinstance(line.get("summary"), str):
            self.summaries.append((str(line.get("leafUuid") or ""), line["summary"].strip()))
        elif kind == "attachment":
            self._attachment(line)
        elif kind == "progress":
            self._progress(line)
        elif kind in (USER, ASSISTANT):  # a tuple: `type` may be an unhashable list
            message = line.get("message")
            if not isinstance(message, dict):
                self.warnings.append(f"{self.path}:{number}: {kind} line without a message")
                return
            if kind == USER:
                self._user(line, message)
            else:
                self._assistant(line, message)
        elif kind not in _BOOKKEEPING:
            unknown("record", kind or "(no type)")

    def _attachment(self, line: dict[str, Any]) -> None:
        """A prompt typed while the agent worked is stored only as a queued command."""
        attachment = line.get("attachment")
        if not isinstance(attachment, dict) or attachment.get("type") != "queued_command":
            return
        origin = attachment.get("origin")
        kind = origin.get("kind") if isinstance(origin, dict) else None
        mode = attachment.get("commandMode")
        if kind not in (None, "human") or mode not in (None, "prompt"):
            return  # task notifications and other machine-queued input
        prompt = attachment.get("prompt")
        text = clean_user_text(prompt) if isinstance(prompt, str) else ""
        if text:
            self._append(USER, text, "", [], line)
            self._open_replies.clear()

    def _progress(self, line: dict[str, Any]) -> None:
        """Claude Code 2.1 logs a sub-agent's messages inside `agent_progress` lines."""
        data = line.get("data")
        if not isinstance(data, dict) or data.get("type") != "agent_progress":
            return
        inner = data.get("message")
        if not isinstance(inner, dict) or not isinstance(inner.get("message"), dict):
            return
        uuid = inner.get("uuid")
        if isinstance(uuid, str):
            if uuid in self._seen_progress:
                return
            self._seen_progress.add(uuid)
        kind = inner.get("type") or inner["message"].get("role")
        nested = {**inner, "isSidechain": True, "timestamp": inner.get("timestamp") or line.get("timestamp")}
        nested.pop("uuid", None)  # the sub-agent's uuids are not this file's thread
        if kind == USER:
            self._user(nested, inner["message"])
        elif kind == ASSISTANT:
            self._assistant(nested, inner["message"], count_usage=False)

    def _user(self, line: dict[str, Any], message: dict[str, Any]) -> None:
        if line.get("isMeta"):
            return  # caveats and expansions Claude Code adds on the user's behalf
        reply = Parts().add(message.get("content"))
        for call_id, output in reply.outputs:
            call = self.calls.get(call_id)
            if call is not None and not call.result:
                call.result = output
                self.part_size += len(output)
        text = clean_user_text(_join(reply.texts))
        if not text:
            return  # only tool results, or only injected blocks
        role: Role = SYSTEM if line.get("isCompactSummary") else USER
        if role == USER and not line.get("isSidechain"):
            self._cut_before_prompt()
        self._append(role, text, "", [], line)
        self._open_replies.clear()

    def _assistant(self, line: dict[str, Any], message: dict[str, Any], count_usage: bool = True) -> None:
        reply = Parts().add(message.get("content"))
        self.calls.update(reply.call_ids)
        error = bool(line.get("isApiErrorMessage") or line.get("error"))
        if message.get("model") == "<synthetic>" and not error:
            return  # placeholder Claude Code writes after an interrupt, not the model's words
        sidechain = bool(line.get("isSidechain"))
        api_id = message.get("id")
        key = (api_id, sidechain) if isinstance(api_id, str) and api_id else None
        previous = self._open_replies.get(key) if key else None
        if previous is not None and not error:
            previous.text = _join([previous.text, *reply.texts])
            previous.thinking = _join([previous.thinking, *reply.thinking])
            previous.tools.extend(reply.tools)
            self._keep_usage(api_id, previous, api_usage(message) if count_usage else {}, message.get("model"))
            return
        if not (reply.texts or reply.thinking or reply.tools):
            holder = self._usage_holders.get(api_id) if isinstance(api_id, str) else None
            if holder is not None:  # an empty line of a reply still carries its latest count
                self._keep_usage(api_id, holder, api_usage(message) if count_usage else {}, message.get("model"))
            return
        merged = self._append(ASSISTANT, _join(reply.texts), _join(reply.thinking), reply.tools, line, error=error)
        if key and not error:
            self._open_replies[key] = merged
        self._keep_usage(api_id, merged, api_usage(message) if count_usage else {}, message.get("model"))

    def _keep_usage(self, api_id: Any, message: Message, usage: dict[str, int], model: Any) -> None:
        """One count per API message: a later line of the same id replaces the count, on the
        message that holds it, with the model that answered (the count's price depends on it)."""
        if not usage:
            return
        holder = message
        if isinstance(api_id, str) and api_id:
            holder = self._usage_holders.setdefault(api_id, message)
        holder.meta["usage"] = usage
        if isinstance(model, str) and model and model != "<synthetic>":
            holder.meta["model"] = model

    def _append(
        self, role: Role, text: str, thinking: str, tools: list[ToolCall], line: dict[str, Any], error: bool = False
    ) -> Message:
        meta = {"uuid": line["uuid"]} if isinstance(line.get("uuid"), str) else {}
        message = Message(
            id=f"msg-{self.numbered + len(self.messages)}",
            role=role,
            text=text,
            thinking=thinking,
            timestamp=to_utc(line.get("timestamp")),
            tools=list(tools),
            sidechain=bool(line.get("isSidechain")),
            error=error,
            meta=meta,
        )
        self.messages.append(message)
        self.part_size += len(text) + len(thinking) + 200 * len(tools)
        if not self.first_title and role == USER and not message.sidechain:
            self.first_title = title_from_messages([message], "")
        return message

    def title(self, messages: list[Message] | None = None) -> str:
        messages = self.messages if messages is None else messages
        if self.custom_title:
            return clip(self.custom_title)
        if self.ai_title:
            return clip(self.ai_title)
        for leaf, summary in reversed(self.summaries):
            if summary and (not leaf or leaf in self.uuids):
                return clip(summary)
        if self.first_title:
            return self.first_title
        main = [m for m in messages if not m.sidechain]
        return title_from_messages(main or messages, self.path.stem)


def _folder_name(cwd: str) -> str:
    """The last folder of a cwd written on Linux, macOS or Windows."""
    cwd = cwd.rstrip("/\\")
    return (PureWindowsPath(cwd) if "\\" in cwd else Path(cwd)).name or cwd


def _session_id(path: Path, ids: dict[str, int]) -> str:
    """The file's own id: its name, else the id most of its lines carry (a session
    started by "clear context and implement plan" opens with its parent's id)."""
    if path.stem.startswith("agent-"):
        return path.stem  # a sub-agent's own file shares its parent's sessionId
    return path.stem if path.stem in ids or not ids else max(ids, key=lambda sid: ids[sid])


def _session(reader: Transcript, session_id: str, messages: list[Message], *, final: bool) -> Session:
    path = reader.path
    project = _folder_name(reader.cwd) if reader.cwd else path.parent.name
    session = Session(
        id=session_id,
        title=reader.title(messages),
        project=project,
        source=SOURCE,
        path=str(path),
        messages=messages,
        meta={"cwd": reader.cwd} if reader.cwd else {},
        cwd=reader.cwd,
        resume=None if path.stem.startswith("agent-") else resume_command("claude", session_id),
        warnings=reader.warnings if final else [],
    )
    session.fill_times()
    return session


def stream(path: Path, part_chars: int | None) -> Iterator[SessionPart]:
    """The file's session in parts of about `part_chars` characters (None: one part),
    reading one line at a time."""
    path = Path(path)
    reader = Transcript(path, part_chars)
    notes: list[str] = []
    session_id: str | None = None
    first = 0
    for number, raw in read_lines(path, notes):
        reader.feed(number, raw)
        while reader.ready:
            messages = reader.ready.pop(0)
            # The id is fixed by the first part: later parts must land in the same session.
            session_id = session_id or _session_id(path, reader.session_ids)
            yield SessionPart(_session(reader, session_id, messages, final=False), first, last=False)
            first += len(messages)
    if not reader.messages and session_id is None:
        return
    session = _session(reader, session_id or _session_id(path, reader.session_ids), reader.messages, final=True)
    session.warnings[:0] = [note for note in notes if note not in session.warnings]
    yield SessionPart(session, first, last=True)


def parse(path: Path) -> list[Session]:
    parts = list(stream(path, None))
    return [parts[0].session] if parts else []


FORMAT = SourceFormat(
    name=SOURCE,
    label="Claude Code session log",
    sniff=sniff,
    parse=parse,
    version=4,
    stream=stream,
    tool="Claude Code",
    versions="1.0 – 2.1 (session logs of 2025-06 – 2026-07)",
    places="`$CLAUDE_CONFIG_DIR/projects` (comma-separated list allowed), else `$XDG_CONFIG_HOME/claude/projects` or `~/.config/claude/projects`, and `~/.claude/projects`; the same on every system",
    resume="`claude --resume <id>`",
    keeps="text, thinking, tool calls with their results, prompts queued while the agent worked, sub-agent messages shown apart (sidechain); injected `<system-reminder>` blocks are not your words; project and folder from `cwd`; tokens per API message",
)
