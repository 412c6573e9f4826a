"""Aider chat history (`.aider.chat.history.md` at the root of each repository).

Markdown that Aider appends to: `# aider chat started at <local time>` opens a
session; the user's lines start with `#### ` (a multi-line prompt is several
such lines); `> ` lines are Aider's own output (banner, applied edits,
commits, command output); the assistant's answer is the markdown in between.
`> Applied edit to <file>` and `> Commit <sha> <message>` become tool calls on
the answer before them; the output of a `/run`, `/test` or `!` command the
user typed becomes a `run` tool call with that output as its result.
The start times are the local time of the machine that wrote them (no zone is
recorded); they are read as UTC.

Reasoning is in the answer as Aider received it (`base_coder.py` appends the
raw reply): wrapped in Aider's own `<thinking-content-7bbeb8e1…>` tag when the
API returned it apart (DeepSeek R1, OpenRouter reasoning), or in the model's
literal `<think>…</think>` (local reasoning models; some emit only the closing
tag, so everything before it is thinking). Outside code fences, those blocks
are the answer's thinking, not its text (`aider/reasoning_tags.py`).
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from convo_tui.core.model import ASSISTANT, USER, Message, Session, ToolCall
from convo_tui.core.resume import command as resume_command
from convo_tui.core.sources import SourceFormat, read_text
from convo_tui.core.sources._common import clip_result, number_messages, title_from_messages
from convo_tui.core.sources._drift import unknown

SOURCE = "aider"
FILE_NAME = ".aider.chat.history.md"
_START = re.compile(r"^# aider chat started at (\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2})\s*$")
_APPLIED = re.compile(r"^Applied edit to (.+?)\s*$")
_COMMIT = re.compile(r"^Commit ([0-9a-f]{7,40}) (.+?)\s*$")
_RUN_COMMAND = re.compile(r"^(?:/(?:run|test|git)\s+|!)(.+)$", re.DOTALL)
_REASONING_TAG = r"think|thinking-content-[0-9a-f]{32}"
_OPEN = re.compile(rf"^\s*<({_REASONING_TAG})>\s*(.*)$")
_CLOSE = re.compile(rf"^(.*?)</({_REASONING_TAG})>\s*(.*)$")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
# A reasoning wrapper of another name (`<thinking>`, `<reasoning>`): counted, so a new one is noticed.
_OTHER_REASONING = re.compile(r"^\s*<(thinking|reasoning|thought|reflection)>\s*$")


def split_reasoning(text: str) -> tuple[str, str]:
    """(answer, thinking): `<think>` / `<thinking-content-…>` blocks outside code fences
    are thinking; a closing tag with no opening one makes everything before it thinking;
    an opening tag never closed (a cut reply) makes everything after it thinking."""
    answer: list[str] = []
    thinking: list[str] = []
    fence: str | None = None
    inside = False
    for line in text.split("\n"):
        fenced = _FENCE.match(line)
        if fence is None and fenced and not inside:
            fence = fenced.group(1)
            answer.append(line)
            continue
        if fence is not None:
            if fenced and fenced.group(1)[0] == fence[0] and len(fenced.group(1)) >= len(fence):
                fence = None
            answer.append(line)
            continue
        if _OTHER_REASONING.match(line):
            unknown("part", line.strip())
        opened = _OPEN.match(line) if not inside else None
        if opened:
            inside, line = True, opened.group(2)
        closed = _CLOSE.match(line)
        if closed and inside:
            thinking.append(closed.group(1))
            inside = False
            if closed.group(3):
                answer.append(closed.group(3))
        elif closed and not thinking and not opened:
            thinking.extend([*answer, closed.group(1)])  # only the closing tag was written
            answer = [closed.group(3)] if closed.group(3) else []
        else:
            (thinking if inside else answer).append(line)
    return "\n".join(answer).strip(), "\n".join(thinking).strip()


def sniff(path: Path, head: str) -> bool:
    if path.is_dir():
        return False
    for line in head.splitlines():
        if line.strip():
            return bool(_START.match(line.strip()))
    return False


class _Chat:
    """One `# aider chat started at` section while its lines are read."""

    def __init__(self, started: datetime | None):
        self.started = started
        self.messages: list[Message] = []
        self.user: list[str] = []
        self.answer: list[str] = []
        self.output: list[str] = []

    def line(self, line: str) -> None:
        if line.startswith("####"):
            self._close_answer()
            self._close_output()
            self.user.append(line[5:] if line.startswith("#### ") else line[4:])
        elif line.startswith(">"):
            self._close_user()
            if self.answer and any(a.strip() for a in self.answer):
                self._close_answer()
            self.output.append(line[2:] if line.startswith("> ") else line[1:])
        else:
            self._close_user()
            self._close_output()
            self.answer.append(line)

    def _close_user(self) -> None:
        text = "\n".join(line.rstrip() for line in self.user).strip()
        self.user = []
        if text:
            self.messages.append(Message(id="", role=USER, text=text, timestamp=self.started))

    def _reply(self) -> Message:
        if not self.messages or self.messages[-1].role != ASSISTANT:
            self.messages.append(Message(id="", role=ASSISTANT, text="", timestamp=self.started))
        return self.messages[-1]

    def _close_answer(self) -> None:
        text, thinking = split_reasoning("\n".join(self.answer))
        self.answer = []
        if text or thinking:
            reply = self._reply()
            reply.text = "\n\n".join(p for p in (reply.text, text) if p)
            reply.thinking = "\n\n".join(p for p in (reply.thinking, thinking) if p)

    def _close_output(self) -> None:
        lines = [line.rstrip() for line in self.output]
        self.output = []
        if not any(lines):
            return
        asked = self.messages[-1].text if self.messages and self.messages[-1].role == USER else ""
        command = _RUN_COMMAND.match(asked)
        if command:
            self._reply().tools.append(ToolCall("run", {"command": command.group(1).strip()}, clip_result("\n".join(lines))))
            return
        for line in lines:
            applied = _APPLIED.match(line)
            commit = _COMMIT.match(line)
            if applied and self.messages:
                self._reply().tools.append(ToolCall("edit", {"path": applied.group(1)}))
            elif commit and self.messages:
                self._reply().tools.append(ToolCall("commit", {"sha": commit.group(1), "message": commit.group(2)}))

    def finish(self) -> list[Message]:
        self._close_user()
        self._close_answer()
        self._close_output()
        return [m for m in self.messages if m.text or m.thinking or m.tools]


def _started(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text.replace(" ", "T")).replace(tzinfo=UTC)
    except ValueError:
        return None


def parse(path: Path) -> list[Session]:
    path = Path(path)
    chats: list[_Chat] = []
    for raw in read_text(path).splitlines():
        start = _START.match(raw.strip())
        if start:
            chats.append(_Chat(_started(start.group(1))))
        elif chats:
            chats[-1].line(raw)
    folder = path.absolute().parent
    sessions: list[Session] = []
    ids: Counter[str] = Counter()
    for chat in chats:
        messages = chat.finish()
        if not any(m.role == USER for m in messages):
            continue  # started and left: only the banner
        number_messages(messages)
        stamp = chat.started.strftime("%Y-%m-%dT%H:%M:%S") if chat.started else str(len(sessions))
        # Two chats started in the same second (a script running `aider --message` in a
        # loop) were one id: the second replaced the first in the index.
        ids[stamp] += 1
        session = Session(
            id=f"{folder.name}@{stamp}" + (f"#{ids[stamp]}" if ids[stamp] > 1 else ""),
            title=title_from_messages(messages, folder.name),
            project=folder.name,
            source=SOURCE,
            path=str(path),
            messages=messages,
            started_at=chat.started,
            cwd=str(folder),
            # Aider reopens a repository's whole chat history, not one session of it.
            resume=resume_command("aider"),
        )
        session.fill_times()
        sessions.append(session)
    return sessions


FORMAT = SourceFormat(
    name=SOURCE,
    label="Aider chat history",
    sniff=sniff,
    parse=parse,
    version=3,  # 3: chats started in the same second get ids of their own
    tool="Aider",
    versions="0.62 – 0.86 (`.aider.chat.history.md`)",
    places="`.aider.chat.history.md` in each repository (add the repository to `sources`)",
    resume="`aider --restore-chat-history` (restores the repository's whole history)",
    keeps="one session per `# aider chat started at`; `####` lines are yours; reasoning (`<think>`, "
    "`<thinking-content-…>`) as thinking; applied edits, commits and `/run` output as tool calls; times are the "
    "writer's local time, read as UTC",
)
